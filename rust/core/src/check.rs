//! One pass over the input: the first bad row (if any) and the bounds.
//!
//! Validation must not cost a noticeable share of a pair search, so one
//! chunked pass checks every row and accumulates the bounds.  Chunks are
//! fixed by `n`, and the first bad row is the smallest index over chunks, so
//! the error names the same row for any thread count.  The caller (the
//! Python layer) turns a [`BadRow`] into a message naming the argument, the
//! row and the value.

use crate::dim::{empty_bounds, hi, lo, union, Row};
use crate::par::{even_bounds, Exec};

/// What is wrong with a row.  The discriminants are the codes the Python
/// layer receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// A coordinate (or radius) is NaN or infinite.
    NotFinite = 1,
    /// `minx > maxx`.
    XReversed = 2,
    /// `miny > maxy`.
    YReversed = 3,
    /// A radius below zero.
    NegativeRadius = 4,
    /// `minz > maxz` (3D boxes).
    ZReversed = 5,
    /// The object spans more than half the period on the periodic x axis
    /// (a box's width, a ball's diameter).
    XWide = 6,
    /// More than half the period on the periodic y axis.
    YWide = 7,
    /// More than half the period on the periodic z axis.
    ZWide = 8,
    /// A coordinate more than `2^22` of a triclinic cell's smallest sides
    /// from the origin.
    Far = 9,
}

impl Problem {
    /// The side of axis `k` (0: x, 1: y, 2: z) reversed.
    fn reversed(k: usize) -> Problem {
        [Problem::XReversed, Problem::YReversed, Problem::ZReversed][k]
    }

    /// More than half the period on axis `k` (0: x, 1: y, 2: z).
    pub fn wide(k: usize) -> Problem {
        [Problem::XWide, Problem::YWide, Problem::ZWide][k]
    }
}

/// The first bad row of an input and what is wrong with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadRow {
    /// Row index.
    pub row: usize,
    /// What is wrong.
    pub problem: Problem,
}

const CHUNK: usize = 1 << 15;

/// What is wrong with a box (2D or 3D, [`crate::dim`]), first found: not
/// finite, then x, then y, then z reversed.
#[inline]
pub fn box_problem<const N: usize>(b: &[f64; N]) -> Option<Problem> {
    if !b.iter().all(|v| v.is_finite()) {
        return Some(Problem::NotFinite);
    }
    (0..N / 2)
        .find(|&k| lo(b, k) > hi(b, k))
        .map(Problem::reversed)
}

fn first_bad(found: impl Iterator<Item = Option<BadRow>>) -> Option<BadRow> {
    found.flatten().next()
}

/// Bounds (`[minx, miny, maxx, maxy]` in 2D, a box row in 3D) of valid
/// boxes, or the first bad row.
///
/// An empty input has the bounds [`empty_bounds`] (`[inf, inf, -inf, -inf]`).
pub fn scan_boxes<const N: usize>(boxes: &[[f64; N]], ex: &Exec) -> Result<[f64; N], BadRow>
where
    [f64; N]: Row,
{
    let n = boxes.len();
    let nch = n.div_ceil(CHUNK).max(1);
    let bounds = even_bounds(n, nch);
    let ex = ex.for_work(n, 2 * CHUNK);
    let parts = ex.map(nch, |c| {
        let rows = &boxes[bounds[c]..bounds[c + 1]];
        if let Some(acc) = valid_bounds(rows) {
            return Ok(acc);
        }
        // a bad row is in this chunk: the rules in order name it
        let mut acc = empty_bounds();
        for (k, b) in rows.iter().enumerate() {
            if let Some(problem) = box_problem(b) {
                return Err(BadRow {
                    row: bounds[c] + k,
                    problem,
                });
            }
            acc = union(acc, *b);
        }
        Ok(acc)
    });
    if let Some(bad) = first_bad(parts.iter().map(|p| p.err())) {
        return Err(bad);
    }
    Ok(parts.into_iter().flatten().fold(empty_bounds(), union))
}

