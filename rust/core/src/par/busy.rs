//! Whether every core of the machine is busy elsewhere: the one sign by
//! which a short call leaves its helpers asleep.
//!
//! # Why
//! A helper woken for a step on a machine whose every core runs another
//! thread waits for a core; once it has one, the OS may put it aside again
//! in the middle of a chunk, and the step's caller then waits for that
//! chunk for a time slice (milliseconds).  A call far shorter than a time
//! slice cannot win back that loss from the helper's share of the work, and
//! the helper's wake-up itself takes a slice from the thread that does the
//! work.  So a short call runs on its calling thread alone when the machine
//! is busy, and uses its helpers otherwise (`Exec::for_work`,
//! `Exec::unless_busy`).
//!
//! # The sign
//! Linux's `/proc/loadavg` gives, in its fourth field (`running/total`),
//! the number of threads of the whole machine that are runnable at this
//! instant, the reader included.  The others are that count less the
//! reader and less this process's kept-awake helpers (they yield their core
//! but stay runnable, `pools::keep_awake`).  The machine is busy when the
//! others are at least as many as the machine's online CPUs: every core
//! then has a thread to run besides the caller.  Unlike a timing of the
//! call's own threads (a preempted chunk, a slow wake-up), which also sees
//! a quiet machine's rare interruptions, this count is the scheduler's own:
//! one or two on a quiet machine, about the CPUs plus one when each spins
//! in another process.
//!
//! # Invariants
//! * A reading serves the calls of the next [`REREAD`]; a clock that goes
//!   back makes it stale.  Reading costs a few microseconds (an open and a
//!   read of a short kernel file), so a stream of short calls pays for it
//!   once every few milliseconds.
//! * No lock: the reading lives in one atomic word (a `fork()` child reads
//!   afresh: its stamp is its parent's, and `/proc` tells about the
//!   machine, not the process).
//! * Without `/proc/loadavg` (not Linux, or hidden) the machine is never
//!   busy: calls run as on a quiet machine.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long one reading of the machine's load serves.
pub(super) const REREAD: Duration = Duration::from_millis(2);

/// The last reading: its time in microseconds since the epoch, shifted up
/// one bit, with the answer in bit 0; 0 before the first.
static LAST: AtomicU64 = AtomicU64::new(0);

/// Whether every core of the machine has a thread to run besides the
/// caller and this process's idle helpers (a reading of the last
/// `REREAD`).
pub fn busy() -> bool {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64);
    let last = LAST.load(Ordering::Relaxed);
    let stamp = last >> 1;
    if last != 0 && now >= stamp && now - stamp < REREAD.as_micros() as u64 {
        return last & 1 == 1;
    }
    let answer = read_busy();
    LAST.store((now << 1) | u64::from(answer), Ordering::Relaxed);
    answer
}

/// [`busy`] read now, from `/proc/loadavg`.
fn read_busy() -> bool {
    let Ok(text) = std::fs::read("/proc/loadavg") else {
        return false;
    };
    running_of(&text)
        .is_some_and(|running| is_busy(running, super::pools::awake_helpers(), online_cpus()))
}

/// The rule: the others (the running threads less the reader and our
/// awake helpers) fill every online CPU.
fn is_busy(running: usize, awake: usize, cpus: usize) -> bool {
    running.saturating_sub(1).saturating_sub(awake) >= cpus
}

/// The count of runnable threads in a `/proc/loadavg` text (the part before
/// the slash of its fourth field).
fn running_of(text: &[u8]) -> Option<usize> {
    let field = text.split(|b| b.is_ascii_whitespace()).nth(3)?;
    let running = field.split(|&b| b == b'/').next()?;
    std::str::from_utf8(running).ok()?.parse().ok()
}

/// The machine's online CPUs (`/sys/devices/system/cpu/online`, ranges such
/// as `0-3,8-11`), read once; else the threads this process may use.
fn online_cpus() -> usize {
    static CPUS: AtomicUsize = AtomicUsize::new(0);
    match CPUS.load(Ordering::Relaxed) {
        0 => {
            let n = std::fs::read("/sys/devices/system/cpu/online")
                .ok()
                .and_then(|t| count_of_ranges(&t))
                .unwrap_or_else(super::available_threads)
                .max(1);
            CPUS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// The number of CPUs in a list of ranges (`0-3,8,10-11` holds 7).
fn count_of_ranges(text: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(text).ok()?.trim();
    let mut n = 0;
    for part in text.split(',') {
        n += match part.split_once('-') {
            Some((lo, hi)) => {
                let (lo, hi): (usize, usize) = (lo.parse().ok()?, hi.parse().ok()?);
                hi.checked_sub(lo)? + 1
            }
            None => part.parse::<usize>().map(|_| 1).ok()?,
        };
    }
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::super::BUSY_FACTOR as BUSY;
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    #[test]
    fn the_kernel_texts_are_read_as_written() {
        assert_eq!(running_of(b"0.53 1.22 1.39 2/79 9312\n"), Some(2));
        assert_eq!(running_of(b"12.00 9.1 3.0 17/1033 1\n"), Some(17));
        assert_eq!(running_of(b"0.53 1.22 1.39\n"), None);
        assert_eq!(running_of(b"a b c x/79 9\n"), None);
        assert_eq!(count_of_ranges(b"0-1\n"), Some(2));
        assert_eq!(count_of_ranges(b"0-3,8,10-11\n"), Some(7));
        assert_eq!(count_of_ranges(b"0\n"), Some(1));
        assert_eq!(count_of_ranges(b"3-1"), None);
        assert_eq!(count_of_ranges(b""), None);
    }

    #[test]
    fn busy_means_every_cpu_has_another_thread() {
        // 2 CPUs: the reader alone, or with one other, is not busy; the
        // reader and two others is; awake helpers of ours do not count
        assert!(!is_busy(1, 0, 2));
        assert!(!is_busy(2, 0, 2));
        assert!(is_busy(3, 0, 2));
        assert!(!is_busy(3, 1, 2));
        assert!(is_busy(4, 1, 2));
        assert!(!is_busy(0, 0, 1));
    }

    #[test]
    fn a_machine_whose_every_cpu_spins_is_seen_busy() {
        if std::fs::read("/proc/loadavg").is_err() {
            return; // no sign on this system: never busy, by design
        }
        let ex = super::super::Exec::new(Some(2));
        let stop = Arc::new(AtomicBool::new(false));
        let spinners: Vec<_> = (0..online_cpus())
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::hint::spin_loop();
                    }
                })
            })
            .collect();
        // the spinners and this reader: more runnable threads than CPUs;
        // then a short step stays on this thread, a long one does not
        let seen = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(1));
            read_busy()
        });
        let small_alone = (0..500).any(|_| {
            std::thread::sleep(Duration::from_millis(1));
            busy() && !ex.for_work(5000, 4096).is_parallel()
        });
        let large = ex.for_work(4096 * BUSY, 4096).is_parallel();
        stop.store(true, Ordering::Relaxed);
        for s in spinners {
            s.join().unwrap();
        }
        assert!(seen, "never busy with every CPU spinning");
        assert!(small_alone, "a short step woke helpers on a busy machine");
        assert_eq!(large, ex.is_parallel());
    }
}
