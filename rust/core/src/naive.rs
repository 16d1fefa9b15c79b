//! The O(n^2) reference: every pair tested with the plain rules, sorted.
//!
//! Slow and obviously correct; every method is tested against it.  It shares
//! only the exact predicates of [`crate::narrow`], which have tests of their
//! own against integer arithmetic.

use crate::narrow::{boxes_overlap, Narrow};

/// Every colliding pair `(i, j)`, `i < j`, sorted.
pub fn pairs(boxes: &[[f64; 4]], narrow: &Narrow) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            // circles are judged by the circle rule alone, not their boxes
            let boxes_meet = narrow.circles.is_some() || boxes_overlap(&boxes[i], &boxes[j]);
            if boxes_meet && narrow.accept(i, j) {
                out.push((i, j));
            }
        }
    }
    out
}
