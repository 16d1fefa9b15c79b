//! Sorting what is nearly sorted already: the kept orders of the moving
//! tree (a cell's entries, few boxes' sweep order) and the rows of the
//! canonical pair order.
//!
//! An insertion sort costs one comparison per element and one move per
//! place an element travels, so on an order that changed little since it
//! was last sorted it is linear.  On an order far from sorted it would be
//! quadratic, so it counts the places moved and hands over to a library
//! sort once they pass a few per element: a sort never costs more than
//! `O(n log n)` beyond the insertion sort's first `O(n)` moves.

/// Sort `a` by `key` (never NaN): an insertion sort, handing over to a
/// library sort once elements have moved more than about four places each.
/// Equal keys keep no particular order.
#[inline]
pub fn sort_by_key<T: Copy, K: PartialOrd>(a: &mut [T], key: impl Fn(&T) -> K) {
    let mut budget = 4 * a.len() + 64;
    for t in 1..a.len() {
        let v = a[t];
        let kv = key(&v);
        let mut w = t;
        while w > 0 && key(&a[w - 1]) > kv {
            a[w] = a[w - 1];
            w -= 1;
        }
        a[w] = v;
        let moved = t - w;
        if moved > budget {
            a.sort_unstable_by(|x, y| key(x).partial_cmp(&key(y)).expect("keys are never NaN"));
            return;
        }
        budget -= moved;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Random orders (past the budget), sorted ones, and sorted ones with
        /// a few out of place, of integers and of floats by a key.
        #[test]
        fn sorts_like_a_sort(mut a in proptest::collection::vec(0u32..5000, 0..3000),
                             presorted in 0usize..3) {
            if presorted > 0 {
                a.sort_unstable();
                if presorted == 2 && a.len() > 2 {
                    let l = a.len();
                    a.swap(0, l - 1);
                }
            }
            let mut want = a.clone();
            want.sort_unstable();
            let mut floats: Vec<(f64, u32)> = a.iter().map(|&v| (v as f64 * -0.5, v)).collect();
            sort_by_key(&mut a, |&v| v);
            prop_assert_eq!(&a, &want);
            sort_by_key(&mut floats, |f| f.0);
            let mut back: Vec<u32> = floats.iter().map(|f| f.1).collect();
            back.reverse();
            prop_assert_eq!(back, want);
        }
    }
}
