//! The tree's unit tests: its parts' internals, and the pair cache against
//! a plain set model.

use super::queries::Plan;
use super::*;
use crate::coherent;
use crate::narrow::{boxes_overlap, BOX, CIRCLE};
use crate::pairs::pack;
use crate::testing::lcg;

/// Searches from scratch keep the grid order (enough objects, no free
/// slot); incremental frames let it go after `coherent::AGE` of them,
/// and a later search from scratch makes a new one.
#[test]
fn the_kept_grid_order_is_let_go_after_many_incremental_frames() {
    let mut rnd = lcg(5);
    let n = 2000;
    let mut boxes: Vec<[f64; 4]> = (0..n)
        .map(|_| {
            let (x, y) = (rnd() * 990.0, rnd() * 990.0);
            [x, y, x + 10.0, y + 10.0]
        })
        .collect();
    let ex = Exec::new(Some(2));
    let mut tree = Tree::new([0.0, 0.0, 1000.0, 1000.0], 6, 0.0);
    let all: Vec<i64> = (0..n as i64).collect();
    tree.insert(&boxes, None, Attrs::default(), &ex);
    tree.pairs(&ex, None).unwrap();
    assert!(tree.search.is_kept());
    for frame in 0..=coherent::AGE {
        assert!(tree.search.is_kept(), "frame {frame}");
        boxes[0] = [
            boxes[0][0] + 0.5,
            boxes[0][1],
            boxes[0][2] + 0.5,
            boxes[0][3],
        ];
        tree.move_to(&all[..1], &boxes[..1], None, &ex);
        tree.pairs(&ex, None).unwrap();
        assert!(!tree.stats.rebuilt);
    }
    assert!(!tree.search.is_kept());
    tree.move_to(&all, &boxes, None, &ex);
    tree.pairs(&ex, None).unwrap();
    assert!(tree.stats.rebuilt && tree.search.is_kept());
}

/// `check_handles` names the first bad handle as a plain reading of
/// its rules does (unknown, then repeated, then of the other kind), on
/// strictly increasing lists with every slot live and one kind (only
/// their range checked) as on any other.
#[test]
fn check_handles_names_the_first_bad_handle() {
    fn reference(kinds: &[Option<u8>], hs: &[i64], kind: Option<u8>) -> Result<(), HandleError> {
        for (at, &h) in hs.iter().enumerate() {
            let live = usize::try_from(h)
                .ok()
                .and_then(|h| kinds.get(h).copied().flatten());
            match live {
                None => return Err(HandleError::Unknown(at)),
                Some(_) if hs[..at].contains(&h) => return Err(HandleError::Twice(at)),
                Some(k) if kind.is_some_and(|want| want != k) => {
                    return Err(HandleError::WrongKind(at))
                }
                _ => {}
            }
        }
        Ok(())
    }
    let mut rnd = lcg(5);
    let ex = Exec::serial();
    for case in 0..3 {
        let mut tree = Tree::new([0.0, 0.0, 100.0, 100.0], 3, 0.0);
        let boxes = vec![[1.0, 1.0, 2.0, 2.0]; 40];
        let circles = vec![[1.5, 1.5, 0.5]; 40];
        // every slot live and all boxes; boxes and circles; then slots freed
        tree.insert(&boxes, None, Attrs::default(), &ex);
        let mut kinds: Vec<Option<u8>> = vec![Some(BOX); 40];
        if case >= 1 {
            tree.insert(&boxes[..10], Some(&circles[..10]), Attrs::default(), &ex);
            kinds.extend([Some(CIRCLE); 10]);
        }
        if case == 2 {
            tree.remove(&[3, 17, 45]);
            for h in [3, 17, 45] {
                kinds[h] = None;
            }
        }
        for _ in 0..400 {
            let n = (rnd() * 12.0) as usize;
            let mut hs: Vec<i64> = (0..n).map(|_| (rnd() * 56.0) as i64 - 3).collect();
            if rnd() < 0.6 {
                hs.sort_unstable();
                hs.dedup();
            }
            for kind in [None, Some(BOX), Some(CIRCLE)] {
                let want = reference(&kinds, &hs, kind);
                assert_eq!(
                    tree.check_handles(&hs, kind),
                    want,
                    "{hs:?} {kind:?} case {case}"
                );
            }
        }
        // the all-live range check alone
        if case == 0 {
            assert_eq!(tree.check_handles(&[0, 5, 39], Some(BOX)), Ok(()));
            assert_eq!(
                tree.check_handles(&[-1, 5], None),
                Err(HandleError::Unknown(0))
            );
            assert_eq!(
                tree.check_handles(&[1, 39, 40, 41], None),
                Err(HandleError::Unknown(2))
            );
            assert_eq!(
                tree.check_handles(&[1, 2], Some(CIRCLE)),
                Err(HandleError::WrongKind(0))
            );
        }
    }
}

