//! Few boxes kept in sweep order from one search to the next.
//!
//! Below [`search::SWEEP_BELOW`] boxes a search from scratch sorts and
//! sweeps ([`crate::sweep`]): it picks the sparser axis, quantizes every
//! box's low edge, radix-sorts the keys and sweeps.  The moving tree
//! searches from scratch when most of its objects moved (a game's few
//! hundred sprites, every frame), and objects that move every frame move a
//! little: the order of the last search is nearly the order of this one.
//! So the tree keeps the order ([`State`]) and puts it right by an
//! insertion sort on the low edges themselves, and the sweep stops on the
//! coordinates, with nothing quantized.
//!
//! # Derivation
//! Order the boxes by their low edge `lo` on the sweep axis.  The box test
//! is strict, so a box `a` can meet a box `b` after it only if
//! `lo_b < hi_a`; `lo` never decreases along the order, so the first `b`
//! with `lo_b >= hi_a` ends `a`'s run: every box after it misses `a` as
//! well.  Each unordered pair is tested once, from whichever of its two
//! boxes comes first, and no overlapping pair is missed.  The canonical
//! order of the result makes it independent of the order among equal low
//! edges.
//!
//! # When it starts anew
//! The order is made anew (a full sort) when the number of boxes changed
//! or the sweep axis did (chosen every search as a search from scratch
//! chooses it).  The insertion sort hands over to a library sort when the
//! boxes moved far (more moves than a few per box), so a search never
//! costs more than `O(n log n)` and the sweep.

use crate::check::bounds_of;
use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::{canonical_with, finish, Buckets, Budget, Sink, TooMany};
use crate::par::Exec;
use crate::search;
use crate::sweep;

/// The sweep order of the last search: box indices by their low edge on
/// `axis`.
#[derive(Clone, Debug, Default)]
pub struct State {
    order: Vec<u32>,
    axis: usize,
}

impl State {
    /// Let the order go (its memory), to be made again by the next search.
    pub fn clear(&mut self) {
        self.order = Vec::new();
    }
}

/// Whether [`find`] serves `n` boxes: where a search from scratch would
/// sweep (fewer are tested in all pairs at once).
pub fn serves(n: usize) -> bool {
    (search::BRUTE_BELOW..search::SWEEP_BELOW).contains(&n)
}

/// Every colliding pair of `boxes` (few: [`serves`]), canonical, and the
/// candidate tests; the same pairs packed (`i << 32 | j`, sorted) into
/// `packed` (cleared first, its capacity reused) unless they were too
/// many.  The sweep order is kept in `state` for the next call.
pub fn find(
    boxes: &[[f64; 4]],
    narrow: &Narrow,
    max_pairs: Option<u64>,
    state: &mut State,
    packed: &mut Vec<u64>,
) -> (Result<Vec<isize>, TooMany>, u64) {
    let n = boxes.len();
    debug_assert!(n < 1 << 31, "indices fit u32 below the pairs' packing");
    let axis = sweep::axis(boxes, bounds_of(boxes));
    let lo = |k: u32| boxes[k as usize][axis];
    if state.order.len() != n || state.axis != axis {
        state.order = (0..n as u32).collect();
        state
            .order
            .sort_unstable_by(|&a, &b| lo(a).total_cmp(&lo(b)));
        state.axis = axis;
    } else {
        crate::nearly::sort_by_key(&mut state.order, |&k| lo(k));
    }
    let budget = Budget::of(max_pairs);
    let mut sink = Sink::new(&budget, Buckets::for_objects(n));
    let tests = if narrow.is_trivial() {
        sweep_order::<true>(boxes, &state.order, axis, narrow, &mut sink)
    } else {
        sweep_order::<false>(boxes, &state.order, axis, narrow, &mut sink)
    };
    let rows = finish(vec![sink]).map(|s| canonical_with(&s, n, &Exec::serial(), Some(packed)));
    (rows, tests)
}

