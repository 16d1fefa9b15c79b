//! Writes of several threads to disjoint positions of one slice.
//!
//! Invariant: each position has one writer while a [`Scatter`] lives (the
//! callers' contract, proved from their prefix sums); every access is
//! bounds-checked.

use std::marker::PhantomData;

/// A slice that several threads write at disjoint positions (a scatter).
///
/// Writes are bounds-checked; what the type cannot check is that no position
/// is written by two threads, or read while another writes: that is the
/// contract of [`Scatter::write`], which each caller proves from its
/// prefix sums.
pub struct Scatter<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: a Scatter only hands out writes of `T: Send` values to positions
// that its callers guarantee disjoint across threads (see `write`); it
// borrows the slice mutably for 'a, so nothing else reads it meanwhile.
unsafe impl<T: Send> Send for Scatter<'_, T> {}
// SAFETY: as above: shared use only writes, to disjoint positions.
unsafe impl<T: Send> Sync for Scatter<'_, T> {}

impl<'a, T> Scatter<'a, T> {
    /// Borrow `data` for scattered writes.
    pub fn new(data: &'a mut [T]) -> Self {
        Scatter {
            ptr: data.as_mut_ptr(),
            len: data.len(),
            _slice: PhantomData,
        }
    }

    /// Store `v` at position `i`.
    ///
    /// # Safety
    /// While this `Scatter` lives, no other thread may write position `i`
    /// (each position has one writer).  The bounds are checked here.
    #[inline(always)]
    pub unsafe fn write(&self, i: usize, v: T) {
        assert!(
            i < self.len,
            "scatter position {i} out of bounds {}",
            self.len
        );
        // SAFETY: i is in bounds (checked above), the slice is borrowed
        // mutably for 'a, and by the caller's contract no other thread
        // writes position i: no data race.  The old value is a plain
        // `Copy`-like element overwritten without drop by `write`, which is
        // what every caller (integers and plain structs) wants.
        unsafe { self.ptr.add(i).write(v) }
    }

    /// Ask for position `i` (a hint: nothing is read, nothing can fail;
    /// nothing for a position out of bounds).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        if i < self.len {
            // a hint on an address inside the slice, never dereferenced
            crate::hints::prefetch_ptr(self.ptr.wrapping_add(i).cast_const());
        }
    }

    /// The value at position `i`.
    ///
    /// # Safety
    /// As for [`Scatter::write`]: no other thread writes position `i` while
    /// this `Scatter` lives (so the calling thread, its one writer, reads
    /// what it or the owner last stored there).
    #[inline(always)]
    pub unsafe fn read(&self, i: usize) -> T
    where
        T: Copy,
    {
        assert!(
            i < self.len,
            "scatter position {i} out of bounds {}",
            self.len
        );
        // SAFETY: in bounds (checked), and no other thread writes position
        // i (the caller's contract): no data race.
        unsafe { self.ptr.add(i).read() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::par::Exec;

    #[test]
    fn scatter_from_prefix_sums_fills_every_slot_once() {
        // 16 chunks scatter their values to disjoint ranges given by prefix sums.
        let sizes: Vec<usize> = (0..16).map(|c| (c * 7) % 5 + 1).collect();
        let mut starts = vec![0];
        for s in &sizes {
            starts.push(starts.last().unwrap() + s);
        }
        let mut out = vec![usize::MAX; *starts.last().unwrap()];
        {
            let sc = Scatter::new(&mut out);
            Exec::new(Some(4)).map(16, |c| {
                for k in 0..sizes[c] {
                    // SAFETY: chunk c owns starts[c]..starts[c+1], disjoint from others.
                    unsafe { sc.write(starts[c] + k, c) };
                }
            });
        }
        for c in 0..16 {
            assert!(out[starts[c]..starts[c + 1]].iter().all(|&v| v == c));
        }
    }

    #[test]
    #[should_panic(expected = "out of bounds")]
    fn scatter_checks_bounds() {
        let mut out = [0u8; 3];
        let sc = Scatter::new(&mut out);
        sc.prefetch(1);
        sc.prefetch(3); // out of bounds: nothing
                        // SAFETY: single thread; the position is out of bounds on purpose.
        unsafe { sc.write(3, 1) };
    }
}
