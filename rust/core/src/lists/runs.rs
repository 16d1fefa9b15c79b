//! The runs of the lists: slots in runs of `MIN_RUN << class`, each run
//! used by one cell or free, allocated, moved and compacted.
//!
//! Invariants (those of the module above): the runs, used and free, tile
//! the slots exactly, each starting at a multiple of [`MIN_RUN`]; the
//! granule table records each run's cell (`NONE` when free) and class; the
//! free lists hold exactly the free runs, by class; every entry that
//! changes place is reported (`moved`).

use super::{CellLists, Entry, MIN_RUN, NONE};

/// Slots of a run of class `k`.
#[inline]
pub(super) fn cap(k: u8) -> usize {
    MIN_RUN << k
}

/// The class of a fresh run for `m` entries, with room for a quarter more
/// (arrivals before the run must move).
pub(super) fn fit(m: usize) -> u8 {
    let want = m + m / 4 + 1;
    let mut k = 0;
    while cap(k) < want {
        k += 1;
    }
    k
}

/// Slots of the fresh runs [`CellLists::build`] makes for `entries`
/// (sorted by cell).
pub(super) fn slots_for<const N: usize>(entries: &[(u32, Entry<N>)]) -> usize {
    cell_groups(entries).map(|(_, r)| cap(fit(r.len()))).sum()
}

/// Each cell of `entries` (sorted by cell) and the range of its entries.
pub(super) fn cell_groups<const N: usize>(
    entries: &[(u32, Entry<N>)],
) -> impl Iterator<Item = (u32, std::ops::Range<usize>)> + '_ {
    let mut k = 0;
    std::iter::from_fn(move || {
        let &(cell, _) = entries.get(k)?;
        let m = entries[k..].iter().take_while(|x| x.0 == cell).count();
        k += m;
        Some((cell, k - m..k))
    })
}

/// Every run of `runs` (the granule table), used or free, in slot order:
/// its first granule, its cell (`NONE` when free) and its class.
pub(super) fn runs_in_order(runs: &[(u32, u8)]) -> impl Iterator<Item = (usize, u32, u8)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let &(cell, k) = runs.get(i)?;
        i += cap(k) / MIN_RUN;
        Some((i - cap(k) / MIN_RUN, cell, k))
    })
}

impl<const N: usize> CellLists<N> {
    #[inline]
    pub(super) fn set_run(&mut self, cell: usize, start: usize, len: usize) {
        self.head[cell] = if len == 0 {
            0
        } else {
            ((start as u64) << 32) | len as u64
        };
    }

    /// A run of class `k` for `cell` (a free one, else new slots at the end);
    /// its start.
    pub(super) fn alloc(&mut self, cell: usize, k: u8) -> usize {
        let reused = self.free.get_mut(k as usize).and_then(Vec::pop);
        let start = match reused {
            Some(s) => {
                self.free_slots -= cap(k);
                s as usize
            }
            None => {
                let s = self.e.len();
                // locations are u32: a tree of 2^32 entries would need
                // 160 GiB of them, far past any memory this runs in
                assert!(
                    s + cap(k) <= u32::MAX as usize,
                    "cell lists past 2^32 slots"
                );
                self.e.resize(s + cap(k), Entry::default());
                self.runs.resize(self.e.len() / MIN_RUN, (NONE, 0));
                s
            }
        };
        self.runs[start / MIN_RUN] = (cell as u32, k);
        self.class[cell] = k;
        start
    }

    /// Give the run at `start` of class `k` back.
    pub(super) fn release(&mut self, start: usize, k: u8) {
        self.runs[start / MIN_RUN] = (NONE, k);
        if self.free.len() <= k as usize {
            self.free.resize(k as usize + 1, Vec::new());
        }
        self.free[k as usize].push(start as u32);
        self.free_slots += cap(k);
    }

    /// Move `cell`'s entries to a new run of class `k`.
    pub(super) fn relocate(&mut self, cell: usize, k: u8, moved: &mut impl FnMut(&Entry<N>, u32)) {
        let (s, len) = self.run(cell);
        let old = self.class[cell];
        let t = self.alloc(cell, k);
        // two distinct runs: the ranges do not overlap
        self.e.copy_within(s..s + len, t);
        self.release(s, old);
        self.set_run(cell, t, len);
        self.report(t, len, moved);
    }

    /// `moved(entry, loc)` for the `len` entries from slot `t` on.
    pub(super) fn report(&self, t: usize, len: usize, moved: &mut impl FnMut(&Entry<N>, u32)) {
        for (i, x) in self.e[t..t + len].iter().enumerate() {
            moved(x, (t + i) as u32);
        }
    }

    /// Lay the used runs out anew one after the other (each fitted to its
    /// entries), dropping the free ones.
    pub(super) fn compact(&mut self, moved: &mut impl FnMut(&Entry<N>, u32)) {
        let old_e = std::mem::take(&mut self.e);
        let old_runs = std::mem::take(&mut self.runs);
        self.free.clear();
        self.free_slots = 0;
        // at most as many slots as the used runs held before
        self.e.reserve(old_e.len());
        crate::hints::advise_huge(&mut self.e);
        for (_, cell, _) in runs_in_order(&old_runs) {
            if cell != NONE {
                let (s, len) = self.run(cell as usize);
                let t = self.alloc(cell as usize, fit(len));
                self.e[t..t + len].copy_from_slice(&old_e[s..s + len]);
                self.set_run(cell as usize, t, len);
                self.report(t, len, moved);
            }
        }
    }
}