/// The first circle equal to the circle column's default, (0, 0) of
/// radius 0, still makes the column: the narrow phase indexes it for any
/// box meeting the circle's cells (it panicked before).
#[test]
fn a_circle_like_the_default_makes_the_column() {
    let ex = Exec::serial();
    let mut tree = Tree::new([0.0, 0.0, 16.0, 16.0], 3, 0.0);
    let c = [[0.0, 0.0, 0.0]];
    tree.insert(&[[0.0, 0.0, 0.0, 0.0]], Some(&c), Attrs::default(), &ex);
    tree.insert(&[[-1.0, -1.0, 1.0, 1.0]], None, Attrs::default(), &ex);
    // the point circle touches nothing: no pair, and no panic
    assert_eq!(tree.pairs_packed(&ex, None).unwrap(), Vec::<u64>::new());
    tree.move_to(
        &[0],
        &[[0.25, 0.25, 0.75, 0.75]],
        Some(&[[0.5, 0.5, 0.25]]),
        &ex,
    );
    assert_eq!(tree.pairs_packed(&ex, None).unwrap(), vec![1]);
    tree.validate().unwrap();
}

/// `n` squares of side `side`, their corners uniform in `[0, span)^2`,
/// as a model's live objects.
fn squares(n: usize, span: f64, side: f64, rnd: &mut impl FnMut() -> f64) -> Vec<Option<[f64; 4]>> {
    (0..n)
        .map(|_| {
            let (x, y) = (rnd() * span, rnd() * span);
            Some([x, y, x + side, y + side])
        })
        .collect()
}

/// Every current pair of the live slots of `model`, packed, sorted.
fn model_pairs(model: &[Option<[f64; 4]>]) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, a) in model.iter().enumerate() {
        for (j, b) in model.iter().enumerate().skip(i + 1) {
            if let (Some(a), Some(b)) = (a, b) {
                if boxes_overlap(a, b) {
                    out.push(pack(i as u32, j as u32));
                }
            }
        }
    }
    out
}

/// `pairs()` frames moving 1% of the objects: a different 1% each frame
/// leaves void objects that no longer move, and the rows' pass writes
/// the current pairs packed as the new base once they are as many as the
/// dirty ones (every other frame here); the same 1% frame after frame
/// keeps its void objects and never does.  Every frame equals the
/// naive pairs, on one thread and two.
#[test]
fn void_objects_are_consolidated_with_the_rows() {
    let n = 6000;
    let mut rnd = lcg(5);
    let start = squares(n, 980.0, 12.0, &mut rnd);
    for workers in [1, 2] {
        let ex = Exec::new(Some(workers));
        let mut model = start.clone();
        let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
        let mut tree = Tree::new([0.0, 0.0, 1000.0, 1000.0], 5, 0.0);
        tree.insert(&boxes, None, Attrs::default(), &ex);
        tree.pairs_packed(&ex, None).unwrap();
        let (mut fused, mut kept) = (0, 0);
        for frame in 0..14usize {
            // frames 0 to 7 a different 1% each, then the same 1%
            let set = if frame < 8 { frame } else { 8 };
            let handles: Vec<i64> = (0..n as i64).filter(|k| k % 100 == set as i64).collect();
            let mut to = Vec::new();
            for &h in &handles {
                let b = model[h as usize].as_mut().unwrap();
                let (dx, dy) = (rnd() * 6.0 - 3.0, rnd() * 6.0 - 3.0);
                *b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                to.push(*b);
            }
            tree.move_to(&handles, &to, None, &ex);
            let want = model_pairs(&model);
            let rows = tree.pairs(&ex, None).unwrap();
            let flat: Vec<isize> = want
                .iter()
                .flat_map(|&p| {
                    [
                        crate::pairs::first(p) as isize,
                        crate::pairs::second(p) as isize,
                    ]
                })
                .collect();
            assert_eq!(rows, flat, "frame {frame}");
            assert_eq!(tree.last_pairs(), want, "frame {frame}");
            assert!(!tree.stats.rebuilt);
            tree.validate().unwrap();
            if tree.cache.is_whole() {
                fused += 1;
                assert!(frame < 9, "frame {frame}: the same 1% again consolidated");
            } else {
                kept += 1;
            }
        }
        assert_eq!(fused, 4, "frames 1, 3, 5, 7 fold the void objects in");
        assert_eq!(kept, 10);
    }
}

