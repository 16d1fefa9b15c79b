//! The grid method with its entries kept from one search to the next.
//!
//! A search from scratch ([`crate::grid`], [`crate::cells`]) spends about
//! half its time making one entry per (box, cell met) and radix-sorting
//! them.  The moving tree searches from scratch when most of its objects
//! moved, and objects that move every frame move a little: most of them
//! meet the same cells as before.  So the tree keeps the last search's
//! entries ([`Kept`]) and brings them up to date.
//!
//! # Derivation
//! On one grid, the entry of box `k` in cell `c` is the word
//! `code(c) << 32 | k` (the cell's Morton code at the grid's depth, at most
//! 16 bits a side).  The kept words are grouped by cell in Morton order, and
//! inside a cell ordered by the boxes' minx as of the last search.  Between
//! two searches:
//! * box `k` still meets cell `c`: the word stays as it is (nothing in it
//!   moved with the box);
//! * box `k` left `c`: the word goes;
//! * box `k` now meets a cell it did not: a new word.
//!
//! So a search costs one pass over the boxes (each one's cell range, and
//! the new words of the few whose range changed, sorted by cell), then one
//! pass over the cells: a cell's entries are its kept words whose box still
//! meets it and its new words, each read with its box, put in order of
//! minx (an insertion sort: the order of the last search, which the boxes
//! changed little), written back as the next search's words, and walked.
//!
//! The walk inside a cell is the grid's walk ([`crate::cells`]) with an
//! exact early stop: entries in order of minx, the test of `u` against the
//! later entries stops at the first that starts at or past `u`'s maxx
//! (the box test is strict, so it and all after it miss `u`).  A pair of
//! two replicated boxes is kept only in the cell holding its reference
//! point (the max of their min corners' cells), which lies in both ranges:
//! each pair once.  Cells, and so the pairs found, are those of a search
//! from scratch on the same grid (quantization is monotone, boxes outside
//! the grid are clamped into its border cells); the canonical order makes
//! the result independent of the order inside the cells.
//!
//! # Chunks
//! The per-box pass runs in chunks of boxes; the cells in chunks cut at
//! cell codes chosen when the order was made (each chunk owns a range of
//! codes, and keeps its words in a vector of its own).  Both are fixed by
//! the data: the result never depends on the threads.
//!
//! # When it starts anew
//! The grid is chosen as a fresh search chooses it, and again when the
//! number of boxes changed, when the entries outgrew the grid's budget, or
//! after [`AGE`] searches (so that the grid follows the boxes' sizes and
//! extent).  When the new words would pass `1 / GIVE_UP` of all, boxes
//! move too far for the kept order to pay: that search and the next
//! `WAIT - 1` sort anew, then an order is kept again.  A search whose walk
//! would be far longer than counting its pairs (cells crowded past the
//! budget of pairs) goes from scratch too, where the count comes first.
//!
//! # Parts
//! - `words`: the word of a box in a cell, the one owner of its layout;
//! - `kept`: the kept order ([`Kept`]): made, brought up to date, checked;
//! - `walk`: one chunk of cells of a search over the kept order.
//!
//! This file holds what a caller keeps ([`State`]) and the search
//! ([`find`]): kept, made anew, or from scratch.

mod kept;
mod walk;
mod words;

pub use kept::Kept;

use crate::cells;
use crate::check::bounds_of;
use crate::few;
use crate::narrow::Narrow;
use crate::pairs::{pack_rows, Budget, TooMany};
use crate::par::Exec;
use crate::scratch;
use crate::search;

/// Searches one choice of grid serves before it is chosen anew.
pub const AGE: u32 = 64;
/// A search keeps its order only while the entries of cells newly met stay
/// within this fraction (1 / `GIVE_UP`) of all: boxes that move farther
/// change more cells and places inside them, and past that the kept order
/// costs about what sorting anew does (docs/design/coherent.md, "When the
/// kept order is given up", has the measurements).
const GIVE_UP: usize = 4;
/// Searches from scratch, the one whose new entries passed the share
/// included, before an order is kept again: making one costs more than a
/// search from scratch, so a scene that keeps moving fast does not pay it
/// every frame.
const WAIT: u32 = 16;

/// What a caller keeps between searches: the kept order, or how many
/// searches from scratch remain before one is made again; for few boxes,
/// their sweep order ([`crate::few`]) instead.
#[derive(Clone, Debug)]
pub struct State {
    kept: Option<Box<Kept>>,
    wait: u32,
    /// [`GIVE_UP`] (tests set 0: never give up, keep whatever moved).
    give_up: usize,
    few: few::State,
}