/// The sweep over `order` (sorted by the low edge on `axis`), its pairs
/// into `out`; returns the candidate tests (`T`: the narrow phase is
/// trivial).
fn sweep_order<const T: bool>(
    boxes: &[[f64; 4]],
    order: &[u32],
    axis: usize,
    narrow: &Narrow,
    out: &mut Sink,
) -> u64 {
    let mut tests = 0;
    for (t, &ka) in order.iter().enumerate() {
        let a = &boxes[ka as usize];
        let hi = a[axis + 2];
        for &kb in &order[t + 1..] {
            let b = &boxes[kb as usize];
            if b[axis] >= hi {
                break;
            }
            tests += 1;
            let keep = boxes_overlap(a, b);
            out.emit(narrow.judge::<T>(keep, ka as usize, kb as usize), ka, kb);
        }
    }
    tests
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::naive;
    use crate::testing::{flat, lcg, shifted};

    /// Frames of boxes moving a little, then far, then wide ones (the axis
    /// turns), then more of them: every search against the naive pairs, the
    /// packed pairs too.
    #[test]
    fn frames_agree_with_the_naive_pairs() {
        let mut rnd = lcg(11);
        let mut boxes: Vec<[f64; 4]> = (0..300)
            .map(|k| {
                let (x, y) = (rnd() * 400.0, rnd() * 400.0);
                // points, ties on a lattice, and ordinary boxes
                let (x, y) = if k % 7 == 0 {
                    (x.round(), y.round())
                } else {
                    (x, y)
                };
                let s = if k % 11 == 0 { 0.0 } else { 5.0 + 20.0 * rnd() };
                [x, y, x + s, y + s]
            })
            .collect();
        let narrow = Narrow::default();
        let mut state = State::default();
        for frame in 0..40 {
            let step = match frame {
                0..=19 => 2.0,
                20..=24 => 300.0,
                _ => 1.0,
            };
            boxes = shifted(&boxes, step, &mut rnd);
            if frame == 30 {
                // wide boxes: they overlap less along y, the sweep turns there
                for b in boxes.iter_mut() {
                    b[2] = b[0] + 300.0;
                    b[3] = b[1] + 1.0;
                }
            }
            if frame == 35 {
                boxes.extend_from_slice(&boxes.clone()[..50]); // more boxes, some identical
            }
            let mut packed = vec![3u64; 2];
            let (got, tests) = find(&boxes, &narrow, None, &mut state, &mut packed);
            let want = flat(&naive::pairs(&boxes, &narrow));
            let got = got.unwrap();
            assert_eq!(got, want, "frame {frame}");
            let unpacked = crate::pairs::concatenate(&[&packed]);
            assert_eq!(unpacked, want, "frame {frame}: packed");
            assert!(tests as usize >= want.len() / 2);
            if frame >= 30 {
                assert_eq!(state.axis, 1, "frame {frame}: wide boxes, swept along y");
            }
        }
    }

    /// A narrow phase that rejects pairs (groups): the same pairs as the
    /// naive search, frame after frame.
    #[test]
    fn filtered_frames_agree_with_the_naive_pairs() {
        let mut rnd = lcg(5);
        let mut boxes: Vec<[f64; 4]> = (0..400)
            .map(|_| {
                let (x, y) = (rnd() * 300.0, rnd() * 300.0);
                [x, y, x + 20.0, y + 20.0]
            })
            .collect();
        let groups: Vec<i64> = (0..boxes.len() as i64).map(|k| k % 3).collect();
        let narrow = Narrow {
            filters: crate::narrow::Filters {
                groups: Some(&groups),
                ..Default::default()
            },
            ..Narrow::default()
        };
        let mut state = State::default();
        for frame in 0..10 {
            boxes = shifted(&boxes, 2.0, &mut rnd);
            let (got, _) = find(&boxes, &narrow, None, &mut state, &mut Vec::new());
            let want = flat(&naive::pairs(&boxes, &narrow));
            assert!(!want.is_empty());
            assert_eq!(got.unwrap(), want, "frame {frame}");
        }
    }

    /// Beyond the budget (checked every few ten thousand pairs, as in every
    /// search), the exact count.
    #[test]
    fn too_many_pairs_are_counted() {
        let n = search::SWEEP_BELOW - 1;
        let boxes = vec![[0.0, 0.0, 1.0, 1.0]; n];
        assert!(serves(n));
        let mut state = State::default();
        let (got, _) = find(
            &boxes,
            &Narrow::default(),
            Some(1000),
            &mut state,
            &mut Vec::new(),
        );
        assert_eq!(got, Err(TooMany((n * (n - 1) / 2) as u64)));
    }
}
