//! Test support for what a child made by `fork()` inherits: a leaf, so the
//! modules of every layer (the pools' included) can test their state in a
//! child.  Compiled for tests only.

/// Whether `check()` holds in a child made by `fork()` here (the child runs
/// only `check` and exits at once, without unwinding or flushing anything of
/// the parent's; `false` also when the fork fails).  For tests of what a
/// forked child inherits.
#[cfg(unix)]
pub(crate) fn holds_in_forked_child(check: impl FnOnce() -> bool) -> bool {
    extern "C" {
        fn fork() -> i32;
        fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
        fn _exit(code: i32) -> !;
    }
    // SAFETY: the child only runs `check` (the callers' checks take no lock
    // a parent thread could hold) and leaves by `_exit`; the parent waits.
    unsafe {
        let pid = fork();
        if pid == 0 {
            _exit(if check() { 0 } else { 1 });
        }
        let mut status = -1;
        pid > 0 && waitpid(pid, &mut status, 0) == pid && status == 0
    }
}