/// Queries meeting few cells read the runs planned ahead; those
/// meeting more than a plan holds (big boxes over many occupied levels)
/// take the general path: frame by frame, both agree with the naive
/// pairs.
#[test]
fn planned_and_general_queries_find_the_same_pairs() {
    let n = 7000;
    let p = Policy::default();
    assert!(n / 12 >= p.query_parallel && n as f64 / 12.0 <= p.rebuild_share * n as f64);
    let mut rnd = lcg(5);
    // sides from 1 to 300 (log-uniform): objects at every level
    let mut model: Vec<Option<[f64; 4]>> = (0..n)
        .map(|_| {
            let side = 300f64.powf(rnd());
            let (x, y) = (rnd() * 1024.0, rnd() * 1024.0);
            Some([x, y, x + side, y + side])
        })
        .collect();
    for workers in [1, 2] {
        let ex = Exec::new(Some(workers));
        let mut tree = Tree::new([0.0, 0.0, 1024.0, 1024.0], 6, 0.0);
        let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
        tree.insert(&boxes, None, Attrs::default(), &ex);
        assert_eq!(tree.pairs_packed(&ex, None).unwrap(), model_pairs(&model));
        let levels: Vec<u32> = (0..=6)
            .filter(|&l| tree.index.per_level[l as usize] > 0)
            .collect();
        assert!(levels.len() >= 6, "objects at most levels");
        tree.sync(&ex);
        let mut plan = Plan::default();
        tree.plan(&[10.0, 10.0, 11.0, 11.0], &levels, &mut plan);
        assert!(plan.fits && plan.n >= 1, "fits {} n {}", plan.fits, plan.n);
        tree.plan(&[10.0, 10.0, 200.0, 200.0], &levels, &mut plan);
        assert!(!plan.fits, "a big box meets more cells than a plan holds");
        for frame in 0..4 {
            // a twelfth of the objects (queries in parallel chunks with
            // 2 threads), big ones among them
            let (mut moved, mut to) = (Vec::new(), Vec::new());
            for k in (frame..n).step_by(12) {
                let b = model[k].unwrap();
                let (dx, dy) = (rnd() * 40.0 - 20.0, rnd() * 40.0 - 20.0);
                let b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                model[k] = Some(b);
                moved.push(k as i64);
                to.push(b);
            }
            tree.move_to(&moved, &to, None, &ex);
            let got = tree.pairs_packed(&ex, None).unwrap();
            assert!(!tree.stats.rebuilt, "an incremental frame");
            assert!(
                got == model_pairs(&model),
                "frame {frame}, {workers} threads"
            );
            tree.validate().unwrap();
        }
    }
}

/// The packed pairs `pairs` (sorted) each with the identities of its two
/// objects (`ids`: per slot, of the object in it now).
fn with_ids(pairs: &[u64], ids: &[u64]) -> Vec<(u64, [u64; 2])> {
    pairs
        .iter()
        .map(|&p| {
            (
                p,
                [ids[crate::pairs::first(p)], ids[crate::pairs::second(p)]],
            )
        })
        .collect()
}