/// The bounds of `rows` if every row is valid ([`box_problem`] finds
/// nothing), else `None`; one pass with no branch per row, which the
/// compiler turns into vector instructions (the checks one row at a time,
/// in the order of the rules, cost several times as much).
///
/// Why it decides exactly what [`box_problem`] decides:
/// * `v * 0.0` is `±0.0` for a finite `v` and NaN for an infinite or NaN
///   one, and a sum of zeros is zero while a NaN stays: `finite` ends at
///   zero if and only if every coordinate is finite.
/// * For finite `lo` and `hi`, `hi - lo` is below zero if and only if
///   `lo > hi`: the difference of two different doubles never rounds to
///   zero (gradual underflow), and rounding keeps the sign (an overflow
///   gives an infinity of the same sign).  `least` starts at zero and only
///   falls below it when some row has a side reversed.  An infinite
///   coordinate can make a difference NaN, which the comparison passes
///   over, but `finite` has caught that row.
/// * The bounds' minima and maxima by comparison agree with [`union`]'s
///   when every value is finite, which is the only case they are returned.
fn valid_bounds<const N: usize>(rows: &[[f64; N]]) -> Option<[f64; N]> {
    let mut finite = [0.0f64; N];
    let mut least = [0.0f64; 3];
    let mut acc = empty_bounds::<N>();
    let d = N / 2;
    for r in rows {
        for k in 0..N {
            finite[k] += r[k] * 0.0;
        }
        for k in 0..d {
            let side = r[k + d] - r[k];
            least[k] = if side < least[k] { side } else { least[k] };
            acc[k] = if r[k] < acc[k] { r[k] } else { acc[k] };
            acc[k + d] = if r[k + d] > acc[k + d] {
                r[k + d]
            } else {
                acc[k + d]
            };
        }
    }
    let ok = finite.iter().all(|&z| z == 0.0) && least.iter().all(|&s| s >= 0.0);
    ok.then_some(acc)
}

/// The bounds of boxes taken as valid (circles' boxes may reach infinity: a
/// circle near the float limit spans past it).
pub fn bounds_of<const N: usize>(boxes: &[[f64; N]]) -> [f64; N] {
    boxes.iter().copied().fold(empty_bounds(), union)
}

/// The box of a valid circle `x, y, r`, rounded outward: each side the
/// double nearest to `x - r` etc. on the outer side, so the box holds the
/// whole disk, and is the exact box when the sides are doubles (`(4, 4, 4)`
/// gives `[0, 0, 8, 8]`): the one rule for every circle's box.
///
/// Why it suffices: two open disks (or an open disk and an open box) that
/// share a point share it strictly inside their exact boxes, so boxes that
/// hold the exact ones overlap strictly too.
#[inline]
pub fn circle_box(c: &[f64; 3]) -> [f64; 4] {
    ball_box(c)
}

/// The box of a valid ball (a row of `C = N / 2 + 1` values: the centre,
/// then the radius; [`crate::dim`]), rounded outward as [`circle_box`]'s:
/// a sphere `x, y, z, r` gives `[x - r, y - r, z - r, x + r, y + r, z + r]`,
/// each side the nearest double on the outer side.
#[inline]
pub fn ball_box<const C: usize, const N: usize>(c: &[f64; C]) -> [f64; N] {
    const { assert!(C == N / 2 + 1, "a ball row is its centre and its radius") };
    let r = c[C - 1];
    std::array::from_fn(|k| {
        if k < N / 2 {
            down(c[k], -r)
        } else {
            up(c[k - N / 2], r)
        }
    })
}

/// `a + b` rounded down: the rounded sum, one double lower when it rounded
/// up (Knuth's two-sum gives the rounding error exactly; an infinite sum is
/// kept, its error is not a number).
#[inline]
fn down(a: f64, b: f64) -> f64 {
    let (s, e) = crate::narrow::two_sum(a, b);
    if e < 0.0 {
        s.next_down()
    } else {
        s
    }
}

/// `a + b` rounded up (see [`down`]).
#[inline]
fn up(a: f64, b: f64) -> f64 {
    let (s, e) = crate::narrow::two_sum(a, b);
    if e > 0.0 {
        s.next_up()
    } else {
        s
    }
}

