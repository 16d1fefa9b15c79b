//! Per-slot columns that take no memory until used, and slots gathered
//! into rows of their own.
//!
//! # Invariants ([`Column::check`])
//! A column is empty (every slot at the default) or holds one value per
//! slot.

use crate::dim::Row;
use crate::narrow::Balls;
use crate::narrow::{Filters, Narrow, Shapes};
use crate::tree::BallOf;
use crate::tree::TreeRow;

/// A per-slot value most objects leave at its default: no memory until
/// one object differs.
#[derive(Clone, Debug)]
pub(in crate::tree) struct Column<T> {
    v: Vec<T>,
    default: T,
}

impl<T: Copy + PartialEq> Column<T> {
    pub fn new(default: T) -> Self {
        Column {
            v: Vec::new(),
            default,
        }
    }

    #[inline(always)]
    pub fn get(&self, h: usize) -> T {
        self.v.get(h).copied().unwrap_or(self.default)
    }

    /// Set slot `h` of `slots`.
    pub fn set(&mut self, h: usize, x: T, slots: usize) {
        if self.v.is_empty() {
            if x == self.default {
                return;
            }
            self.v.resize(slots, self.default);
        }
        self.v[h] = x;
    }

    /// Set slot `h` of `slots`, the column made even for the default: for
    /// columns that readers index at every slot once any object of a kind
    /// uses them (the circles, as soon as there is one circle).
    pub fn set_used(&mut self, h: usize, x: T, slots: usize) {
        if self.v.is_empty() {
            self.v.resize(slots, self.default);
        }
        self.v[h] = x;
    }

    pub fn grow(&mut self, slots: usize) {
        if !self.v.is_empty() {
            self.v.resize(slots, self.default);
        }
    }

    /// Every slot's value (only once some object differs from the default).
    pub fn all(&self) -> &[T] {
        &self.v
    }

    pub fn check(&self, slots: usize, name: &str) -> Result<(), String> {
        if self.v.is_empty() || self.v.len() == slots {
            Ok(())
        } else {
            Err(format!("{name}: {} values for {slots} slots", self.v.len()))
        }
    }
}

/// Some slots gathered into rows of their own.
pub(in crate::tree) struct Rows<const N: usize = 4>
where
    [f64; N]: Row,
{
    pub boxes: Vec<[f64; N]>,
    pub circles: Vec<BallOf<N>>,
    pub kinds: Vec<u8>,
    pub groups: Vec<i64>,
    pub cats: Vec<u64>,
    pub masks: Vec<u64>,
}

impl<const N: usize> Rows<N>
where
    [f64; N]: TreeRow<N>,
{
    /// The narrow phase over the rows: `of_slots`' (the slots') shapes and
    /// filters, read from the rows.
    pub fn narrow(&self, of_slots: Narrow) -> Narrow<'_> {
        let mut n = of_slots;
        let shapes = if let Shapes::Mixed { .. } | Shapes::MixedSpheres { .. } = n.shapes {
            <[f64; N]>::mixed(&self.kinds, &self.circles, &self.boxes)
        } else {
            Shapes::Boxes
        };
        Narrow {
            shapes,
            filters: Filters {
                groups: n.filters.groups.take().map(|_| &self.groups[..]),
                categories: n.filters.categories.take().map(|_| &self.cats[..]),
                masks: n.filters.masks.take().map(|_| &self.masks[..]),
            },
        }
    }
}

/// `v` at the slots `at` (nothing for a column no object uses).
pub fn gather_rows<T: Copy>(v: &[T], at: &[u32]) -> Vec<T> {
    if v.is_empty() {
        return Vec::new();
    }
    at.iter().map(|&h| v[h as usize]).collect()
}