impl Default for State {
    fn default() -> State {
        State {
            kept: None,
            wait: 0,
            give_up: GIVE_UP,
            few: few::State::default(),
        }
    }
}

impl State {
    /// Let the kept orders go (their memory), to be made again by the next
    /// search.
    pub fn clear(&mut self) {
        self.kept = None;
        self.wait = 0;
        self.few.clear();
    }

    /// The sweep order for few boxes, the order kept for many let go (the
    /// boxes became few).
    pub fn for_few(&mut self) -> &mut few::State {
        self.kept = None;
        self.wait = 0;
        &mut self.few
    }

    #[cfg(test)]
    /// Whether an order is kept.
    pub fn is_kept(&self) -> bool {
        self.kept.is_some()
    }
}

/// Every colliding pair of `boxes` (at least [`search::SWEEP_BELOW`] of
/// them, where `find_pairs` picks the grid), canonical, and the candidate
/// tests; the same pairs packed (`i << 32 | j`, sorted) into `packed`
/// (cleared first, its capacity reused) unless they were too many.  The
/// entries are kept in `state` for the next call, which brings them up to
/// date when the boxes are as many and moved little (see the module's
/// derivation); when they moved more, the searches sort anew for a few
/// calls (`WAIT`) before an order is kept again.
pub fn find(
    boxes: &[[f64; 4]],
    narrow: &Narrow,
    max_pairs: Option<u64>,
    ex: &Exec,
    state: &mut State,
    packed: &mut Vec<u64>,
) -> (Result<Vec<isize>, TooMany>, u64) {
    let n = boxes.len();
    // a short call on a busy machine: every step on this thread
    let ex = &ex.unless_busy(n, search::WHOLE_ON_POOL);
    let budget = Budget::of(max_pairs).stopped_with(ex);
    state.few.clear(); // the boxes are many
    let searching = scratch::begin();
    // on the pool as a whole, as a search from scratch runs
    let out = ex.for_work(n, search::WHOLE_ON_POOL).install(|| {
        // a walk far longer than counting the pairs goes from scratch, where
        // the search counts them first (and so do the next WAIT - 1)
        let crowded = |c: u64| {
            narrow.is_trivial() && cells::worth_counting_first(c as f64, n, || budget.limit())
        };
        let usable = state
            .kept
            .as_ref()
            .is_some_and(|k| k.ranges.len() == n && k.age < AGE);
        if usable {
            let k = state.kept.as_mut().expect("checked above");
            if crowded(k.candidates) {
                state.wait = WAIT;
            } else {
                k.age += 1;
                if let Some(found) = k.search(boxes, narrow, &budget, ex, state.give_up, packed) {
                    return found;
                }
                // too many new words: this search is the first of WAIT from scratch
                state.wait = WAIT;
            }
        }
        state.kept = None;
        let made = if state.wait > 0 {
            state.wait -= 1;
            Err(search::grid_for(boxes, bounds_of(boxes), ex))
        } else {
            Kept::new(boxes, ex)
        };
        let (grid, place) = match made {
            Ok(k) if !crowded(k.candidates) => {
                let k = state.kept.insert(Box::new(k));
                k.age += 1;
                return k
                    .search(boxes, narrow, &budget, ex, 0, packed)
                    .expect("a search that never gives up");
            }
            Ok(k) => {
                state.wait = WAIT - 1;
                let place = crate::grid::place(boxes, &k.grid, ex);
                (k.grid, place)
            }
            Err(chosen) => chosen,
        };
        // the search from scratch on the grid chosen
        let tick = &mut |_| {};
        let out = cells::find(boxes, &grid, &place, narrow, &budget, ex, tick);
        place.give_back();
        if let Ok(rows) = &out.0 {
            pack_rows(rows, packed, ex);
        }
        out
    });
    drop(searching);
    out
}

#[cfg(test)]
mod tests {
    use super::kept::WORD_GRAIN;
    use super::*;
    use crate::naive;
    use crate::narrow::Filters;
    use crate::testing::{flat, lcg, shifted};
    use proptest::prelude::*;

