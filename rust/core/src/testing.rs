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

/// The pairs of `a` whose objects are no pair in `b`, as their packed
/// handles, sorted.  Each pair comes with its objects' identities
/// (`(packed handles, [id, id])`): a tree's handle freed and given out again
/// names another object, so events are told by identities, not handles.
pub fn objects_minus(a: &[(u64, [u64; 2])], b: &[(u64, [u64; 2])]) -> Vec<u64> {
    let b: std::collections::BTreeSet<[u64; 2]> = b.iter().map(|x| x.1).collect();
    let mut out: Vec<u64> = a
        .iter()
        .filter(|x| !b.contains(&x.1))
        .map(|x| x.0)
        .collect();
    out.sort_unstable();
    out
}

/// The fuzz target's body (`rust/fuzz`): objects decoded from `data`, every
/// method on one thread and two against [`crate::naive::pairs`]; the first
/// disagreement, or a refusal of a valid input, as an error.
///
/// Layout: byte 0 picks the shapes (bit 0: circles), the filters (bit 1) and
/// the scale (`2^(4 * byte 1 as i8)`: from 2^-512 to 2^508); then 5 bytes
/// an object: x, y, width (or radius), height, group.  Coordinates are small
/// lattice points times the scale, so ties, touching edges, zero sizes and
/// straddlers of every split line are common.
pub fn methods_agree(data: &[u8]) -> Result<(), String> {
    use crate::check::{circle_boxes, scan_boxes};
    use crate::narrow::{Filters, Narrow, Shapes};
    use crate::par::Exec;
    use crate::search::{find_pairs, Method, Search};
    let (head, rest) = data.split_at(data.len().min(2));
    let flags = head.first().copied().unwrap_or(0);
    let scale = ((head.get(1).copied().unwrap_or(0) as i8 as i32 * 4) as f64).exp2();
    let objs: Vec<[u8; 5]> = rest.as_chunks::<5>().0.iter().take(2000).copied().collect();
    let at = |v: u8| (v % 64) as f64 * scale;
    let circles: Vec<[f64; 3]> = objs
        .iter()
        .map(|o| [at(o[0]), at(o[1]), (o[2] % 16) as f64 * scale])
        .collect();
    let groups: Vec<i64> = objs.iter().map(|o| (o[4] % 4) as i64).collect();
    let filters = Filters {
        groups: (flags & 2 != 0).then_some(&groups[..]),
        ..Filters::default()
    };
    let (boxes, shapes) = if flags & 1 != 0 {
        let b = circle_boxes(&circles, &Exec::serial())
            .map_err(|e| format!("valid circles refused: row {}", e.row))?;
        (b, Shapes::Circles(&circles))
    } else {
        let b = objs
            .iter()
            .map(|o| {
                let (x, y) = (at(o[0]), at(o[1]));
                [x, y, x + at(o[2] % 16), y + at(o[3] % 16)]
            })
            .collect();
        (b, Shapes::Boxes)
    };
    let bounds = scan_boxes(&boxes, &Exec::serial())
        .map_err(|e| format!("valid boxes refused: row {}", e.row))?;
    let narrow = Narrow { shapes, filters };
    let want = flat(&crate::naive::pairs(&boxes, &narrow));
    for (_, method) in Method::NAMES {
        for workers in [1, 2] {
            let s = Search {
                boxes: &boxes,
                bounds,
                narrow,
                method,
                max_pairs: None,
            };
            let got = find_pairs(&s, &Exec::new(Some(workers))).map_err(|t| format!("{t:?}"))?;
            if got != want {
                return Err(format!(
                    "{method:?} on {workers} threads: {} pairs, the reference {}",
                    got.len() / 2,
                    want.len() / 2
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fuzz target's body runs (and agrees) on random inputs of every
    /// layout, so it cannot rot between fuzzing runs.
    #[test]
    fn methods_agree_on_random_bytes() {
        let mut rnd = lcg(7);
        for round in 0..300 {
            let len = (rnd() * 600.0) as usize;
            let mut data: Vec<u8> = (0..len).map(|_| (rnd() * 256.0) as u8).collect();
            if let Some(b) = data.first_mut() {
                *b = round as u8; // every combination of flags
            }
            methods_agree(&data).unwrap();
        }
        methods_agree(&[]).unwrap();
    }
}
