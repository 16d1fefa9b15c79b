"""LinearQuadtree.update() when handles are given out again.

A removed object's handle goes to the next insert at once, so between two
calls one handle may name two objects.  Events are about objects: the old
object's pairs end and the new one's begin, even when both are the same
pair of handles.  The model below knows objects by identity, not handle.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def rows(a):
    return [list(p) for p in a.tolist()]


def new_tree(path=None):
    tree = bp.LinearQuadtree((0, 0, 16, 16), depth=3)
    if path is not None:
        # always by queries of the changed objects (after the first call),
        # or always from scratch: the core tree's rebuild share
        tree._t.rebuild_share = {"incremental": float("inf"), "rebuild": -1.0}[path]
    return tree


PATHS = [None, "incremental", "rebuild"]


@pytest.mark.parametrize("path", PATHS)
def test_a_reused_handle_ends_the_old_pair_and_begins_the_new(path):
    tree = new_tree(path)
    assert tree.insert([[0, 0, 2, 2], [1, 1, 3, 3]]).tolist() == [0, 1]
    began, ended = tree.update()
    assert (rows(began), rows(ended)) == ([[0, 1]], [])
    tree.remove(1)
    assert tree.insert([1.5, 0, 2.5, 1]).tolist() == [1]  # the freed handle
    began, ended = tree.update()
    assert (rows(began), rows(ended)) == ([[0, 1]], [[0, 1]])
    began, ended = tree.update()
    assert (rows(began), rows(ended)) == ([], [])


@pytest.mark.parametrize("path", PATHS)
def test_removed_and_given_out_again_several_times(path):
    tree = new_tree(path)
    tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [10, 10, 11, 11]])
    tree.update()
    for box in ([1, 0, 3, 1], [12, 12, 13, 13], [0, 1, 1, 3]):
        tree.remove(1)
        assert tree.insert(box).tolist() == [1]
    began, ended = tree.update()
    # the last object in slot 1 touches 0; the first one's pair ended
    assert (rows(began), rows(ended)) == ([[0, 1]], [[0, 1]])
    # the last one out again, far away: only its pair ends
    tree.remove(1)
    tree.insert([12, 12, 13, 13])
    began, ended = tree.update()
    assert (rows(began), rows(ended)) == ([], [[0, 1]])


@pytest.mark.parametrize("path", PATHS)
def test_a_removed_object_s_pairs_end(path):
    tree = new_tree(path)
    tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [2.5, 2.5, 4, 4]])
    assert rows(tree.update()[0]) == [[0, 1], [1, 2]]
    tree.remove(1)
    began, ended = tree.update()
    assert (rows(began), rows(ended)) == ([], [[0, 1], [1, 2]])


@pytest.mark.parametrize("path", PATHS)
def test_an_object_inserted_and_removed_between_calls_has_no_events(path):
    tree = new_tree(path)
    tree.insert([[0, 0, 2, 2], [1, 1, 3, 3]])
    tree.update()
    h = int(tree.insert([0, 0, 3, 3])[0])
    tree.remove(h)
    assert [rows(a) for a in tree.update()] == [[], []]


@pytest.mark.parametrize("path", PATHS)
def test_pairs_between_updates_changes_no_event(path):
    tree = new_tree(path)
    tree.insert([[0, 0, 2, 2], [1, 1, 3, 3]])
    tree.update()
    tree.remove(1)
    tree.insert([1.5, 0, 2.5, 1])
    assert rows(tree.pairs()) == [[0, 1]]
    assert [rows(a) for a in tree.update()] == [[[0, 1]], [[0, 1]]]
    assert [rows(a) for a in tree.update()] == [[], []]


@pytest.mark.parametrize("path", PATHS)
def test_the_readme_frame_pairs_then_update(path):
    """A frame asking pairs() and then update() gets both answers."""
    tree = new_tree(path)
    h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]])
    assert rows(tree.pairs()) == [[0, 1]]
    assert [rows(a) for a in tree.update()] == [[[0, 1]], []]
    tree.move(h[2], [2, 2, 4, 4])
    assert rows(tree.pairs()) == [[0, 1], [1, 2]]
    assert [rows(a) for a in tree.update()] == [[[1, 2]], []]
    # there and back between two updates, seen by pairs() on the way: no event
    tree.move(h[2], [12, 12, 13, 13])
    assert rows(tree.pairs()) == [[0, 1]]
    tree.move(h[2], [2, 2, 4, 4])
    assert rows(tree.pairs()) == [[0, 1], [1, 2]]
    assert [rows(a) for a in tree.update()] == [[], []]
    tree.validate()


# a crowded corner of the world: most objects touch a few others
coord = st.integers(0, 12).map(lambda v: v / 2)
side = st.sampled_from([0.5, 1, 2, 3])
a_box = st.builds(lambda x, y, w, h: [x, y, x + w, y + h], coord, coord, side, side)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("insert"), st.lists(a_box, min_size=1, max_size=3)),
        st.tuples(st.just("remove"), st.integers(0, 1 << 16)),
        # removed, and the handle given out again at once
        st.tuples(st.just("replace"), st.integers(0, 1 << 16), a_box),
        st.tuples(st.just("move"), st.integers(0, 1 << 16), a_box),
        st.tuples(st.just("update")),
        st.tuples(st.just("pairs")),
    ),
    min_size=10,
    max_size=60,
)


@given(ops=ops, path=st.sampled_from(PATHS))
def test_events_are_those_of_objects(ops, path):
    """Random inserts, removals (some handles given out again at once) and
    moves, several between two calls, pairs() and update() interleaved; the
    events are the model's pairs of objects that began and ended since the
    last update(), whatever pairs() calls came between."""
    tree = new_tree(path)
    objs = {}  # handle -> (identity, box)
    fresh = iter(range(1 << 30))
    last = {}  # identity pair -> handle pair, at the last update()

    def current():
        hs = sorted(objs)
        return {
            (objs[i][0], objs[j][0]): (i, j)
            for x, i in enumerate(hs)
            for j in hs[x + 1:]
            if _overlap(objs[i][1], objs[j][1])
        }

    for op in ops:
        if op[0] == "insert":
            for h, b in zip(tree.insert(op[1]).tolist(), op[1], strict=True):
                assert h not in objs
                objs[h] = (next(fresh), b)
        elif op[0] == "remove" and objs:
            h = sorted(objs)[op[1] % len(objs)]
            tree.remove(h)
            del objs[h]
        elif op[0] == "replace" and objs:
            h = sorted(objs)[op[1] % len(objs)]
            tree.remove(h)
            assert tree.insert(op[2]).tolist() == [h]
            objs[h] = (next(fresh), op[2])
        elif op[0] == "move" and objs:
            h = sorted(objs)[op[1] % len(objs)]
            tree.move(h, op[2])
            objs[h] = (objs[h][0], op[2])
        elif op[0] == "update":
            began, ended = tree.update()
            now = current()
            assert rows(began) == sorted(list(now[k]) for k in now.keys() - last.keys())
            assert rows(ended) == sorted(list(last[k]) for k in last.keys() - now.keys())
            last = now
        elif op[0] == "pairs":
            # every pair now; the next update()'s events stay relative to the last update()
            now = current()
            np.testing.assert_array_equal(
                tree.pairs().reshape(-1, 2), np.array(sorted(now.values()), np.intp).reshape(-1, 2)
            )
    tree.validate()