    /// `n` boxes in `[0, 1000)^2`: most of side about 10, a tenth of them
    /// ten times bigger, a few points.
    fn scene(n: usize, rnd: &mut impl FnMut() -> f64) -> Vec<[f64; 4]> {
        (0..n)
            .map(|k| {
                let (x, y) = (rnd() * 1000.0, rnd() * 1000.0);
                let s = match k % 10 {
                    0 => 100.0 * rnd(),
                    1 => 0.0,
                    _ => 5.0 + 10.0 * rnd(),
                };
                [x, y, x + s, y + s * (0.5 + rnd())]
            })
            .collect()
    }

    /// One search through `state`; with `verify`, its pairs against the
    /// naive ones, and the kept words (if any) against those of a fresh
    /// entry pass ([`Kept::check_words`]).  Returns the kept order's age
    /// (`None`: none kept).
    fn search(
        boxes: &[[f64; 4]],
        narrow: &Narrow,
        ex: &Exec,
        state: &mut State,
        verify: bool,
    ) -> Option<u32> {
        let mut packed = vec![0; 3]; // stale pairs, to be replaced
        let (got, _) = find(boxes, narrow, None, ex, state, &mut packed);
        let k = state.kept.as_ref();
        if verify {
            let want = flat(&naive::pairs(boxes, narrow));
            let unpacked = crate::pairs::concatenate(&[&packed]);
            assert_eq!(unpacked, want, "the packed pairs");
            assert_eq!(got.unwrap(), want);
            if let Some(k) = k {
                k.check_words(boxes);
                assert_eq!(k.ranges.len(), boxes.len());
            }
        }
        k.map(|k| k.age)
    }

    /// [`search`], verified.
    fn check(boxes: &[[f64; 4]], narrow: &Narrow, ex: &Exec, state: &mut State) -> Option<u32> {
        search(boxes, narrow, ex, state, true)
    }

