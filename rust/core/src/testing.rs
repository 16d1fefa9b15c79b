//! Deterministic inputs for tests and examples: not part of any algorithm.

/// Pairs `(i, j)` as flat rows `[i, j, ...]`, the searches' output form
/// (for comparing with [`crate::naive::pairs`]).
pub fn flat(p: &[(usize, usize)]) -> Vec<isize> {
    p.iter()
        .flat_map(|&(i, j)| [i as isize, j as isize])
        .collect()
}

/// Every box shifted by up to `step` per axis (uniform draws of `rnd`).
pub fn shifted(boxes: &[[f64; 4]], step: f64, rnd: &mut impl FnMut() -> f64) -> Vec<[f64; 4]> {
    boxes
        .iter()
        .map(|b| {
            let (dx, dy) = ((rnd() * 2.0 - 1.0) * step, (rnd() * 2.0 - 1.0) * step);
            [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]
        })
        .collect()
}

/// A small deterministic generator of floats in `[0, 1)` (a 64-bit linear
/// congruential generator, the top 53 bits of its state), the same sequence
/// for a seed on every machine.
pub fn lcg(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The examples' moving scene (seed 000's, scaled to `n`): boxes of 10 x 10
/// with min corners uniform in `[0, 4990)^2` in a 5,000 x 5,000 world, each
/// with a velocity uniform in `[-5, 5)` per axis times `speed`.
#[derive(Clone, Debug)]
pub struct Bouncing {
    /// Min corners.
    pub pos: Vec<[f64; 2]>,
    /// Velocities.
    pub vel: Vec<[f64; 2]>,
}

impl Bouncing {
    /// `n` boxes drawn from `rnd` (corners first, then velocities).
    pub fn new(n: usize, speed: f64, rnd: &mut impl FnMut() -> f64) -> Bouncing {
        let pos = (0..n).map(|_| [rnd() * 4990.0, rnd() * 4990.0]).collect();
        let vel = (0..n)
            .map(|_| [(rnd() * 10.0 - 5.0) * speed, (rnd() * 10.0 - 5.0) * speed])
            .collect();
        Bouncing { pos, vel }
    }

    /// One step of the boxes `moving`, clamped into the world.
    pub fn step(&mut self, moving: &[i64]) {
        for &k in moving {
            let k = k as usize;
            for a in 0..2 {
                self.pos[k][a] = (self.pos[k][a] + self.vel[k][a]).clamp(0.0, 4990.0);
            }
        }
    }

    /// Every box.
    pub fn boxes(&self) -> Vec<[f64; 4]> {
        self.pos
            .iter()
            .map(|p| [p[0], p[1], p[0] + 10.0, p[1] + 10.0])
            .collect()
    }
}

/// The pairs of plain boxes by the default search (`find_pairs`' `auto`),
/// flat.
pub fn search_plain(boxes: &[[f64; 4]], ex: &crate::par::Exec) -> Vec<isize> {
    let s = crate::Search {
        boxes,
        bounds: crate::check::bounds_of(boxes),
        narrow: crate::Narrow::default(),
        method: crate::Method::Auto,
        max_pairs: None,
    };
    crate::find_pairs(&s, ex).expect("the pairs of the examples' scenes fit in memory")
}
