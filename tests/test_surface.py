"""The package's surface: tree copies and pickling, a tree shared by threads,
release_memory, and the compiled core's type stub against the module."""

import copy
import inspect
import pickle
import sys
import threading
import time

import numpy as np
import pytest

import broadphase as bp
from broadphase import _tree

# --------------------------------------------------------------------------
# copies: independent both ways


def _tree_with_kept_pairs():
    tree = bp.LinearQuadtree((0, 0, 16, 16), depth=3, margin=0.25, workers=1)
    h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [8, 8, 9, 9]], groups=[0, 0, 4])
    c = tree.insert_circles([[12, 12]], 1.0)
    assert tree.pairs().tolist() == [[0, 1]]
    began, ended = tree.update()  # the baseline of the events below
    assert began.tolist() == [[0, 1]] and ended.tolist() == []
    return tree, np.concatenate([h, c])


def _events(tree):
    return [a.tolist() for a in tree.update()]


@pytest.mark.parametrize("make_copy", [copy.copy, copy.deepcopy, bp.LinearQuadtree.copy],
                         ids=["copy.copy", "copy.deepcopy", "method"])
def test_a_copy_is_independent_both_ways(make_copy):
    tree, h = _tree_with_kept_pairs()
    other = make_copy(tree)
    assert type(other) is bp.LinearQuadtree and other is not tree
    assert (other.bounds, other.depth, other.margin, other.workers) == ((0, 0, 16, 16), 3,
                                                                        0.25, 1)
    np.testing.assert_array_equal(other.boxes(h), tree.boxes(h))  # the same handles
    assert other.circles(h[3]).tolist() == [12.0, 12.0, 1.0]
    assert other.touching(h[0]).tolist() == [1]
    # the copy moves its box 2 onto 0 and 1: only its own pairs and events change
    other.move(h[2], [1.5, 1.5, 2.5, 2.5])
    assert _events(other) == [[[0, 2], [1, 2]], []]
    assert _events(tree) == [[], []]
    assert tree.pairs().tolist() == [[0, 1]]
    # the original removes box 0 and inserts one: the copy keeps its own
    tree.remove(h[0])
    assert tree.insert([[11, 11, 12.5, 12.5]]).tolist() == [0]  # the freed handle
    assert _events(tree) == [[[0, 3]], [[0, 1]]]
    assert len(tree) == 4 and len(other) == 4
    assert other.boxes(h[0]).tolist() == [0, 0, 2, 2]
    assert other.pairs().tolist() == [[0, 1], [0, 2], [1, 2]]
    assert other.insert([[0, 0, 1, 1]]).tolist() == [4]  # no handle freed here
    assert len(other) == 5 and len(tree) == 4
    other.workers = 2
    assert tree.workers == 1
    tree.validate()
    other.validate()


def test_deepcopy_in_a_container_keeps_sharing_within_it():
    tree, h = _tree_with_kept_pairs()
    scene = {"tree": tree, "again": [tree], "handles": h}
    got = copy.deepcopy(scene)
    assert got["tree"] is got["again"][0] and got["tree"] is not tree
    got["tree"].move(got["handles"][2], [0.5, 0.5, 1.5, 1.5])
    assert got["again"][0].pairs().tolist() == [[0, 1], [0, 2], [1, 2]]
    assert tree.pairs().tolist() == [[0, 1]]


def test_a_subclass_copy_keeps_its_class_and_attributes():
    class Scene(bp.LinearQuadtree):
        pass

    tree = Scene((0, 0, 8, 8), depth=2)
    tree.names = ["a"]
    tree.insert([[0, 0, 1, 1]])
    shallow, deep = copy.copy(tree), copy.deepcopy(tree)
    assert type(shallow) is Scene and type(deep) is Scene
    assert shallow.names is tree.names and deep.names == ["a"] and deep.names is not tree.names
    shallow.insert([[2, 2, 3, 3]])
    assert len(tree) == 1 and len(shallow) == 2 and len(deep) == 1


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_pickling_says_what_to_do(protocol):
    tree, _ = _tree_with_kept_pairs()
    with pytest.raises(TypeError) as e:
        pickle.dumps(tree, protocol=protocol)
    msg = str(e.value)
    assert msg.startswith("LinearQuadtree cannot be pickled; "), msg
    assert "tree.boxes(handles)" in msg and "_core" not in msg and "Tree'" not in msg
    with pytest.raises(TypeError, match="LinearQuadtree cannot be pickled"):
        pickle.dumps({"scene": [tree]}, protocol=protocol)


# --------------------------------------------------------------------------
# two threads: the second call says the tree is in use


def _calls(tree, h):
    """Every public entry into the core's tree, with arguments it accepts."""
    box, circle = int(h[0]), int(h[-1])
    return {
        "len": lambda: len(tree),
        "in": lambda: box in tree,
        "repr": lambda: repr(tree),
        "workers": lambda: tree.workers,
        "workers=": lambda: setattr(tree, "workers", 1),
        "insert": lambda: tree.insert([1, 1, 2, 2]),
        "insert_circles": lambda: tree.insert_circles([1, 1], 0.5),
        "move": lambda: tree.move(box, [1, 1, 2, 2]),
        "move fast path": lambda: tree.move(np.array([box], np.int64),
                                            np.array([[1.0, 1, 2, 2]])),
        "move_circles": lambda: tree.move_circles(circle, [1, 1]),
        "remove": lambda: tree.remove(box),
        "pairs": tree.pairs,
        "update": tree.update,
        "touching": lambda: tree.touching(box),
        "query": lambda: tree.query([0, 0, 1, 1]),
        "query_point": lambda: tree.query_point(1.0, 1.0),
        "boxes": lambda: tree.boxes(box),
        "circles": lambda: tree.circles(circle),
        "locate": lambda: tree.locate(box),
        "stats": tree.stats,
        "validate": tree.validate,
        "copy": tree.copy,
        "copy.copy": lambda: copy.copy(tree),
        "copy.deepcopy": lambda: copy.deepcopy(tree),
    }


