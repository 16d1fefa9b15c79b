//! Sort and sweep along one axis (seed 003's sort + binary search, grown up).
//!
//! Sort the boxes by their low edge on the chosen axis; every box then
//! meets, among the boxes after it, exactly those whose low edge lies before
//! its high edge, a contiguous run that the sweep walks until the first low
//! edge past it.  Each unordered pair is seen once, from the box that comes
//! first.
//!
//! The sort key is the low edge quantized on `2^B` integer steps.
//! Quantization is monotone, so `lo_a < hi_b` implies `q(lo_a) <= q(hi_b)`:
//! stopping at the first key above `q(hi)` never cuts a real overlap, and
//! equal keys just add candidates that the exact float test rejects.
//!
//! Cost O(n + m) after the O(n) radix sort, m being the pairs overlapping on
//! the sweep axis: with n boxes of side ~ W/sqrt(n) that is n^1.5, so the
//! sweep suits small n or data spread along one axis.

use crate::narrow::{boxes_overlap, Narrow};
use crate::pairs::{canonical, finish, Buckets, Budget, Sink, TooMany};
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::radix;
use crate::scratch;
use crate::world::{half_span, quantize, scale};

/// Rows looked at to estimate typical sizes.
pub const SAMPLE: usize = 2048;

/// Pairs among `boxes` in canonical order, flat `[i, j, ...]`; `bounds` is
/// the world to quantize into (boxes outside it are clamped to its edges).
pub fn find(
    boxes: &[[f64; 4]],
    bounds: [f64; 4],
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
) -> Result<Vec<isize>, TooMany> {
    let n = boxes.len();
    let [x0, y0, x1, y1] = bounds;
    let axis = axis(boxes, bounds);
    let (origin, hi) = if axis == 0 { (x0, x1) } else { (y0, y1) };
    let bits = (usize::BITS - n.leading_zeros() + 4).clamp(8, 40);
    let top = (1u64 << bits) - 1;
    let sc = scale(half_span(origin, hi), (top + 1) as f64);
    let mut recs: Vec<(u64, u32)> = scratch::take(n);
    recs.extend(
        boxes
            .iter()
            .enumerate()
            .map(|(k, b)| (quantize(b[axis], origin, sc, top), k as u32)),
    );
    let recs = radix::sort(recs, 0, bits, ex);
    // each box in sweep order next to its key: the inner loop reads one stream
    let mut sorted: Vec<Rec> = scratch::take(n);
    sorted.extend(recs.iter().map(|&(key, k)| Rec {
        key,
        b: boxes[k as usize],
        id: k,
    }));
    scratch::give(recs);
    let nch = chunk_count(n, 1 << 12, MAX_CHUNKS);
    let cb = even_bounds(n, nch);
    let sw = Sweep {
        sorted: &sorted,
        hi: axis + 2,
        origin,
        sc,
        top,
        narrow,
    };
    // The pairs end in canonical order: which chunks share a sink is free.
    let sinks = ex.for_work(n, 1 << 13).fold(
        nch,
        || Sink::new(budget, Buckets::for_objects(n)),
        |out, c| {
            if narrow.is_trivial() {
                sw.chunk::<true>(out, cb[c], cb[c + 1])
            } else {
                sw.chunk::<false>(out, cb[c], cb[c + 1])
            }
        },
    );
    scratch::give(sorted);
    Ok(canonical(&finish(sinks)?, n, ex))
}

/// The axis to sweep `boxes` along (0: x, 1: y), in the world `bounds`: the
/// one along which they overlap less.  Expected overlaps along an axis go
/// as the boxes' mean extent over the world's span (from a strided sample).
/// (Circles near +-1.8e308 have infinite boxes: inf / inf is NaN, then x.)
pub fn axis(boxes: &[[f64; 4]], bounds: [f64; 4]) -> usize {
    let [x0, y0, x1, y1] = bounds;
    let step = (boxes.len() / SAMPLE).max(1);
    let (mut sx, mut sy, mut cnt) = (0.0, 0.0, 0.0);
    for b in boxes.iter().step_by(step) {
        sx += b[2] * 0.5 - b[0] * 0.5;
        sy += b[3] * 0.5 - b[1] * 0.5;
        cnt += 1.0;
    }
    let dens_x = (sx / cnt) / half_span(x0, x1).max(1e-300);
    let dens_y = (sy / cnt) / half_span(y0, y1).max(1e-300);
    if dens_y < dens_x {
        1
    } else {
        0
    }
}

/// A box in sweep order: its quantized low edge on the sweep axis, the box,
/// its row.
#[derive(Clone, Copy, Debug)]
pub struct Rec {
    key: u64,
    b: [f64; 4],
    id: u32,
}

scratch::pooled!(Rec);

struct Sweep<'a> {
    sorted: &'a [Rec],
    /// Column of the high edge on the sweep axis, and its quantization.
    hi: usize,
    origin: f64,
    sc: f64,
    top: u64,
    narrow: &'a Narrow<'a>,
}

impl Sweep<'_> {
    /// Sweep from the sorted positions `lo..hi`; `T`: the narrow phase is trivial.
    ///
    /// Box `a` meets the run of boxes after it whose key is not past the
    /// quantized high edge of `a` (the module's proof); the run ends at the
    /// first key above it.
    fn chunk<const T: bool>(&self, out: &mut Sink, lo: usize, hi: usize) {
        for (a, ra) in self.sorted[lo..hi].iter().enumerate() {
            let top = quantize(ra.b[self.hi], self.origin, self.sc, self.top);
            for rb in &self.sorted[lo + a + 1..] {
                if rb.key > top {
                    break;
                }
                let keep = boxes_overlap(&ra.b, &rb.b);
                out.emit(
                    self.narrow.judge::<T>(keep, ra.id as usize, rb.id as usize),
                    ra.id,
                    rb.id,
                );
            }
        }
    }
}
