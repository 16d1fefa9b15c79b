//! The moving tree against a model: every answer recomputed by brute force.

use broadphase_core::naive;
use broadphase_core::narrow::{box_circle_overlap, boxes_overlap, circle_overlap, BOX, CIRCLE};
use broadphase_core::pairs::{first, pack, second};
use broadphase_core::par::{Exec, Stop, Stopped};
use broadphase_core::testing::{lcg, objects_minus};
use broadphase_core::tree::{Attrs, Policy, Tree};
use broadphase_core::{Filters, Narrow, Shapes};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

/// A live object of the model.
#[derive(Clone, Debug)]
struct Obj {
    kind: u8,
    b: [f64; 4],
    c: [f64; 3],
    group: i64,
    cat: u64,
    mask: u64,
}

fn circle_box(c: [f64; 3]) -> [f64; 4] {
    [c[0] - c[2], c[1] - c[2], c[0] + c[2], c[1] + c[2]]
}

/// The model's pairs: the naive reference over the live objects, as handles.
fn model_pairs(objs: &BTreeMap<u32, Obj>) -> Vec<u64> {
    let hs: Vec<u32> = objs.keys().copied().collect();
    let o: Vec<&Obj> = objs.values().collect();
    let boxes: Vec<[f64; 4]> = o.iter().map(|x| x.b).collect();
    let circles: Vec<[f64; 3]> = o.iter().map(|x| x.c).collect();
    let kinds: Vec<u8> = o.iter().map(|x| x.kind).collect();
    let groups: Vec<i64> = o.iter().map(|x| x.group).collect();
    let cats: Vec<u64> = o.iter().map(|x| x.cat).collect();
    let masks: Vec<u64> = o.iter().map(|x| x.mask).collect();
    let narrow = Narrow {
        shapes: Shapes::Mixed {
            kinds: &kinds,
            circles: &circles,
            boxes: &boxes,
        },
        filters: Filters {
            groups: Some(&groups),
            categories: Some(&cats),
            masks: Some(&masks),
        },
    };
    naive::pairs(&boxes, &narrow)
        .into_iter()
        .map(|(i, j)| pack(hs[i], hs[j]))
        .collect()
}

/// The model's partners of `h`: its row and column of the pairs, sorted.
fn touching_in(objs: &BTreeMap<u32, Obj>, h: u32) -> Vec<u32> {
    let mut want: Vec<u32> = model_pairs(objs)
        .into_iter()
        .filter_map(|p| {
            let (i, j) = (first(p) as u32, second(p) as u32);
            (i == h).then_some(j).or((j == h).then_some(i))
        })
        .collect();
    want.sort_unstable();
    want
}

fn meets_box(o: &Obj, q: &[f64; 4]) -> bool {
    if o.kind == CIRCLE {
        box_circle_overlap(q, &o.c)
    } else {
        boxes_overlap(&o.b, q)
    }
}

/// Insert one box (with `circle`: that circle) into the tree; its handle
/// and the model's object.
fn insert_one(
    tree: &mut Tree,
    b: [f64; 4],
    circle: Option<[f64; 3]>,
    (g, c, m): (i64, u64, u64),
    ex: &Exec,
) -> (u32, Obj) {
    let attrs = Attrs {
        groups: Some(&[g]),
        categories: Some(&[c]),
        masks: Some(&[m]),
    };
    let h = tree.insert(&[b], circle.as_ref().map(std::slice::from_ref), attrs, ex)[0];
    let obj = Obj {
        kind: if circle.is_some() { CIRCLE } else { BOX },
        b,
        c: circle.unwrap_or([0.0; 3]),
        group: g,
        cat: c,
        mask: m,
    };
    (h, obj)
}

#[derive(Clone, Debug)]
enum Op {
    InsertBox([f64; 4], (i64, u64, u64)),
    InsertCircle([f64; 3], (i64, u64, u64)),
    /// Several boxes in one insert (freed slots first, then new ones).
    InsertMany(Vec<[f64; 4]>),
    Move(usize, [f64; 4], [f64; 3]),
    /// Several box objects moved in one call (circles skipped).
    MoveMany(Vec<(usize, [f64; 4])>),
    Remove(usize),
    Pairs,
    Update,
    Query([f64; 4]),
    Point(f64, f64),
    Touching(usize),
    Stats,
}

fn coord() -> impl Strategy<Value = f64> {
    (-8i32..40).prop_map(|v| v as f64 / 2.0)
}

fn size() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 8.0, 24.0])
}

fn a_box() -> impl Strategy<Value = [f64; 4]> {
    (coord(), coord(), size(), size()).prop_map(|(x, y, w, h)| [x, y, x + w, y + h])
}

fn a_circle() -> impl Strategy<Value = [f64; 3]> {
    (
        coord(),
        coord(),
        prop::sample::select(vec![0.0, 0.5, 1.0, 1.5, 2.5, 6.0]),
    )
        .prop_map(|(x, y, r)| [x, y, r])
}

