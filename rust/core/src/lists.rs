//! Per-cell linked lists of objects, unrolled: the moving tree's cells.
//!
//! Seeds 001 and 002 keep each cell's objects in a doubly linked list of
//! one node per object, so that moving an object to another cell is O(1).
//! Walking such a list jumps to a random address per object: on a machine
//! whose memory answers in ~100 ns that is the whole cost of a query (an
//! object's neighbours were 40 list nodes in 40 places).  Here each cell's
//! list links *blocks* of [`BLOCK`] entries, and an entry carries the copy of
//! its object's box that queries test: a query reads a cell's candidates
//! in a few cache lines.
//!
//! # Invariants
//! * A cell's chain starts at `head[cell]`; every block of it records that
//!   cell; the first block holds 1 to `BLOCK` entries, every later one
//!   exactly `BLOCK`; empty cells have no block.
//! * [`CellLists::push`] appends to the first block (or puts a new block in
//!   front); [`CellLists::remove`] fills the hole with the first block's last
//!   entry, so both keep the shape above and cost O(1).  The caller is told
//!   which entry moved, to update its back-pointer.
//! * [`CellLists::build`] lays out every cell's blocks one after the other,
//!   in cell order (a fresh layout, as after many moves).

use crate::cells::{prefetch, prefetch_lines};

/// Entries per block: 8 boxes of 40 bytes, five cache lines.
pub const BLOCK: usize = 8;
/// No block.
pub const NONE: u32 = u32::MAX;

/// An object's presence in one cell.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Entry {
    /// The object's box (as of the last sync).
    pub b: [f64; 4],
    /// The object.
    pub id: u32,
    /// Which of the object's cells this is (see [`tag`]).
    pub tag: u8,
}

/// Bit of [`Entry::tag`]: the cell is not in the object's first column.
pub const LATER_COLUMN: u8 = 4;
/// Bit of [`Entry::tag`]: the cell is not in the object's first row.
pub const LATER_ROW: u8 = 8;

/// The tag of an object's cell `r` (0 to 3) of `nx` columns: `r` in the low
/// two bits, and whether the cell is past the first column and row.
#[inline]
pub fn tag(r: usize, nx: u8) -> u8 {
    let (col, row) = (r % nx as usize, r / nx as usize);
    r as u8 | if col > 0 { LATER_COLUMN } else { 0 } | if row > 0 { LATER_ROW } else { 0 }
}

/// `repr(C)`: the header first, so that the first line read of a block
/// holds its length and link with its first entries (Rust's own layout
/// puts them after the entries, a line of their own).
#[derive(Clone, Debug)]
#[repr(C)]
struct Block {
    cell: u32,
    len: u32,
    next: u32,
    e: [Entry; BLOCK],
}

/// The lists of every cell of every level.
#[derive(Clone, Debug)]
pub struct CellLists {
    head: Vec<u32>,
    blocks: Vec<Block>,
    free: Vec<u32>,
}

