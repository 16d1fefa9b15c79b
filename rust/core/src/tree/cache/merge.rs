//! The merge of a refresh: the new kept pairs and the rows or events
//! worked out from the cache as it is, reading it only (see
//! [`super`] for the derivation); [`PairCache::step`] commits them.
//!
//! # Folding the void objects in
//! When the void objects are as many again as the dirty ones, the rows'
//! pass also writes the current pairs packed ([`rows_of`]): they become the
//! new base, with no second pass.  Else, when the delta outgrows its share
//! of the base (the policy's `consolidates`), the base and delta are merged
//! into a new base.  Either new base is taken in by
//! [`PairCache::reset`], the one way a base is made.

use super::PairCache;
use crate::pairs::{first, second, Budget, TooMany};
use crate::pairset::{base_chunks, events_between, merge_into, Events, Patched};
use crate::par::{even_bounds, Exec, Scatter};
use crate::scratch;
use crate::tree::policy::Policy;
use std::mem::MaybeUninit;

/// A step's input (see [`PairCache::step`]).
pub(super) struct Want<'a> {
    pub dirty: &'a [u32],
    pub fresh: &'a [u64],
    pub gone: &'a [u32],
    pub events: bool,
    pub max_pairs: Option<u64>,
}

/// What [`PairCache::plan`] worked out, for [`PairCache::step`] to commit.
pub(super) struct StepPlan {
    /// The new delta.
    pub delta: Vec<u64>,
    /// The dirty objects void from now on.
    pub newly: Vec<u32>,
    /// The positions of the base's pairs with a void object, if found again.
    pub void_at: Option<Vec<usize>>,
    /// A new base (every current pair), if the rows' pass or a
    /// consolidation made one.
    pub base: Option<Vec<u64>>,
    pub rows: Option<Vec<isize>>,
    pub events: Option<Events>,
}

impl PairCache {
    /// The new kept pairs of a step, its rows or events, from the cache as
    /// it is (the dirty objects' bits set in `dirty_bits`); `spare` serves
    /// a new base.
    pub(super) fn plan(
        &self,
        w: &Want,
        policy: &Policy,
        ex: &Exec,
        spare: &mut Vec<u64>,
    ) -> Result<StepPlan, TooMany> {
        let base = self.base.as_deref().unwrap_or(&[]);
        let (dirty, void) = (&self.dirty_bits, &self.void);
        // The delta's pairs with a dirty object are replaced by the fresh
        // ones (the dirty objects' current pairs, all of them).
        let (old_delta, kept): (Vec<u64>, Vec<u64>) =
            self.delta.iter().partition(|&&p| dirty.either(p));
        let mut delta = vec![0; kept.len() + w.fresh.len()];
        merge_into(&kept, w.fresh, &mut delta);
        // Dirty objects void from now on: their base pairs stop counting.
        let newly: Vec<u32> = w
            .dirty
            .iter()
            .copied()
            .filter(|&h| !void.get(h as usize))
            .collect();
        let grain = policy.merge_grain;
        let nch = base_chunks(base.len(), grain);
        let lb = even_bounds(base.len(), nch);
        let mx = ex.for_work(base.len(), grain.saturating_mul(2));
        // One read of the base when objects become void: the positions of
        // its pairs with a void object found again (void before, or dirty
        // now), and for events the last pairs it loses (standing before,
        // with a dirty object now; a pair with an object void before was
        // not standing).
        let (void_at, old_base): (Option<Vec<usize>>, Vec<u64>) = if newly.is_empty() {
            (None, Vec::new())
        } else {
            let (at, lost): (Vec<Vec<usize>>, Vec<Vec<u64>>) = mx
                .map(nch, |c| {
                    let (mut at, mut lost) = (Vec::new(), Vec::new());
                    for (i, &p) in base[lb[c]..lb[c + 1]].iter().enumerate() {
                        let was = void.either(p);
                        if was || dirty.either(p) {
                            at.push(lb[c] + i);
                            if !was && w.events {
                                lost.push(p);
                            }
                        }
                    }
                    (at, lost)
                })
                .into_iter()
                .unzip();
            (Some(at.concat()), lost.concat())
        };
        let now = Patched {
            base,
            delta: &delta,
            void_at: void_at.as_deref().unwrap_or(&self.void_at),
        };
        let total = now.len();
        // the memory budget is read only for results that could exceed it
        if (total >= 1 << 16 || w.max_pairs.is_some())
            && total as u64 > Budget::of(w.max_pairs).limit()
        {
            return Err(TooMany(total as u64));
        }
        // The last pairs with a dirty object: the delta's and the base's.
        let events = w.events.then(|| {
            let mut old = old_delta;
            if !old_base.is_empty() {
                old.extend(old_base);
                old.sort_unstable();
            }
            events_between(&old, w.fresh, w.gone)
        });
        // Objects void but no longer dirty (they moved in earlier frames,
        // not in this one) leave runs in the base that every frame's merge
        // skips: past as many again as the dirty ones, the rows' pass also
        // writes the current pairs packed, which become the base.
        let void_after = self.void_list.len() + newly.len();
        let fold = !w.events && policy.folds(void_after, w.dirty.len());
        let (rows, new_base) = if w.events {
            (None, None)
        } else {
            let (rows, packed) = rows_of(&now, fold, ex, grain, spare);
            (Some(rows), packed)
        };
        let new_base = match new_base {
            Some(b) => Some(b),
            // Consolidate once the delta outgrows a share of the base: the
            // frames read the delta whole.
            None if policy.consolidates(delta.len(), base.len()) => {
                let mut packed = std::mem::take(spare);
                now.packed_into(ex, grain, &mut packed);
                Some(packed)
            }
            None => None,
        };
        // a stop set by now finds nothing committed
        ex.check_stop();
        Ok(StepPlan {
            delta,
            newly,
            void_at,
            base: new_base,
            rows,
            events,
        })
    }
}

/// The rows of the pairs of `now`, and with `fold` the same pairs packed
/// into `spare`'s buffer, written by the same pass (the new base).
fn rows_of(
    now: &Patched,
    fold: bool,
    ex: &Exec,
    grain: usize,
    spare: &mut Vec<u64>,
) -> (Vec<isize>, Option<Vec<u64>>) {
    let total = now.len();
    let mut packed = if fold {
        let mut v = std::mem::take(spare);
        v.clear();
        v.reserve(total);
        v
    } else {
        Vec::new()
    };
    let mut rows = scratch::result(2 * total);
    let to = Scatter::new(&mut packed.spare_capacity_mut()[..if fold { total } else { 0 }]);
    now.merged_into(
        ex,
        grain,
        &mut rows,
        |out: &mut [MaybeUninit<isize>; 2], k, p| {
            out[0].write(first(p) as isize);
            out[1].write(second(p) as isize);
            if fold {
                // SAFETY: pair index k is below `total` and written by the one
                // chunk whose slots hold it (the chunks' parts tile the merged
                // order): one writer per position.
                unsafe { to.write(k, MaybeUninit::new(p)) };
            }
        },
    );
    if !fold {
        return (rows, None);
    }
    // SAFETY: `merged_into` wrote every pair index below `total` (its slots
    // tile the merged order, asserted per chunk), so the first `total`
    // elements are initialized.  Tested by the frames of
    // `void_objects_are_consolidated_with_the_rows` against the naive pairs.
    unsafe { packed.set_len(total) };
    (rows, Some(packed))
}
