//! How much memory a call may still take: the system's, its cgroup's and its
//! address-space limit's, whichever is least.
//!
//! A search whose result or working memory would not fit must fail with an
//! error the caller can handle, never with the allocator's abort.  The
//! system's `MemAvailable` alone is not enough:
//! - under a container's or a batch job's cgroup limit, `MemAvailable` is the
//!   host's, and going past the limit gets the process killed;
//! - under `RLIMIT_AS` (`ulimit -v`, set by batch schedulers) an allocation
//!   past the limit fails and Rust aborts.
//!
//! So [`available_memory`] is the least of: `MemAvailable`; for each cgroup
//! level of this process (v2 `memory.max` − `memory.current`, v1
//! `memory.limit_in_bytes` − `memory.usage_in_bytes`), its room; and the
//! address-space limit less the address space in use (`VmSize`).  A source
//! that cannot be read is left out; with none, 1 TiB.  Callers compare a
//! call's estimated peak with it before allocating ([`fits`]).
//!
//! Reading the files costs system calls and text parsing, more than a small
//! search, so a reading serves for [`MEMORY_READ_SERVES`].  The kept reading is only
//! ever `try_lock`ed: a caller that finds the lock taken (another thread is
//! storing a reading, or a `fork()` happened while one was) reads the files
//! itself rather than wait.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a reading of the available memory serves.
pub const MEMORY_READ_SERVES: Duration = Duration::from_millis(250);

/// What is assumed where no limit can be read.
const UNKNOWN: u64 = 1 << 40;

/// Bytes of memory a call may still use (see the module docs); a reading at
/// most [`MEMORY_READ_SERVES`] old.
pub fn available_memory() -> u64 {
    static LAST: Mutex<Option<(Instant, u64)>> = Mutex::new(None);
    if let Ok(last) = LAST.try_lock() {
        if let Some((at, bytes)) = *last {
            if at.elapsed() < MEMORY_READ_SERVES {
                return bytes;
            }
        }
    }
    let bytes = read_available_memory();
    if let Ok(mut last) = LAST.try_lock() {
        *last = Some((Instant::now(), bytes));
    }
    bytes
}

/// Whether `bytes` more fit in [`available_memory`].
pub fn fits(bytes: u64) -> bool {
    bytes <= available_memory()
}

/// [`available_memory`] read from the system now.
pub fn read_available_memory() -> u64 {
    [meminfo(), cgroup_room(), address_space_room()]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(UNKNOWN)
}

/// `MemAvailable` of `/proc/meminfo`.
fn meminfo() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    kib_field(&s, "MemAvailable:")
}

/// The value in kB of the line starting with `key`, in bytes.
fn kib_field(text: &str, key: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib.saturating_mul(1024))
}

/// `RLIMIT_AS`'s soft limit (from `/proc/self/limits`) less `VmSize`.
fn address_space_room() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft = line.split_whitespace().nth(3)?;
    let limit: u64 = soft.parse().ok()?; // "unlimited": no limit
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let used = kib_field(&status, "VmSize:")?;
    Some(limit.saturating_sub(used))
}

/// The least room of the cgroups this process is in, v2 and v1, at every
/// level from its own up to the hierarchy's root.
fn cgroup_room() -> Option<u64> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut least: Option<u64> = None;
    for line in groups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let (root, limit, usage) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                "/sys/fs/cgroup/memory",
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            continue;
        };
        for dir in ancestors(root, path) {
            if let Some(room) = room_in(&dir, limit, usage) {
                least = Some(least.map_or(room, |l| l.min(room)));
            }
        }
    }
    least
}

/// `root/path`, then each of its parents up to `root` itself.
fn ancestors(root: &str, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut p = path.trim_end_matches('/');
    loop {
        out.push(format!("{root}{p}"));
        match p.rfind('/') {
            Some(k) => p = &p[..k],
            None => break,
        }
    }
    out
}

/// Limit less usage of one cgroup directory, if it has a limit.
fn room_in(dir: &str, limit: &str, usage: &str) -> Option<u64> {
    let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
    let limit: u64 = read(limit)?.trim().parse().ok()?; // "max": no limit
    if limit >= 1 << 60 {
        return None; // v1's "no limit" is a page-rounded i64::MAX
    }
    let used: u64 = read(usage)?.trim().parse().ok()?;
    Some(limit.saturating_sub(used))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ancestors_run_from_the_group_to_the_root() {
        assert_eq!(
            ancestors("/r", "/a/b"),
            vec!["/r/a/b".to_string(), "/r/a".into(), "/r".into()]
        );
        assert_eq!(ancestors("/r", "/"), vec!["/r".to_string()]);
    }

    #[test]
    fn the_reading_is_at_most_each_source() {
        let all = read_available_memory();
        assert!(all > 0);
        for source in [meminfo(), cgroup_room(), address_space_room()]
            .into_iter()
            .flatten()
        {
            // other threads allocate meanwhile: within a margin
            assert!(all <= source + (256 << 20), "{all} > {source}");
        }
    }

    #[test]
    fn kib_fields_are_bytes() {
        assert_eq!(
            kib_field("A: 1\nVmSize:\t  12 kB\n", "VmSize:"),
            Some(12 * 1024)
        );
        assert_eq!(kib_field("A: 1\n", "VmSize:"), None);
    }

    #[test]
    fn available_memory_is_read_at_most_every_quarter_second() {
        let mut last = available_memory();
        assert!(last > 0);
        let t = Instant::now();
        let mut changes = 0;
        while t.elapsed() < MEMORY_READ_SERVES / 2 {
            // within a window the same reading comes back: the value
            // changes at most once a window (at its end)
            let now = available_memory();
            if now != last {
                changes += 1;
                last = now;
            }
        }
        // however long this thread was paused inside the loop
        let windows = 1 + t.elapsed().as_nanos() / MEMORY_READ_SERVES.as_nanos();
        assert!(
            changes <= windows,
            "{changes} new readings in {windows} windows"
        );
        std::thread::sleep(MEMORY_READ_SERVES);
        assert!(available_memory() > 0);
    }
}