impl CellLists {
    /// Empty lists for `cells` cells.
    pub fn new(cells: usize) -> CellLists {
        CellLists {
            head: vec![NONE; cells],
            blocks: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Add `e` to `cell`; its location.
    pub fn push(&mut self, cell: u32, e: Entry) -> u32 {
        let first = self.head[cell as usize];
        let b = if first != NONE && (self.blocks[first as usize].len as usize) < BLOCK {
            first
        } else {
            let blk = Block {
                cell,
                len: 0,
                next: first,
                e: [Entry::default(); BLOCK],
            };
            let b = match self.free.pop() {
                Some(b) => {
                    self.blocks[b as usize] = blk;
                    b
                }
                None => {
                    self.blocks.push(blk);
                    (self.blocks.len() - 1) as u32
                }
            };
            self.head[cell as usize] = b;
            b
        };
        let blk = &mut self.blocks[b as usize];
        blk.e[blk.len as usize] = e;
        blk.len += 1;
        b * BLOCK as u32 + blk.len - 1
    }

    /// Take out the entry at `loc`.  Returns the entry that moved into its
    /// place and where it was, if one did.
    pub fn remove(&mut self, loc: u32) -> Option<(Entry, u32)> {
        let (b, i) = (loc as usize / BLOCK, loc as usize % BLOCK);
        let cell = self.blocks[b].cell as usize;
        let first = self.head[cell] as usize;
        let last = self.blocks[first].len as usize - 1;
        let moved = self.blocks[first].e[last];
        let from = (first * BLOCK + last) as u32;
        self.blocks[first].len -= 1;
        if self.blocks[first].len == 0 {
            self.head[cell] = self.blocks[first].next;
            self.free.push(first as u32);
        }
        if from == loc {
            return None;
        }
        self.blocks[b].e[i] = moved;
        Some((moved, from))
    }

    /// The entry at `loc`.
    #[inline]
    pub fn entry(&self, loc: u32) -> &Entry {
        &self.blocks[loc as usize / BLOCK].e[loc as usize % BLOCK]
    }

    /// The entry at `loc`, to change its box.
    #[inline]
    pub fn entry_mut(&mut self, loc: u32) -> &mut Entry {
        &mut self.blocks[loc as usize / BLOCK].e[loc as usize % BLOCK]
    }

    /// The cell whose list holds `loc`.
    pub fn cell_of(&self, loc: u32) -> u32 {
        self.blocks[loc as usize / BLOCK].cell
    }

    /// `f` of every entry of `cell`.
    ///
    /// The next block is asked for before this one's entries are read, so
    /// its memory answers while they are tested (a query's time is mostly
    /// the first touch of each block).
    #[inline]
    pub fn each(&self, cell: u32, mut f: impl FnMut(&Entry)) {
        let mut b = self.head[cell as usize];
        while b != NONE {
            let blk = &self.blocks[b as usize];
            if blk.next != NONE {
                self.prefetch_block(blk.next);
            }
            blk.e[..blk.len as usize].iter().for_each(&mut f);
            b = blk.next;
        }
    }

    /// Ask for the first block of `cell`'s list (a hint: nothing is read,
    /// nothing can fail).
    #[inline]
    pub fn prefetch_cell(&self, cell: u32) {
        let b = self.head[cell as usize];
        if b != NONE {
            self.prefetch_block(b);
        }
    }

    /// Ask for the entry at `loc`.
    #[inline]
    pub fn prefetch_entry(&self, loc: u32) {
        if let Some(blk) = self.blocks.get(loc as usize / BLOCK) {
            prefetch(&blk.e[loc as usize % BLOCK]);
        }
    }

    #[inline(always)]
    fn prefetch_block(&self, b: u32) {
        prefetch_lines(&self.blocks[b as usize]);
    }

    /// Empty every list (O(blocks)).
    pub fn clear(&mut self) {
        for blk in &self.blocks {
            self.head[blk.cell as usize] = NONE;
        }
        self.blocks.clear();
        self.free.clear();
    }

    /// Empty lists, then `entries` (sorted by cell) laid out cell after
    /// cell; `put(k, loc)` is told where entry `k` went.
    pub fn build(&mut self, entries: &[(u32, Entry)], mut put: impl FnMut(usize, u32)) {
        self.clear();
        // the blocks, counted: a run of m entries of one cell takes ceil(m / BLOCK)
        let (mut blocks, mut k) = (0, 0);
        while k < entries.len() {
            let m = entries[k..]
                .iter()
                .take_while(|e| e.0 == entries[k].0)
                .count();
            blocks += m.div_ceil(BLOCK);
            k += m;
        }
        if blocks > self.blocks.capacity() {
            self.blocks.reserve(blocks);
            crate::scratch::advise_huge(&mut self.blocks);
        }
        let mut k = 0;
        while k < entries.len() {
            let cell = entries[k].0;
            let m = entries[k..].iter().take_while(|e| e.0 == cell).count();
            let nb = m.div_ceil(BLOCK);
            let first = self.blocks.len();
            // the first block takes the remainder, the others are full
            let mut fill = m - BLOCK * (nb - 1);
            for j in 0..nb {
                let mut blk = Block {
                    cell,
                    len: fill as u32,
                    next: if j + 1 < nb {
                        (first + j + 1) as u32
                    } else {
                        NONE
                    },
                    e: [Entry::default(); BLOCK],
                };
                for (t, slot) in blk.e[..fill].iter_mut().enumerate() {
                    *slot = entries[k].1;
                    put(k, ((first + j) * BLOCK + t) as u32);
                    k += 1;
                }
                self.blocks.push(blk);
                fill = BLOCK;
            }
            self.head[cell as usize] = first as u32;
        }
    }

    /// Check the invariants; the entries in all lists.
    pub fn check(&self) -> Result<usize, String> {
        let mut seen = 0;
        let mut blocks = 0;
        for (c, &first) in self.head.iter().enumerate() {
            let mut b = first;
            let mut at = 0;
            while b != NONE {
                let blk = &self.blocks[b as usize];
                if blk.cell as usize != c {
                    return Err(format!(
                        "block {b} in the list of cell {c} says cell {}",
                        blk.cell
                    ));
                }
                let len = blk.len as usize;
                if len == 0 || len > BLOCK || (at > 0 && len != BLOCK) {
                    return Err(format!("block {b} of cell {c} holds {len} entries"));
                }
                seen += len;
                blocks += 1;
                if blocks > self.blocks.len() {
                    return Err("a list has a cycle".into());
                }
                at += 1;
                b = blk.next;
            }
        }
        if blocks + self.free.len() != self.blocks.len() {
            return Err(format!(
                "{blocks} blocks in lists and {} free of {}",
                self.free.len(),
                self.blocks.len()
            ));
        }
        Ok(seen)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn e(id: u32) -> Entry {
        Entry {
            id,
            ..Default::default()
        }
    }

    proptest! {
        /// Pushes and removals against a model: each cell's ids as a multiset,
        /// every location kept up to date from what `remove` reports.
        #[test]
        fn lists_keep_their_entries(ops in prop::collection::vec((0u32..4, any::<bool>(), any::<usize>()), 0..200)) {
            let mut lists = CellLists::new(4);
            let mut locs: Vec<Option<u32>> = Vec::new(); // by id
            let mut model: Vec<Vec<u32>> = vec![Vec::new(); 4];
            for (cell, add, pick) in ops {
                let live: Vec<usize> = (0..locs.len()).filter(|&i| locs[i].is_some()).collect();
                if add || live.is_empty() {
                    let id = locs.len() as u32;
                    locs.push(Some(lists.push(cell, e(id))));
                    model[cell as usize].push(id);
                } else {
                    let id = live[pick % live.len()];
                    let loc = locs[id].unwrap();
                    let cell = lists.cell_of(loc) as usize;
                    if let Some((moved, from)) = lists.remove(loc) {
                        prop_assert_eq!(locs[moved.id as usize], Some(from));
                        locs[moved.id as usize] = Some(loc);
                    }
                    locs[id] = None;
                    model[cell].retain(|&x| x != id as u32);
                }
                let total = lists.check().map_err(TestCaseError::fail)?;
                prop_assert_eq!(total, model.iter().map(Vec::len).sum::<usize>());
                for (c, want) in model.iter().enumerate() {
                    let mut got = Vec::new();
                    lists.each(c as u32, |x| got.push(x.id));
                    got.sort_unstable();
                    let mut want = want.clone();
                    want.sort_unstable();
                    prop_assert_eq!(got, want);
                }
                for (id, loc) in locs.iter().enumerate() {
                    if let Some(l) = loc {
                        prop_assert_eq!(lists.entry(*l).id, id as u32);
                    }
                }
            }
        }
    }

    /// Asking for an empty cell, a cell's block or an entry, or a location
    /// with no block, changes nothing.
    #[test]
    fn prefetch_changes_nothing() {
        let mut lists = CellLists::new(2);
        lists.prefetch_cell(0);
        let at = lists.push(1, e(7));
        lists.prefetch_cell(1);
        lists.prefetch_entry(at);
        lists.prefetch_entry(u32::MAX); // no such block: nothing
        assert_eq!(lists.entry(at).id, 7);
    }

    #[test]
    fn build_lays_out_cells_in_order() {
        let entries: Vec<(u32, Entry)> = (0..20u32).map(|k| (k / 9 * 2, e(k))).collect();
        let mut lists = CellLists::new(6);
        lists.push(5, e(99));
        let mut locs = [0; 20];
        lists.build(&entries, |k, loc| locs[k] = loc);
        assert_eq!(lists.check(), Ok(20));
        for (k, &loc) in locs.iter().enumerate() {
            assert_eq!(lists.entry(loc).id, k as u32);
            assert_eq!(lists.cell_of(loc), k as u32 / 9 * 2);
        }
        let mut in5 = 0;
        lists.each(5, |_| in5 += 1);
        assert_eq!(in5, 0);
        assert_eq!(tag(3, 2), 3 | LATER_COLUMN | LATER_ROW);
        assert_eq!(tag(1, 1), 1 | LATER_ROW);
    }
}
