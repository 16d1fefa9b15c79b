//! A triclinic cell: its lattice vectors, validated, and the code of the
//! lattice shifts its ghost images carry.
//!
//! **Form.**  The vectors are the rows `a, b[, c]` of a lower-triangular
//! matrix `H` (the form LAMMPS, GROMACS and MDAnalysis keep): `a = (ax, 0,
//! 0)`, `b = (bx, by, 0)`, `c = (cx, cy, cz)`, with a positive diagonal,
//! and reduced: every tilt at most half the diagonal entry of its column
//! (`|bx|, |cx| <= ax / 2`, `|cy| <= by / 2`), up to [`TILT_SLACK`] of it
//! (cells written in single precision land a little past the half).  The
//! copies of a point `x` are `x + n H` for the integer row vectors `n`.
//!
//! **The brick is a cell.**  Column `k` of `H` is zero above row `k`, so
//! `(x - n H)_k` depends on `n_k, ..., n_{D-1}` only and on `n_k` through
//! `n_k H_kk`: choosing `n_{D-1}`, then `n_{D-2}`, ... puts every point
//! into the brick `[0, H_00) x ... x [0, H_(D-1)(D-1))`, one copy each.
//! So images canonical in the brick work as in an orthorhombic cell of
//! sides `H_kk` (`super::lattice_images`).
//!
//! **At most one copy meets.**  For `n != 0`, let `m` be the last axis
//! with `n_m != 0`: `(n H)_m = n_m H_mm`, so `|(n H)_m| >= H_mm`.  Two
//! copies of `i` that both met `j` would differ by such a vector, while
//! their boxes are within `w_i + w_j <= H_mm` of `j`'s on axis `m` (each
//! extent at most `H_mm / 2`, checked): impossible.  Balls: their boxes.
//!
//! **Ghost shifts.**  With canonical low sides (ball centres) in the brick
//! up to a small rounding `e` (`super::lattice_images`) and extents at
//! most half the diagonal, a copy `n H` of `i` that meets `j` has `|(n
//! H)_k| < 1.5 H_kk + 2 e` on every axis.  On the last axis that is
//! `|n_{D-1}| H_kk`, so `|n_{D-1}| <= 1`; on an earlier axis each later row
//! adds at most `|n_m| (1/2 + TILT_SLACK) H_kk` of tilt, so `|n_1| H_11 <
//! 2.002 H_11` and `|n_0| H_00 < 3.003 H_00` in 3D (`2.001 H_00` in 2D):
//! `|n_k| <= D - k` (the reach: 3, 2, 1 in 3D; 2, 1 in 2D).  Of `n` and `-n` only the lexicographically positive
//! one (last axis first) is made a ghost ([`ghost_code`]): a pair found
//! through `-n` is found through `n` from its other object.

use std::fmt;

/// How far past half the diagonal entry of its column a tilt may reach, as
/// a fraction of that entry: single-precision cells (GROMACS files) have
/// tilts of exactly half rounded up by about `1e-6`.
pub const TILT_SLACK: f64 = 1e-3;

/// How far from the origin a coordinate may lie, in the cell's smallest
/// sides ([`Lattice::too_far`]): then at most about `2^24` cells are
/// taken off an object on any axis (`|w_m| <= 2^22 + 0.501 sum |w_m'| +
/// 1` over the later axes), so the integer shifts stay exact and small,
/// and the rounding of the shifted coordinates small against the cell.
pub const FAR_SIDES: f64 = (1u64 << 22) as f64;

/// The most cells taken off an object on an axis: a bound the reduction
/// checks all the same (above what [`FAR_SIDES`] allows).
pub const MAX_WRAPS: f64 = (1u64 << 26) as f64;

/// Entries of `H` (non-zero ones) stay within `[1e-250, 1e250]` in
/// magnitude: products of an entry and a shift neither overflow nor
/// leave the normal range, so their rounding errors are exact (`fma`).
const TINY: f64 = 1e-250;
const HUGE: f64 = 1e250;

/// A validated triclinic cell, 2D or 3D ([module doc](self)).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lattice {
    rows: [[f64; 3]; 3],
    dims: usize,
    /// [`FAR_SIDES`] times the smallest side (exact: a power of two).
    far: f64,
}

