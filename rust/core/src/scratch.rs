//! Scratch buffers reused from one search to the next: bounded, given back.
//!
//! A search at n = 1e6 needs about 150 MB of temporaries (keys, sorted
//! entries, the walk's rows, the canonical order's buckets).  Fresh memory
//! costs a page fault and a zeroed page per 4 KiB on first touch, which was a
//! third of a whole search; games call the search every frame with about the
//! same n.  So big temporaries come from [`take`] and go back with [`give`].
//!
//! Bounds: the pool keeps at most [`MAX_BUFFERS`] buffers of each type and
//! [`MAX_BYTES`] in all; anything beyond is freed at once, so many threads
//! searching at once hold their scratch only while they search.  The pool
//! never blocks: a caller that finds it locked (another thread is taking or
//! giving, or a `fork()` happened while one was) allocates or frees instead.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Most bytes kept across all pools.
pub const MAX_BYTES: usize = 256 << 20;
/// Most buffers kept per element type.
pub const MAX_BUFFERS: usize = 4;
/// Buffers smaller than this are not worth keeping (malloc reuses them anyway).
const MIN_BYTES: usize = 256 << 10;

static KEPT: AtomicUsize = AtomicUsize::new(0);

/// Element types with a pool of their own.
pub trait Pooled: Sized + Send + 'static {
    /// This type's pool.
    fn pool() -> &'static Mutex<Vec<Vec<Self>>>;
}

macro_rules! pooled {
    ($($t:ty),*) => {$(
        impl Pooled for $t {
            fn pool() -> &'static Mutex<Vec<Vec<$t>>> {
                static POOL: Mutex<Vec<Vec<$t>>> = Mutex::new(Vec::new());
                &POOL
            }
        }
    )*};
}

pooled!(u8, u32, u64, usize, f64, [f64; 4], (u64, u32));

fn bytes<T>(v: &Vec<T>) -> usize {
    v.capacity() * std::mem::size_of::<T>()
}

/// An empty vector with room for `len` elements, reused when the pool has one.
pub fn take<T: Pooled>(len: usize) -> Vec<T> {
    if len * std::mem::size_of::<T>() >= MIN_BYTES {
        if let Ok(mut pool) = T::pool().try_lock() {
            // the smallest buffer that is big enough
            let best = (0..pool.len())
                .filter(|&k| pool[k].capacity() >= len)
                .min_by_key(|&k| pool[k].capacity());
            if let Some(k) = best {
                let mut v = pool.swap_remove(k);
                KEPT.fetch_sub(bytes(&v), Ordering::Relaxed);
                v.clear();
                return v;
            }
        }
    }
    Vec::with_capacity(len)
}

/// A vector of `len` copies of `value` (see [`take`]).
pub fn filled<T: Pooled + Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = take(len);
    v.resize(len, value);
    v
}

/// Give a vector back for later searches (or free it, past the bounds).
pub fn give<T: Pooled>(v: Vec<T>) {
    let size = bytes(&v);
    if size < MIN_BYTES {
        return;
    }
    if let Ok(mut pool) = T::pool().try_lock() {
        let kept = KEPT.load(Ordering::Relaxed);
        if pool.len() < MAX_BUFFERS && kept + size <= MAX_BYTES {
            KEPT.fetch_add(size, Ordering::Relaxed);
            pool.push(v);
        } else if let Some(k) = (0..pool.len()).min_by_key(|&k| pool[k].capacity()) {
            // keep the bigger of the smallest kept one and this one
            if pool[k].capacity() < v.capacity() && kept - bytes(&pool[k]) + size <= MAX_BYTES {
                KEPT.fetch_add(size, Ordering::Relaxed);
                let old = std::mem::replace(&mut pool[k], v);
                KEPT.fetch_sub(bytes(&old), Ordering::Relaxed);
            }
        }
    }
}

/// Free every kept buffer.
pub fn release() {
    fn drain<T: Pooled>() {
        if let Ok(mut pool) = T::pool().lock() {
            for v in pool.drain(..) {
                KEPT.fetch_sub(bytes(&v), Ordering::Relaxed);
            }
        }
    }
    drain::<u8>();
    drain::<u32>();
    drain::<u64>();
    drain::<usize>();
    drain::<f64>();
    drain::<[f64; 4]>();
    drain::<(u64, u32)>();
}

/// Give the allocator's free memory back to the system.
///
/// Memory a search freed outside the pool (its pair buffers, scratch past
/// the pool's bounds) otherwise stays with the C allocator's per-thread
/// arenas for the life of the process: eight threads searching a million
/// boxes at once left 900 MiB resident.  glibc only; elsewhere a no-op.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's malloc_trim has no preconditions: it only returns
        // free pages of the allocator's heaps to the system, and every live
        // allocation stays where it is.
        unsafe { malloc_trim(0) };
    }
}

/// Bytes kept in the pools now.
pub fn kept_bytes() -> usize {
    KEPT.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Only this test uses i16 buffers (other tests share the other pools).
    pooled!(i16);

    #[test]
    fn reuse_and_bounds() {
        let v: Vec<i16> = take(1 << 20);
        let p = v.as_ptr();
        give(v);
        let w: Vec<i16> = take(1000 << 10);
        assert_eq!(w.as_ptr(), p); // the kept buffer came back
        assert!(w.is_empty() && w.capacity() >= 1000 << 10);
        give(w);
        for _ in 0..MAX_BUFFERS + 3 {
            give(Vec::<i16>::with_capacity(MAX_BYTES / 2 / 4));
        }
        assert!(i16::pool().lock().unwrap().len() <= MAX_BUFFERS);
        assert!(kept_bytes() <= MAX_BYTES);
        let small: Vec<i16> = take(10);
        assert!(small.capacity() >= 10);
    }

    #[test]
    fn trim_keeps_live_memory() {
        let v: Vec<u64> = (0..1u64 << 20).collect();
        drop(vec![0u8; 64 << 20]);
        trim();
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64));
    }
}