/// Outward-rounded bounding boxes of `(x, y, r)` rows, or the first bad row.
///
/// `x - r` may round up; rounding each side outward ([`circle_box`]) makes
/// every box contain its circle, so the strict box test never drops a pair.
pub fn circle_boxes(circles: &[[f64; 3]], ex: &Exec) -> Result<Vec<[f64; 4]>, BadRow> {
    ball_boxes(circles, ex)
}

/// [`circle_boxes`] of balls in 2D or 3D (rows of `C = N / 2 + 1` values,
/// the centre then the radius; [`ball_box`]).
pub fn ball_boxes<const C: usize, const N: usize>(
    balls: &[[f64; C]],
    ex: &Exec,
) -> Result<Vec<[f64; N]>, BadRow>
where
    [f64; N]: Row + crate::scratch::Pooled,
{
    let n = balls.len();
    let nch = n.div_ceil(CHUNK).max(1);
    let bounds = even_bounds(n, nch);
    let ex = ex.for_work(n, 2 * CHUNK);
    let mut out = crate::scratch::filled(n, [0.0f64; N]);
    // each chunk: its first bad row, if any
    let bad = ex.chunks_mut(&mut out, &bounds, |_, lo, part| {
        for (t, b) in part.iter_mut().enumerate() {
            let c = &balls[lo + t];
            let problem = if !c.iter().all(|v| v.is_finite()) {
                Problem::NotFinite
            } else if c[C - 1] < 0.0 {
                Problem::NegativeRadius
            } else {
                *b = ball_box(c);
                continue;
            };
            return Some(BadRow {
                row: lo + t,
                problem,
            });
        }
        None
    });
    match first_bad(bad.into_iter()) {
        Some(b) => Err(b),
        None => Ok(out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bad_row_for_any_threads() {
        let mut boxes = vec![[0.0, 0.0, 1.0, 1.0]; 200_000];
        boxes[150_000] = [2.0, 0.0, 1.0, 1.0];
        boxes[70_000] = [0.0, 2.0, 1.0, 1.0];
        boxes[199_999] = [f64::NAN, 0.0, 1.0, 1.0];
        for w in [1, 2, 4] {
            let r = scan_boxes(&boxes, &Exec::new(Some(w)));
            assert_eq!(
                r,
                Err(BadRow {
                    row: 70_000,
                    problem: Problem::YReversed
                })
            );
        }
        boxes[70_000] = [0.0, -2.0, 1.0, 1.0];
        boxes[150_000] = [0.0, 0.0, 1.0, 1.0];
        boxes[199_999] = [0.0, 0.0, 1.0, 7.0];
        assert_eq!(
            scan_boxes(&boxes, &Exec::new(Some(2))),
            Ok([0.0, -2.0, 1.0, 7.0])
        );
    }

    proptest::proptest! {
        /// The first bad row and the bounds, against a plain reading of the
        /// rules: rows of any values (NaNs, infinities, reversed sides) at
        /// any places, chunks of rows in parallel or not.
        #[test]
        fn scan_boxes_finds_what_box_problem_finds(
            n in 0usize..70_000,
            bad in proptest::collection::vec((0usize..70_000, 0usize..6), 0..4),
            w in 1usize..3,
        ) {
            let mut boxes: Vec<[f64; 4]> = (0..n)
                .map(|k| {
                    let x = (k % 977) as f64 - 400.0;
                    [x, -x, x + (k % 5) as f64, -x + 1.0]
                })
                .collect();
            for &(at, what) in &bad {
                if let Some(b) = boxes.get_mut(at) {
                    match what {
                        0 => b[1] = f64::NAN,
                        1 => b[2] = f64::INFINITY,
                        2 => b[0] = f64::NEG_INFINITY,
                        3 => b[0] = b[2] + 1.0,
                        4 => b[3] = b[1] - 0.5,
                        _ => b[3] = -0.0,
                    }
                }
            }
            let want = match boxes
                .iter()
                .enumerate()
                .find_map(|(row, b)| box_problem(b).map(|problem| BadRow { row, problem }))
            {
                Some(badrow) => Err(badrow),
                None => Ok(bounds_of(&boxes)),
            };
            proptest::prop_assert_eq!(scan_boxes(&boxes, &Exec::new(Some(w))), want);
        }
    }

    #[test]
    fn valid_bounds_decides_as_box_problem_at_the_edges() {
        let (inf, tiny, big) = (f64::INFINITY, f64::from_bits(1), f64::MAX);
        let edges = [
            [0.0, 0.0, -0.0, 1.0],  // -0.0 is not below 0.0
            [-0.0, 0.0, 0.0, -0.0], // degenerate
            [tiny, 0.0, 0.0, 1.0],  // reversed by the least subnormal
            [0.0, tiny, 1.0, 0.0],  // the same in y
            [-big, 0.0, big, 1.0],  // the side overflows to +inf: valid
            [big, 0.0, -big, 1.0],  // overflows to -inf: reversed
            [inf, 0.0, inf, 1.0],   // inf - inf is NaN: not finite
            [-inf, 0.0, 1.0, 1.0],
            [0.0, f64::NAN, 1.0, 1.0],
            [0.0, 0.0, 1.0, f64::NAN],
            [1.0, 2.0, 1.0, 2.0],
        ];
        let ok = [[-3.0, -4.0, 5.0, 6.0]; 9];
        for e in edges {
            let mut rows = ok.to_vec();
            rows[4] = e;
            let want = box_problem(&e).is_none();
            assert_eq!(valid_bounds(&rows).is_some(), want, "{e:?}");
            if want {
                assert_eq!(valid_bounds(&rows), Some(bounds_of(&rows)), "{e:?}");
            }
        }
    }

    /// Each side is the nearest double on the outer side of the exact
    /// `x - r`, `x + r`: checked in integers, with `x = a / 2^40` and
    /// `r = b / 2^60` (every double near them is a multiple of 2^-60).
    #[test]
    fn circle_box_sides_are_the_nearest_outer_doubles() {
        let mut state = 7u64; // a 64-bit linear congruential generator's top 53 bits
        let mut rnd = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let scaled = |v: f64| {
            let t = v * 2f64.powi(60); // exact: a power of two
            assert_eq!(t.fract(), 0.0);
            t as i128
        };
        for _ in 0..20_000 {
            let a = ((rnd() - 0.5) * 2f64.powi(50)).round();
            let b = (rnd() * 2f64.powi(58 - (rnd() * 30.0) as i32)).round();
            let (x, r) = (a / 2f64.powi(40), b / 2f64.powi(60));
            let [lo, _, hi, _] = circle_box(&[x, 0.0, r]);
            let (a, b) = (a as i128 * (1 << 20), b as i128);
            assert!(
                scaled(lo) <= a - b && a - b < scaled(lo.next_up()),
                "{x} {r}"
            );
            assert!(
                scaled(hi.next_down()) < a + b && a + b <= scaled(hi),
                "{x} {r}"
            );
        }
    }

    #[test]
    fn circle_boxes_contain_their_circles() {
        let c = [[0.1, 0.2, 0.3], [1e308, -1e308, 1e308]];
        let b = circle_boxes(&c, &Exec::serial()).unwrap();
        assert!(b[0][0] <= 0.1 - 0.3 && b[0][2] >= 0.1 + 0.3);
        assert_eq!(b[1][2], f64::INFINITY);
        assert_eq!(b[1][1], f64::NEG_INFINITY);
        // exact sides stay: the box of the disk, not one double wider
        assert_eq!(circle_box(&[4.0, 4.0, 4.0]), [0.0, 0.0, 8.0, 8.0]);
        let bad = [[0.0, 0.0, 1.0], [0.0, 0.0, -1.0], [f64::NAN, 0.0, 1.0]];
        assert_eq!(
            circle_boxes(&bad, &Exec::serial()),
            Err(BadRow {
                row: 1,
                problem: Problem::NegativeRadius
            })
        );
    }
}
