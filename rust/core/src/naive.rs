//! The O(n^2) reference: every pair tested with the plain rules, sorted.
//!
//! Slow and obviously correct; every method is tested against it.  It shares
//! only the exact predicates of [`crate::narrow`], which have tests of their
//! own against integer arithmetic.

use crate::narrow::{boxes_overlap, Narrow, Shapes, CIRCLE};

/// Every colliding pair `(i, j)`, `i < j`, sorted.
pub fn pairs(boxes: &[[f64; 4]], narrow: &Narrow) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for i in 0..boxes.len() {
        for j in i + 1..boxes.len() {
            // a circle is judged by its shape alone, not its box
            let boxes_meet = match narrow.shapes {
                Shapes::Boxes => boxes_overlap(&boxes[i], &boxes[j]),
                Shapes::Circles(_) => true,
                Shapes::Mixed { kinds, .. } => {
                    kinds[i] == CIRCLE || kinds[j] == CIRCLE || boxes_overlap(&boxes[i], &boxes[j])
                }
            };
            if boxes_meet && narrow.accept(i, j) {
                out.push((i, j));
            }
        }
    }
    out
}
