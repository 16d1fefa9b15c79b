//! The lists' invariants ([`CellLists::check`]): heads, classes, the
//! granule table, the free lists and the slot count agree, and every used
//! run holds 1 to its capacity entries.

use super::runs::{cap, runs_in_order};
use super::{CellLists, MIN_RUN, NONE};

impl<const N: usize> CellLists<N> {
    /// Check the invariants; the entries in all lists.
    pub fn check(&self) -> Result<usize, String> {
        if self.e.len() != MIN_RUN * self.runs.len() {
            return Err(format!(
                "{} slots for {} granules",
                self.e.len(),
                self.runs.len()
            ));
        }
        let (mut seen, mut used, mut free, mut nfree) = (0, 0, 0, 0);
        // the listed free runs by granule, as class + 1 (a lookup each,
        // not a search of the lists)
        let mut listed = vec![0u8; self.runs.len()];
        for (k, f) in self.free.iter().enumerate() {
            for &st in f {
                match listed.get_mut(st as usize / MIN_RUN) {
                    Some(at) if (st as usize).is_multiple_of(MIN_RUN) && *at == 0 => {
                        *at = k as u8 + 1
                    }
                    _ => return Err(format!("free list entry {st} is no run start")),
                }
            }
        }
        let mut slots = 0;
        for (i, cell, k) in runs_in_order(&self.runs) {
            let start = i * MIN_RUN;
            slots += cap(k);
            if cell == NONE {
                if listed[i] != k + 1 {
                    return Err(format!("free run at {start} not in the free list"));
                }
                free += cap(k);
                nfree += 1;
            } else {
                let (s, len) = self.run(cell as usize);
                if s != start || self.class[cell as usize] != k || len == 0 || len > cap(k) {
                    return Err(format!(
                        "run at {start} of class {k} for cell {cell}, whose head says \
                         start {s}, {len} entries, class {}",
                        self.class[cell as usize]
                    ));
                }
                seen += len;
                used += 1;
            }
        }
        if slots != self.e.len() {
            return Err("the runs overrun the slots".into());
        }
        let listed: usize = self.free.iter().map(Vec::len).sum();
        if free != self.free_slots || nfree != listed {
            return Err(format!(
                "{nfree} free runs of {free} slots; {listed} listed, {} slots counted",
                self.free_slots
            ));
        }
        let nonempty = self.head.iter().filter(|&&h| h != 0).count();
        if nonempty != used {
            return Err(format!("{nonempty} cells with entries and {used} runs"));
        }
        Ok(seen)
    }
}
