//! Sorted sets of packed pairs: their differences, merges and events.
//!
//! A pair set here is a slice of pairs packed by [`crate::pairs::pack`]
//! (the one owner of that layout), strictly ascending.  Packed pairs sort
//! as their rows `(i, j)` do, so every operation below is a merge-like walk
//! of sorted slices, and its result is sorted again.
//!
//! A `Patched` set is the form the moving tree keeps its pairs in from
//! frame to frame: a sorted `base` less the pairs at some of its positions
//! (`void_at`, ascending), plus a sorted `delta` disjoint from what is left
//! of the base.  Its elements are the merge of the two; `Patched::merged_into`
//! writes them in chunks of the base fixed by its length, each merging the
//! delta's pairs of its key range: since base and delta are disjoint, the
//! key ranges split the merged order exactly, so every chunk knows where
//! its part of the output starts before any chunk runs.

use crate::pairs::{first, pack, second};
use crate::par::{chunk_count, even_bounds, split_at_bounds, Exec, MAX_CHUNKS};
use std::mem::MaybeUninit;

/// Contact events: pairs that began and pairs that ended, packed, sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Events {
    /// Pairs now colliding that did not before.
    pub began: Vec<u64>,
    /// Pairs that collided before and do not now.
    pub ended: Vec<u64>,
}

/// The set of the pairs `rows`, packed, sorted, each once: a row `(i, j)`
/// and a row `(j, i)` are one pair.  Each row holds two different objects
/// below `2^31` (the layout of [`crate::pairs::pack`]).
pub fn of_rows(rows: &[[u32; 2]]) -> Vec<u64> {
    debug_assert!(rows.iter().all(|&[i, j]| i != j && i.max(j) < 1 << 31));
    let mut set: Vec<u64> = rows.iter().map(|&[i, j]| pack(i, j)).collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// How many of the ascending `v` are below `x`, found by doubling steps
/// from the front (cheap when the answer is near it) and then halving.
pub fn gallop(v: &[u64], x: u64) -> usize {
    let mut hi = 1;
    while hi <= v.len() && v[hi - 1] < x {
        hi *= 2;
    }
    // v[lo - 1] < x (or lo == 0); v[hi - 1] >= x or hi is past the end
    let lo = hi / 2;
    lo + v[lo..hi.min(v.len())].partition_point(|&p| p < x)
}

/// `a - b` of two sorted sets.
pub fn difference(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = Vec::new();
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            out.push(x);
        }
    }
    out
}

/// Merge sorted `a` and `b` (disjoint) into `out` (exactly their length).
pub fn merge_into(a: &[u64], b: &[u64], out: &mut [u64]) {
    debug_assert_eq!(out.len(), a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    for o in out.iter_mut() {
        let take_a = j >= b.len() || (i < a.len() && a[i] < b[j]);
        *o = if take_a {
            i += 1;
            a[i - 1]
        } else {
            j += 1;
            b[j - 1]
        };
    }
}

/// The events from the pairs `old` to the pairs `new` (sorted sets), the
/// slots `gone` (sorted) given up in between: a pair with such a slot is of
/// another object before than after (its slot given out again), so it ends
/// and begins even when both hold it.
pub fn events_between(old: &[u64], new: &[u64], gone: &[u32]) -> Events {
    if gone.is_empty() {
        return Events {
            began: difference(new, old),
            ended: difference(old, new),
        };
    }
    let kept = |h: usize| gone.binary_search(&(h as u32)).is_err();
    let same = |p: &&u64| kept(first(**p)) && kept(second(**p));
    let old_same: Vec<u64> = old.iter().filter(same).copied().collect();
    let new_same: Vec<u64> = new.iter().filter(same).copied().collect();
    Events {
        began: difference(new, &old_same),
        ended: difference(old, &new_same),
    }
}

/// Chunks of a base of `n` pairs, at least `grain` pairs each: fixed by
/// `n` (and the grain) alone.
pub fn base_chunks(n: usize, grain: usize) -> usize {
    chunk_count(n, grain, MAX_CHUNKS)
}

/// A sorted set kept as a patched base (see the module's doc): the pairs
/// of `base` but those at the positions `void_at` (ascending), and the
/// `delta` (sorted, disjoint from them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Patched<'a> {
    /// Sorted pairs, some of which no longer count.
    pub base: &'a [u64],
    /// Ascending positions in `base` of the pairs that no longer count.
    pub void_at: &'a [usize],
    /// Sorted pairs, none of them among the base's pairs that count.
    pub delta: &'a [u64],
}

