//! The set of linear constraints from their roots' intervals, kept by
//! selections: the bookkeeping of [`super::ends::quick`] and
//! [`super::slab::quick`], which read their roots each their own way.
//!
//! The decision is [`super::linear::quick`]'s: with every root in a proven
//! interval, the set is empty when the greatest lower end of the lower
//! roots (or 0) reaches the least upper end of the upper roots (or `S`);
//! it is not empty when every constraint was read and the greatest upper
//! end of the lower roots above 0 (or 0) lies below the least lower end of
//! the upper roots (or `S`), starting at 0 when no lower root lies above
//! 0, else at the lower root above 0 whose interval lies above every
//! other's; anything else is [`Quick::Unsure`].  Every step of [`Roots::add`]
//! is a selection: which constraint crosses where is as random as the
//! candidates.

use super::linear::Quick;

/// One constraint's root, in `[lo, hi]`, and its kind (all false for a
/// constraint that holds everywhere or is left unread).
#[derive(Clone, Copy, Debug)]
pub struct Root {
    /// The constraint's index.
    pub k: usize,
    /// A lower bound of the root.
    pub lo: f64,
    /// An upper bound of the root.
    pub hi: f64,
    /// It holds above the root.
    pub lower: bool,
    /// It holds below the root.
    pub upper: bool,
    /// A lower root above 0 (the set may start there).
    pub entering: bool,
}

/// The roots seen so far on `[0, S]`.
#[derive(Clone, Copy, Debug)]
pub struct Roots {
    /// `max(0, lower roots' low ends)` and `min(S, upper roots' high ends)`.
    low: f64,
    high: f64,
    /// `max(0, entering roots' high ends)` and `min(S, upper roots' low ends)`.
    low_hi: f64,
    high_lo: f64,
    read_all: bool,
    /// The entering root with the greatest low end (`usize::MAX`: none).
    best: usize,
    best_lo: f64,
    best_hi: f64,
    /// The greatest high end of the other entering roots.
    others_hi: f64,
}

impl Roots {
    /// None seen yet, on `[0, s_max]`.
    #[inline(always)]
    pub fn new(s_max: f64) -> Roots {
        Roots {
            low: 0.0,
            high: s_max,
            low_hi: 0.0,
            high_lo: s_max,
            read_all: true,
            best: usize::MAX,
            best_lo: f64::NEG_INFINITY,
            best_hi: f64::NEG_INFINITY,
            others_hi: f64::NEG_INFINITY,
        }
    }

    /// A constraint that had to be read was not (its root not finite).
    #[inline(always)]
    pub fn unread(&mut self, unread: bool) {
        self.read_all &= !unread;
    }

    /// One more root.
    #[inline(always)]
    pub fn add(&mut self, r: Root) {
        let Root {
            k,
            lo,
            hi,
            lower,
            upper,
            entering,
        } = r;
        self.low = if lower { self.low.max(lo) } else { self.low };
        self.high = if upper { self.high.min(hi) } else { self.high };
        self.high_lo = if upper {
            self.high_lo.min(lo)
        } else {
            self.high_lo
        };
        self.low_hi = if entering {
            self.low_hi.max(hi)
        } else {
            self.low_hi
        };
        let better = entering & (lo > self.best_lo);
        let beaten = if better { self.best_hi } else { hi };
        self.others_hi = if entering {
            self.others_hi.max(beaten)
        } else {
            self.others_hi
        };
        self.best = if better { k } else { self.best };
        self.best_lo = if better { lo } else { self.best_lo };
        self.best_hi = if better { hi } else { self.best_hi };
    }

    /// The set, as far as the intervals tell.
    #[inline(always)]
    pub fn answer(&self) -> Quick {
        if self.low >= self.high {
            Quick::Empty
        } else if !(self.read_all && self.low_hi < self.high_lo) {
            Quick::Unsure
        } else if self.best == usize::MAX {
            Quick::Zero
        } else if self.others_hi < self.best_lo {
            Quick::Root(self.best)
        } else {
            Quick::Unsure
        }
    }
}