    /// A floor spanning the world on the deepest grid kept: its range holds
    /// all 2^16 columns (once counted in `u16`, where the count wrapped to 0
    /// and the new entries overflowed their chunk; the words are now made
    /// by loops over the range itself).  Then it moves.
    #[test]
    fn a_floor_as_wide_as_the_deepest_grid() {
        let n = 29_999;
        let mut boxes: Vec<[f64; 4]> = (0..n)
            .map(|k| {
                let x = k as f64 * (400_000.0 / n as f64);
                let y = if k % 1000 == 0 { 0.0 } else { 1.0 };
                [x, y, x + 1.0, y + 1.0]
            })
            .collect();
        boxes.push([0.0, 0.0, 400_000.0, 0.5]);
        let ex = Exec::new(Some(2));
        let mut state = State::default();
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(1));
        let k = state.kept.as_ref().unwrap();
        assert_eq!(
            (k.grid.depth, k.ranges[n][2]),
            (words::MAX_KEPT_DEPTH, u16::MAX)
        );
        for b in boxes.iter_mut().step_by(50) {
            *b = [b[0] + 0.5, b[1] - 0.75, b[2] + 0.5, b[3] - 0.75];
        }
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(2));
    }

    /// Frames of many boxes moving a little (the kept order brought up to date, in
    /// several chunks of boxes and of words, on one thread and on two), a
    /// few of them leaving the grid's bounds (clamped into its border
    /// cells); then every box thrown far (too many new entries: searches
    /// from scratch for `WAIT` calls, then a new order); far moves again
    /// with the rule off.
    #[test]
    fn kept_words_are_a_fresh_sort_frame_after_frame() {
        let mut rnd = lcg(2024);
        let start = scene(24_000, &mut rnd);
        let plain = Narrow::default();
        for workers in [1, 2] {
            let ex = Exec::new(Some(workers));
            let mut rnd = lcg(7);
            let mut boxes = start.clone();
            let mut state = State::default();
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(1));
            assert!(state.kept.as_ref().unwrap().word_count() > 4 * WORD_GRAIN);
            for frame in 1..4 {
                boxes = shifted(&boxes, 1.0, &mut rnd);
                assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(frame + 1));
            }
            for b in boxes.iter_mut().step_by(97) {
                *b = [
                    b[0] * 1.2 - 100.0,
                    b[1] - 150.0,
                    b[2] * 1.2 - 100.0,
                    b[3] - 150.0,
                ];
            }
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(5));
            boxes = scene(boxes.len(), &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), None, "gave up");
            for _ in 1..WAIT {
                boxes = shifted(&boxes, 1.0, &mut rnd);
                assert_eq!(search(&boxes, &plain, &ex, &mut state, false), None);
            }
            assert_eq!(
                check(&boxes, &plain, &ex, &mut state),
                Some(1),
                "kept again"
            );
            boxes = shifted(&boxes, 1.0, &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(2));
            // far moves kept all the same (the rule off): the update of
            // many changed cells, across chunks
            state.give_up = 0;
            boxes = shifted(&boxes, 6.0, &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(3));
            boxes = scene(boxes.len(), &mut rnd);
            assert_eq!(check(&boxes, &plain, &ex, &mut state), Some(4));
        }
    }

    /// The grid is chosen anew after `AGE` searches and when the number of
    /// boxes changes; filters reach the walk.
    #[test]
    fn a_kept_order_ages_and_follows_the_count() {
        let mut rnd = lcg(99);
        let mut boxes = scene(2000, &mut rnd);
        let groups: Vec<i64> = (0..boxes.len() as i64).map(|k| k % 3).collect();
        let narrow = Narrow {
            filters: Filters {
                groups: Some(&groups),
                ..Filters::default()
            },
            ..Narrow::default()
        };
        let ex = Exec::new(Some(2));
        let mut state = State::default();
        for frame in 0..AGE + 3 {
            boxes = shifted(&boxes, 0.5, &mut rnd);
            let verify = frame % 16 == 0 || frame % AGE == 0;
            let age = search(&boxes, &narrow, &ex, &mut state, verify);
            assert_eq!(age, Some(frame % AGE + 1));
        }
        boxes.truncate(1500);
        assert_eq!(check(&boxes, &Narrow::default(), &ex, &mut state), Some(1));
    }

    /// Boxes so crowded that counting their pairs costs far less than
    /// walking them, beyond a small budget: the search goes from scratch
    /// (which counts first) and keeps no order, frame after frame, and
    /// answers the exact count; then spread out, an order is kept again.
    #[test]
    fn crowded_boxes_are_counted_from_scratch() {
        let n = 6000;
        let mut boxes = vec![[10.0, 10.0, 20.0, 20.0]; n];
        let ex = Exec::new(Some(2));
        let mut state = State::default();
        let all = (n * (n - 1) / 2) as u64;
        for _ in 0..3 {
            let (got, _) = find(
                &boxes,
                &Narrow::default(),
                Some(1000),
                &ex,
                &mut state,
                &mut Vec::new(),
            );
            assert_eq!(got, Err(TooMany(all)));
            assert!(state.kept.is_none());
        }
        let mut rnd = lcg(5);
        boxes = scene(n, &mut rnd);
        let ages: Vec<Option<u32>> = (0..WAIT)
            .map(|_| check(&boxes, &Narrow::default(), &ex, &mut state))
            .collect();
        // from scratch for the searches left to wait, then kept again
        let first = ages.iter().position(Option::is_some).expect("kept again");
        assert!(ages[..first].iter().all(Option::is_none) && first < WAIT as usize);
        assert!((first..ages.len()).all(|f| ages[f] == Some((f - first + 1) as u32)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Boxes on a coarse lattice (ties, touching edges, points) moved
        /// by whole lattice steps, some far: every frame exact, the kept
        /// words a fresh sort.
        #[test]
        fn lattice_frames(
            raw in proptest::collection::vec((0i32..40, 0i32..40, 0i32..8, 0i32..8), 2..300),
            moves in proptest::collection::vec(
                proptest::collection::vec((-3i32..4, -3i32..4, 0u8..12), 1..300), 1..5),
        ) {
            let mut boxes: Vec<[f64; 4]> = raw
                .iter()
                .map(|&(x, y, w, h)| [x as f64, y as f64, (x + w) as f64, (y + h) as f64])
                .collect();
            let ex = Exec::new(Some(2));
            // kept however far the boxes move (a test of the update,
            // not of when it pays)
            let mut state = State { give_up: 0, ..State::default() };
            check(&boxes, &Narrow::default(), &ex, &mut state);
            for (frame, m) in moves.iter().enumerate() {
                for (b, &(dx, dy, far)) in boxes.iter_mut().zip(m.iter().cycle()) {
                    let s = if far == 0 { 10.0 } else { 1.0 };
                    let (dx, dy) = (dx as f64 * s, dy as f64 * s);
                    *b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                }
                // kept: brought up to date, or made anew when crowded cells asked for
                // another grid
                let age = check(&boxes, &Narrow::default(), &ex, &mut state);
                prop_assert!(age.is_some(), "frame {}", frame);
            }
        }
    }
}
