//! The moving tree's ray casts: its walk through its own cells against the
//! grid built for the call (the same answers, exactly), and both against
//! the naive casts of its live boxes, on trees with freed slots, pending
//! moves, objects outside the world and filters.

use broadphase_core::naive;
use broadphase_core::par::Exec;
use broadphase_core::rays::{Hits, Mode, Rays};
use broadphase_core::tree::{Attrs, Policy, Tree};
use proptest::prelude::*;

/// A tree's objects: boxes (and circles) on a half-unit lattice over and
/// around a world of 16 x 16, a third removed, a third moved after.
#[derive(Clone, Debug)]
struct Scene {
    boxes: Vec<[f64; 4]>,
    circles: Option<Vec<[f64; 3]>>,
    cats: Vec<u64>,
    masks: Vec<u64>,
    moved: Vec<[f64; 4]>,
    rays: Vec<([f64; 2], [f64; 2], f64)>,
}

fn lattice() -> impl Strategy<Value = f64> {
    (-6i32..44).prop_map(|v| f64::from(v) / 2.0)
}

fn scene() -> impl Strategy<Value = Scene> {
    let object = (lattice(), lattice(), 0u8..9, 0u8..9, 1u64..4, 1u64..4);
    let ray = (
        lattice(),
        lattice(),
        -8i32..9,
        -8i32..9,
        prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(3.0), Just(40.0)],
    );
    (
        prop::collection::vec(object, 1..60),
        any::<bool>(),
        prop::collection::vec(ray, 1..12),
    )
        .prop_map(|(objs, circles, rays)| {
            let boxes: Vec<[f64; 4]> = objs
                .iter()
                .map(|&(x, y, w, h, _, _)| [x, y, x + f64::from(w) / 2.0, y + f64::from(h) / 2.0])
                .collect();
            let moved = boxes.iter().map(|b| [b[1], b[0], b[3], b[2]]).collect();
            Scene {
                circles: circles.then(|| {
                    boxes
                        .iter()
                        .map(|b| [b[0], b[1], (b[2] - b[0]) / 2.0])
                        .collect()
                }),
                boxes,
                cats: objs.iter().map(|o| o.4).collect(),
                masks: objs.iter().map(|o| o.5).collect(),
                moved,
                rays: rays
                    .iter()
                    .map(|&(x, y, dx, dy, s)| {
                        ([x, y], [f64::from(dx) / 2.0, f64::from(dy) / 2.0], s)
                    })
                    .collect(),
            }
        })
}

/// The scene's tree under `policy`, and the live boxes by handle (`None`:
/// freed).
fn tree_of(s: &Scene, policy: Policy) -> (Tree, Vec<Option<[f64; 4]>>) {
    let ex = Exec::serial();
    let mut t = Tree::with_policy([0.0, 0.0, 16.0, 16.0], 3, 0.0, policy);
    let boxes: Vec<[f64; 4]> = match &s.circles {
        Some(c) => c
            .iter()
            .map(|c| [c[0] - c[2], c[1] - c[2], c[0] + c[2], c[1] + c[2]])
            .collect(),
        None => s.boxes.clone(),
    };
    let attrs = Attrs {
        groups: None,
        categories: Some(&s.cats),
        masks: Some(&s.masks),
    };
    let h = t.insert(&boxes, s.circles.as_deref(), attrs, &ex);
    let mut live: Vec<Option<[f64; 4]>> = boxes.iter().copied().map(Some).collect();
    let gone: Vec<i64> = h.iter().step_by(3).map(|&h| i64::from(h)).collect();
    t.remove(&gone);
    for &g in &gone {
        live[g as usize] = None;
    }
    if s.circles.is_none() {
        let moving: Vec<i64> = h.iter().skip(1).step_by(3).map(|&h| i64::from(h)).collect();
        let to: Vec<[f64; 4]> = moving.iter().map(|&m| s.moved[m as usize]).collect();
        t.move_to(&moving, &to, None, &ex);
        for (&m, b) in moving.iter().zip(&to) {
            live[m as usize] = Some(*b);
        }
    }
    (t, live)
}

