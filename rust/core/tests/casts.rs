//! Ray casts and swept pairs against the naive references (every object
//! tested per ray, every pair tested per frame), for every mode, filter,
//! thread count, on inputs rich in ties: small integers (shared edges,
//! grazing rays, axis-parallel and zero directions, `-0.0`), scaled from
//! subnormal to huge, and random floats.

use broadphase_core::naive::{self, RayHits};
use broadphase_core::pairs::TooMany;
use broadphase_core::rays::{cast_boxes, cast_circles, Cast, Hits, Mode, Rays};
use broadphase_core::swept::{swept_boxes, swept_circles, Motion};
use broadphase_core::{check, find_pairs, Exec, Filters, Search};
use proptest::prelude::*;

fn boxes_of(ints: &[(i32, i32, u8, u8)], k: f64) -> Vec<[f64; 4]> {
    ints.iter()
        .map(|&(x, y, w, h)| {
            let (x, y) = (x as f64 * k, y as f64 * k);
            [x, y, x + w as f64 * k, y + h as f64 * k]
        })
        .collect()
}

fn coord(k: f64) -> impl Strategy<Value = f64> {
    (-12i32..12, any::<bool>()).prop_map(
        move |(v, neg0)| {
            if v == 0 && neg0 {
                -0.0
            } else {
                v as f64 * k
            }
        },
    )
}

#[derive(Debug)]
struct Scene {
    boxes: Vec<[f64; 4]>,
    origins: Vec<[f64; 2]>,
    directions: Vec<[f64; 2]>,
    max_t: Vec<f64>,
}

fn scene() -> impl Strategy<Value = Scene> {
    let k = prop_oneof![
        Just(1.0),
        Just(0.5),
        Just(2f64.powi(-1060)),
        Just(2f64.powi(990))
    ];
    k.prop_flat_map(|k| {
        let boxes = proptest::collection::vec((-10i32..10, -10i32..10, 0u8..6, 0u8..6), 0..40);
        let rays = proptest::collection::vec(
            (
                coord(k),
                coord(k),
                coord(1.0),
                coord(1.0),
                prop_oneof![
                    Just(f64::INFINITY),
                    Just(0.0),
                    (1u8..8).prop_map(|v| v as f64 / 2.0)
                ],
            ),
            1..30,
        );
        (boxes, rays).prop_map(move |(b, r)| Scene {
            boxes: boxes_of(&b, k),
            origins: r.iter().map(|v| [v.0, v.1]).collect(),
            directions: r.iter().map(|v| [v.2 / 4.0, v.3 / 4.0]).collect(),
            max_t: r.iter().map(|v| v.4).collect(),
        })
    })
}

/// A cast of `rays` with no filters on the objects, every hit kept.
fn plain(rays: Rays, mode: Mode) -> Cast {
    Cast {
        rays,
        objects: Filters::default(),
        mode,
        max_hits: None,
    }
}

/// Whether ray `k` may hit object `j`: the filters, spelled out.
fn passes(rays: &Rays, objects: &Filters, k: usize, j: usize) -> bool {
    let bits = |c: Option<&[u64]>, i: usize| c.map_or(u64::MAX, |c| c[i]);
    rays.ignore.is_none_or(|g| g[k] != j as i64)
        && bits(rays.categories, k) & bits(objects.masks, j) != 0
        && bits(objects.categories, j) & bits(rays.masks, k) != 0
}