fn filters() -> impl Strategy<Value = (i64, u64, u64)> {
    (
        prop::sample::select(vec![0i64, 0, 0, 1, 2]),
        prop::sample::select(vec![u64::MAX, u64::MAX, 1, 2, 3]),
        prop::sample::select(vec![u64::MAX, u64::MAX, 1, 2, 3]),
    )
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (a_box(), filters()).prop_map(|(b, f)| Op::InsertBox(b, f)),
        2 => (a_circle(), filters()).prop_map(|(c, f)| Op::InsertCircle(c, f)),
        1 => prop::collection::vec(a_box(), 1..6).prop_map(Op::InsertMany),
        4 => (any::<usize>(), a_box(), a_circle()).prop_map(|(k, b, c)| Op::Move(k, b, c)),
        1 => prop::collection::vec((any::<usize>(), a_box()), 1..6).prop_map(Op::MoveMany),
        2 => any::<usize>().prop_map(Op::Remove),
        2 => Just(Op::Pairs),
        2 => Just(Op::Update),
        1 => a_box().prop_map(Op::Query),
        1 => (coord(), coord()).prop_map(|(x, y)| Op::Point(x, y)),
        1 => any::<usize>().prop_map(Op::Touching),
        1 => Just(Op::Stats),
    ]
}

/// A stop for an operation: at the `k`-th chunk boundary, on `w` threads.
fn a_stop() -> impl Strategy<Value = Option<(u64, usize)>> {
    prop::option::weighted(0.4, (1u64..50, 1usize..3))
}

/// `f()`, or `None` if a stop unwound it (any other panic goes on).
fn attempt<R>(f: impl FnOnce() -> R) -> Option<R> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => Some(r),
        Err(p) => {
            assert!(p.is::<Stopped>(), "only a stop unwinds");
            None
        }
    }
}

/// An executor on `w` threads that stops at its `k`-th chunk boundary.
fn stopping(k: u64, w: usize) -> Exec {
    Exec::new(Some(w)).stoppable(Arc::new(Stop::after(k)))
}

/// Packed pairs, each with the identities of its two objects (`ids`, by
/// handle, of the objects holding the handles now).
fn with_ids(pairs: &[u64], ids: &BTreeMap<u32, u64>) -> Vec<(u64, [u64; 2])> {
    pairs
        .iter()
        .map(|&p| (p, [ids[&(first(p) as u32)], ids[&(second(p) as u32)]]))
        .collect()
}

