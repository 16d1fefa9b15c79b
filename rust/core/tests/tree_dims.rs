//! The moving tree in 2D and 3D against one model, the same operations in
//! both dimensions: inserts of boxes and balls (circles, spheres) with
//! filters, moves, removals, pairs, events, region and point queries and
//! partners, every answer recomputed by brute force.  (`tree.rs` runs the
//! 2D tree through stops as well; stopping is the same code in 3D.)

use broadphase_core::dim::Row;
use broadphase_core::naive;
use broadphase_core::narrow::{Balls, BOX, CIRCLE};
use broadphase_core::pairs::{first, pack, second};
use broadphase_core::par::Exec;
use broadphase_core::testing::objects_minus;
use broadphase_core::tree::{Attrs, BallOf, Policy, Tree, TreeRow};
use broadphase_core::{Filters, Narrow};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// A live object of the model.
#[derive(Clone, Debug)]
struct Obj<const N: usize>
where
    [f64; N]: Row,
{
    kind: u8,
    b: [f64; N],
    c: BallOf<N>,
    filter: (i64, u64, u64),
}

/// The box of a ball of half-integer centre and radius (exact: the sums
/// are small multiples of 1/2).
fn ball_box<const N: usize>(c: &BallOf<N>) -> [f64; N]
where
    [f64; N]: Row,
{
    let c = c.as_ref();
    let r = c[N / 2];
    std::array::from_fn(|k| {
        if k < N / 2 {
            c[k] - r
        } else {
            c[k - N / 2] + r
        }
    })
}

/// Whether the point `p` lies strictly inside the object: by the box's
/// sides, or by the squared distance to the centre (exact on these small
/// half-integers).
fn holds_point<const N: usize>(o: &Obj<N>, p: &[f64]) -> bool
where
    [f64; N]: Row,
{
    if o.kind == CIRCLE {
        let c = o.c.as_ref();
        let d2: f64 = (0..N / 2).map(|k| (p[k] - c[k]) * (p[k] - c[k])).sum();
        d2 < c[N / 2] * c[N / 2]
    } else {
        (0..N / 2).all(|k| o.b[k] < p[k] && p[k] < o.b[N / 2 + k])
    }
}

