"""No abort, hang or silent wrong answer: inputs written mid-call, memory limits, fork, Ctrl-C.

Each case once ended the process (an abort, a hang) or waited for the whole
call, so each runs in a fresh interpreter that must exit by itself.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import broadphase as bp
from naive import box_pairs

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="Linux limits, signals, fork")


def _run(code, timeout=240, **kw):
    """Run ``code`` in a fresh interpreter; its completed process."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=timeout, **kw)


# ---------------------------------------------------------------------------
# an input written by another thread during the call


RACE = """
import threading, time, numpy as np, broadphase as bp
rng = np.random.default_rng(1)
lo = rng.uniform(0, 1000, (60_000, 2))
b = np.concatenate([lo, lo + 2.0], 1); a = b.copy(); a[:, [0, 2]] += 500; o = b.copy()
c = np.concatenate([lo, np.full((len(lo), 1), 1.0)], 1); c2 = c.copy(); c2[:, 0] += 500
h = np.arange(len(b), dtype=np.int64); h2 = h[::-1].copy(); hh = h.copy()
g = np.arange(len(b), dtype=np.int64); g0 = np.zeros_like(g)
stop = False
def flip():
    while not stop:
        b[:] = a; c[:] = c2; hh[:] = h2; g[:] = g0
        b[:] = o; c[:, 0] -= 500; hh[:] = h; g[:] = np.arange(len(g))
threading.Thread(target=flip, daemon=True).start()
tree = bp.LinearQuadtree((0, 0, 1500, 1500), 7)
th = tree.insert(o)
ctree = bp.LinearQuadtree((0, 0, 1500, 1500), 7)
ch = ctree.insert_circles(c2[:, :2], 1.0)
calls = [
    lambda: bp.find_pairs(b, method="grid"),
    lambda: bp.find_pairs(b, method="quadtree"),
    lambda: bp.find_pairs(b, method="sweep", groups=g),
    lambda: bp.find_circle_pairs(c[:, :2], c[:, 2]),
    lambda: bp.find_pairs_between(b[:30_000], b[30_000:]),
    lambda: tree.move(hh, b),
    lambda: tree.pairs(),
    lambda: ctree.move_circles(hh, c[:, :2], c[:, 2]),
    lambda: ctree.update(),
    lambda: bp.LinearQuadtree((0, 0, 1500, 1500), 7).insert(b, groups=g),
]
done, refused = 0, 0
t = time.time()
while time.time() - t < __DURATION__:
    for call in calls:
        try:
            call()
        except (ValueError, KeyError):  # a torn row or handle list: a clean refusal
            refused += 1
        done += 1
stop = True
tree.validate(); ctree.validate()
print(done, refused)
"""


@linux_only
def test_inputs_written_during_every_call_never_crash():
    out = _run(RACE.replace("__DURATION__", "4.0"))
    assert out.returncode == 0, out.stderr[-2000:]
    done, _ = map(int, out.stdout.split())
    assert done >= 10


def test_results_are_unchanged_by_a_later_write_to_the_input():
    rng = np.random.default_rng(3)
    lo = rng.uniform(0, 50, (3000, 2))
    b = np.concatenate([lo, lo + rng.uniform(0, 2, (3000, 2))], 1)
    want = box_pairs(b)
    got = bp.find_pairs(b)
    b[:] = 0  # the result does not alias the input
    np.testing.assert_array_equal(got, want)


# ---------------------------------------------------------------------------
# memory limits