/// Run `ops` on a tree and the model; every answer must agree.
///
/// The model knows objects, not handles: each insert makes a new
/// identity, and `update()`'s events are the pairs of objects that began
/// and ended since the last `update()`, whatever `pairs()` calls came
/// between (a pair of a freed handle given out again ends and begins).
/// An operation given a stop runs with an executor stopping at that chunk
/// boundary; stopped, it must leave the tree valid and as before (insert,
/// `pairs()`, `update()`: the next events still to come) or with the call
/// finished (a move), and the later answers must agree all the same.
fn run(
    depth: u32,
    margin: f64,
    shares: (f64, f64),
    consolidate: Option<usize>,
    ops: Vec<(Op, Option<(u64, usize)>)>,
    workers: usize,
) -> Result<(), TestCaseError> {
    let ex = Exec::new(Some(workers));
    let mut policy = Policy::default();
    (policy.rebuild_share, policy.relayout_share) = shares;
    if let Some(c) = consolidate {
        policy.consolidate_from = c;
    }
    let mut tree = Tree::with_policy([0.0, 0.0, 16.0, 16.0], depth, margin, policy);
    let mut objs: BTreeMap<u32, Obj> = BTreeMap::new();
    // each live handle's object identity
    let mut ids: BTreeMap<u32, u64> = BTreeMap::new();
    let mut next_id = 0u64;
    let mut new_object = |ids: &mut BTreeMap<u32, u64>, h: u32| {
        ids.insert(h, next_id);
        next_id += 1;
    };
    let mut last: Vec<(u64, [u64; 2])> = Vec::new();
    for (op, stop) in ops {
        let stopper = stop.map(|(k, w)| stopping(k, w));
        let ox = stopper.as_ref().unwrap_or(&ex);
        let slots = tree.slots();
        let mut stopped = false;
        let pick = |objs: &BTreeMap<u32, Obj>, k: usize| *objs.keys().nth(k % objs.len()).unwrap();
        match op {
            Op::InsertBox(b, f) => match attempt(|| insert_one(&mut tree, b, None, f, ox)) {
                Some((h, o)) => {
                    prop_assert!(objs.insert(h, o).is_none());
                    new_object(&mut ids, h);
                }
                None => {
                    stopped = true;
                    prop_assert_eq!(tree.slots(), slots);
                }
            },
            Op::InsertCircle(cc, f) => {
                match attempt(|| insert_one(&mut tree, circle_box(cc), Some(cc), f, ox)) {
                    Some((h, o)) => {
                        prop_assert!(objs.insert(h, o).is_none());
                        new_object(&mut ids, h);
                    }
                    None => {
                        stopped = true;
                        prop_assert_eq!(tree.slots(), slots);
                    }
                }
            }
            Op::InsertMany(bs) => match attempt(|| tree.insert(&bs, None, Attrs::default(), ox)) {
                Some(hs) => {
                    prop_assert_eq!(hs.len(), bs.len());
                    for (h, b) in hs.into_iter().zip(bs) {
                        let o = Obj {
                            kind: BOX,
                            b,
                            c: [0.0; 3],
                            group: 0,
                            cat: u64::MAX,
                            mask: u64::MAX,
                        };
                        prop_assert!(objs.insert(h, o).is_none());
                        new_object(&mut ids, h);
                    }
                }
                None => {
                    stopped = true;
                    prop_assert_eq!(tree.slots(), slots);
                }
            },
            Op::Move(k, b, c) => {
                if objs.is_empty() {
                    continue;
                }
                let h = pick(&objs, k);
                let o = objs.get_mut(&h).unwrap();
                prop_assert!(tree.check_handles(&[h as i64], Some(o.kind)).is_ok());
                // a stopped move is finished: the model moves either way
                if o.kind == BOX {
                    stopped = attempt(|| tree.move_to(&[h as i64], &[b], None, ox)).is_none();
                    o.b = b;
                } else {
                    let cb = circle_box(c);
                    stopped =
                        attempt(|| tree.move_to(&[h as i64], &[cb], Some(&[c]), ox)).is_none();
                    o.b = cb;
                    o.c = c;
                }
            }
            Op::MoveMany(moves) => {
                let mut hs: Vec<i64> = Vec::new();
                let mut to = Vec::new();
                for (k, b) in moves {
                    if objs.is_empty() {
                        break;
                    }
                    let h = pick(&objs, k);
                    if objs[&h].kind == BOX && !hs.contains(&(h as i64)) {
                        hs.push(h as i64);
                        to.push(b);
                    }
                }
                prop_assert!(tree.check_handles(&hs, Some(BOX)).is_ok());
                stopped = attempt(|| tree.move_to(&hs, &to, None, ox)).is_none();
                for (&h, &b) in hs.iter().zip(&to) {
                    objs.get_mut(&(h as u32)).unwrap().b = b;
                }
            }
            Op::Remove(k) => {
                if objs.is_empty() {
                    continue;
                }
                let h = pick(&objs, k);
                tree.remove(&[h as i64]);
                objs.remove(&h);
                ids.remove(&h);
                prop_assert!(tree.check_handles(&[h as i64], None).is_err());
            }
            Op::Pairs => match attempt(|| tree.pairs_packed(ox, None).unwrap()) {
                // (no new baseline: the events stay those since the last update())
                Some(got) => prop_assert_eq!(&got, &model_pairs(&objs)),
                None => stopped = true,
            },
            Op::Update => match attempt(|| tree.update(ox, None).unwrap()) {
                Some(ev) => {
                    let now = with_ids(&model_pairs(&objs), &ids);
                    prop_assert_eq!(ev.began, objects_minus(&now, &last));
                    prop_assert_eq!(ev.ended, objects_minus(&last, &now));
                    last = now;
                }
                None => stopped = true,
            },
            Op::Query(q) => {
                let want: Vec<u32> = objs
                    .iter()
                    .filter(|(_, o)| meets_box(o, &q))
                    .map(|(&h, _)| h)
                    .collect();
                match attempt(|| tree.query(&q, ox)) {
                    Some(got) => prop_assert_eq!(got, want),
                    None => stopped = true,
                }
            }
            Op::Point(x, y) => {
                let want: Vec<u32> = objs
                    .iter()
                    .filter(|(_, o)| {
                        if o.kind == CIRCLE {
                            circle_overlap(x, y, 0.0, o.c[0], o.c[1], o.c[2])
                        } else {
                            o.b[0] < x && x < o.b[2] && o.b[1] < y && y < o.b[3]
                        }
                    })
                    .map(|(&h, _)| h)
                    .collect();
                match attempt(|| tree.query_point(&[x, y], ox)) {
                    Some(got) => prop_assert_eq!(got, want),
                    None => stopped = true,
                }
            }
            Op::Touching(k) => {
                if objs.is_empty() {
                    continue;
                }
                let h = pick(&objs, k);
                match attempt(|| tree.touching(h, ox)) {
                    Some(got) => prop_assert_eq!(got, touching_in(&objs, h)),
                    None => stopped = true,
                }
            }
            Op::Stats => match attempt(|| tree.stats(ox)) {
                Some(s) => prop_assert_eq!(s.entries > 0, !objs.is_empty()),
                None => stopped = true,
            },
        }
        prop_assert_eq!(tree.validate(), Ok(()));
        prop_assert_eq!(tree.len(), objs.len());
        // the live handles are the model's: a stopped insert gave out none
        // and took no slot
        for h in 0..tree.slots() as u32 {
            prop_assert_eq!(
                tree.contains(h as u64),
                objs.contains_key(&h),
                "handle {}",
                h
            );
        }
        // touching(h) is h's row and column of the pairs (not after a stop:
        // the next operation starts from what the stop left)
        if let (Some((&h, _)), false) = (objs.iter().next(), stopped) {
            prop_assert_eq!(tree.touching(h, &ex), touching_in(&objs, h));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn tree_agrees_with_the_model(depth in 0u32..6, margin in prop::sample::select(vec![0.0, 0.0, 0.5, 3.0]),
                                  rebuild in prop::sample::select(vec![0.1, -1.0, f64::INFINITY]),
                                  relayout in prop::sample::select(vec![0.125, -1.0, f64::INFINITY]),
                                  consolidate in prop::sample::select(vec![None, Some(0), Some(usize::MAX)]),
                                  ops in prop::collection::vec(op(), 1..60), workers in 1usize..3) {
        // the default shares, and each path forced: always or never from
        // scratch; the kept pairs consolidated as by default, at every
        // change, or never
        let ops = ops.into_iter().map(|o| (o, None)).collect();
        run(depth, margin, (rebuild, relayout), consolidate, ops, workers)?;
    }
}

proptest! {
    // (more cases: each stop is one boundary of many)
    #![proptest_config(ProptestConfig::with_cases(5000))]

    /// As `tree_agrees_with_the_model`, with a stop at a random chunk
    /// boundary (1 to 49) in some of the operations, on one thread or two.
    #[test]
    fn stopped_calls_leave_the_tree_as_before_or_finished(
        depth in 0u32..6, margin in prop::sample::select(vec![0.0, 0.0, 0.5, 3.0]),
        rebuild in prop::sample::select(vec![0.1, -1.0, f64::INFINITY]),
        relayout in prop::sample::select(vec![0.125, -1.0, f64::INFINITY]),
        consolidate in prop::sample::select(vec![None, Some(0), Some(usize::MAX)]),
        ops in prop::collection::vec((op(), a_stop()), 1..60), workers in 1usize..3) {
        run(depth, margin, (rebuild, relayout), consolidate, ops, workers)?;
    }
}

/// `n` boxes of side `side` with corners uniform in `[0, world)^2`.
fn scattered(n: usize, world: f64, side: f64, rnd: &mut impl FnMut() -> f64) -> Vec<[f64; 4]> {
    (0..n)
        .map(|_| {
            let (x, y) = (rnd() * world, rnd() * world);
            [x, y, x + side, y + side]
        })
        .collect()
}

/// `boxes[h]` for each handle, shifted by up to `step` along each axis;
/// stored back into `boxes`.
fn jiggle(
    boxes: &mut [[f64; 4]],
    handles: &[i64],
    step: f64,
    rnd: &mut impl FnMut() -> f64,
) -> Vec<[f64; 4]> {
    handles
        .iter()
        .map(|&h| {
            let b = &mut boxes[h as usize];
            let (dx, dy) = ((rnd() * 2.0 - 1.0) * step, (rnd() * 2.0 - 1.0) * step);
            *b = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
            *b
        })
        .collect()
}

/// The naive reference's pairs of plain boxes, packed ([`pack`]).
fn packed_naive(boxes: &[[f64; 4]]) -> Vec<u64> {
    naive::pairs(boxes, &Narrow::default())
        .into_iter()
        .map(|(i, j)| pack(i as u32, j as u32))
        .collect()
}

/// Trees over `[0, world]^2` holding `boxes`, on one thread and on two.
fn on_one_and_two_threads(boxes: &[[f64; 4]], world: f64, depth: u32) -> Vec<(Tree, Exec)> {
    [Some(1), Some(2)]
        .into_iter()
        .map(|w| {
            let ex = Exec::new(w);
            let mut t = Tree::new([0.0, 0.0, world, world], depth, 0.0);
            t.insert(boxes, None, Attrs::default(), &ex);
            (t, ex)
        })
        .collect()
}

/// The pairs of sorted `a` that sorted `b` lacks.
fn minus(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter()
        .copied()
        .filter(|p| b.binary_search(p).is_err())
        .collect()
}

/// Many objects, few moving each frame: the kept pairs and the queries of
/// the moved ones (the incremental path), and every object moving (the
/// search from scratch), against the model, on several threads.
#[test]
fn frames_of_many_objects() {
    let n = 3000u32;
    let mut rnd = lcg(12345);
    let mut boxes = scattered(n as usize, 1000.0, 10.0, &mut rnd);
    for margin in [0.0, 2.0] {
        let ex = Exec::new(Some(2));
        let mut tree = Tree::new([0.0, 0.0, 1000.0, 1000.0], 6, margin);
        let attrs = Attrs::default();
        let h = tree.insert(&boxes, None, attrs, &ex);
        assert_eq!(h, (0..n).collect::<Vec<_>>());
        let model = packed_naive;
        for frame in 0..8 {
            assert_eq!(tree.pairs_packed(&ex, None).unwrap(), &model(&boxes)[..]);
            assert_eq!(tree.stats(&ex).rebuilt, frame == 0 || frame % 4 == 1);
            // a few objects (incremental), or all of them (from scratch)
            let moving: Vec<i64> = if frame % 4 == 0 {
                (0..n as i64).collect()
            } else {
                (0..n as i64).filter(|k| k % 37 == frame).collect()
            };
            let new = jiggle(&mut boxes, &moving, 3.0, &mut rnd);
            tree.move_to(&moving, &new, None, &ex);
            tree.validate().unwrap();
        }
    }
}

/// A big move runs in parallel chunks (scattered stores): the same tree as
/// the serial move, which the model tests above cover.
#[test]
fn parallel_move_equals_serial_move() {
    let n = 40_000usize;
    let mut rnd = lcg(99);
    let boxes = scattered(n, 2000.0, 4.0, &mut rnd);
    for margin in [0.0, 1.0] {
        let (par, ser) = (Exec::new(Some(2)), Exec::serial());
        let mut a = Tree::new([0.0, 0.0, 2000.0, 2000.0], 7, margin);
        let mut b = a.clone();
        a.insert(&boxes, None, Attrs::default(), &par);
        b.insert(&boxes, None, Attrs::default(), &ser);
        let mut cur = boxes.clone();
        for frame in 0..4 {
            // every object, or every other one, in a scrambled handle order
            let handles: Vec<i64> = (0..n as i64)
                .map(|k| (k * 7919) % n as i64)
                .filter(|k| frame % 2 == 0 || k % 2 == 0)
                .collect();
            let new = jiggle(&mut cur, &handles, 4.0, &mut rnd);
            assert!(a.check_handles(&handles, None).is_ok());
            a.move_to(&handles, &new, None, &par);
            b.move_to(&handles, &new, None, &ser);
            assert_eq!(a.stats(&par).relinked, b.stats(&ser).relinked);
            assert_eq!(a.levels(), b.levels());
            a.validate().unwrap();
            assert_eq!(
                a.pairs_packed(&par, None).unwrap(),
                b.pairs_packed(&ser, None).unwrap()
            );
            assert_eq!(
                a.query(&[500.0, 500.0, 900.0, 700.0], &par),
                b.query(&[500.0, 500.0, 900.0, 700.0], &ser)
            );
        }
    }
}

/// A big insert writes its new slots in parallel chunks: after removals,
/// a batch of 17,000 boxes with filters, then of 17,000 circles, reuses the
/// freed slots first and appends the rest; the tree
/// validates and its pairs, queries and levels are the model's and those of
/// the same batches inserted on one thread (with and without a margin).
#[test]
fn big_inserts_reuse_then_append_in_parallel() {
    let mut rnd = lcg(4242);
    let boxes = scattered(17_000, 2000.0, 4.0, &mut rnd);
    let centres = scattered(17_000, 2000.0, 3.0, &mut rnd);
    let circles: Vec<[f64; 3]> = centres.iter().map(|b| [b[0], b[1], 1.5]).collect();
    let groups: Vec<i64> = (0..17_000).map(|k| k % 5).collect();
    let cats: Vec<u64> = (0..17_000).map(|k| 1 << (k % 3)).collect();
    let masks: Vec<u64> = (0..17_000)
        .map(|k| if k % 7 == 0 { 6 } else { u64::MAX })
        .collect();
    // the model's pairs (the naive reference: computed once, the same for
    // every margin and thread count)
    let mut want_pairs = None;
    for margin in [0.0, 1.5] {
        let mut trees = Vec::new();
        for ex in [Exec::new(Some(2)), Exec::serial()] {
            let mut t = Tree::new([0.0, 0.0, 2000.0, 2000.0], 7, margin);
            let mut model = BTreeMap::new();
            for (k, &b) in boxes[..300].iter().enumerate() {
                let (h, o) = insert_one(&mut t, b, None, (0, u64::MAX, u64::MAX), &ex);
                assert_eq!(h, k as u32);
                model.insert(h, o);
            }
            t.pairs(&ex, None).unwrap();
            let gone: Vec<i64> = (0..300).filter(|k| k % 3 == 1).collect();
            t.remove(&gone);
            for h in &gone {
                model.remove(&(*h as u32));
            }
            let attrs = Attrs {
                groups: Some(&groups),
                categories: Some(&cats),
                masks: Some(&masks),
            };
            let hb = t.insert(&boxes, None, attrs, &ex);
            let cb: Vec<[f64; 4]> = circles.iter().map(|&c| circle_box(c)).collect();
            let hc = t.insert(&cb, Some(&circles), Attrs::default(), &ex);
            // freed slots first (those of one `remove` in its order), then
            // new ones in order
            let reused: Vec<u32> = gone.iter().map(|&h| h as u32).collect();
            assert_eq!(hb[..100], reused[..]);
            assert!(hb[100..].iter().zip(300u32..).all(|(&h, k)| h == k));
            assert!(hc.iter().zip(300 + 16_900u32..).all(|(&h, k)| h == k));
            for (k, &h) in hb.iter().enumerate() {
                let o = Obj {
                    kind: BOX,
                    b: boxes[k],
                    c: [0.0; 3],
                    group: groups[k],
                    cat: cats[k],
                    mask: masks[k],
                };
                model.insert(h, o);
            }
            for (k, &h) in hc.iter().enumerate() {
                let c = circles[k];
                let o = Obj {
                    kind: CIRCLE,
                    b: circle_box(c),
                    c,
                    group: 0,
                    cat: u64::MAX,
                    mask: u64::MAX,
                };
                model.insert(h, o);
            }
            t.validate().unwrap();
            assert_eq!(t.len(), model.len());
            let want = want_pairs.get_or_insert_with(|| model_pairs(&model));
            assert_eq!(&t.pairs_packed(&ex, None).unwrap(), want);
            t.validate().unwrap();
            let q = [500.0, 500.0, 900.0, 700.0];
            let want: Vec<u32> = model
                .iter()
                .filter(|(_, o)| meets_box(o, &q))
                .map(|(&h, _)| h)
                .collect();
            assert_eq!(t.query(&q, &ex), want);
            trees.push(t);
        }
        let (a, b) = (&mut trees[0].clone(), &mut trees[1].clone());
        assert_eq!(a.levels(), b.levels());
        assert_eq!(
            a.stats(&Exec::serial()).entries,
            b.stats(&Exec::serial()).entries
        );
    }
}

/// A move of more than `rebuild_share` of the objects stops keeping dirty
/// marks (the next refresh searches from scratch): moves before it, the
/// events of that refresh, and the incremental frames after it stay exact,
/// on the serial and the parallel move (20,000 objects).
#[test]
fn a_big_move_after_small_ones_then_small_ones_again() {
    let n = 20_000usize;
    let mut rnd = lcg(31337);
    let mut boxes = scattered(n, 2000.0, 8.0, &mut rnd);
    let model = packed_naive;
    let mut trees = on_one_and_two_threads(&boxes, 2000.0, 7);
    let first = model(&boxes);
    for (t, ex) in &mut trees {
        assert_eq!(t.pairs_packed(ex, None).unwrap(), &first[..]);
        // the baseline of the events below
        assert_eq!(t.update(ex, None).unwrap().began, first);
    }
    // a few, then every other object: marks set before the switch
    let few: Vec<i64> = (0..n as i64).filter(|k| k % 97 == 3).collect();
    let many: Vec<i64> = (0..n as i64).filter(|k| k % 2 == 0).collect();
    let new_few = jiggle(&mut boxes, &few, 5.0, &mut rnd);
    let new_many = jiggle(&mut boxes, &many, 5.0, &mut rnd);
    let now = model(&boxes);
    for (t, ex) in &mut trees {
        t.move_to(&few, &new_few, None, ex);
        t.move_to(&many, &new_many, None, ex);
        t.validate().unwrap();
        let ev = t.update(ex, None).unwrap();
        assert!(t.stats(ex).rebuilt);
        assert_eq!(t.last_pairs(), &now[..]);
        assert_eq!(
            (ev.began, ev.ended),
            (minus(&now, &first), minus(&first, &now))
        );
    }
    // then a few again: incremental, with only their marks
    for round in 0..2 {
        let few: Vec<i64> = (0..n as i64).filter(|k| k % 89 == round).collect();
        let new = jiggle(&mut boxes, &few, 5.0, &mut rnd);
        let want = model(&boxes);
        for (t, ex) in &mut trees {
            t.move_to(&few, &new, None, ex);
            assert_eq!(t.pairs_packed(ex, None).unwrap(), &want[..]);
            assert!(!t.stats(ex).rebuilt);
            t.validate().unwrap();
        }
    }
}

/// Incremental frames with more dirty objects than one query chunk: the
/// queries run in parallel chunks (and the refresh on the pool), and agree
/// with the model and with one thread.
#[test]
fn parallel_incremental_frames() {
    let n = 5000u32;
    let mut rnd = lcg(777);
    let mut boxes = scattered(n as usize, 1000.0, 10.0, &mut rnd);
    let mut trees = on_one_and_two_threads(&boxes, 1000.0, 6);
    for (t, _) in &mut trees {
        // never from scratch after the first call
        t.set_policy(Policy {
            rebuild_share: 1.0,
            ..t.policy()
        });
    }
    for frame in 0..4 {
        let want = packed_naive(&boxes);
        for (t, ex) in &mut trees {
            assert_eq!(t.pairs_packed(ex, None).unwrap(), &want[..]);
            assert_eq!(t.stats(ex).rebuilt, frame == 0);
        }
        let moving: Vec<i64> = (0..n as i64).filter(|k| k % 2 == frame % 2).collect();
        let new = jiggle(&mut boxes, &moving, 3.0, &mut rnd);
        for (t, ex) in &mut trees {
            t.move_to(&moving, &new, None, ex);
            t.validate().unwrap();
        }
    }
}

/// Frames whose merge splits the kept pairs into many chunks (over 200,000
/// pairs): the same pairs as the naive reference on one thread and two, the
/// rows handed over equal to them, and the events the set differences.
#[test]
fn merge_in_chunks_keeps_every_pair() {
    let n = 20_000usize;
    let mut rnd = lcg(4242);
    let mut boxes = scattered(n, 1000.0, 16.0, &mut rnd);
    let mut trees = on_one_and_two_threads(&boxes, 1000.0, 6);
    let mut last: Vec<u64> = Vec::new();
    for frame in 0..4 {
        let want = packed_naive(&boxes);
        assert!(want.len() > 200_000, "{} pairs", want.len());
        for (t, ex) in &mut trees {
            if frame % 2 == 1 {
                let ev = t.update(ex, None).unwrap();
                assert_eq!(ev.began, minus(&want, &last));
                assert_eq!(ev.ended, minus(&last, &want));
                assert_eq!(t.last_pairs(), &want[..]);
            } else {
                let rows = t.pairs(ex, None).unwrap();
                let flat: Vec<isize> = want
                    .iter()
                    .flat_map(|&p| [first(p) as isize, second(p) as isize])
                    .collect();
                assert_eq!(rows, flat);
                assert_eq!(t.last_pairs(), &want[..]);
            }
            assert_eq!(t.stats(ex).rebuilt, frame == 0);
        }
        if frame % 2 == 1 {
            last = want; // the events are since the last update()
        }
        // 1% of the objects, spread over the handles
        let moving: Vec<i64> = (0..n as i64).filter(|k| k % 100 == frame as i64).collect();
        let new = jiggle(&mut boxes, &moving, 5.0, &mut rnd);
        for (t, ex) in &mut trees {
            t.move_to(&moving, &new, None, ex);
        }
    }
    for (t, _) in &trees {
        t.validate().unwrap();
    }
}

/// A handle freed and given out again between two `update()`s: the old
/// object's pairs end and the new one's begin, though both are `(0, 1)`.
#[test]
fn a_reused_handle_ends_the_old_pairs_and_begins_the_new() {
    let ex = Exec::serial();
    let mut tree = Tree::new([0.0, 0.0, 16.0, 16.0], 3, 0.0);
    let h = tree.insert(
        &[[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]],
        None,
        Attrs::default(),
        &ex,
    );
    assert_eq!(h, [0, 1]);
    let ev = tree.update(&ex, None).unwrap();
    assert_eq!((ev.began, ev.ended), (vec![1], vec![]));
    tree.remove(&[1]);
    let c = tree.insert(&[[1.5, 0.0, 2.5, 1.0]], None, Attrs::default(), &ex);
    assert_eq!(c, [1], "the freed handle is given out again");
    let ev = tree.update(&ex, None).unwrap();
    assert_eq!((ev.began, ev.ended), (vec![1], vec![1]));
}

/// What a call on a big tree answered.
#[derive(Debug, PartialEq)]
enum Answer {
    Nothing,
    Handles(Vec<u32>),
    Pairs(Vec<u64>),
    Events(Vec<u64>, Vec<u64>),
}

/// A call on a tree: its name, whether a stopped call is finished (else
/// it is as if never made), and the call.
type Call<'a> = (
    &'static str,
    bool,
    Box<dyn Fn(&mut Tree, &Exec) -> Answer + 'a>,
);

/// Big calls (their steps in parallel chunks on two threads) stopped at
/// every chunk boundary in turn, from the first to the last one each
/// reaches: each leaves a valid tree that then answers as the tree without
/// the call (insert, `pairs()`, `update()`, queries) or with it finished
/// (moves): the same handles for a later insert, the same events and
/// pairs.  On one thread too, where the chunks run in order.
#[test]
fn big_calls_stopped_at_every_chunk_boundary() {
    // half of them and the insert over 2 * MOVE_GRAIN: parallel moves,
    // placements and appends
    let n = 34_000usize;
    let mut rnd = lcg(2468);
    let boxes = scattered(n, 2000.0, 9.0, &mut rnd);
    let more = scattered(17_000, 2000.0, 9.0, &mut rnd);
    let all: Vec<i64> = (0..n as i64).collect();
    let half: Vec<i64> = (0..n as i64).filter(|k| k % 2 == 0).collect();
    let some: Vec<i64> = (0..n as i64).filter(|k| k % 12 == 5).collect();
    let gone: Vec<i64> = (0..n as i64).filter(|k| k % 400 == 7).collect();
    let moved = |hs: &[i64], d: f64| -> Vec<[f64; 4]> {
        hs.iter()
            .map(|&h| {
                let b = boxes[h as usize];
                [b[0] + d, b[1] - d, b[2] + d, b[3] - d]
            })
            .collect()
    };
    let (to_half, to_some, to_all) = (moved(&half, 3.0), moved(&some, 2.0), moved(&all, 1.5));
    let q = [300.0, 300.0, 1700.0, 900.0];
    // the states the calls start from: after a first `pairs()` and a
    // query (the lists laid out), then ...
    type Setup<'a> = Box<dyn Fn(&mut Tree, &Exec) + 'a>;
    let setups: Vec<(&str, Setup)> = vec![
        ("kept pairs", Box::new(|_, _| {})),
        // a twelfth of the objects moved: incremental, the lists' update
        // and the queries in parallel
        (
            "a twelfth moved",
            Box::new(|t, ex| t.move_to(&some, &to_some, None, ex)),
        ),
        // half moved: a search from scratch (the kept grid order), the
        // lists laid out anew for a query
        (
            "half moved",
            Box::new(|t, ex| t.move_to(&half, &to_half, None, ex)),
        ),
        // free slots: the search from scratch over the live rows
        (
            "removed, half moved",
            Box::new(|t, ex| {
                t.remove(&gone);
                t.move_to(&half, &to_half, None, ex);
            }),
        ),
    ];
    let calls: Vec<Call> = vec![
        (
            "pairs",
            false,
            Box::new(|t, ex| Answer::Pairs(t.pairs_packed(ex, None).unwrap())),
        ),
        (
            "update",
            false,
            Box::new(|t, ex| {
                let ev = t.update(ex, None).unwrap();
                Answer::Events(ev.began, ev.ended)
            }),
        ),
        (
            "insert",
            false,
            Box::new(|t, ex| Answer::Handles(t.insert(&more, None, Attrs::default(), ex))),
        ),
        (
            "move all",
            true,
            Box::new(|t, ex| {
                // the live ones (some were removed)
                let (hs, to): (Vec<i64>, Vec<[f64; 4]>) = all
                    .iter()
                    .zip(&to_all)
                    .filter(|(&h, _)| t.contains(h as u64))
                    .unzip();
                t.move_to(&hs, &to, None, ex);
                Answer::Nothing
            }),
        ),
        (
            "query",
            false,
            Box::new(|t, ex| Answer::Handles(t.query(&q, ex))),
        ),
        (
            "stats",
            false,
            Box::new(|t, ex| {
                t.stats(ex);
                Answer::Nothing
            }),
        ),
    ];
    let next = scattered(5, 2000.0, 9.0, &mut rnd);
    // what a tree answers from now on: a later insert's handles, then the
    // events and pairs of frames, first either an incremental one or one
    // searching from scratch (a quarter of the objects moved), then one of
    // 1% moved after a search from scratch
    let answers = |t: &mut Tree, ex: &Exec, scratch_first: bool| {
        let h = t.insert(&next, None, Attrs::default(), ex);
        let live: Vec<i64> = (0..t.slots() as i64)
            .filter(|&h| t.contains(h as u64))
            .collect();
        let quarter: Vec<i64> = live.iter().copied().step_by(4).collect();
        let few: Vec<i64> = live.iter().copied().skip(1).step_by(97).collect();
        let mut frames = Vec::new();
        if !scratch_first {
            frames.push((
                t.update(ex, None).unwrap(),
                t.pairs_packed(ex, None).unwrap(),
            ));
        }
        for (hs, d) in [(&quarter, 0.5), (&few, 0.7)] {
            let to: Vec<[f64; 4]> = hs
                .iter()
                .map(|&h| {
                    let b = t.box_of(h as u32);
                    [b[0] + d, b[1] + d, b[2] + d, b[3] + d]
                })
                .collect();
            t.move_to(hs, &to, None, ex);
            frames.push((t.update(ex, None).unwrap(), t.last_pairs()));
        }
        (h, frames)
    };
    let mut checked = 0;
    for workers in [2, 1] {
        let ex = Exec::new(Some(workers));
        let mut start = Tree::new([0.0, 0.0, 2000.0, 2000.0], 7, 0.0);
        start.insert(&boxes, None, Attrs::default(), &ex);
        start.pairs(&ex, None).unwrap();
        start.query(&q, &ex); // the lists laid out
        for (setup_name, setup) in &setups {
            let mut before = start.clone();
            setup(&mut before, &ex);
            // consolidating as soon as allowed
            before.set_policy(Policy {
                consolidate_from: 0,
                ..before.policy()
            });
            for (name, finishes, call) in &calls {
                let mut after = before.clone();
                let answer = call(&mut after, &ex);
                let want = |t: &Tree, scratch_first| answers(&mut t.clone(), &ex, scratch_first);
                let want_before = [want(&before, false), want(&before, true)];
                let want_after = [want(&after, false), want(&after, true)];
                // the call stopped at boundary k: whether it stopped
                let mut stop_at = |k: u64| {
                    let mut t = before.clone();
                    let got = attempt(|| call(&mut t, &stopping(k, workers)));
                    let what = format!("{name} after {setup_name}, stop {k}, {workers} threads");
                    t.validate().unwrap_or_else(|e| panic!("{what}: {e}"));
                    let done = got.is_some() || *finishes;
                    match &got {
                        Some(a) => assert_eq!(a, &answer, "{what}"),
                        None => {
                            let want = if done { &after } else { &before };
                            assert_eq!(t.slots(), want.slots(), "{what}")
                        }
                    }
                    let want = if done { &want_after } else { &want_before };
                    let scratch_first = k % 2 == 1;
                    assert!(
                        answers(&mut t, &ex, scratch_first) == want[scratch_first as usize],
                        "{what}"
                    );
                    checked += 1;
                    got.is_none()
                };
                // every boundary up to 16, then further apart until the call
                // runs through; then every one skipped before that (the last
                // boundaries are those of the steps that commit)
                let (mut lo, mut k) = (0, 1);
                while stop_at(k) {
                    lo = k;
                    k += if k < 16 { 1 } else { k / 4 };
                }
                for k in lo + 1..k {
                    stop_at(k);
                }
            }
        }
    }
    assert!(checked > 200, "{checked} stops");
}