/// The reference answers of a cast from the naive hits of each ray.
fn reference(hits: &dyn Fn(usize) -> RayHits, m: usize, mode: Mode) -> Hits {
    let (mut index, mut t, mut rows, mut any) = (vec![], vec![], vec![], vec![]);
    let mut first_t = vec![];
    for k in 0..m {
        let h = hits(k);
        any.push(!h.all.is_empty());
        for &(j, s) in &h.all {
            rows.extend([k as isize, j as isize]);
            t.push(s);
        }
        index.push(h.first.map_or(-1, |f| f.0 as i64));
        first_t.push(h.first.map_or(f64::INFINITY, |f| f.1));
    }
    match mode {
        Mode::Any => Hits::Any(any),
        Mode::All => Hits::All { rows, t },
        Mode::First => Hits::First { index, t: first_t },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn box_casts_match_the_reference(s in scene(), mode in 0u8..3, filt in 0u8..3,
                                     workers in 1usize..4) {
        let mode = [Mode::First, Mode::All, Mode::Any][mode as usize];
        let (n, m) = (s.boxes.len(), s.origins.len());
        let cats: Vec<u64> = (0..n as u64).map(|j| 1 << (j % 3)).collect();
        let rmasks: Vec<u64> = (0..m as u64).map(|k| 1 + (k % 4) * 2).collect();
        let ignore: Vec<i64> = (0..m as i64).map(|k| k % (n as i64 + 1) - 1).collect();
        let objects = Filters { categories: (filt == 1).then_some(&cats[..]), ..Default::default() };
        let rays = Rays {
            origins: &s.origins, directions: &s.directions, max_t: &s.max_t,
            categories: None, masks: (filt == 1).then_some(&rmasks[..]),
            ignore: (filt == 2).then_some(&ignore[..]),
        };
        let cast = Cast {
            rays,
            objects,
            mode,
            max_hits: None,
        };
        let got = cast_boxes(&s.boxes, &cast, &Exec::new(Some(workers))).unwrap();
        let hits = |k: usize| naive::ray_boxes(&s.boxes, s.origins[k], s.directions[k],
                                               s.max_t[k], |j| passes(&rays, &objects, k, j));
        prop_assert_eq!(got, reference(&hits, m, mode));
    }

    #[test]
    fn circle_casts_match_the_reference(s in scene(), mode in 0u8..3, workers in 1usize..4) {
        let mode = [Mode::First, Mode::All, Mode::Any][mode as usize];
        let circles: Vec<[f64; 3]> = s.boxes.iter()
            .map(|b| [b[0], b[1], (b[2] - b[0]) * 0.5]).collect();
        let boxes = check::circle_boxes(&circles, &Exec::serial()).unwrap();
        let rays = Rays { origins: &s.origins, directions: &s.directions, max_t: &s.max_t,
                          categories: None, masks: None, ignore: None };
        let cast = plain(rays, mode);
        let got = cast_circles(&circles, &boxes, &cast, &Exec::new(Some(workers))).unwrap();
        let hits = |k: usize| naive::ray_circles(&circles, s.origins[k], s.directions[k],
                                                 s.max_t[k], |_| true);
        prop_assert_eq!(got, reference(&hits, s.origins.len(), mode));
    }

    #[test]
    fn swept_pairs_match_the_reference(
        a in proptest::collection::vec((-10i32..10, -10i32..10, 0u8..5, 0u8..5), 0..40),
        dx in proptest::collection::vec((-12i32..12, -12i32..12), 40),
        k in prop_oneof![Just(1.0), Just(0.25), Just(2f64.powi(-1060)), Just(2f64.powi(990))],
        workers in 1usize..4,
    ) {
        let start = boxes_of(&a, k);
        let end: Vec<[f64; 4]> = start.iter().zip(&dx)
            .map(|(b, &(x, y))| {
                let (x, y) = (x as f64 * k, y as f64 * k);
                [b[0] + x, b[1] + y, b[2] + x, b[3] + y]
            }).collect();
        let ex = Exec::new(Some(workers));
        let m = Motion { start: &start, end: &end, filters: Filters::default() };
        let (rows, t) = swept_boxes(&m, &ex).unwrap();
        let want = naive::swept_box_pairs(&start, &end);
        let got: Vec<(usize, usize, f64)> = rows.chunks(2).zip(&t)
            .map(|(r, &s)| (r[0] as usize, r[1] as usize, s)).collect();
        prop_assert_eq!(got, want);
        // nothing moves: the pairs of find_pairs, at t = 0
        let m = Motion { start: &start, end: &start, filters: Filters::default() };
        let (rows, t) = swept_boxes(&m, &ex).unwrap();
        let search = Search::of_boxes(&start, &ex).unwrap();
        prop_assert_eq!(rows, find_pairs(&search, &ex).unwrap());
        prop_assert!(t.iter().all(|&s| s == 0.0));
        // circles
        let c0: Vec<[f64; 3]> = start.iter().map(|b| [b[0], b[1], (b[2] - b[0]) * 0.5]).collect();
        let c1: Vec<[f64; 3]> = end.iter().zip(&c0).map(|(b, c)| [b[0], b[1], c[2]]).collect();
        let (b0, b1) = (check::circle_boxes(&c0, &ex).unwrap(), check::circle_boxes(&c1, &ex).unwrap());
        let m = Motion { start: &c0, end: &c1, filters: Filters::default() };
        let (rows, t) = swept_circles(&m, [&b0, &b1], &ex).unwrap();
        let got: Vec<(usize, usize, f64)> = rows.chunks(2).zip(&t)
            .map(|(r, &s)| (r[0] as usize, r[1] as usize, s)).collect();
        prop_assert_eq!(got, naive::swept_ball_pairs(&c0, &c1));
    }

    /// Random floats: boxes anywhere, rays anywhere.
    #[test]
    fn random_float_casts(b in proptest::collection::vec(
                              (-1e3f64..1e3, -1e3f64..1e3, 0f64..50.0, 0f64..50.0), 1..200),
                          r in proptest::collection::vec(
                              (-1e3f64..1e3, -1e3f64..1e3, -1.0f64..1.0, -1.0f64..1.0), 1..50)) {
        let boxes: Vec<[f64; 4]> = b.iter().map(|v| [v.0, v.1, v.0 + v.2, v.1 + v.3]).collect();
        let origins: Vec<[f64; 2]> = r.iter().map(|v| [v.0, v.1]).collect();
        let directions: Vec<[f64; 2]> = r.iter().map(|v| [v.2, v.3]).collect();
        let rays = Rays { origins: &origins, directions: &directions, max_t: &[f64::INFINITY],
                          categories: None, masks: None, ignore: None };
        for mode in [Mode::First, Mode::All] {
            let cast = plain(rays, mode);
            let got = cast_boxes(&boxes, &cast, &Exec::serial()).unwrap();
            let hits = |k: usize| naive::ray_boxes(&boxes, origins[k], directions[k],
                                                   f64::INFINITY, |_| true);
            prop_assert_eq!(got, reference(&hits, origins.len(), mode));
        }
    }
}

#[test]
fn huge_coordinates_and_tiny_directions() {
    let boxes = [
        [-1.7e308, -1.0, -1.6e308, 1.0],
        [1.6e308, -1.0, 1.7e308, 1.0],
        [0.0, 0.0, 1.0, 1.0],
    ];
    let origins = [[0.5, 0.5], [-1.65e308, 0.0], [0.0, 0.5]];
    let directions = [[1e308, 0.0], [5e-324, 0.0], [-1e-300, 0.0]];
    let rays = Rays {
        origins: &origins,
        directions: &directions,
        max_t: &[f64::INFINITY],
        categories: None,
        masks: None,
        ignore: None,
    };
    let cast = Cast {
        rays,
        objects: Filters::default(),
        mode: Mode::All,
        max_hits: None,
    };
    let got = cast_boxes(&boxes, &cast, &Exec::serial()).unwrap();
    let mut want_rows = vec![];
    let mut want_t = vec![];
    for k in 0..3 {
        for (j, s) in
            naive::ray_boxes(&boxes, origins[k], directions[k], f64::INFINITY, |_| true).all
        {
            want_rows.extend([k as isize, j as isize]);
            want_t.push(s);
        }
    }
    assert_eq!(
        got,
        Hits::All {
            rows: want_rows.clone(),
            t: want_t
        }
    );
    // ray 0 starts inside box 2 and reaches box 1; ray 1 starts inside box 0
    assert!(want_rows.chunks(2).any(|r| r == [0, 1]) && want_rows.chunks(2).any(|r| r == [1, 0]));
}

/// Slivers around lattice points and along lattice lines, and rays through
/// those points and along those lines (axis-parallel, diagonal through
/// corners, near-axis, one with a subnormal component), at scales from
/// `2^-1060` to `2^990`: a walk that skipped a cell the ray passes through
/// would miss a sliver there.  Compared with every object tested per ray.
#[test]
fn rays_grazing_lattice_points_and_lines_meet_every_object() {
    for scale in [1.0, 2f64.powi(-1060), 2f64.powi(-20), 2f64.powi(990)] {
        let (w, h) = (scale / 64.0, scale * 3.0);
        let mut boxes = vec![];
        for i in 0..9 {
            for j in 0..9 {
                let (x, y) = (i as f64 * scale, j as f64 * scale);
                boxes.push([x - w, y - w, x + w, y + w]);
                if (i + j) % 3 == 0 {
                    boxes.push([x - w, y, x + w, y + h]);
                    boxes.push([x, y - w, x + h, y + w]);
                }
            }
        }
        let dirs = [
            [1.0, 0.0],
            [0.0, -1.0],
            [1.0, 1.0],
            [-1.0, 1.0],
            [2.0, 1.0],
            [1.0, 2f64.powi(-40)],
            [-(2f64.powi(-52)), 1.0],
            [1.0, f64::from_bits(1)],
        ];
        let (mut origins, mut directions) = (vec![], vec![]);
        for i in -1..10 {
            for j in [-1, 0, 4, 8, 9] {
                for d in dirs {
                    for (a, b) in [(i, j), (j, i)] {
                        origins.push([a as f64 * scale, b as f64 * scale]);
                        directions.push([d[0] * scale, d[1] * scale]);
                    }
                }
            }
        }
        let rays = Rays {
            origins: &origins,
            directions: &directions,
            max_t: &[f64::INFINITY],
            categories: None,
            masks: None,
            ignore: None,
        };
        for mode in [Mode::All, Mode::First] {
            let cast = plain(rays, mode);
            let got = cast_boxes(&boxes, &cast, &Exec::serial()).unwrap();
            let hits = |k: usize| {
                naive::ray_boxes(&boxes, origins[k], directions[k], f64::INFINITY, |_| true)
            };
            assert_eq!(
                got,
                reference(&hits, origins.len(), mode),
                "scale {scale:e}"
            );
        }
    }
}

/// Every hit of many rays through many boxes: more than `max_hits` is
/// `TooMany` with the exact count, for any thread count; exactly as many
/// is the answer.
#[test]
fn all_hits_beyond_the_limit_are_counted_not_stored() {
    let boxes: Vec<[f64; 4]> = (0..40)
        .map(|k| {
            let x = f64::from(k) * 2.0;
            [x, 0.0, x + 1.0, 10.0]
        })
        .collect();
    let origins: Vec<[f64; 2]> = (0..3000).map(|k| [-1.0, f64::from(k % 9) + 0.5]).collect();
    let directions = vec![[100.0, 0.0]; origins.len()];
    let rays = Rays {
        origins: &origins,
        directions: &directions,
        max_t: &[1.0],
        categories: None,
        masks: None,
        ignore: None,
    };
    let total = 40 * 3000;
    for workers in [1, 2] {
        let ex = Exec::new(Some(workers));
        for (max_hits, want) in [
            (Some(total - 1), Err(TooMany(total))),
            (Some(0), Err(TooMany(total))),
            (Some(total), Ok(total)),
            (None, Ok(total)),
        ] {
            let cast = Cast {
                rays,
                objects: Filters::default(),
                mode: Mode::All,
                max_hits,
            };
            let got = cast_boxes(&boxes, &cast, &ex).map(|h| match h {
                Hits::All { rows, t } => {
                    assert_eq!(rows.len(), 2 * t.len());
                    t.len() as u64
                }
                _ => unreachable!("asked for every hit"),
            });
            assert_eq!(got, want, "workers {workers}, max_hits {max_hits:?}");
        }
    }
}