/// The model's pairs: the naive reference over the live objects, as handles.
fn model_pairs<const N: usize>(objs: &BTreeMap<u32, Obj<N>>) -> Vec<u64>
where
    [f64; N]: TreeRow<N>,
{
    let hs: Vec<u32> = objs.keys().copied().collect();
    let o: Vec<&Obj<N>> = objs.values().collect();
    let boxes: Vec<[f64; N]> = o.iter().map(|x| x.b).collect();
    let balls: Vec<BallOf<N>> = o.iter().map(|x| x.c).collect();
    let kinds: Vec<u8> = o.iter().map(|x| x.kind).collect();
    let groups: Vec<i64> = o.iter().map(|x| x.filter.0).collect();
    let cats: Vec<u64> = o.iter().map(|x| x.filter.1).collect();
    let masks: Vec<u64> = o.iter().map(|x| x.filter.2).collect();
    let narrow = Narrow {
        shapes: <[f64; N]>::mixed(&kinds, &balls, &boxes),
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
fn touching_in<const N: usize>(objs: &BTreeMap<u32, Obj<N>>, h: u32) -> Vec<u32>
where
    [f64; N]: TreeRow<N>,
{
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

/// One operation, its boxes and balls as flat coordinates (`lo`, then
/// sizes; centre, then radius) for any dimension.
#[derive(Clone, Debug)]
enum Op {
    InsertBox(Vec<f64>, (i64, u64, u64)),
    InsertBall(Vec<f64>, (i64, u64, u64)),
    InsertMany(Vec<Vec<f64>>),
    Move(usize, Vec<f64>, Vec<f64>),
    MoveMany(Vec<(usize, Vec<f64>)>),
    Remove(usize),
    Pairs,
    Update,
    Query(Vec<f64>),
    Point(Vec<f64>),
    Touching(usize),
}

fn coord() -> impl Strategy<Value = f64> {
    (-8i32..40).prop_map(|v| v as f64 / 2.0)
}

fn size() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![0.0, 0.5, 1.0, 1.0, 2.0, 3.0, 8.0, 24.0])
}

/// A box of `d` axes: `d` low sides, then `d` sizes.
fn a_box(d: usize) -> impl Strategy<Value = Vec<f64>> {
    (
        prop::collection::vec(coord(), d),
        prop::collection::vec(size(), d),
    )
        .prop_map(|(lo, w)| lo.iter().chain(&w).copied().collect())
}

/// A ball of `d` axes: its centre, then its radius.
fn a_ball(d: usize) -> impl Strategy<Value = Vec<f64>> {
    (
        prop::collection::vec(coord(), d),
        prop::sample::select(vec![0.0, 0.5, 1.0, 1.5, 2.5, 6.0]),
    )
        .prop_map(|(mut c, r)| {
            c.push(r);
            c
        })
}

fn filters() -> impl Strategy<Value = (i64, u64, u64)> {
    (
        prop::sample::select(vec![0i64, 0, 0, 1, 2]),
        prop::sample::select(vec![u64::MAX, u64::MAX, 1, 2, 3]),
        prop::sample::select(vec![u64::MAX, u64::MAX, 1, 2, 3]),
    )
}

fn op(d: usize) -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (a_box(d), filters()).prop_map(|(b, f)| Op::InsertBox(b, f)),
        2 => (a_ball(d), filters()).prop_map(|(c, f)| Op::InsertBall(c, f)),
        1 => prop::collection::vec(a_box(d), 1..6).prop_map(Op::InsertMany),
        4 => (any::<usize>(), a_box(d), a_ball(d)).prop_map(|(k, b, c)| Op::Move(k, b, c)),
        1 => prop::collection::vec((any::<usize>(), a_box(d)), 1..6).prop_map(Op::MoveMany),
        2 => any::<usize>().prop_map(Op::Remove),
        2 => Just(Op::Pairs),
        2 => Just(Op::Update),
        1 => a_box(d).prop_map(Op::Query),
        1 => prop::collection::vec(coord(), d).prop_map(Op::Point),
        1 => any::<usize>().prop_map(Op::Touching),
    ]
}

/// The box row of flat `lo, sizes`.
fn row<const N: usize>(v: &[f64]) -> [f64; N] {
    std::array::from_fn(|k| if k < N / 2 { v[k] } else { v[k - N / 2] + v[k] })
}

/// The ball row of flat `centre, radius`.
fn ball<const N: usize>(v: &[f64]) -> BallOf<N>
where
    [f64; N]: Row,
{
    let mut c = BallOf::<N>::default();
    c.as_mut().copy_from_slice(v);
    c
}