/// The events from the pairs `last` to `now` (both [`with_ids`]): the
/// pairs of two objects colliding now and not then (began), then and
/// not now (ended), as packed handles, sorted.  Objects, not handles: a
/// slot freed and given out again holds another object.
fn events_of_objects(last: &[(u64, [u64; 2])], now: &[(u64, [u64; 2])]) -> (Vec<u64>, Vec<u64>) {
    use crate::testing::objects_minus;
    (objects_minus(now, last), objects_minus(last, now))
}

/// Frames that each change a different 8% of the objects (moves,
/// removals, inserts into the freed slots): the void objects and the
/// delta grow until the delta is consolidated into the base, and every
/// frame, `pairs()` and `update()` taking turns, equals the model (the
/// events the pairs of objects that began and ended, a freed slot given
/// out again holding another object), on one thread and two (over
/// twice the policy's `sync_grain` stale objects a frame: the lists' update in parallel).
#[test]
fn the_delta_grows_and_is_consolidated() {
    let n = 8000;
    assert!(n * 8 / 100 * 9 / 10 >= 2 * Policy::default().sync_grain);
    let mut rnd = lcg(11);
    let model = squares(n, 1374.0, 40.0, &mut rnd);
    for workers in [1, 2] {
        let ex = Exec::new(Some(workers));
        let mut tree = Tree::new([0.0, 0.0, 1414.0, 1414.0], 5, 0.0);
        let boxes: Vec<[f64; 4]> = model.iter().map(|b| b.unwrap()).collect();
        tree.insert(&boxes, None, Attrs::default(), &ex);
        let mut model = model.clone();
        // each object's identity, by slot
        let mut ids: Vec<u64> = (0..n as u64).collect();
        let mut next_id = n as u64;
        let mut last = Vec::new();
        let (mut incremental, mut consolidated, mut reused) = (0, 0, 0);
        for frame in 0..12usize {
            let want = model_pairs(&model);
            let now = with_ids(&want, &ids);
            if frame % 3 != 2 {
                assert_eq!(tree.pairs_packed(&ex, None).unwrap(), want, "frame {frame}");
            } else {
                // the events since the last update(), the pairs() calls
                // between making no difference
                let ev = tree.update(&ex, None).unwrap();
                let (began, ended) = events_of_objects(&last, &now);
                // pairs of the same two handles, of other objects
                reused += ev.began.iter().filter(|p| ev.ended.contains(p)).count();
                assert_eq!(ev.began, began, "frame {frame}");
                assert_eq!(ev.ended, ended, "frame {frame}");
                last = now;
            }
            assert_eq!(tree.last_pairs(), want);
            assert_eq!(tree.stats.pairs, want.len() as u64);
            tree.validate().unwrap();
            if frame > 0 {
                assert!(!tree.stats.rebuilt);
                if tree.cache.is_whole() {
                    consolidated += 1;
                } else {
                    incremental += 1;
                }
            }
            // 8% of the slots, a different set each frame: most move,
            // every tenth is removed, and as many new boxes come in
            let changed: Vec<usize> = (0..n)
                .filter(|k| k % 12 == frame % 12)
                .take(n * 8 / 100)
                .collect();
            let (mut moved, mut to) = (Vec::new(), Vec::new());
            let mut gone = Vec::new();
            for (c, &k) in changed.iter().enumerate() {
                match model[k] {
                    Some(b) if c % 10 != 0 => {
                        let (dx, dy) = (rnd() * 10.0 - 5.0, rnd() * 10.0 - 5.0);
                        let b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
                        model[k] = Some(b);
                        moved.push(k as i64);
                        to.push(b);
                    }
                    Some(_) => {
                        model[k] = None;
                        gone.push(k as i64);
                    }
                    None => {}
                }
            }
            tree.move_to(&moved, &to, None, &ex);
            tree.remove(&gone);
            let new: Vec<[f64; 4]> = gone
                .iter()
                .map(|_| {
                    let (x, y) = (rnd() * 1374.0, rnd() * 1374.0);
                    [x, y, x + 40.0, y + 40.0]
                })
                .collect();
            for (h, b) in tree
                .insert(&new, None, Attrs::default(), &ex)
                .into_iter()
                .zip(new)
            {
                assert!(model[h as usize].is_none(), "a freed slot is reused");
                model[h as usize] = Some(b);
                ids[h as usize] = next_id;
                next_id += 1;
            }
        }
        assert!(
            incremental > 0 && consolidated > 0 && reused > 0,
            "{incremental} {consolidated} {reused}"
        );
    }
}