def test_a_call_while_another_thread_works_says_the_tree_is_in_use():
    # One thread runs a long search (every object new: a search from scratch,
    # ~8 million pairs, a few tenths of a second here); meanwhile this thread
    # makes every call.  The attempt counts only if the search was still
    # running after the last call; a fast machine gets a bigger tree.
    rng = np.random.default_rng(0)
    n = 1_000_000
    for _attempt in range(4):
        xy = rng.uniform(0, 1000, (n, 2))
        tree = bp.LinearQuadtree((0, 0, 1000, 1000), depth=8)
        h = np.concatenate([tree.insert(np.hstack([xy, xy + 2.0])),
                            tree.insert_circles([[5.0, 5.0]], 1.0)])
        done = threading.Event()
        found = {}

        def search(tree=tree, done=done, found=found):
            try:
                found["pairs"] = len(tree.pairs())
            except RuntimeError as e:  # a call of this thread came first
                found["search"] = e
            finally:
                done.set()

        th = threading.Thread(target=search)
        th.start()
        started = time.perf_counter()
        while not done.is_set() and time.perf_counter() - started < 30:
            try:  # until the search holds the tree
                len(tree)
            except RuntimeError:
                break
        outcomes = {}
        for name, call in _calls(tree, h).items():
            try:
                call()
                outcomes[name] = None
            except RuntimeError as e:
                outcomes[name] = e
        still_running = not done.is_set()
        th.join()
        if still_running and "search" not in found:
            break
        n *= 2
    else:
        pytest.skip("the search never outlasted the calls on this machine")
    wrong = {k: v for k, v in outcomes.items() if v is None or str(v) != _tree.IN_USE}
    assert not wrong, wrong
    assert str(outcomes["pairs"]) == ("LinearQuadtree: in use by another thread (a call is "
                                      "running); a tree is not shared between threads "
                                      "without a lock")
    assert outcomes["pairs"].__cause__ is None
    assert found["pairs"] > 1_000_000
    # and afterwards the tree works, unchanged by the refused calls
    assert len(tree) == n + 1 and tree.touching(h[-1]).size >= 0
    tree.validate()


def test_two_threads_taking_turns_under_a_lock_never_collide():
    tree = bp.LinearQuadtree((0, 0, 100, 100), depth=5)
    xy = np.random.default_rng(1).uniform(0, 99, (2000, 2))
    h = tree.insert(np.hstack([xy, xy + 1.0]))
    lock = threading.Lock()
    errors = []

    def frames(k):
        try:
            for step in range(50):
                with lock:
                    tree.move(h[k::2], tree.boxes(h[k::2]) + (0.01 if step % 2 else -0.01))
                    tree.pairs()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=frames, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    tree.validate()


def test_tree_methods_keep_their_names_docs_and_signatures():
    assert bp.LinearQuadtree.pairs.__doc__.startswith("Every colliding pair")
    assert bp.LinearQuadtree.insert.__name__ == "insert"
    assert "groups" in inspect.signature(bp.LinearQuadtree.insert).parameters


# --------------------------------------------------------------------------
# release_memory


def _rss_mib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def test_release_memory_runs_and_searches_still_work():
    assert "release_memory" in bp.__all__
    bp.release_memory()  # nothing kept yet: a no-op
    xy = np.random.default_rng(3).uniform(0, 1000, (500_000, 2))
    boxes = np.hstack([xy, xy + 2.0])
    first = bp.find_pairs(boxes)
    assert len(first) > 1_000_000
    want = first.copy()
    bp.release_memory()  # the result keeps its memory while it lives
    np.testing.assert_array_equal(first, want)
    del first
    bp.release_memory()
    np.testing.assert_array_equal(bp.find_pairs(boxes), want)
    tree = bp.LinearQuadtree((0, 0, 1002, 1002), depth=7)
    tree.insert(boxes)
    np.testing.assert_array_equal(tree.pairs(), want)
    bp.release_memory()
    np.testing.assert_array_equal(tree.pairs(), want)
    np.testing.assert_array_equal(bp.find_circle_pairs(xy[:1000], 5.0),
                                  bp.find_circle_pairs(xy[:1000], 5.0, method="brute"))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_release_memory_gives_the_kept_memory_back():
    xy = np.random.default_rng(4).uniform(0, 1000, (500_000, 2))
    boxes = np.hstack([xy, xy + 2.0])
    bp.release_memory()
    before = _rss_mib()
    pairs = bp.find_pairs(boxes)  # ~2 million pairs: 32 MiB, and the search's buffers
    del pairs
    kept = _rss_mib()
    bp.release_memory()
    after = _rss_mib()
    assert kept - before > 40, (before, kept, after)  # what the core keeps for next time
    assert after < kept - 40, (before, kept, after)
