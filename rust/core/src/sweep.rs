//! Sort and sweep along one axis (seed 003's sort + binary search, grown
//! up), written once for 2D and 3D boxes.
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
//! the sweep axis: with n boxes of side ~ W / n^(1/D) in D dimensions that
//! is n^(2 - 1/D), so the sweep suits small n or data spread along one axis.

use crate::dim::{overlap, Row};
use crate::narrow::Narrow;
use crate::pairs::{canonical, finish, Buckets, Budget, Sink, TooMany};
use crate::par::{chunk_count, even_bounds, Exec, MAX_CHUNKS};
use crate::radix;
use crate::scratch;
use crate::world::{half_span, quantize, scale};

/// Rows looked at to estimate typical sizes.
pub const SAMPLE: usize = 2048;

/// Pairs among `boxes` (2D or 3D, [`crate::dim`]) in canonical order,
/// flat `[i, j, ...]`; `bounds` is the world to quantize into (boxes
/// outside it are clamped to its edges).
pub fn find<const N: usize>(
    boxes: &[[f64; N]],
    bounds: [f64; N],
    narrow: &Narrow,
    budget: &Budget,
    ex: &Exec,
) -> Result<Vec<isize>, TooMany>
where
    [f64; N]: Row,
    Rec<N>: scratch::Pooled,
{
    let n = boxes.len();
    let axis = axis(boxes, bounds);
    let (origin, hi) = (bounds[axis], bounds[N / 2 + axis]);
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
    let mut sorted: Vec<Rec<N>> = scratch::take(n);
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
        hi: N / 2 + axis,
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

/// The axis to sweep `boxes` along (0: x, 1: y, 2: z), in the world
/// `bounds`: the one along which they overlap least.  Expected overlaps
/// along an axis go as the boxes' mean extent over the world's span (from a
/// strided sample); ties go to the lower axis.  (Circles near +-1.8e308
/// have infinite boxes: inf / inf is NaN, then x.)
pub fn axis<const N: usize>(boxes: &[[f64; N]], bounds: [f64; N]) -> usize {
    let step = (boxes.len() / SAMPLE).max(1);
    let mut sum = [0.0f64; 3];
    let mut cnt = 0.0;
    for b in boxes.iter().step_by(step) {
        for k in 0..N / 2 {
            sum[k] += b[N / 2 + k] * 0.5 - b[k] * 0.5;
        }
        cnt += 1.0;
    }
    let density = |k: usize| (sum[k] / cnt) / half_span(bounds[k], bounds[N / 2 + k]).max(1e-300);
    let mut best = 0;
    for k in 1..N / 2 {
        if density(k) < density(best) {
            best = k;
        }
    }
    best
}

/// A box in sweep order: its quantized low edge on the sweep axis, the box,
/// its row.
#[derive(Clone, Copy, Debug)]
pub struct Rec<const N: usize> {
    key: u64,
    b: [f64; N],
    id: u32,
}

scratch::pooled!(Rec<4>, Rec<6>);

struct Sweep<'a, const N: usize> {
    sorted: &'a [Rec<N>],
    /// Column of the high edge on the sweep axis, and its quantization.
    hi: usize,
    origin: f64,
    sc: f64,
    top: u64,
    narrow: &'a Narrow<'a>,
}

impl<const N: usize> Sweep<'_, N> {
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
                let keep = overlap(&ra.b, &rb.b);
                out.emit(
                    self.narrow.judge::<T>(keep, ra.id as usize, rb.id as usize),
                    ra.id,
                    rb.id,
                );
            }
        }
    }
}