@linux_only
@pytest.mark.parametrize("code, named, room_mib", [
    # 112,492,500 pairs: 1.7 GiB of result, more with the search's own
    ("bp.find_pairs(np.tile([[0., 0, 1, 1]], (15000, 1)))", "colliding pairs", 600),
    ("bp.find_circle_pairs(np.zeros((15000, 2)), 1.0)", "colliding pairs", 600),
    # far more objects than the limit leaves room for
    ("bp.find_pairs(np.broadcast_to(np.array([0., 0, 1, 1]), (3_000_000, 4)).copy() "
     "+ np.arange(3_000_000)[:, None] * 2)", "boxes", 600),
    # the list heads of depth 12: 201 MB before any object
    ("bp.LinearQuadtree((0, 0, 1, 1), depth=12)", "depth", 100),
    ("bp.LinearQuadtree((0, 0, 1, 1), depth=4).insert(np.broadcast_to("
     "np.array([0., 0, 1e-9, 1e-9]), (3_000_000, 4)))", "boxes", 600),
    # every ray through every box: 45,000,000 hits, 2 GiB of rows and t
    ("bp.cast_rays(np.tile([[0., 0, 1, 1]], (3000, 1)), np.tile([[-1., 0.5]], (15000, 1)), "
     "np.tile([[2., 0]], (15000, 1)), hits='all')", "ray hits", 600),
    ("t = bp.LinearQuadtree((0, 0, 1, 1), 3); t.insert(np.tile([[0., 0, 1, 1]], (3000, 1))); "
     "t.cast_rays(np.tile([[-1., 0.5]], (15000, 1)), np.tile([[2., 0]], (15000, 1)), "
     "hits='all')", "ray hits", 600),
    # 1,200,000 hits (58 MB) under a limit of 25 MiB more: the rows' budget asks early
    ("bp.cast_rays(np.tile([[0., 0, 1, 1]], (3000, 1)), np.tile([[-1., 0.5]], (400, 1)), "
     "np.tile([[2., 0]], (400, 1)), hits='all')", "ray hits", 25),
])
def test_memory_limit_gives_memory_error_not_abort(code, named, room_mib):
    out = _run(f"""
        import resource, numpy as np, broadphase as bp
        import re
        used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read())[1]) * 1024
        limit = used + ({room_mib} << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        try:
            {code}
        except MemoryError as e:
            print("MemoryError:", e)
        else:
            print("no error")
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("MemoryError:"), out.stdout + out.stderr[-2000:]
    assert named in out.stdout


@linux_only
def test_a_search_that_fits_under_a_limit_still_runs():
    out = _run("""
        import resource, re, numpy as np, broadphase as bp
        used = int(re.search(r"VmSize:\\s+(\\d+)", open("/proc/self/status").read())[1]) * 1024
        limit = used + (1200 << 20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        b = np.random.default_rng(0).uniform(0, 1000, (100_000, 2))
        b = np.concatenate([b, b + 1], 1)
        print(len(bp.find_pairs(b)) == len(bp.find_pairs(b, method="sweep", workers=1)))
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "True"


# ---------------------------------------------------------------------------
# fork while other threads call


@linux_only
def test_forked_children_never_hang_while_threads_call():
    out = _run("""
        import os, threading, time, numpy as np, broadphase as bp
        b = np.random.default_rng(0).uniform(0, 100, (20_000, 2)); b = np.concatenate([b, b + 1], 1)
        want = len(bp.find_pairs(b, workers=1))
        stop = False
        def caller():
            while not stop:
                bp.find_pairs(b, workers=2)
        threads = [threading.Thread(target=caller) for _ in range(3)]
        for t in threads: t.start()
        hung = wrong = 0
        for k in range(60):
            pid = os.fork()
            if pid == 0:
                ok = len(bp.find_pairs(b, workers=2)) == want and len(bp.find_pairs(b)) == want
                os._exit(0 if ok else 3)
            deadline = time.time() + 20
            while True:
                r, status = os.waitpid(pid, os.WNOHANG)
                if r:
                    wrong += os.waitstatus_to_exitcode(status) != 0
                    break
                if time.time() > deadline:
                    hung += 1; os.kill(pid, 9); os.waitpid(pid, 0); break
                time.sleep(0.001)
        stop = True
        for t in threads: t.join()
        print(hung, wrong)
    """, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["0", "0"]


# ---------------------------------------------------------------------------
# Ctrl-C


INTERRUPT = """
import os, signal, threading, time, numpy as np, broadphase as bp
b = np.random.default_rng(0).uniform(0, 1000, (__N__, 2)); b = np.concatenate([b, b + 1], 1)
__SETUP__
def fire():
    time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=fire).start()
t = time.time()
try:
    __CALL__
    print("finished", time.time() - t)
except KeyboardInterrupt:
    print("interrupted", time.time() - t)
__AFTER__
"""


@linux_only
@pytest.mark.parametrize("n, setup, call, after", [
    (160_000, "", "bp.find_pairs(b, method='brute')", ""),
    (160_000, "", "bp.find_pairs(b, method='brute', workers=1)", ""),
    (120_000, "", "bp.find_circle_pairs(b[:, :2], 1.0, method='brute')", ""),
    # 4000 identical boxes: 8 million pairs a round
    (4000, "b[:] = (0, 0, 1, 1); b = np.tile(b, (12, 1))", "bp.find_pairs(b, method='sweep')", ""),
    # 80,000 identical boxes in one group: 3.2e9 candidates, every one filtered out
    # (no pair is written, so only the walks' own looks at the stop can end them)
    *[(80_000, "b[:] = (0, 0, 1, 1)", call, "") for call in (
        "bp.find_pairs(b, groups=1)", "bp.find_pairs(b, groups=1, method='quadtree')",
        "bp.find_pairs_between(b, b)",
        "tr = bp.LinearQuadtree((0, 0, 8, 8), 3); tr.insert(b, groups=np.ones(len(b), int)); "
        "tr.pairs()")],
    # fewer objects than a poll was once worth, quadratic work: the circle pairs of
    # 16,000 decided in exact arithmetic; 6,000 circles all moving far (18 million
    # candidates, each an exact swept test: tens of seconds)
    (16_000, "", "bp.find_circle_pairs(b[:, :2] * 1e199, 1e201)", ""),
    (6_000, "", "bp.find_swept_circle_pairs(b[:, :2], b[:, :2] + 3000.0, 0.5)", ""),
    # a tree frame of 10,000 moved objects among 200,000 in one group: 2e9 rejected tests
    (200_000, "b[:] = (10, 10, 11, 11); tr = bp.LinearQuadtree((0, 0, 100, 100), 6); "
              "h = tr.insert(b, groups=np.ones(len(b), int)); tr.update(); "
              "tr.move(h[:10_000], b[:10_000] + 0.5)", "tr.update()", "tr.validate()"),
    # 20,000 queries of the whole world among 200,000 boxes: each query meets them all
    (200_000, "tr = bp.LinearQuadtree((0, 0, 1001, 1001), 8); tr.insert(b); "
              "q = np.tile([[0.0, 0, 1001, 1001]], (20_000, 1))",
     "tr.query_many(q, max_rows=10**6)", ""),
    # 200,000 rays each meeting 200,000 identical boxes: a chunk of rays takes seconds
    (200_000, "b[:] = (0, 0, 1, 1); o = np.tile([[-1., 0.5]], (200_000, 1)); "
              "d = np.tile([[1., 0]], (200_000, 1))", "bp.cast_rays(b, o, d)", ""),
])
def test_ctrl_c_interrupts_a_search_at_once(n, setup, call, after):
    code = (INTERRUPT.replace("__N__", str(n)).replace("__SETUP__", setup)
            .replace("__CALL__", call).replace("__AFTER__", after))
    out = _run(code)
    assert out.returncode == 0, out.stderr[-2000:]
    word, seconds = out.stdout.split()
    if word == "finished":  # a fast machine: nothing to interrupt
        assert float(seconds) < 1.2, out.stdout
        return
    # the signal came at 1 s: its handler ran within about 0.1 s (0.5 s on a loaded machine)
    assert 1.0 <= float(seconds) < 1.5, out.stdout


@linux_only
def test_a_search_after_an_interrupted_one_is_right():
    out = _run("""
        import os, signal, threading, time, numpy as np, broadphase as bp
        b = np.random.default_rng(0).uniform(0, 1000, (160_000, 2))
        b = np.concatenate([b, b + 1], 1)
        threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:
            bp.find_pairs(b, method="brute")
        except KeyboardInterrupt:
            pass
        small = b[:20_000]
        a, s = bp.find_pairs(small, method="brute"), bp.find_pairs(small, method="sweep", workers=1)
        print(np.array_equal(a, s), len(a))
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    same, k = out.stdout.split()
    assert same == "True" and int(k) > 0


# ---------------------------------------------------------------------------
# results


def test_result_arrays_own_memory_numpy_may_write():
    rng = np.random.default_rng(5)
    for n in (50, 40_000):  # small results, and big ones from the scratch pool
        lo = rng.uniform(0, 100, (n, 2))
        b = np.concatenate([lo, lo + 3], 1)
        got = bp.find_pairs(b)
        want = box_pairs(b)
        assert got.flags.writeable and got.flags.c_contiguous
        np.testing.assert_array_equal(got, want)
        got[:] = -1  # NumPy may write it; later results are not disturbed
        np.testing.assert_array_equal(bp.find_pairs(b), want)
        del got
        np.testing.assert_array_equal(bp.find_pairs(b), want)


@pytest.mark.parametrize("dims", [2, 3])
def test_distance_and_vector_arrays_own_memory_numpy_may_write(dims):
    rng = np.random.default_rng(6)
    for n in (50, 60_000):  # small results, and big ones from the scratch pool
        pts = rng.uniform(0, 1, (n, dims))
        cut = 0.04 if n == 50 else 0.012
        pairs, d, v = bp.find_point_pairs(pts, cut, period=1.0, return_distances=True,
                                          return_vectors=True)
        # the minimum image by NumPy, from the pairs
        want_v = pts[pairs[:, 1]] - pts[pairs[:, 0]]
        want_v -= np.round(want_v)
        assert d.shape == (len(pairs),) and v.shape == (len(pairs), dims)
        assert d.flags.writeable and v.flags.writeable and v.flags.c_contiguous
        np.testing.assert_allclose(v, want_v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(d, np.sqrt((want_v ** 2).sum(1)), rtol=0, atol=1e-12)
        d[:] = -1.0  # NumPy may write them; later results are not disturbed
        v[:] = -1.0
        _, d2, v2 = bp.find_point_pairs(pts, cut, period=1.0, return_distances=True,
                                        return_vectors=True)
        np.testing.assert_allclose(v2, want_v, rtol=0, atol=1e-12)
        np.testing.assert_allclose(d2, np.sqrt((want_v ** 2).sum(1)), rtol=0, atol=1e-12)
        del d, v
        _, d3 = bp.find_point_pairs(pts, cut, period=1.0, return_distances=True)
        np.testing.assert_array_equal(d3, d2)


@linux_only
@pytest.mark.parametrize("call", ["insert", "move", "pairs", "update"])
def test_ctrl_c_stops_a_tree_call_and_leaves_the_tree_valid(call):
    out = _run(f"""
        import os, signal, threading, time, numpy as np, broadphase as bp
        rng = np.random.default_rng(0)
        n = 2_000_000  # 39 million pairs: pairs() takes about a second
        lo = rng.uniform(0, 5000, (n, 2)); b = np.concatenate([lo, lo + 11.0], 1)
        tree = bp.LinearQuadtree((0, 0, 5000, 5000), depth=8)
        h = tree.insert(b) if "{call}" != "insert" else None
        new = b[::-1].copy()
        calls = dict(insert=lambda: tree.insert(b), move=lambda: tree.move(h, new),
                     pairs=tree.pairs, update=tree.update)
        threading.Timer(0.05, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t, took = time.time(), None
        try:
            calls["{call}"]()
            took = time.time() - t
            time.sleep(1.0)  # a signal after the call lands here
        except KeyboardInterrupt:
            took = took if took is not None else -(time.time() - t)
        tree.validate()
        if "{call}" == "insert":
            assert len(tree) in (0, n), len(tree)  # as if never called, or done
            held = b if len(tree) else b[:0]
        elif "{call}" == "move":  # never half done: as if never called (stopped
            # while its rows were copied and checked), or finished
            done = np.array_equal(tree.boxes(h), new)
            assert done or np.array_equal(tree.boxes(h), b)
            held = new if done else b
        else:
            held = b
        assert np.array_equal(tree.pairs(), bp.find_pairs(held))
        print(took)
    """)
    assert out.returncode == 0, out.stderr[-2000:]
    took = float(out.stdout)
    if call in ("pairs", "update"):  # long enough to be interrupted on any machine
        assert took < 0, took
    if took < 0:  # interrupted: the signal came at 0.05 s, the exception soon after
        assert -took < 0.05 + 0.6, took


# ---------------------------------------------------------------------------
# a call on a thread that is not the main one, while the interpreter exits;
# a fork by a signal handler during a call


@linux_only
def test_daemon_threads_in_long_calls_do_not_crash_the_exit():
    # a long call polls for signals; on a daemon thread a poll while the main thread
    # finalized the interpreter took the GIL after finalization (SIGSEGV in some exits):
    # calls off the main thread do not poll (only the main thread runs signal handlers)
    code = """
        import threading, time, numpy as np, broadphase as bp
        lo = np.random.default_rng(0).uniform(0, 1000, (160_000, 2))
        b = np.concatenate([lo, lo + 1], 1)
        def loop():
            while True:
                bp.find_pairs(b, method="brute", workers=1)
        for _ in range(3):
            threading.Thread(target=loop, daemon=True).start()
        time.sleep(0.3)
    """
    codes = [_run(code, timeout=60).returncode for _ in range(8)]
    assert codes == [0] * 8


@linux_only
def test_a_child_forked_by_a_signal_handler_mid_call_does_not_hang():
    # the handler runs in the call's poll while a pool thread holds a chunk; the child has
    # no pool thread: its call ends (stopped) instead of waiting for ever, and it can call again
    out = _run("""
        import os, signal, sys, numpy as np, broadphase as bp
        lo = np.random.default_rng(0).uniform(0, 1000, (100_000, 2))
        b = np.concatenate([lo, lo + 1], 1)
        kids = []
        def handler(sig, frame):
            kids.append(os.fork())
        signal.signal(signal.SIGALRM, handler)
        signal.setitimer(signal.ITIMER_REAL, 0.3)
        try:
            bp.find_pairs(b, method="brute", workers=2)
            what = "done"
        except KeyboardInterrupt:
            what = "stopped"
        if kids == [0]:
            s = b[:5000]
            again = len(bp.find_pairs(s, workers=2)) == len(bp.find_pairs(s, workers=1))
            os._exit(10 if again else 11)
        _, status = os.waitpid(kids[0], 0)
        print(what, os.WEXITSTATUS(status) if os.WIFEXITED(status) else "signal")
    """, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["done", "10"], out.stdout


def test_the_private_core_refuses_what_it_would_misread_or_panic_on():
    from broadphase import _core

    with pytest.raises(MemoryError, match=r"lo, hi: .* counters do not fit"):
        _core.sort_pairs(np.array([[5, 1]], np.int64), 0, 2**62)
    with pytest.raises(ValueError, match=r"lo, hi: expected lo <= hi"):
        _core.sort_pairs(np.array([[5, 1]], np.int64), -2**63, 2**63 - 1)
    # a Fortran-ordered array's rows would be read across its columns
    b = np.array([[0, 0, 2, 2], [1, 1, 3, 3.]])
    with pytest.raises(TypeError, match=r"boxes: expected a C-contiguous float64 array"):
        _core.find_pairs(np.asfortranarray(b), "sweep")
    with pytest.raises(TypeError, match=r"rows: expected a C-contiguous int64 array"):
        _core.pick_pairs(np.array(list("abcd"), object),
                         np.asfortranarray(np.array([[0, 1], [2, 3], [1, 2]])))
    # handles past the end or removed: a KeyError, not a panic or a stale row
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    tree.insert([[0, 0, 1, 1], [3, 3, 4, 4]])
    tree.remove([1])
    for read in (tree._t.box_of, tree._t.circle_of, tree._t.locate):
        for h in (1, 99):
            with pytest.raises(KeyError, match=rf"handle {h}: not in the tree"):
                read(h)


def test_the_private_core_checks_what_it_relies_on():
    # the Python layer checks first; these checks hold for an array another
    # thread wrote after that check (or a direct call of the private module)
    from broadphase import _core
    b = np.array([[0, 0, 1, 1]], float)
    one = np.array([[-1.0, 0.5]])
    right, inf = np.array([[1.0, 0.0]]), np.array([np.inf])
    with pytest.raises(ValueError, match=r"origins\[0\]: expected finite numbers"):
        _core.cast_rays(b, np.array([[np.nan, 0.5]]), right, inf, "first")
    with pytest.raises(ValueError, match=r"directions\[0\]: expected finite numbers"):
        _core.cast_rays(b, one, np.array([[np.inf, 0.0]]), inf, "first")
    with pytest.raises(ValueError, match=r"max_t\[0\]: expected a number >= 0, found NaN"):
        _core.cast_rays(b, one, right, np.array([np.nan]), "any")
    i64 = lambda *v: np.array(v, np.int64)  # noqa: E731
    with pytest.raises(ValueError, match=r"ix, iy: expected one length, found 2 and 1"):
        _core.morton_encode(i64(1, 2), i64(1))
    with pytest.raises(ValueError, match=r"ix\[0\]: expected an integer in \[0, 2147483648\)"):
        _core.morton_encode(i64(2**31), i64(0))
    with pytest.raises(ValueError, match=r"code\[1\]: expected an integer in \[0, 4611"):
        _core.morton_decode(i64(0, -1))
    with pytest.raises(ValueError, match=r"depth: expected 0 <= depth <= 29, found 30"):
        _core.morton_cell_of(i64(0), i64(0), 30)
    with pytest.raises(ValueError, match=r"code1\[0\]: expected an integer in \[0, 64\)"):
        _core.morton_cell_of(i64(0), i64(64), 3)
    assert _core.morton_cell_of(i64(0), i64(63), 3)[0].tolist() == [0]
