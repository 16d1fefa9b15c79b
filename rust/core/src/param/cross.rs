//! The exact order of a [`linear`] entry and a [`quadratic`] entry of one
//! ray: where a ray enters a box against where it enters a circle, so that
//! the first hit and the order of hits are exact among objects of both
//! kinds.
//!
//! # The comparison
//! A box entry above 0 is the root `r = -a/b` of a constraint `a + b s > 0`
//! with `b > 0` (and `a < 0`); a circle entry above 0 is the smaller root
//! `s-` of `f(s) = A s^2 + 2 B s + C` with `A > 0`, `B < 0`, `C > 0`,
//! `D = B^2 - A C > 0` ([`quadratic`]).  `f < 0` exactly between its roots
//! `s- < s+`, and the vertex `-B/A` lies between them, so:
//! * `f(r) < 0`: `s- < r < s+`, the box entry is later;
//! * `f(r) = 0`: `r` is a root, `s-` when `r` is at or before the vertex
//!   (`A r + B <= 0`), else `s+ > s-`;
//! * `f(r) > 0`: `r` is outside `[s-, s+]`, before `s-` when it is before
//!   the vertex (`A r + B < 0`), else after `s+`.
//!
//! Both signs are polynomials in the inputs: `b > 0`, so
//! `sign f(r) = sign(b^2 f(r)) = sign(A a^2 - 2 B a b + C b^2)` and
//! `sign(A r + B) = sign(B b - A a)`.  An entry at 0 comes before every
//! entry above 0.
//!
//! # Exactness
//! Counting roundings on a path as [`quadratic`] does, over `k` axes (`a`
//! and `b` of up to four terms 3, `A` and `B` `k + 3`, `C` `k + 2`):
//! `A a^2` `k + 5`, `2 B a b` `k + 6`, `C b^2` `k + 4`, the whole of
//! `b^2 f(r)` `k + 8`, `B b - A a` `k + 5`: at most 10 in 2D, 11 in 3D,
//! within the filter's 12 ([`super`]), and whatever the filter leaves
//! undecided is evaluated again exactly ([`super::Dyadic`]) by
//! [`exact_sign!`].

// written once for `Est` (Copy) and `Dyadic` (not): hence the clones
#![allow(clippy::clone_on_copy)]

use super::linear::{self, Lin};
use super::quadratic::{self, Quad};
use super::Num;
use std::cmp::Ordering;

/// `A = v.v`, `B = p.v`, `C = p.p - r^2` of a quadratic constraint.
fn abc<N: Num, const D: usize>(q: &Quad<D>) -> (N, N, N) {
    (q.a::<N>(), q.b::<N>(), q.c::<N>())
}

/// `b^2 f(-a/b)`: the sign of `f` at the linear root.
fn f_at_root<N: Num, const D: usize>(l: &Lin, q: &Quad<D>) -> N {
    let (qa, qb, qc) = abc::<N, D>(q);
    let (a, b) = (l.a.to::<N>(), l.b.to::<N>());
    qa * a.clone() * a.clone() - N::of(2.0) * qb * a * b.clone() + qc * b.clone() * b
}

/// `b (A r + B)` at the linear root `r = -a/b`: `B b - A a`.
fn past_vertex<N: Num, const D: usize>(l: &Lin, q: &Quad<D>) -> N {
    let (qa, qb, _) = abc::<N, D>(q);
    qb * l.b.to::<N>() - qa * l.a.to::<N>()
}

/// Where the root of `l` (its `b > 0`) lies relative to the smaller root of
/// `q` (a circle entry above 0: `A > 0`, `B < 0`, `D > 0`), exactly.
pub fn cmp_root_quad<const D: usize>(l: &Lin, q: &Quad<D>) -> Ordering {
    root_against(l, 1, q).0
}

/// Where the root `r` of `l` (whose `b` has the sign `sb`, non-zero) lies
/// against the roots `s- < s+` of `q` (`A > 0`, `D > 0`): `r` against `s-`,
/// then against `s+`, from the sign of `f(r)` and the side of the vertex
/// (`sign(A r + B) = sign(B b - A a) sb`), exactly.
pub fn root_against<const D: usize>(l: &Lin, sb: i32, q: &Quad<D>) -> (Ordering, Ordering) {
    let f = exact_sign!(N => f_at_root::<N, D>(l, q));
    if f < 0 {
        return (Ordering::Greater, Ordering::Less); // s- < r < s+
    }
    let side = exact_sign!(N => past_vertex::<N, D>(l, q)) * sb;
    between(f, side)
}

/// Where a point `x` with `sign f(x) = f` and `sign(A x + B) = side` lies
/// against the roots `s- < s+` of a quadratic with `A > 0`, `D > 0` (the
/// vertex lies between them).
pub fn between(f: i32, side: i32) -> (Ordering, Ordering) {
    use Ordering::{Equal, Greater, Less};
    match (f, side) {
        (f, _) if f < 0 => (Greater, Less),
        (0, s) if s <= 0 => (Equal, Less), // x = s-
        (0, _) => (Greater, Equal),        // x = s+
        (_, s) if s < 0 => (Less, Less),   // before s-
        _ => (Greater, Greater),           // after s+
    }
}

/// The order of a box entry and a circle entry of one ray, exactly.
pub fn cmp_entries<const D: usize>(x: &linear::Entry, y: &quadratic::Entry<D>) -> Ordering {
    match (x, y) {
        (linear::Entry::Zero, quadratic::Entry::Zero) => Ordering::Equal,
        (linear::Entry::Zero, quadratic::Entry::Root(_)) => Ordering::Less,
        (linear::Entry::Root(_), quadratic::Entry::Zero) => Ordering::Greater,
        (linear::Entry::Root(l), quadratic::Entry::Root(q)) => cmp_root_quad(l, q),
    }
}

#[cfg(test)]
mod tests;