/// The pair cache alone against a plain set model: frames of searches from
/// scratch and incremental steps (dirty objects, their fresh pairs, slots
/// given out again), for rows and for events, with consolidation forced
/// or never, merges in chunks of 1 to 4 pairs, one thread and two, and a
/// budget of pairs some frames exceed.
mod cache_model {
    use super::super::cache::PairCache;
    use super::super::policy::Policy;
    use crate::pairs::{first, pack, second, TooMany};
    use crate::par::Exec;
    use proptest::collection::{btree_set, vec};
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    const SLOTS: u32 = 12;

    #[derive(Clone, Debug)]
    struct Frame {
        scratch: bool,
        dirty: BTreeSet<u32>,
        gone: BTreeSet<u32>,
        pairs: Vec<(u32, u32)>,
        events: bool,
        max_pairs: Option<u64>,
    }

    fn frame() -> impl Strategy<Value = Frame> {
        (
            0u8..10,
            btree_set(0..SLOTS, 0..5),
            btree_set(0..SLOTS, 0..3),
            vec((0..SLOTS, 0..SLOTS), 0..30),
            any::<bool>(),
            prop::option::weighted(0.1, 0u64..20),
        )
            .prop_map(|(s, dirty, gone, pairs, events, max_pairs)| Frame {
                scratch: s == 0,
                gone: gone.intersection(&dirty).copied().collect(),
                dirty,
                pairs,
                events,
                max_pairs,
            })
    }

    fn packed(pairs: &[(u32, u32)]) -> BTreeSet<u64> {
        pairs
            .iter()
            .filter(|(i, j)| i != j)
            .map(|&(i, j)| pack(i, j))
            .collect()
    }

    proptest! {
        #[test]
        fn the_cache_keeps_the_current_pairs_and_their_events(
            frames in vec(frame(), 1..12),
            consolidate_from in prop_oneof![Just(0usize), Just(3), Just(usize::MAX)],
            merge_grain in 1usize..5,
            workers in 1usize..3,
        ) {
            let policy = Policy { consolidate_from, merge_grain, ..Policy::default() };
            let ex = Exec::new(Some(workers));
            let mut cache = PairCache::default();
            cache.grow(SLOTS as usize);
            let mut model: BTreeSet<u64> = BTreeSet::new();
            for f in frames {
                let gone: Vec<u32> = f.gone.iter().copied().collect();
                let of_gone = |p: &u64| {
                    f.gone.contains(&(first(*p) as u32)) || f.gone.contains(&(second(*p) as u32))
                };
                let is_dirty = |p: &u64| {
                    f.dirty.contains(&(first(*p) as u32)) || f.dirty.contains(&(second(*p) as u32))
                };
                let new: BTreeSet<u64> = if f.scratch || !cache.started() {
                    packed(&f.pairs)
                } else {
                    let kept = model.iter().filter(|p| !is_dirty(p));
                    let fresh = packed(&f.pairs).into_iter().filter(|p| is_dirty(p));
                    kept.copied().chain(fresh).collect()
                };
                let began: Vec<u64> =
                    new.iter().filter(|p| !model.contains(p) || of_gone(p)).copied().collect();
                let ended: Vec<u64> =
                    model.iter().filter(|p| !new.contains(p) || of_gone(p)).copied().collect();
                let rows: Vec<isize> =
                    new.iter().flat_map(|&p| [first(p) as isize, second(p) as isize]).collect();
                if f.scratch || !cache.started() {
                    let ev = cache.rebuilt(new.iter().copied().collect(), f.events, &gone);
                    if f.events {
                        let ev = ev.expect("events asked for");
                        prop_assert_eq!(&ev.began, &began);
                        prop_assert_eq!(&ev.ended, &ended);
                    }
                    model = new;
                } else {
                    let dirty: Vec<u32> = f.dirty.iter().copied().collect();
                    let fresh: Vec<u64> = new.iter().filter(|p| is_dirty(p)).copied().collect();
                    let got = cache.step(
                        &dirty, &fresh, &gone, f.events, f.max_pairs, &policy, &ex,
                    );
                    match got {
                        Err(TooMany(k)) => {
                            prop_assert_eq!(k, new.len() as u64);
                            prop_assert!(f.max_pairs.is_some_and(|m| k > m));
                        }
                        Ok((r, ev)) => {
                            prop_assert!(f.max_pairs.is_none_or(|m| new.len() as u64 <= m));
                            if f.events {
                                let ev = ev.expect("events asked for");
                                prop_assert_eq!(&ev.began, &began);
                                prop_assert_eq!(&ev.ended, &ended);
                                prop_assert!(r.is_none());
                            } else {
                                prop_assert_eq!(r.expect("rows asked for"), rows);
                            }
                            model = new;
                        }
                    }
                }
                let now: Vec<u64> = model.iter().copied().collect();
                prop_assert_eq!(cache.pairs(), now);
                prop_assert_eq!(cache.len(), model.len());
                if let Err(e) = cache.check(SLOTS as usize, |_| true) {
                    return Err(TestCaseError::fail(e));
                }
            }
        }
    }
}

