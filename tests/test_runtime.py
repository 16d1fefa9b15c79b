"""The compiled core's runtime contract: threads, fork, and no Numba on the search or tree path."""

import multiprocessing
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import broadphase as bp
from broadphase import scenarios
from naive import box_pairs


def _child(code):
    """What a fresh interpreter running ``code`` prints (it must succeed)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_search_path_never_imports_numba():
    code = (
        "import sys, numpy as np, broadphase as bp\n"
        "b = np.random.default_rng(0).random((3000, 4)); b[:, 2:] = b[:, :2] + 0.01\n"
        "for m in ('auto', 'brute', 'sweep', 'grid', 'quadtree'):\n"
        "    bp.find_pairs(b, method=m); bp.find_circle_pairs(b[:, :2], 0.01, method=m)\n"
        "    bp.find_pairs_between(b[:100], b[100:], method=m)\n"
        "bp.morton.locate(b, (0, 0, 2, 2), 5); bp.morton.encode(3, 6)\n"
        "t = bp.LinearQuadtree((0, 0, 1, 1), 5); h = t.insert(b); t.pairs()\n"
        "t.move(h[:10], b[:10] + 0.001); t.update(); t.query([0, 0, 1, 1]); t.touching(h[0])\n"
        "from broadphase import _cli\n"
        "assert 'numba' not in sys.modules, sorted(m for m in sys.modules if 'numba' in m)\n"
        "print('ok')\n"
    )
    assert _child(code).strip() == "ok"


def test_many_python_threads_at_once_agree():
    boxes = scenarios.make("clustered", 50_000, seed=4)
    want = bp.find_pairs(boxes, method="sweep", workers=1)
    results = {}

    def run(t):
        method = ("auto", "grid", "quadtree", "sweep")[t % 4]
        results[t] = [bp.find_pairs(boxes, method=method, workers=(None, 1, 2)[t % 3])
                      for _ in range(3)]

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert sorted(results) == list(range(8))
    for got in results.values():
        for g in got:
            np.testing.assert_array_equal(g, want)


def _child_pairs(seed):
    boxes = scenarios.make("uniform", 100_000, seed=seed)
    return bp.find_pairs(boxes).tolist()[:50], len(bp.find_pairs(boxes, method="quadtree"))


@pytest.mark.skipif(sys.platform != "linux", reason="fork start method")
def test_fork_pool_after_a_parallel_call_in_the_parent():
    boxes = scenarios.make("uniform", 100_000, seed=7)
    want = bp.find_pairs(boxes)  # the parent's thread pool now exists
    assert len(want) > 50_000
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        got = pool.map_async(_child_pairs, [7, 7, 7]).get(timeout=120)
    for head, count in got:
        assert head == want.tolist()[:50]
        assert count == len(want)


def _longest_pause(work) -> tuple[float, float]:
    """Run ``work`` in a thread while this one keeps running Python code.

    Returns this thread's longest pause and the work's duration.
    """
    done = threading.Event()
    span = {}

    def run():
        t0 = time.perf_counter()
        work()
        span["s"] = time.perf_counter() - t0
        done.set()

    th = threading.Thread(target=run)
    th.start()
    last, worst = time.perf_counter(), 0.0
    while not done.is_set():
        now = time.perf_counter()
        worst = max(worst, now - last)
        last = now
    th.join()
    return worst, span["s"]


def test_gil_released_during_the_search():
    # While one thread searches, another thread keeps running Python code:
    # its longest pause stays well below the search's duration.
    boxes = scenarios.make("mixed", 1_000_000, seed=3)
    worst, span = _longest_pause(lambda: [bp.find_pairs(boxes, method="grid", workers=1)
                                          for _ in range(3)])
    assert worst < span / 2, (worst, span)


def test_gil_released_by_the_tree():
    boxes = scenarios.make("mixed", 1_000_000, seed=3)

    def frames():
        tree = bp.LinearQuadtree((0, 0, 1000, 1000), 8, workers=1)
        h = tree.insert(boxes)
        tree.pairs()
        tree.move(h, boxes + 0.5)
        tree.pairs()
        tree.move(h[::50], boxes[::50] - 0.5)
        tree.update()

    worst, span = _longest_pause(frames)
    assert worst < span / 2, (worst, span)


def _dense(n, side, seed):
    lo = np.random.default_rng(seed).random((n, 2))
    return np.hstack([lo, lo + side])


def test_big_results_stay_intact_while_later_searches_reuse_freed_ones():
    # Results of 16,384+ pairs own memory that returns to a pool when NumPy
    # frees them; a live result must never be written by a later search.
    a_boxes, b_boxes = _dense(4000, 0.06, 1), _dense(3000, 0.08, 2)
    want_a, want_b = box_pairs(a_boxes), box_pairs(b_boxes)
    assert len(want_a) > 20_000 and len(want_b) > 20_000
    a = bp.find_pairs(a_boxes)
    b = bp.find_pairs(b_boxes)
    assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(a, want_a)
    view = a[::2]  # a view keeps the memory alive too
    del a
    c = bp.find_pairs(b_boxes)
    assert not np.shares_memory(c, view) and not np.shares_memory(c, b)
    np.testing.assert_array_equal(view, want_a[::2])
    b[:] = -1  # scribbled over, then freed: its memory comes back whole
    del b
    for _ in range(3):
        np.testing.assert_array_equal(bp.find_pairs(b_boxes), want_b)
    np.testing.assert_array_equal(c, want_b)
    assert c.dtype == np.intp and c.flags.c_contiguous and c.flags.writeable


def test_a_freed_result_is_the_next_results_memory():
    code = (
        "import numpy as np, broadphase as bp\n"
        "lo = np.random.default_rng(0).random((4000, 2)); b = np.hstack([lo, lo + 0.06])\n"
        "a = bp.find_pairs(b); keep = bp.find_pairs(b); at = a.ctypes.data; del a\n"
        # without the pool, this array would take the freed memory
        "other = np.ones_like(keep)\n"
        "c = bp.find_pairs(b)\n"
        "print(c.ctypes.data == at, np.array_equal(c, keep))\n"
    )
    assert _child(code).split() == ["True", "True"]