fn cast(t: &mut Tree, s: &Scene, mode: Mode, ignore: Option<&[i64]>, workers: usize) -> Hits {
    let origins: Vec<[f64; 2]> = s.rays.iter().map(|r| r.0).collect();
    let directions: Vec<[f64; 2]> = s.rays.iter().map(|r| r.1).collect();
    let max_t: Vec<f64> = s.rays.iter().map(|r| r.2).collect();
    let cats: Vec<u64> = (0..s.rays.len() as u64).map(|k| 1 + k % 3).collect();
    let rays = Rays {
        origins: &origins,
        directions: &directions,
        max_t: &max_t,
        categories: Some(&cats),
        masks: None,
        ignore,
    };
    t.cast_rays(&rays, mode, &Exec::new(Some(workers))).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn the_walk_through_the_cells_is_the_grid_and_the_reference(
        s in scene(), mode in 0u8..3, workers in 1usize..3, ig in any::<bool>(),
    ) {
        let mode = [Mode::First, Mode::All, Mode::Any][mode as usize];
        let walk = Policy { ray_walk_share: f64::INFINITY, ..Policy::default() };
        let grid = Policy { ray_walk_share: 0.0, ..Policy::default() };
        let (mut tw, live) = tree_of(&s, walk);
        let (mut tg, _) = tree_of(&s, grid);
        let ignore: Vec<i64> = (0..s.rays.len() as i64).map(|k| k % 5 - 1).collect();
        let ignore = ig.then_some(ignore.as_slice());
        let got = cast(&mut tw, &s, mode, ignore, workers);
        prop_assert_eq!(&got, &cast(&mut tg, &s, mode, ignore, workers));
        tw.validate().unwrap();
        if s.circles.is_some() {
            return Ok(());
        }
        // the naive casts of the live boxes, with the filters spelled out
        let boxes: Vec<[f64; 4]> = live.iter().map(|b| b.unwrap_or([0.0; 4])).collect();
        let (mut index, mut first_t, mut rows, mut t, mut any) = (vec![], vec![], vec![], vec![], vec![]);
        for (k, &(o, d, s_max)) in s.rays.iter().enumerate() {
            let cat = 1 + k as u64 % 3;
            let keep = |j: usize| {
                live[j].is_some()
                    && ignore.is_none_or(|g| g[k] != j as i64)
                    && cat & s.masks[j] != 0
            };
            let h = naive::ray_boxes(&boxes, o, d, s_max, keep);
            any.push(!h.all.is_empty());
            for &(j, e) in &h.all {
                rows.extend([k as isize, j as isize]);
                t.push(e);
            }
            index.push(h.first.map_or(-1, |f| f.0 as i64));
            first_t.push(h.first.map_or(f64::INFINITY, |f| f.1));
        }
        let want = match mode {
            Mode::Any => Hits::Any(any),
            Mode::All => Hits::All { rows, t },
            Mode::First => Hits::First { index, t: first_t },
        };
        prop_assert_eq!(got, want);
    }
}

/// A long ray through a big tree takes the grid, a short one the walk:
/// the same answers either way (the policy's default choosing).
#[test]
fn few_short_rays_and_many_long_ones_agree() {
    let ex = Exec::serial();
    let boxes: Vec<[f64; 4]> = (0..4000)
        .map(|k| {
            let (x, y) = (f64::from(k % 64) * 4.0, f64::from(k / 64) * 4.0);
            [x, y, x + 3.0, y + 3.0]
        })
        .collect();
    for depth in [2, 6] {
        let mut t = Tree::new([0.0, 0.0, 256.0, 256.0], depth, 0.0);
        t.insert(&boxes, None, Attrs::default(), &ex);
        for (s_max, d) in [
            (1.0, [7.0, 3.0]),
            (1.0, [250.0, 90.0]),
            (f64::INFINITY, [1.0, 1.0]),
        ] {
            let rays = Rays {
                origins: &[[1.5, 2.5]],
                directions: &[d],
                max_t: &[s_max],
                categories: None,
                masks: None,
                ignore: None,
            };
            let got = t.cast_rays(&rays, Mode::All, &ex).unwrap();
            let want = naive::ray_boxes(&boxes, [1.5, 2.5], d, s_max, |_| true);
            let Hits::All { rows, t: ts } = got else {
                unreachable!()
            };
            let hit: Vec<(usize, f64)> = rows.chunks(2).map(|r| r[1] as usize).zip(ts).collect();
            assert_eq!(hit, want.all, "depth {depth}, ray {d:?} to {s_max}");
        }
    }
}
