//! The walk's tests: the 2D walk against an exact reference on a lattice
//! of boxes (every ray's cells), and a property test over both dimensions
//! (`conservative`).

use super::*;
use crate::bigint::Dyadic;
use crate::check::bounds_of;
use crate::par::Exec;

/// A bound of `s`: `num / den` (`den > 0`) and whether it is attained.
type Bound = (Dyadic, Dyadic, bool);

/// Whether the ray's true segment, `s` in `[0, s_max]`, has a point in
/// the cell `[lo[0], hi[0]) x [lo[1], hi[1])` (edges possibly infinite)
/// within the closed bounds `b`: exact, by the signs of cross products
/// of dyadic numbers.
fn meets(o: [f64; 2], d: [f64; 2], s_max: f64, cell: [f64; 4], b: [f64; 4]) -> bool {
    let one = || Dyadic::of(1.0);
    let mut lows: Vec<Bound> = vec![(Dyadic::zero(), one(), true)];
    let mut ups: Vec<Bound> = vec![];
    if s_max.is_finite() {
        ups.push((Dyadic::of(s_max), one(), true));
    }
    // (axis, edge, whether a lower edge, whether closed)
    let sides = [
        (0, cell[0], true, true),
        (1, cell[1], true, true),
        (0, cell[2], false, false),
        (1, cell[3], false, false),
        (0, b[0], true, true),
        (1, b[1], true, true),
        (0, b[2], false, true),
        (1, b[3], false, true),
    ];
    for (k, e, is_lo, closed) in sides {
        if e.is_infinite() {
            if (e > 0.0) == is_lo {
                return false;
            }
            continue;
        }
        if d[k] == 0.0 {
            let inside = match (is_lo, closed) {
                (true, true) => e <= o[k],
                (true, false) => e < o[k],
                (false, true) => o[k] <= e,
                (false, false) => o[k] < e,
            };
            if !inside {
                return false;
            }
            continue;
        }
        let num = Dyadic::of(e) - Dyadic::of(o[k]);
        let (num, den) = if d[k] > 0.0 {
            (num, Dyadic::of(d[k]))
        } else {
            (-num, Dyadic::of(-d[k]))
        };
        // d > 0: a lower edge gives a lower bound of s; d < 0 flips it
        if is_lo == (d[k] > 0.0) {
            lows.push((num, den, closed));
        } else {
            ups.push((num, den, closed));
        }
    }
    lows.iter().all(|l| {
        ups.iter().all(|u| {
            let c = (l.0.clone() * u.1.clone() - u.0.clone() * l.1.clone()).sign();
            c < 0 || (c == 0 && l.2 && u.2)
        })
    })
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Checks one ray against every cell of `grid` (the points of the
/// segment within the objects' bounds: no object reaches beyond);
/// `false` when the walk gave up.
fn check_ray(grid: &RayGrid<4>, o: [f64; 2], d: [f64; 2], s_max: f64, limit: f64) -> bool {
    let mut seen: Vec<*const u32> = vec![];
    let walked = grid.visit(o, d, s_max, || limit, |cell| seen.push(cell.as_ptr()));
    if !walked {
        return false;
    }
    let (ex, ey) = (grid.edges(0), grid.edges(1));
    let side = ex.len() - 2;
    // the segment the limit still asks for
    let upto = s_max.min(limit);
    for r in 0..side {
        for c in 0..side {
            let cell = grid.cell(r * side + c);
            if cell.is_empty() || upto < 0.0 {
                continue;
            }
            if meets(
                o,
                d,
                upto,
                [ex[c], ey[r], ex[c + 1], ey[r + 1]],
                grid.bounds(),
            ) {
                assert!(
                    seen.contains(&cell.as_ptr()),
                    "cell ({c}, {r}) skipped by the ray {o:?} + s {d:?}, s <= {upto:e}"
                );
            }
        }
    }
    true
}

/// Rays through cell corners and along cell edges exactly, near-axis
/// and diagonal, with huge and tiny coordinates and directions, and
/// with finite limits: the walk visits every non-empty cell the exact
/// segment has a point in (the `s` up to the limit).
#[test]
fn the_walk_misses_no_cell_a_ray_passes_through() {
    let mut rng = Rng(7);
    let (mut rays, mut gave_up) = (0, 0);
    for scale in [1.0, 0.375, 2f64.powi(-1060), 2f64.powi(-30), 2f64.powi(990)] {
        // a lattice of unit boxes with gaps, and a few long ones
        let mut boxes = vec![];
        for i in 0..10 {
            for j in 0..10 {
                if (i * 7 + j * 3) % 5 != 0 {
                    let (x, y) = (i as f64 * scale, j as f64 * scale);
                    boxes.push([x, y, x + scale, y + scale]);
                }
            }
        }
        boxes.push([0.0, 4.5 * scale, 10.0 * scale, 4.75 * scale]);
        let grid = RayGrid::<4>::new(&boxes, bounds_of(&boxes), &Exec::serial());
        let (ex, ey) = (grid.edges(0).to_vec(), grid.edges(1).to_vec());
        let finite = |e: &[f64]| {
            e.iter()
                .copied()
                .filter(|v| v.is_finite())
                .collect::<Vec<_>>()
        };
        let (fx, fy) = (finite(&ex), finite(&ey));
        assert!(fx.len() >= 4 && fy.len() >= 4, "a grid of several cells");
        let tiny = f64::from_bits(1);
        let dirs: Vec<[f64; 2]> = vec![
            [1.0, 0.0],
            [-1.0, 0.0],
            [0.0, 1.0],
            [0.0, -1.0],
            [-0.0, 1.0],
            [1.0, 1.0],
            [-1.0, 1.0],
            [1.0, -2.0],
            [3.0, 1.0],
            [1.0, 2f64.powi(-40)],
            [-1.0, -(2f64.powi(-52))],
            [2f64.powi(-45), -1.0],
            [1.0, tiny],
            [tiny, 0.0],
            [-tiny, tiny],
            [1e308, -1e308],
            [0.0, 0.0],
        ];
        let s_maxes = [f64::INFINITY, 0.0, 1.0, 2.5];
        let limits = [f64::INFINITY, 0.0, 0.75, 3.0];
        for round in 0..1500 {
            // origin: a corner, an edge's middle or a point outside
            let (i, j) = (rng.below(fx.len()), rng.below(fy.len()));
            let mut o = [fx[i], fy[j]];
            match round % 4 {
                1 if i + 1 < fx.len() => o[0] = fx[i] + (fx[i + 1] - fx[i]) / 2.0,
                2 => o[1] -= 3.0 * scale,
                _ => {}
            }
            // direction: one of the list, or corner to corner (exact
            // when the differences are), at the grid's scale or not
            let mut d = if round % 3 == 0 {
                let (k, l) = (rng.below(fx.len()), rng.below(fy.len()));
                [fx[k] - o[0], fy[l] - o[1]]
            } else {
                let d = dirs[rng.below(dirs.len())];
                let k = [1.0, scale][rng.below(2)];
                [d[0] * k, d[1] * k]
            };
            if !(d[0].is_finite() && d[1].is_finite()) {
                d = [1.0, 0.0];
            }
            let s_max = s_maxes[rng.below(s_maxes.len())];
            let limit = limits[rng.below(limits.len())];
            rays += 1;
            if !check_ray(&grid, o, d, s_max, limit) {
                gave_up += 1;
                let tame =
                    |v: f64| v == 0.0 || (v.abs() > 2f64.powi(-900) && v.abs() < 2f64.powi(900));
                assert!(
                    !(tame(o[0]) && tame(o[1]) && tame(d[0]) && tame(d[1])),
                    "the walk gave up on {o:?} + s {d:?}"
                );
            }
        }
    }
    // the walk gives up only near the ends of the doubles (a subnormal
    // direction, coordinates near 2^1024): not on most rays
    assert!(gave_up * 5 < rays, "{gave_up} of {rays} rays gave up");
}

/// The walk over both dimensions against the exact sets of `s` of each
/// cell (`crate::rays::exact`), on random boxes and rays: origins on cell
/// edges, an ulp off them, between them, inside and outside the bounds;
/// directions along the axes, `±0.0`, through cell corners, tiny, huge and
/// subnormal; zero-length rays; `s_max` infinite; limits finite, infinite
/// and negative; every scale from subnormal to huge.
mod conservative {
    use crate::check::bounds_of;
    use crate::dim::Row;
    use crate::par::Exec;
    use crate::rays::exact::ExactRay;
    use crate::rays::grid::RayGrid;
    use proptest::prelude::*;

    /// One axis of a ray's origin or direction: a kind and its numbers.
    type Pick = (u8, u16, i8);

    #[derive(Clone, Debug)]
    struct RaySpec {
        o: [Pick; 3],
        d: [Pick; 3],
        s_max: f64,
        limit: f64,
    }

    #[derive(Clone, Debug)]
    struct Scene {
        scale: f64,
        boxes: Vec<[i8; 6]>,
        rays: Vec<RaySpec>,
    }

    /// A kind (by its weight: `weights[k]` for kind `k`) and its numbers.
    fn pick(weights: &[u32]) -> impl Strategy<Value = Pick> {
        let kinds: Vec<_> = (0u8..)
            .zip(weights)
            .map(|(k, &w)| (w, Just(k).boxed()))
            .collect();
        (
            proptest::strategy::Union::new_weighted(kinds),
            any::<u16>(),
            -12i8..12,
        )
    }

    fn scene() -> impl Strategy<Value = Scene> {
        let scale = prop_oneof![
            Just(1.0),
            Just(0.375),
            Just(2f64.powi(-1060)),
            Just(2f64.powi(-30)),
            Just(2f64.powi(990)),
        ];
        // small boxes (sides 0 to 2) in [-10, 12]^3: grids of 4 to 16 cells
        // a side
        let boxes = proptest::collection::vec(
            (-10i8..10, -10i8..10, -10i8..10, 0i8..3, 0i8..3, 0i8..3)
                .prop_map(|(x, y, z, w, h, t)| [x, y, z, x + w, y + h, z + t]),
            1..180,
        );
        // origins mostly within the grid, some outside; directions along
        // the axes or not, through cell corners or not
        let (o, d) = (&[8, 4, 4, 4, 8, 1, 1][..], &[1, 1, 3, 2, 4, 3][..]);
        let ray = (
            [pick(o), pick(o), pick(o)],
            [pick(d), pick(d), pick(d)],
            prop_oneof![
                4 => Just(f64::INFINITY),
                1 => Just(0.0),
                1 => Just(1.0),
                1 => Just(2.5),
                3 => 0.0f64..40.0
            ],
            prop_oneof![
                4 => Just(f64::INFINITY),
                4 => Just(f64::MAX),
                1 => Just(0.0),
                1 => Just(-1.0),
                1 => Just(0.75),
                2 => 0.0f64..10.0
            ],
        )
            .prop_map(|(o, d, s_max, limit)| RaySpec { o, d, s_max, limit });
        (scale, boxes, proptest::collection::vec(ray, 1..12))
            .prop_map(|(scale, boxes, rays)| Scene { scale, boxes, rays })
    }

    /// Origin coordinate on an axis whose finite cell edges are `e`.
    fn origin(p: Pick, e: &[f64], scale: f64) -> f64 {
        let (kind, at, v) = p;
        let i = at as usize % e.len();
        match kind {
            0 => e[i],
            1 => e[i].next_up(),
            2 => e[i].next_down(),
            3 if i + 1 < e.len() => e[i] + (e[i + 1] - e[i]) / 2.0,
            4 if v == 0 => -0.0,
            5 => v as f64 * 1000.0 * scale,
            6 => v as f64 * 1e300,
            _ => v as f64 * scale,
        }
    }

    /// Direction component on an axis (`o` the origin's, `e` the edges).
    fn direction(p: Pick, o: f64, e: &[f64], scale: f64) -> f64 {
        const ODD: [f64; 12] = [
            1.0,
            -1.0,
            3.0,
            0.5,
            9.094947017729282e-13,  // 2^-40
            -2.220446049250313e-16, // -2^-52
            5e-324,
            -5e-324,
            1e308,
            -1e308,
            1e-300,
            -7.0,
        ];
        let (kind, at, v) = p;
        let d = match kind {
            0 => 0.0,
            1 => -0.0,
            2 => v as f64 / 4.0 * scale,
            3 => ODD[at as usize % ODD.len()],
            // through a cell corner (exactly, when the difference is)
            _ => e[at as usize % e.len()] - o,
        };
        if d.is_finite() {
            d
        } else {
            1.0
        }
    }

    /// Whether a value is far from the ends of the doubles (the walk gives
    /// up only near them).
    fn tame(v: f64) -> bool {
        v == 0.0 || (v.abs() > 2f64.powi(-900) && v.abs() < 2f64.powi(900))
    }

    /// Walks every ray of the scene through the grid of its boxes in
    /// `N / 2` dimensions (the first axes of the 3D scene) and checks the
    /// walk against the exact sets.
    fn check<const N: usize>(scene: &Scene) -> Result<(), TestCaseError>
    where
        [f64; N]: Row,
    {
        let dim = N / 2;
        let sc = scene.scale;
        let boxes: Vec<[f64; N]> = scene
            .boxes
            .iter()
            .map(|b| std::array::from_fn(|c| b[c / dim * 3 + c % dim] as f64 * sc))
            .collect();
        let bounds = bounds_of(&boxes);
        let grid = RayGrid::<N>::new(&boxes, bounds, &Exec::serial());
        let side = grid.side();
        // the finite cell edges and the bounds' sides of each axis, in order
        let finite: Vec<Vec<f64>> = (0..dim)
            .map(|k| {
                let mut e: Vec<f64> = grid
                    .edges(k)
                    .iter()
                    .copied()
                    .filter(|v| v.is_finite())
                    .collect();
                e.extend([bounds[k], bounds[dim + k]]);
                e.sort_by(f64::total_cmp);
                e
            })
            .collect();
        for spec in &scene.rays {
            let o: Vec<f64> = (0..dim)
                .map(|k| origin(spec.o[k], &finite[k], sc))
                .collect();
            let d: Vec<f64> = (0..dim)
                .map(|k| direction(spec.d[k], o[k], &finite[k], sc))
                .collect();
            let (mut oa, mut da) = (
                <[f64; N] as Row>::Axes::default(),
                <[f64; N] as Row>::Axes::default(),
            );
            oa.as_mut().copy_from_slice(&o);
            da.as_mut().copy_from_slice(&d);
            let mut seen: Vec<(usize, f64)> = vec![];
            let walked = grid.walk_cells(
                oa,
                da,
                spec.s_max,
                || spec.limit,
                |c, bound, _| seen.push((c, bound)),
            );
            let what = format!(
                "ray {o:?} + s {d:?}, s_max {:e}, limit {:e}",
                spec.s_max, spec.limit
            );
            if !walked {
                prop_assert!(
                    !o.iter().chain(&d).all(|&v| tame(v)),
                    "gave up on a tame {what}"
                );
                continue;
            }
            let coords = |c: usize| -> Vec<usize> {
                (0..dim).map(|k| c / side.pow(k as u32) % side).collect()
            };
            // each cell once, the columns in the ray's order along x
            let mut cells: Vec<usize> = seen.iter().map(|v| v.0).collect();
            cells.sort_unstable();
            cells.dedup();
            prop_assert_eq!(cells.len(), seen.len(), "a cell twice: {}", what);
            for w in seen.windows(2) {
                let (a, b) = (coords(w[0].0)[0], coords(w[1].0)[0]);
                let ordered = if d[0] > 0.0 {
                    a <= b
                } else if d[0] < 0.0 {
                    a >= b
                } else {
                    a == b
                };
                prop_assert!(ordered, "columns {} then {}: {}", a, b, what);
            }
            let ray = ExactRay::new(&o, &d);
            // the ray's points within the closed bounds, `s` up to `upto`
            let within = |upto: f64, c: usize| {
                let mut set = ray.span(upto);
                let at = coords(c);
                for k in 0..dim {
                    ray.clip(&mut set, k, (bounds[k], true), (bounds[dim + k], true));
                    let e = grid.edges(k);
                    ray.clip(&mut set, k, (e[at[k]], true), (e[at[k] + 1], false));
                }
                set
            };
            // every cell holding a point the caller still needs is visited
            // (a point strictly inside a box is within the bounds, and in a
            // cell the box is entered in, so in a non-empty cell)
            let upto = spec.s_max.min(spec.limit);
            for c in 0..side.pow(dim as u32) {
                if !grid.cell(c).is_empty() && !within(upto, c).is_empty() {
                    prop_assert!(
                        cells.binary_search(&c).is_ok(),
                        "cell {:?} skipped: {}",
                        coords(c),
                        what
                    );
                }
            }
            // each visited cell's bound is at most every `s` of its points
            for &(c, bound) in &seen {
                if let Some(least) = within(spec.s_max, c).least() {
                    prop_assert!(
                        !bound.is_nan() && ray.cmp(bound, least).is_le(),
                        "cell {:?}'s bound {:e} too high: {}",
                        coords(c),
                        bound,
                        what
                    );
                }
            }
        }
        Ok(())
    }

    /// A lattice of unit cubes with gaps and a few long boxes, at every
    /// scale, and rays of every kind through it (the picks of the property
    /// test, drawn from a fixed sequence): many cells per ray.
    #[test]
    fn the_walk_visits_every_cell_of_a_lattice_in_2d_and_3d() {
        let mut rng = super::Rng(11);
        let mut boxes = vec![];
        for i in 0..8i8 {
            for j in 0..8i8 {
                for k in 0..8i8 {
                    if (i * 7 + j * 3 + k * 5) % 4 != 0 {
                        boxes.push([i, j, k, i + 1, j + 1, k + 1]);
                    }
                }
            }
        }
        boxes.extend([[0, 4, 2, 8, 5, 3], [3, 0, 0, 4, 8, 1], [1, 1, 0, 2, 2, 8]]);
        let specs = [f64::INFINITY, f64::MAX, 0.0, 0.75, 3.0, 2.5];
        for scale in [1.0, 0.375, 2f64.powi(-1060), 2f64.powi(-30), 2f64.powi(990)] {
            let mut rays = vec![];
            for _ in 0..400 {
                let mut pick = |kinds: usize| {
                    let (k, at, v) = (rng.below(kinds), rng.below(1 << 16), rng.below(24));
                    (k as u8, at as u16, v as i8 - 12)
                };
                let (o, d) = ([pick(5), pick(5), pick(5)], [pick(6), pick(6), pick(6)]);
                rays.push(RaySpec {
                    o,
                    d,
                    s_max: [f64::INFINITY, 1.0, 7.5][rng.below(3)],
                    limit: specs[rng.below(specs.len())],
                });
            }
            let scene = Scene {
                scale,
                boxes: boxes.clone(),
                rays,
            };
            check::<4>(&scene).unwrap();
            check::<6>(&scene).unwrap();
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn the_walk_visits_every_cell_of_the_segment_in_2d_and_3d(s in scene()) {
            check::<4>(&s)?;
            check::<6>(&s)?;
        }
    }
}
