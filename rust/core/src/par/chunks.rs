//! Chunk bounds: how a step's work is cut.
//!
//! Invariant: every bound here is a function of the data alone (sizes,
//! cumulative work, [`MAX_CHUNKS`]), never of the thread count, so results
//! combined in chunk order never depend on the threads.

/// `data` cut at `bounds` (non-decreasing, first 0, last `data.len()`).
pub fn split_at_bounds<'a, T>(mut data: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(bounds.len().saturating_sub(1));
    for w in bounds.windows(2) {
        let (head, tail) = std::mem::take(&mut data).split_at_mut(w[1] - w[0]);
        out.push(head);
        data = tail;
    }
    out
}

/// Boundaries of `chunks` equal ranges over `0..n`: `[0, ..., n]`.
pub fn even_bounds(n: usize, chunks: usize) -> Vec<usize> {
    let chunks = chunks.max(1);
    (0..=chunks).map(|c| c * n / chunks).collect()
}

/// The most chunks a step is split into: enough to balance any pool's
/// threads, few enough that per-chunk results stay small.  A constant, so
/// that the chunks are fixed by the data, never by the thread count.
pub const MAX_CHUNKS: usize = 256;

/// Chunks for `work` items: fixed by the data, never by the thread count.
pub fn chunk_count(work: usize, grain: usize, most: usize) -> usize {
    (work / grain).clamp(1, most)
}

/// An amount of work, from counts or estimates.
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Work(pub f64);

impl From<f64> for Work {
    fn from(v: f64) -> Work {
        Work(v)
    }
}

impl From<usize> for Work {
    fn from(v: usize) -> Work {
        Work(v as f64)
    }
}

/// Boundaries of `chunks` chunks of about equal work over items whose
/// cumulative work is `cum` (`cum[0] = 0`, `cum[n]` the total).
pub fn balanced<W: Copy + Into<Work>>(cum: &[W], chunks: usize) -> Vec<usize> {
    let n = cum.len() - 1;
    let total = cum[n].into().0;
    let mut out = Vec::with_capacity(chunks + 1);
    let mut i = 0;
    for c in 0..=chunks {
        let target = total * c as f64 / chunks as f64;
        while i < n && cum[i].into().0 < target {
            i += 1;
        }
        out.push(i);
    }
    out[0] = 0;
    out[chunks] = n;
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_bounds() {
        let cum = [0.0, 10.0, 10.0, 11.0, 30.0, 31.0];
        let b = balanced(&cum, 3);
        assert_eq!(b.first(), Some(&0));
        assert_eq!(b.last(), Some(&5));
        assert!(b.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            split_at_bounds(&mut [1, 2, 3, 4, 5][..], &[0, 2, 2, 5]).len(),
            3
        );
    }
}