/// What is wrong with a cell's vectors: the entry `(row, col)` of `H`
/// (the vector, the component).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // the fields are the entry's row and column
pub enum LatticeError {
    /// Not a finite number, or a non-zero entry outside `[1e-250, 1e250]`.
    Range { row: usize, col: usize },
    /// A diagonal entry not above zero.
    NotPositive { axis: usize },
    /// A non-zero entry right of the diagonal (`a` along x, `b` in the x-y plane).
    NotTriangular { row: usize, col: usize },
    /// A tilt above half the diagonal entry of its column.
    Tilted { row: usize, col: usize },
}

impl fmt::Display for LatticeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LatticeError::Range { row, col } => write!(
                f,
                "period[{row}][{col}]: expected 0 or a finite number within [1e-250, 1e250] in magnitude"
            ),
            LatticeError::NotPositive { axis } => {
                write!(f, "period[{axis}][{axis}]: expected a length > 0")
            }
            LatticeError::NotTriangular { row, col } => write!(
                f,
                "period[{row}][{col}]: expected 0: the cell's vectors as rows of a lower-triangular \
                 matrix (the first along x, the second in the x-y plane)"
            ),
            LatticeError::Tilted { row, col } => write!(
                f,
                "period[{row}][{col}]: expected a tilt at most half of period[{col}][{col}] in \
                 magnitude, up to 0.1% (a reduced cell: add or subtract earlier vectors to \
                 reduce it)"
            ),
        }
    }
}

impl Lattice {
    /// The cell of the vectors `rows` (`rows[m]` the `m`-th vector), 2D or 3D.
    pub fn new(rows: &[&[f64]]) -> Result<Lattice, LatticeError> {
        let dims = rows.len();
        assert!(matches!(dims, 2 | 3) && rows.iter().all(|r| r.len() == dims));
        let mut h = [[0.0; 3]; 3];
        for (m, r) in rows.iter().enumerate() {
            for (k, &x) in r.iter().enumerate() {
                if !x.is_finite() || (x != 0.0 && !(TINY..=HUGE).contains(&x.abs())) {
                    return Err(LatticeError::Range { row: m, col: k });
                }
                h[m][k] = x;
            }
        }
        for m in 0..dims {
            if h[m][m] <= 0.0 {
                return Err(LatticeError::NotPositive { axis: m });
            }
            if let Some(k) = (m + 1..dims).find(|&k| h[m][k] != 0.0) {
                return Err(LatticeError::NotTriangular { row: m, col: k });
            }
            if let Some(k) = (0..m).find(|&k| h[m][k].abs() > (0.5 + TILT_SLACK) * h[k][k]) {
                return Err(LatticeError::Tilted { row: m, col: k });
            }
        }
        let least = (0..dims).fold(f64::INFINITY, |m, k| m.min(h[k][k]));
        let lat = Lattice {
            rows: h,
            dims,
            far: FAR_SIDES * least,
        };
        lat.check();
        Ok(lat)
    }

    /// The invariants of the [module doc](self), asserted.
    pub fn check(&self) {
        for m in 0..self.dims {
            assert!(self.rows[m][m] > 0.0);
            for k in 0..3 {
                let x = self.rows[m][k];
                assert!(x.is_finite());
                assert!(k <= m || x == 0.0, "lower triangular");
                assert!(
                    k >= m || x.abs() <= (0.5 + TILT_SLACK) * self.rows[k][k],
                    "reduced"
                );
            }
        }
    }

    /// The dimension: 2 or 3.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Entry `(m, k)` of `H`: component `k` of vector `m`.
    #[inline(always)]
    pub fn at(&self, m: usize, k: usize) -> f64 {
        self.rows[m][k]
    }

    /// The brick's side on axis `k` (`H_kk`): the cell's height there.
    #[inline(always)]
    pub fn side(&self, k: usize) -> f64 {
        self.rows[k][k]
    }

    /// Whether a coordinate of `x` lies more than [`FAR_SIDES`] of the
    /// cell's smallest sides from the origin (such objects are refused).
    pub fn too_far(&self, x: &[f64]) -> bool {
        x.iter().any(|v| v.abs() > self.far)
    }

    /// Whether the cell is a box (no tilt): then it is the period per axis.
    pub fn is_orthorhombic(&self) -> bool {
        (0..self.dims).all(|m| (0..m).all(|k| self.rows[m][k] == 0.0))
    }
}

