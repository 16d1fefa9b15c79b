//! Memory hints: asking for memory before it is read, and for huge pages.
//!
//! A leaf: it uses no other module of the crate.  Every function here is a
//! hint only: it never changes what the program computes, never reads the
//! memory it names into the program, and never fails (a hint the machine
//! refuses or lacks does nothing).  So a kernel may call them anywhere, and
//! its tests need not mention them.

/// Hint that `v` will be read soon (a no-op where the target has no hint).
#[inline(always)]
pub fn prefetch<T>(v: &T) {
    prefetch_ptr(v as *const T);
}

/// Hint that the memory at `p` will be read soon: a hint only, `p` is never
/// dereferenced (any address will do).
#[inline(always)]
pub fn prefetch_ptr<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 target has,
        // and it only hints the cache: it reads nothing into the program and
        // never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Hint that all of `v` will be read soon: each cache line it spans.
#[inline(always)]
pub fn prefetch_slice<T>(v: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        if v.is_empty() {
            return;
        }
        let first = v.as_ptr() as usize;
        let end = first + std::mem::size_of_val(v);
        let mut line = first & !63;
        while line < end {
            // SAFETY: as in `prefetch`; each address is inside `v` or on a
            // line holding part of it (a hint: never dereferenced, so never
            // a fault, wherever it points).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = v;
}

/// Hint that `v`, at most a cache line long, will be read soon: the line
/// of its first byte and that of its last (the same unless it straddles
/// two), with no loop.
#[inline(always)]
pub fn prefetch_row<T>(v: &T) {
    const { assert!(std::mem::size_of::<T>() <= 64, "a row within two lines") };
    let first = v as *const T as *const u8;
    prefetch_ptr(first);
    prefetch_ptr(first.wrapping_add(std::mem::size_of::<T>().saturating_sub(1)));
}

/// Ask for huge pages under the (untouched) capacity of `v`.
pub fn advise_huge<T>(v: &mut Vec<T>) {
    const HUGE: usize = 2 << 20;
    let bytes = v.capacity() * std::mem::size_of::<T>();
    if bytes < 2 * HUGE {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn madvise(addr: *mut std::ffi::c_void, len: usize, advice: i32) -> i32;
        }
        const MADV_HUGEPAGE: i32 = 14;
        let start = v.as_mut_ptr() as usize;
        let lo = start.next_multiple_of(HUGE);
        let hi = (start + bytes) / HUGE * HUGE;
        if hi > lo {
            // SAFETY: [lo, hi) lies inside the vector's own allocation
            // (page-aligned sub-range of its capacity); MADV_HUGEPAGE only
            // changes how the kernel backs those pages, never their
            // contents or validity, and a refusal (an error) changes nothing.
            unsafe { madvise(lo as *mut std::ffi::c_void, hi - lo, MADV_HUGEPAGE) };
        }
    }
}

/// Hint that `v[i]` will be read soon (nothing for a position out of
/// bounds).
#[inline(always)]
pub fn prefetch_at<T>(v: &[T], i: usize) {
    if let Some(x) = v.get(i) {
        prefetch(x);
    }
}

/// How many items ahead [`ahead`] asks for an item's memory (its `near`
/// hint; its `far` hint twice as far): enough to cover a miss at a random
/// place while the items between run, few enough that what was asked for is
/// still in cache when it is read.
pub const AHEAD: usize = 4;

/// `f(state, k, list[k])` for every `k` in order, each item's memory asked
/// for ahead of it: `far(state, list[k + 2 AHEAD])` and then
/// `near(state, k + AHEAD, list[k + AHEAD])` just before `f` of item `k`
/// (and `near` of the first `AHEAD` items before the first `f`).  So `near`
/// runs once for every item, `AHEAD` items before `f` of it (time for the
/// memory `far` asked for, the item's record, to arrive before `near`
/// reads it to ask for what it points to); `far` runs for every item past
/// the first `2 AHEAD`.
///
/// The loops whose time is mostly misses at random places (a move's or a
/// sync's records, the queries of a refresh) run through this one helper.
/// `near` may do more than hint (a query's plan is worked out there, for
/// `f` to read): the order of the calls is the contract.
#[inline(always)]
pub fn ahead<S, T: Copy>(
    list: &[T],
    state: &mut S,
    far: impl Fn(&S, T),
    mut near: impl FnMut(&mut S, usize, T),
    mut f: impl FnMut(&mut S, usize, T),
) {
    for (k, &a) in list.iter().enumerate().take(AHEAD) {
        near(state, k, a);
    }
    for (k, &x) in list.iter().enumerate() {
        if let Some(&a) = list.get(k + 2 * AHEAD) {
            far(state, a);
        }
        if let Some(&a) = list.get(k + AHEAD) {
            near(state, k + AHEAD, a);
        }
        f(state, k, x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetch_changes_nothing() {
        let v = vec![[1.0f64, 2.0, 3.0, 4.0]; 64];
        for b in &v {
            prefetch(b);
        }
        assert!(v.iter().all(|b| *b == [1.0, 2.0, 3.0, 4.0]));
        prefetch_slice(&v[3..40]);
        prefetch_slice(&[0u8; 1000][1..999]);
        prefetch_slice::<u8>(&[]);
        assert!(v.iter().all(|b| *b == [1.0, 2.0, 3.0, 4.0]));
    }

    #[test]
    fn advise_huge_keeps_contents() {
        let mut v: Vec<u64> = Vec::with_capacity(3 << 20);
        v.extend(0..1000);
        advise_huge(&mut v);
        prefetch_at(&v, 5);
        prefetch_at(&v, 1 << 30);
        assert!(v.iter().copied().eq(0..1000));
    }

    /// `ahead` calls `near` once per item, `AHEAD` items before `f` of it,
    /// and `far` `2 AHEAD` items before, for lists shorter and longer
    /// than its reach.
    #[test]
    fn ahead_calls_in_order() {
        for n in [0, 1, AHEAD, AHEAD + 1, 2 * AHEAD + 3, 40] {
            let list: Vec<usize> = (0..n).collect();
            let mut log: Vec<(char, usize)> = Vec::new();
            let far_seen = std::cell::RefCell::new(Vec::new());
            ahead(
                &list,
                &mut log,
                |_, a| far_seen.borrow_mut().push(a),
                |log, k, a| {
                    assert_eq!(k, a);
                    log.push(('n', a))
                },
                |log, k, x| {
                    assert_eq!(k, x);
                    log.push(('f', x))
                },
            );
            let f_at = |x: usize| log.iter().position(|&e| e == ('f', x)).unwrap();
            let n_at = |x: usize| log.iter().position(|&e| e == ('n', x)).unwrap();
            for x in 0..n {
                assert!(n_at(x) < f_at(x));
                if x >= AHEAD {
                    assert_eq!(n_at(x), f_at(x - AHEAD) - 1);
                }
            }
            assert_eq!(log.len(), 2 * n);
            let want: Vec<usize> = (2 * AHEAD..n).collect();
            assert_eq!(*far_seen.borrow(), want);
        }
    }
}