impl Patched<'_> {
    /// How many pairs: the base's that count and the delta.
    pub fn len(&self) -> usize {
        self.base.len() - self.void_at.len() + self.delta.len()
    }

    /// The pairs, packed, into `out` (see [`Patched::merged_into`]).
    pub fn packed_into(&self, ex: &Exec, grain: usize, out: &mut Vec<u64>) {
        self.merged_into(ex, grain, out, |slot: &mut [MaybeUninit<u64>; 1], _, p| {
            slot[0].write(p);
        });
    }

    /// The pairs, the base's that count merged with the delta, into `out`
    /// (emptied first): `W` slots a pair, written by `emit(slots, k, p)`
    /// for the `k`-th pair `p` of the merged order.  In chunks of the base
    /// of at least `grain` pairs, fixed by its length, each merging the
    /// delta's pairs of its key range.  A chunk copies the runs of the base
    /// between its void positions and the delta's pairs, each pair's place
    /// in the base found by galloping ([`gallop`]) from the last: a loop
    /// with no test per pair, however many pairs count.
    pub fn merged_into<T: Send, const W: usize>(
        &self,
        ex: &Exec,
        grain: usize,
        out: &mut Vec<T>,
        emit: impl Fn(&mut [MaybeUninit<T>; W], usize, u64) + Sync,
    ) {
        let (base, delta, void_at) = (self.base, self.delta, self.void_at);
        let nch = base_chunks(base.len(), grain);
        let lb = even_bounds(base.len(), nch);
        let fb: Vec<usize> = (0..=nch)
            .map(|c| match c {
                0 => 0,
                c if c == nch => delta.len(),
                c => delta.partition_point(|&f| f < base[lb[c]]),
            })
            .collect();
        let vb: Vec<usize> = lb
            .iter()
            .map(|&b| void_at.partition_point(|&v| v < b))
            .collect();
        let mut ob = Vec::with_capacity(nch + 1);
        ob.push(0usize);
        for c in 0..nch {
            let standing = lb[c + 1] - lb[c] - (vb[c + 1] - vb[c]);
            ob.push(ob[c] + W * (standing + fb[c + 1] - fb[c]));
        }
        let len = ob[nch];
        out.clear();
        out.reserve(len);
        let parts = split_at_bounds(&mut out.spare_capacity_mut()[..len], &ob);
        ex.for_work(base.len(), grain.saturating_mul(2))
            .each(parts, |c, part| {
                let (slots, rest) = part.as_chunks_mut::<W>();
                debug_assert!(rest.is_empty());
                let src = &base[lb[c]..lb[c + 1]];
                // the index of this chunk's first pair in the merged order
                let first = ob[c] / W;
                let mut voids = void_at[vb[c]..vb[c + 1]]
                    .iter()
                    .map(|&v| v - lb[c])
                    .peekable();
                let mut o = 0;
                // the standing pairs of src[a..b] into the slots from o on
                let mut standing = |slots: &mut [[MaybeUninit<T>; W]],
                                    a: usize,
                                    b: usize,
                                    o: &mut usize| {
                    let mut a = a;
                    while let Some(v) = voids.next_if(|&v| v < b) {
                        for (t, (slot, &p)) in slots[*o..].iter_mut().zip(&src[a..v]).enumerate() {
                            emit(slot, first + *o + t, p);
                        }
                        *o += v - a;
                        a = v + 1;
                    }
                    for (t, (slot, &p)) in slots[*o..].iter_mut().zip(&src[a..b]).enumerate() {
                        emit(slot, first + *o + t, p);
                    }
                    *o += b - a;
                };
                let mut i = 0;
                for &d in &delta[fb[c]..fb[c + 1]] {
                    let at = i + gallop(&src[i..], d);
                    standing(slots, i, at, &mut o);
                    emit(&mut slots[o], first + o, d);
                    o += 1;
                    i = at;
                }
                standing(slots, i, src.len(), &mut o);
                // every slot of this chunk's part written
                assert_eq!(o, slots.len(), "a merge chunk fills its part exactly");
            });
        // SAFETY: the parts tile 0..len (ob runs from 0 to len), and each
        // chunk wrote every slot of its part (asserted above: `emit` writes
        // all `W` slots it is given, and the chunk's pairs are exactly its
        // standing pairs, its base range less its void positions, plus its
        // delta range).  Tested against a plain merge below
        // (`patched_sets_merge_in_chunks`) and by the tree tests comparing
        // `pairs()` with the naive pairs frame by frame.
        unsafe { out.set_len(len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::unpack;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #[test]
        fn of_rows_is_the_set_of_unordered_pairs(
            rows in proptest::collection::vec((0u32..40, 0u32..40), 0..60)
        ) {
            let rows: Vec<[u32; 2]> = rows.into_iter().filter(|(i, j)| i != j)
                .map(|(i, j)| [i, j]).collect();
            let want: BTreeSet<(usize, usize)> = rows.iter()
                .map(|&[i, j]| (i.min(j) as usize, i.max(j) as usize)).collect();
            let got: Vec<(usize, usize)> = of_rows(&rows).into_iter().map(unpack).collect();
            prop_assert_eq!(got, want.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn gallop_counts_the_values_below() {
        let v: Vec<u64> = (0..100).map(|k| 3 * k + 1).collect();
        for x in 0..=310 {
            let want = v.iter().filter(|&&p| p < x).count();
            assert_eq!(gallop(&v, x), want, "x = {x}");
            for from in [0, 1, 7, 50, 99, 100] {
                let want = v[from..].iter().filter(|&&p| p < x).count();
                assert_eq!(gallop(&v[from..], x), want, "x = {x}, from {from}");
            }
        }
        assert_eq!(gallop(&[], 5), 0);
    }

    fn set(v: &[(u32, u32)]) -> BTreeSet<u64> {
        v.iter().map(|&(i, j)| pack(i, j)).collect()
    }

    fn pairs() -> impl Strategy<Value = Vec<(u32, u32)>> {
        prop::collection::vec((0u32..12, 0u32..12), 0..40)
            .prop_map(|v| v.into_iter().filter(|(i, j)| i != j).collect())
    }

    proptest! {
        /// Differences, merges and events against `BTreeSet`'s.
        #[test]
        fn set_operations_match_a_plain_set(
            a in pairs(),
            b in pairs(),
            gone in prop::collection::btree_set(0u32..12, 0..4),
        ) {
            let (sa, sb) = (set(&a), set(&b));
            let (va, vb): (Vec<u64>, Vec<u64>) =
                (sa.iter().copied().collect(), sb.iter().copied().collect());
            let want: Vec<u64> = sa.difference(&sb).copied().collect();
            prop_assert_eq!(difference(&va, &vb), want);
            let only_b: Vec<u64> = sb.difference(&sa).copied().collect();
            let mut merged = vec![0; va.len() + only_b.len()];
            merge_into(&va, &only_b, &mut merged);
            let union: Vec<u64> = sa.union(&sb).copied().collect();
            prop_assert_eq!(merged, union);
            let gone: Vec<u32> = gone.into_iter().collect();
            let of_gone = |p: &u64| {
                gone.contains(&(first(*p) as u32)) || gone.contains(&(second(*p) as u32))
            };
            let ev = events_between(&va, &vb, &gone);
            let began: Vec<u64> =
                sb.iter().filter(|p| !sa.contains(p) || of_gone(p)).copied().collect();
            let ended: Vec<u64> =
                sa.iter().filter(|p| !sb.contains(p) || of_gone(p)).copied().collect();
            prop_assert_eq!(ev.began, began);
            prop_assert_eq!(ev.ended, ended);
        }

        /// A patched set's merge in chunks (grains of 1 to 8 pairs, one
        /// thread and two) is the plain set of its elements.
        #[test]
        fn patched_sets_merge_in_chunks(
            base in pairs(),
            voids in prop::collection::vec(any::<bool>(), 40),
            extra in pairs(),
            grain in 1usize..8,
            workers in 1usize..3,
        ) {
            let base: Vec<u64> = set(&base).into_iter().collect();
            let void_at: Vec<usize> = (0..base.len()).filter(|&k| voids[k]).collect();
            let standing: BTreeSet<u64> = (0..base.len())
                .filter(|&k| !voids[k])
                .map(|k| base[k])
                .collect();
            let delta: Vec<u64> = set(&extra).difference(&standing).copied().collect();
            let want: Vec<u64> = standing.union(&delta.iter().copied().collect()).copied().collect();
            let p = Patched { base: &base, void_at: &void_at, delta: &delta };
            prop_assert_eq!(p.len(), want.len());
            let ex = Exec::new(Some(workers));
            let mut got = vec![7];
            p.packed_into(&ex, grain, &mut got);
            prop_assert_eq!(&got, &want);
            let mut rows: Vec<isize> = Vec::new();
            p.merged_into(&ex, grain, &mut rows, |out: &mut [MaybeUninit<isize>; 2], k, q| {
                assert_eq!(want[k], q);
                out[0].write(first(q) as isize);
                out[1].write(second(q) as isize);
            });
            let flat: Vec<isize> =
                want.iter().flat_map(|&q| [first(q) as isize, second(q) as isize]).collect();
            prop_assert_eq!(rows, flat);
        }
    }
}