/// Run `ops` on a tree of rows `N` wide and on the model; every answer
/// must agree, and the tree's invariants hold after every operation.
fn run<const N: usize>(
    depth: u32,
    margin: f64,
    shares: (f64, f64),
    ops: Vec<Op>,
    workers: usize,
) -> Result<(), TestCaseError>
where
    [f64; N]: TreeRow<N>,
{
    let ex = Exec::new(Some(workers));
    let mut policy = Policy::default();
    (policy.rebuild_share, policy.relayout_share) = shares;
    let world: [f64; N] = std::array::from_fn(|k| if k < N / 2 { 0.0 } else { 16.0 });
    let mut tree = Tree::<N>::with_policy(world, depth, margin, policy);
    let mut objs: BTreeMap<u32, Obj<N>> = BTreeMap::new();
    // each live handle's object identity (a reused handle is a new object)
    let mut ids: BTreeMap<u32, u64> = BTreeMap::new();
    let mut next_id = 0u64;
    let mut last: Vec<(u64, [u64; 2])> = Vec::new();
    let with_ids = |pairs: &[u64], ids: &BTreeMap<u32, u64>| -> Vec<(u64, [u64; 2])> {
        let id = |h: usize| ids[&(h as u32)];
        pairs
            .iter()
            .map(|&p| (p, [id(first(p)), id(second(p))]))
            .collect()
    };
    let pick = |objs: &BTreeMap<u32, Obj<N>>, k: usize| *objs.keys().nth(k % objs.len()).unwrap();
    for op in ops {
        match op {
            Op::InsertBox(v, f) | Op::InsertBall(v, f) => {
                let is_ball = v.len() == N / 2 + 1;
                let c = if is_ball {
                    ball::<N>(&v)
                } else {
                    BallOf::<N>::default()
                };
                let b = if is_ball {
                    ball_box::<N>(&c)
                } else {
                    row::<N>(&v)
                };
                let attrs = Attrs {
                    groups: Some(&[f.0]),
                    categories: Some(&[f.1]),
                    masks: Some(&[f.2]),
                };
                let balls = is_ball.then_some(std::slice::from_ref(&c));
                let h = tree.insert(&[b], balls, attrs, &ex)[0];
                let kind = if is_ball { CIRCLE } else { BOX };
                let o = Obj {
                    kind,
                    b,
                    c,
                    filter: f,
                };
                prop_assert!(objs.insert(h, o).is_none());
                ids.insert(h, next_id);
                next_id += 1;
            }
            Op::InsertMany(vs) => {
                let bs: Vec<[f64; N]> = vs.iter().map(|v| row::<N>(v)).collect();
                let hs = tree.insert(&bs, None, Attrs::default(), &ex);
                prop_assert_eq!(hs.len(), bs.len());
                for (h, b) in hs.into_iter().zip(bs) {
                    let o = Obj {
                        kind: BOX,
                        b,
                        c: BallOf::<N>::default(),
                        filter: (0, u64::MAX, u64::MAX),
                    };
                    prop_assert!(objs.insert(h, o).is_none());
                    ids.insert(h, next_id);
                    next_id += 1;
                }
            }
            Op::Move(k, b, c) => {
                if objs.is_empty() {
                    continue;
                }
                let h = pick(&objs, k);
                let o = objs.get_mut(&h).unwrap();
                prop_assert!(tree.check_handles(&[h as i64], Some(o.kind)).is_ok());
                if o.kind == BOX {
                    o.b = row::<N>(&b);
                    tree.move_to(&[h as i64], &[o.b], None, &ex);
                } else {
                    o.c = ball::<N>(&c);
                    o.b = ball_box::<N>(&o.c);
                    tree.move_to(&[h as i64], &[o.b], Some(&[o.c]), &ex);
                }
            }
            Op::MoveMany(moves) => {
                let mut hs: Vec<i64> = Vec::new();
                let mut to: Vec<[f64; N]> = Vec::new();
                for (k, b) in moves {
                    if objs.is_empty() {
                        break;
                    }
                    let h = pick(&objs, k);
                    if objs[&h].kind == BOX && !hs.contains(&(h as i64)) {
                        hs.push(h as i64);
                        to.push(row::<N>(&b));
                    }
                }
                prop_assert!(tree.check_handles(&hs, Some(BOX)).is_ok());
                tree.move_to(&hs, &to, None, &ex);
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
            Op::Pairs => {
                let got = tree.pairs_packed(&ex, None).unwrap();
                prop_assert_eq!(got, model_pairs(&objs));
            }
            Op::Update => {
                let ev = tree.update(&ex, None).unwrap();
                let now = with_ids(&model_pairs(&objs), &ids);
                prop_assert_eq!(ev.began, objects_minus(&now, &last));
                prop_assert_eq!(ev.ended, objects_minus(&last, &now));
                last = now;
            }
            Op::Query(v) => {
                let q = row::<N>(&v);
                let want: Vec<u32> = objs
                    .iter()
                    .filter(|(_, o)| {
                        let boxes_meet =
                            (0..N / 2).all(|k| o.b[k] < q[N / 2 + k] && q[k] < o.b[N / 2 + k]);
                        boxes_meet && (o.kind == BOX || <[f64; N]>::box_meets_ball(&q, &o.c))
                    })
                    .map(|(&h, _)| h)
                    .collect();
                prop_assert_eq!(tree.query(&q, &ex), want);
            }
            Op::Point(p) => {
                let want: Vec<u32> = objs
                    .iter()
                    .filter(|(_, o)| holds_point(o, &p))
                    .map(|(&h, _)| h)
                    .collect();
                let mut at = <[f64; N] as Row>::Axes::default();
                at.as_mut().copy_from_slice(&p);
                prop_assert_eq!(tree.query_point(&at, &ex), want);
            }
            Op::Touching(k) => {
                if objs.is_empty() {
                    continue;
                }
                let h = pick(&objs, k);
                prop_assert_eq!(tree.touching(h, &ex), touching_in(&objs, h));
            }
        }
        prop_assert_eq!(tree.validate(), Ok(()));
        prop_assert_eq!(tree.len(), objs.len());
        for h in 0..tree.slots() as u32 {
            prop_assert_eq!(
                tree.contains(h as u64),
                objs.contains_key(&h),
                "handle {}",
                h
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_octree_agrees_with_the_model(depth in 0u32..5, margin in prop::sample::select(vec![0.0, 0.0, 0.5, 3.0]),
                                        rebuild in prop::sample::select(vec![0.1, -1.0, f64::INFINITY]),
                                        relayout in prop::sample::select(vec![0.125, -1.0, f64::INFINITY]),
                                        ops in prop::collection::vec(op(3), 1..60), workers in 1usize..3) {
        run::<6>(depth, margin, (rebuild, relayout), ops, workers)?;
    }

    #[test]
    fn the_quadtree_agrees_with_the_same_model(depth in 0u32..6, margin in prop::sample::select(vec![0.0, 0.5, 3.0]),
                                               rebuild in prop::sample::select(vec![0.1, -1.0, f64::INFINITY]),
                                               relayout in prop::sample::select(vec![0.125, -1.0, f64::INFINITY]),
                                               ops in prop::collection::vec(op(2), 1..60), workers in 1usize..3) {
        run::<4>(depth, margin, (rebuild, relayout), ops, workers)?;
    }
}

/// Many objects, frames of small moves and a few big ones, on one and two
/// threads: the pairs of every frame are the naive reference's (the
/// searches from scratch and the incremental refreshes of many objects).
#[test]
fn octree_frames_of_many_objects() {
    let mut s = 12345u64;
    let mut rnd = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 3000;
    let mut boxes: Vec<[f64; 6]> = (0..n)
        .map(|_| {
            let (x, y, z, w) = (
                rnd() * 100.0,
                rnd() * 100.0,
                rnd() * 100.0,
                rnd() * 4.0 + 0.5,
            );
            [x, y, z, x + w, y + w, z + w]
        })
        .collect();
    for workers in [1, 2] {
        let ex = Exec::new(Some(workers));
        let mut tree = Tree::<6>::new([0.0, 0.0, 0.0, 100.0, 100.0, 100.0], 5, 0.5);
        tree.insert(&boxes, None, Attrs::default(), &ex);
        for frame in 0..8 {
            let moved: Vec<i64> = (0..n as i64)
                .filter(|&h| frame % 3 == 0 || h % 7 == frame)
                .collect();
            for &h in &moved {
                let d = (rnd() - 0.5) * if frame == 5 { 60.0 } else { 1.0 };
                for v in boxes[h as usize].iter_mut() {
                    *v += d;
                }
            }
            let to: Vec<[f64; 6]> = moved.iter().map(|&h| boxes[h as usize]).collect();
            tree.move_to(&moved, &to, None, &ex);
            let got = tree.pairs_packed(&ex, None).unwrap();
            let narrow = Narrow::default();
            let want: Vec<u64> = naive::pairs(&boxes, &narrow)
                .into_iter()
                .map(|(i, j)| pack(i as u32, j as u32))
                .collect();
            assert!(!want.is_empty());
            assert_eq!(got, want, "frame {frame}, {workers} workers");
            assert_eq!(tree.validate(), Ok(()));
        }
    }
}