/// The tag bit every ghost of a lattice carries ([`crate::narrow::Imaged`]:
/// two images sharing a shift bit never pair, so ghosts pair only with
/// canonical images).
pub const GHOST: u32 = 1 << 6;

/// How far a ghost shift reaches on axis `k` of `dims` (module doc).
#[inline(always)]
fn reach(k: usize, dims: usize) -> i32 {
    (dims - k) as i32
}

/// The code of shift `n` (in `dims` axes) if it is a ghost's: within the
/// reach and lexicographically positive (last axis first); `None` else.
/// The codes are `0..` in lexicographic order, below [`GHOST`].
pub fn ghost_code(n: &[i32; 3], dims: usize) -> Option<u32> {
    let mut idx = 0i32;
    let mut zero = 0i32;
    for k in (0..dims).rev() {
        let r = reach(k, dims);
        if n[k].abs() > r {
            return None;
        }
        idx = idx * (2 * r + 1) + n[k] + r;
        zero = zero * (2 * r + 1) + r;
    }
    (idx > zero).then(|| (idx - zero - 1) as u32)
}

/// The shift of ghost code `code` in `dims` axes ([`ghost_code`]'s inverse).
pub fn ghost_shift(code: u32, dims: usize) -> [i32; 3] {
    let mut idx: i32 = (0..dims)
        .rev()
        .fold(0, |z, k| z * (2 * reach(k, dims) + 1) + reach(k, dims));
    idx += code as i32 + 1;
    let mut n = [0; 3];
    for (k, nk) in n.iter_mut().enumerate().take(dims) {
        let r = reach(k, dims);
        *nk = idx % (2 * r + 1) - r;
        idx /= 2 * r + 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_cover_the_positive_half() {
        for dims in [2, 3] {
            let mut seen = Vec::new();
            let r = |k: usize| if k < dims { reach(k, dims) } else { 0 };
            for c in -r(2)..=r(2) {
                for b in -r(1)..=r(1) {
                    for a in -r(0)..=r(0) {
                        let n = [a, b, c];
                        let neg = [-a, -b, -c];
                        let (p, q) = (ghost_code(&n, dims), ghost_code(&neg, dims));
                        // exactly one of n and -n is a ghost's, none for 0
                        assert_eq!(p.is_some() as u8 + q.is_some() as u8, u8::from(n != [0; 3]));
                        if let Some(code) = p {
                            assert!(code < GHOST);
                            assert_eq!(ghost_shift(code, dims), n);
                            seen.push(code);
                        }
                    }
                }
            }
            let count = seen.len() as u32;
            assert_eq!(count, if dims == 2 { 7 } else { 52 });
            assert!(seen.windows(2).all(|w| w[0] + 1 == w[1]), "dense, in order");
        }
        assert_eq!(ghost_code(&[4, 0, 0], 3), None);
        assert_eq!(ghost_code(&[0, 3, 0], 3), None);
        assert_eq!(ghost_code(&[3, 0, 0], 2), None);
    }

    #[test]
    fn cells_are_validated() {
        let ok = Lattice::new(&[&[2.0, 0.0], &[1.0, 3.0]]).unwrap();
        // a half tilt rounded up (single precision) is taken
        assert!(Lattice::new(&[&[2.0, 0.0], &[-1.000001, 3.0]]).is_ok());
        assert!(!ok.is_orthorhombic());
        assert_eq!(ok.side(1), 3.0);
        assert_eq!(
            Lattice::new(&[&[2.0, 0.0], &[1.01, 3.0]]),
            Err(LatticeError::Tilted { row: 1, col: 0 })
        );
        assert_eq!(
            Lattice::new(&[&[2.0, 0.5], &[0.0, 3.0]]),
            Err(LatticeError::NotTriangular { row: 0, col: 1 })
        );
        assert_eq!(
            Lattice::new(&[&[2.0, 0.0], &[0.0, -3.0]]),
            Err(LatticeError::NotPositive { axis: 1 })
        );
        assert_eq!(
            Lattice::new(&[&[2.0, 0.0], &[f64::NAN, 3.0]]),
            Err(LatticeError::Range { row: 1, col: 0 })
        );
        let box3 = Lattice::new(&[&[1.0, 0.0, 0.0], &[0.0, 2.0, 0.0], &[0.0, 0.0, 3.0]]).unwrap();
        assert!(box3.is_orthorhombic());
    }
}