/// `update()` after `pairs()` in the same frame: the events since the last
/// `update()` (the README's frame), the removed and reused slots of the
/// frames between counted as other objects.
#[test]
fn update_after_pairs_gives_the_events_since_the_last_update() {
    let ex = Exec::serial();
    for share in [f64::INFINITY, -1.0] {
        let policy = Policy {
            rebuild_share: share,
            ..Policy::default()
        };
        let mut tree = Tree::with_policy([0.0, 0.0, 16.0, 16.0], 3, 0.0, policy);
        let boxes = [
            [0.0, 0.0, 2.0, 2.0],
            [1.0, 1.0, 3.0, 3.0],
            [8.0, 8.0, 9.0, 9.0],
        ];
        tree.insert(&boxes, None, Attrs::default(), &ex);
        assert_eq!(tree.pairs_packed(&ex, None).unwrap(), vec![pack(0, 1)]);
        let ev = tree.update(&ex, None).unwrap();
        assert_eq!((ev.began, ev.ended), (vec![pack(0, 1)], vec![]));
        // frame 2: 2 meets 1, pairs() first
        tree.move_to(&[2], &[[2.5, 2.5, 4.0, 4.0]], None, &ex);
        tree.pairs_packed(&ex, None).unwrap();
        let ev = tree.update(&ex, None).unwrap();
        assert_eq!((ev.began, ev.ended), (vec![pack(1, 2)], vec![]));
        // frames 3 and 4 with pairs() only: 0 removed, its slot reused by a
        // box touching 1 again; 2 leaves and comes back
        tree.remove(&[0]);
        tree.pairs_packed(&ex, None).unwrap();
        assert_eq!(
            tree.insert(&[[1.5, 1.5, 2.0, 2.0]], None, Attrs::default(), &ex),
            vec![0]
        );
        tree.move_to(&[2], &[[12.0, 12.0, 13.0, 13.0]], None, &ex);
        tree.pairs_packed(&ex, None).unwrap();
        tree.move_to(&[2], &[[2.5, 2.5, 4.0, 4.0]], None, &ex);
        tree.pairs_packed(&ex, None).unwrap();
        tree.validate().unwrap();
        let ev = tree.update(&ex, None).unwrap();
        assert_eq!((ev.began, ev.ended), (vec![pack(0, 1)], vec![pack(0, 1)]));
        let ev = tree.update(&ex, None).unwrap();
        assert!(ev.began.is_empty() && ev.ended.is_empty());
        tree.validate().unwrap();
    }
}
