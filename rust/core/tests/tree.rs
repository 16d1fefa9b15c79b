//! The moving tree against a model: every answer recomputed by brute force.

use broadphase_core::naive;
use broadphase_core::narrow::{box_circle_overlap, boxes_overlap, circle_overlap, BOX, CIRCLE};
use broadphase_core::par::Exec;
use broadphase_core::testing::lcg;
use broadphase_core::tree::{Attrs, Tree};
use broadphase_core::{Filters, Narrow, Shapes};
use proptest::prelude::*;
use std::collections::BTreeMap;

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
        .map(|(i, j)| ((hs[i] as u64) << 32) | hs[j] as u64)
        .collect()
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
    Move(usize, [f64; 4], [f64; 3]),
    Remove(usize),
    Pairs,
    Update,
    Query([f64; 4]),
    Point(f64, f64),
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
        4 => (any::<usize>(), a_box(), a_circle()).prop_map(|(k, b, c)| Op::Move(k, b, c)),
        1 => any::<usize>().prop_map(Op::Remove),
        2 => Just(Op::Pairs),
        2 => Just(Op::Update),
        1 => a_box().prop_map(Op::Query),
        1 => (coord(), coord()).prop_map(|(x, y)| Op::Point(x, y)),
    ]
}

/// Run `ops` on a tree and the model; every answer must agree.
fn run(
    depth: u32,
    margin: f64,
    shares: (f64, f64),
    consolidate: Option<usize>,
    ops: Vec<Op>,
    workers: usize,
) -> Result<(), TestCaseError> {
    let ex = Exec::new(Some(workers));
    let mut tree = Tree::new([0.0, 0.0, 16.0, 16.0], depth, margin);
    (tree.rebuild_share, tree.relayout_share) = shares;
    if let Some(c) = consolidate {
        tree.consolidate_from = c;
    }
    let mut objs: BTreeMap<u32, Obj> = BTreeMap::new();
    let mut last: Vec<u64> = Vec::new();
    for op in ops {
        match op {
            Op::InsertBox(b, f) => {
                let (h, o) = insert_one(&mut tree, b, None, f, &ex);
                prop_assert!(objs.insert(h, o).is_none());
            }
            Op::InsertCircle(cc, f) => {
                let (h, o) = insert_one(&mut tree, circle_box(cc), Some(cc), f, &ex);
                prop_assert!(objs.insert(h, o).is_none());
            }
            Op::Move(k, b, c) => {
                if objs.is_empty() {
                    continue;
                }
                let h = *objs.keys().nth(k % objs.len()).unwrap();
                let o = objs.get_mut(&h).unwrap();
                prop_assert!(tree.check_handles(&[h as i64], Some(o.kind)).is_ok());
                if o.kind == BOX {
                    tree.move_to(&[h as i64], &[b], None, &ex);
                    o.b = b;
                } else {
                    tree.move_to(&[h as i64], &[circle_box(c)], Some(&[c]), &ex);
                    o.b = circle_box(c);
                    o.c = c;
                }
            }
            Op::Remove(k) => {
                if objs.is_empty() {
                    continue;
                }
                let h = *objs.keys().nth(k % objs.len()).unwrap();
                tree.remove(&[h as i64]);
                objs.remove(&h);
                prop_assert!(tree.check_handles(&[h as i64], None).is_err());
            }
            Op::Pairs => {
                let got = tree.pairs_packed(&ex, None).unwrap();
                prop_assert_eq!(&got, &model_pairs(&objs));
                last = got;
            }
            Op::Update => {
                let ev = tree.update(&ex, None).unwrap();
                let now = model_pairs(&objs);
                let began: Vec<u64> = now.iter().copied().filter(|p| !last.contains(p)).collect();
                let ended: Vec<u64> = last.iter().copied().filter(|p| !now.contains(p)).collect();
                prop_assert_eq!(ev.began, began);
                prop_assert_eq!(ev.ended, ended);
                last = now;
            }
            Op::Query(q) => {
                let want: Vec<u32> = objs
                    .iter()
                    .filter(|(_, o)| meets_box(o, &q))
                    .map(|(&h, _)| h)
                    .collect();
                prop_assert_eq!(tree.query(&q, &ex), want);
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
                prop_assert_eq!(tree.query_point(x, y, &ex), want);
            }
        }
        prop_assert_eq!(tree.validate(), Ok(()));
        prop_assert_eq!(tree.len(), objs.len());
        // touching(h) is h's row and column of the pairs
        if let Some((&h, _)) = objs.iter().next() {
            let want: Vec<u32> = model_pairs(&objs)
                .into_iter()
                .filter_map(|p| {
                    let (i, j) = ((p >> 32) as u32, p as u32);
                    (i == h).then_some(j).or((j == h).then_some(i))
                })
                .collect();
            let mut want = want;
            want.sort_unstable();
            prop_assert_eq!(tree.touching(h, &ex), want);
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

/// The naive reference's pairs of plain boxes, packed `i << 32 | j`.
fn packed_naive(boxes: &[[f64; 4]]) -> Vec<u64> {
    naive::pairs(boxes, &Narrow::default())
        .into_iter()
        .map(|(i, j)| ((i as u64) << 32) | j as u64)
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
        t.rebuild_share = 1.0; // never from scratch after the first call
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
                    .flat_map(|&p| [(p >> 32) as isize, p as u32 as isize])
                    .collect();
                assert_eq!(rows, flat);
                assert_eq!(t.last_pairs(), &want[..]);
            }
            assert_eq!(t.stats(ex).rebuilt, frame == 0);
        }
        last = want;
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
