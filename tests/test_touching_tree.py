"""Trees made with ``touching=True``: closed boxes for the tree's life.

A state machine (2D and 3D) inserts, moves and removes boxes and asks every
question -- pairs, update events, ``touching``, ``query``, ``query_point``,
``query_many``, ``boxes`` -- against a model that keeps the boxes as given
and answers by the closed rule written out here (Python's ``<=``, -0.0 equal
to 0.0).  Then the edge cases one by one: signed zeros kept by ``boxes``,
the largest float, copies, the calls a closed tree refuses, shapely.
"""

import copy
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

import broadphase as bp

LARGEST = float(np.finfo(np.float64).max)
TINY = math.nextafter(0.0, 1.0)
ALL = int(np.iinfo(np.uint64).max)


def same_floats(a, b):
    """Equal values and equal signs (0.0 is not -0.0 here)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return a.shape == b.shape and np.array_equal(a, b) and np.array_equal(np.signbit(a),
                                                                          np.signbit(b))


def meets(a, b):
    """Closed boxes ``a`` and ``b`` (2D or 3D rows) share a point."""
    d = len(a) // 2
    return all(a[k] <= b[d + k] and b[k] <= a[d + k] for k in range(d))


def kept(f, g):
    (ga, ca, ma), (gb, cb, mb) = f, g
    return not (ga != 0 and ga == gb) and (ca & mb) != 0 and (cb & ma) != 0


def model_pairs(objs):
    hs = sorted(objs)
    return [[i, j] for k, i in enumerate(hs) for j in hs[k + 1:]
            if kept(objs[i][1], objs[j][1]) and meets(objs[i][0], objs[j][0])]


def model_query(objs, q):
    return [h for h in sorted(objs) if meets(objs[h][0], q)]


# --------------------------------------------------------------------------
# strategies: a 16-wide world, half-unit coordinates from -2 to 20 (ties,
# outside the world), and values one step apart or signed zeros on the split
# lines and the world's edges


SPECIAL = [-0.0, 0.0, TINY, -TINY, math.nextafter(8.0, 0.0), 8.0, math.nextafter(8.0, 16.0),
           16.0, math.nextafter(16.0, 17.0)]
coord = st.one_of(st.integers(-4, 40).map(lambda v: v / 2), st.sampled_from(SPECIAL))


@st.composite
def interval(draw):
    a = draw(coord)
    kind = draw(st.sampled_from(["point", "size", "size", "other"]))
    if kind == "point":
        return a, a
    if kind == "size":
        return a, a + draw(st.sampled_from([0.5, 1.0, 2.0, 8.0]))
    b = draw(coord)
    return (a, b) if a <= b else (b, a)  # (0.0, -0.0) stays as drawn


def a_box(dims):
    @st.composite
    def box(draw):
        lo, hi = zip(*(draw(interval()) for _ in range(dims)), strict=True)
        return [*lo, *hi]

    return box()


filters = st.tuples(st.sampled_from([0, 0, 0, 1, 2]), st.sampled_from([ALL, ALL, 1, 2, 3]),
                    st.sampled_from([ALL, ALL, 1, 2, 3]))


class ClosedTreeMachine(RuleBasedStateMachine):
    dims = 2
    handles = Bundle("handles")

    def __init__(self):
        super().__init__()
        if self.dims == 2:
            self.tree = bp.LinearQuadtree((0, 0, 16, 16), 3, touching=True)
            self.probes = ([0, 0, 16, 16], [8, 8, 8, 8], [0, 0, 8, 8], [16, 0, 20, 20],
                           [-0.0, -1, -0.0, 20], [-5, -5, -TINY, -TINY])
            self.points = ((8, 8), (0, 0), (-0.0, 16), (16, 16), (4.5, 0.5))
        else:
            self.tree = bp.LinearOctree((0, 0, 0, 16, 16, 16), 2, touching=True)
            self.probes = ([0, 0, 0, 16, 16, 16], [8, 8, 8, 8, 8, 8], [0, 0, 0, 8, 8, 8],
                           [16, 0, 0, 20, 20, 20], [-0.0, -1, -1, -0.0, 20, 20])
            self.points = ((8, 8, 8), (0, 0, 0), (-0.0, 16, 16), (16, 16, 16))
        self.objs = {}
        self.ids = {}  # each insert a new identity: events are about objects
        self.fresh = iter(range(1 << 30))
        self.reported = {}

    @rule(target=handles, data=st.data(), f=filters)
    def insert(self, data, f):
        box = data.draw(a_box(self.dims))
        h = int(self.tree.insert(box, groups=f[0], categories=f[1], masks=f[2])[0])
        assert h not in self.objs
        self.objs[h], self.ids[h] = (box, f), next(self.fresh)
        return h

    @rule(data=st.data(), n=st.integers(1, 4))
    def insert_many(self, data, n):
        boxes = [data.draw(a_box(self.dims)) for _ in range(n)]
        hs = self.tree.insert(np.array(boxes))
        for h, b in zip(hs.tolist(), boxes, strict=True):
            self.objs[h], self.ids[h] = (b, (0, ALL, ALL)), next(self.fresh)

    @rule(h=handles, data=st.data())
    def move(self, h, data):
        box = data.draw(a_box(self.dims))
        if h not in self.objs:
            with pytest.raises(KeyError, match=f"handle {h}"):
                self.tree.move(h, box)
            return
        self.tree.move(h, box)
        self.objs[h] = (box, self.objs[h][1])

    @rule(hs=st.lists(handles, max_size=5, unique=True), data=st.data())
    def move_many(self, hs, data):
        hs = [h for h in hs if h in self.objs]
        boxes = [data.draw(a_box(self.dims)) for _ in hs]
        self.tree.move(np.array(hs, np.int64),
                       np.array(boxes, np.float64).reshape(-1, 2 * self.dims))
        for h, b in zip(hs, boxes, strict=True):
            self.objs[h] = (b, self.objs[h][1])

    @rule(h=handles)
    def refused_move(self, h):
        """A max of the largest float is refused and changes nothing."""
        if h in self.objs:
            top = [0.0] * self.dims + [1.0] * (self.dims - 1) + [LARGEST]
            with pytest.raises(ValueError, match="touching=True a max must be below"):
                self.tree.move(h, top)

    @rule(h=consumes(handles))
    def remove(self, h):
        if h in self.objs:
            self.tree.remove(h)
            del self.objs[h]
        else:
            with pytest.raises(KeyError):
                self.tree.remove(h)

    @rule()
    def update(self):
        began, ended = self.tree.update()
        now = {(self.ids[i], self.ids[j]): [i, j] for i, j in model_pairs(self.objs)}
        assert began.tolist() == sorted(now[k] for k in now.keys() - self.reported.keys())
        assert ended.tolist() == sorted(self.reported[k]
                                        for k in self.reported.keys() - now.keys())
        self.reported = now

    @rule(h=handles)
    def touching(self, h):
        if h not in self.objs:
            return
        want = sorted({j if i == h else i for i, j in model_pairs(self.objs) if h in (i, j)})
        assert self.tree.touching(h).tolist() == want

    @rule(data=st.data())
    def query(self, data):
        q = data.draw(a_box(self.dims))
        assert self.tree.query(q).tolist() == model_query(self.objs, q)
        p = [data.draw(coord) for _ in range(self.dims)]
        assert self.tree.query_point(*p).tolist() == model_query(self.objs, p + p)

    @invariant()
    def agrees_with_model(self):
        assert len(self.tree) == len(self.objs)
        assert self.tree.pairs().tolist() == model_pairs(self.objs)
        for q in self.probes:
            assert self.tree.query(q).tolist() == model_query(self.objs, q)
        rows = self.tree.query_many(np.array(self.probes, np.float64)).tolist()
        assert rows == [[k, h] for k, q in enumerate(self.probes)
                        for h in model_query(self.objs, q)]
        for p in self.points:
            assert self.tree.query_point(*p).tolist() == model_query(self.objs, list(p) * 2)
        for h, (box, _) in self.objs.items():
            assert same_floats(self.tree.boxes(h), box)  # as given, -0.0 included
        if self.objs:
            hs = sorted(self.objs)
            assert same_floats(self.tree.boxes(hs), [self.objs[h][0] for h in hs])
        self.tree.validate()


class ClosedOctreeMachine(ClosedTreeMachine):
    dims = 3


ClosedTreeMachine.TestCase.settings = settings(max_examples=50, stateful_step_count=30,
                                               deadline=None)
ClosedOctreeMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=30,
                                                 deadline=None)
test_closed_quadtree = ClosedTreeMachine.TestCase
test_closed_octree = ClosedOctreeMachine.TestCase


# --------------------------------------------------------------------------
# one by one


def test_closed_and_open_trees_side_by_side():
    boxes = [[0, 0, 4, 4], [4, 0, 8, 4], [8, 4, 12, 8], [2, 2, 2, 2], [20, 20, 21, 21]]
    closed = bp.LinearQuadtree((0, 0, 16, 16), 3, touching=True)
    opened = bp.LinearQuadtree((0, 0, 16, 16), 3)
    closed.insert(boxes), opened.insert(boxes)
    assert closed.pairs().tolist() == [[0, 1], [0, 3], [1, 2]]
    assert opened.pairs().tolist() == [[0, 3]]
    assert closed.query([4, 4, 4, 4]).tolist() == [0, 1]
    assert opened.query([4, 4, 4, 4]).tolist() == []
    assert closed.query_point(4, 2).tolist() == [0, 1]
    assert opened.query_point(4, 2).tolist() == []
    assert closed.query_point(2, 2).tolist() == [0, 3]
    assert closed.touching(1).tolist() == [0, 2]
    assert "touching=True" in repr(closed) and "touching" not in repr(opened)
    # and in 3D
    cubes = [[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [1, 0, 0, 2, 1, 1], [5, 5, 5, 6, 6, 6]]
    oct_closed = bp.LinearOctree((0, 0, 0, 8, 8, 8), 2, touching=True)
    oct_open = bp.LinearOctree((0, 0, 0, 8, 8, 8), 2)
    oct_closed.insert(cubes), oct_open.insert(cubes)
    assert oct_closed.pairs().tolist() == [[0, 1], [0, 2], [1, 2]]
    assert oct_open.pairs().tolist() == []
    assert oct_closed.query_point(1, 1, 1).tolist() == [0, 1, 2]
    assert oct_closed.query([6, 6, 6, 7, 7, 7]).tolist() == [3]
    assert "touching=True" in repr(oct_closed)


@pytest.mark.parametrize("dims", [2, 3])
def test_signed_zero_maxima_come_back_as_given(dims):
    tree = (bp.LinearQuadtree((-8, -8, 8, 8), 3, touching=True) if dims == 2
            else bp.LinearOctree((-8, -8, -8, 8, 8, 8), 2, touching=True))
    neg = [-1.0] * dims + [-0.0] * dims
    pos = [0.0] * dims + [1.0] * dims
    h = tree.insert([neg, pos, [-2.0] * dims + [-TINY] * dims])
    assert same_floats(tree.boxes(h), [neg, pos, [-2.0] * dims + [-TINY] * dims])
    # -0.0 meets 0.0; -TINY is one step short of it
    assert tree.pairs().tolist() == [[0, 1], [0, 2]]
    snapshot, deep = tree.copy(), copy.deepcopy(tree)
    tree.move(h[0], [-1.0] * dims + [-0.5] * dims)
    assert tree.pairs().tolist() == [[0, 2]]
    for other in (snapshot, deep, copy.copy(snapshot)):  # copies keep the rule and the rows
        assert same_floats(other.boxes(h[0]), neg)
        assert other.pairs().tolist() == [[0, 1], [0, 2]]
    tree.move(h[0], neg)
    assert same_floats(tree.boxes(h[0]), neg)
    tree.remove(h[0])
    again = tree.insert([0.0] * dims + [0.0] * dims)  # the handle given out again
    assert again.tolist() == [h[0]]
    assert same_floats(tree.boxes(again[0]), [0.0] * (2 * dims))
    assert tree.pairs().tolist() == [[0, 1]]
    tree.validate()


@pytest.mark.parametrize("dims", [2, 3])
def test_the_largest_float(dims):
    top = math.nextafter(LARGEST, 0.0)
    world = [0.0] * dims + [LARGEST] * dims
    tree = (bp.LinearQuadtree(world, 4, touching=True) if dims == 2
            else bp.LinearOctree(world, 3, touching=True))
    h = tree.insert([[0.0] * dims + [top] * dims, [top] * (2 * dims), [0.0] * dims + [1] * dims])
    assert tree.pairs().tolist() == [[0, 1], [0, 2]]
    assert same_floats(tree.boxes(h[1]), [top] * (2 * dims))
    bad = [0.0] * dims + [1.0] * (dims - 1) + [LARGEST]
    axis = "xyz"[dims - 1]
    with pytest.raises(ValueError, match=rf"boxes\[0\]: max{axis} is 1\.797.*touching=True"):
        tree.insert(bad)
    with pytest.raises(ValueError, match=rf"boxes\[1\]: max{axis} is"):
        tree.insert([[0.0] * dims + [1] * dims, bad])
    with pytest.raises(ValueError, match=rf"boxes\[0\]: max{axis} is"):
        tree.move(h[2], bad)
    assert len(tree) == 3 and same_floats(tree.boxes(h[2]), [0.0] * dims + [1.0] * dims)
    # a region or a point may reach the largest float: nothing stored reaches it
    assert tree.query([0.0] * dims + [LARGEST] * dims).tolist() == [0, 1, 2]
    assert tree.query([LARGEST] * (2 * dims)).tolist() == []
    assert tree.query_point(*[LARGEST] * dims).tolist() == []
    assert tree.query_point(*[top] * dims).tolist() == [0, 1]
    tree.validate()


def test_a_box_on_the_worlds_edge_is_inside():
    tree = bp.LinearQuadtree((0, 0, 16, 16), 3, touching=True)
    tree.insert([[8, 8, 16, 16], [0, 0, 16, 16], [15, 15, math.nextafter(16.0, 17.0), 16]])
    tree.pairs()
    assert tree.stats()["outside"] == 1
    assert tree.bounds == (0.0, 0.0, 16.0, 16.0)


def test_what_a_closed_tree_refuses():
    tree = bp.LinearQuadtree((0, 0, 16, 16), 3, touching=True)
    tree.insert([0, 0, 1, 1])
    for call in (lambda: tree.insert_circles([[1, 1]], 1.0),
                 lambda: tree.cast_rays([[0, 0]], [[1, 0]]),
                 lambda: tree.cast_rays([[0, 0]], [[1, 0]], workers=1),
                 tree.swept_pairs):
        with pytest.raises(ValueError, match="touching=True, which holds boxes only"):
            call()
    octree = bp.LinearOctree((0, 0, 0, 16, 16, 16), 2, touching=True)
    for call in (lambda: octree.insert_spheres([[1, 1, 1]], 1.0),
                 lambda: octree.cast_rays([[0, 0, 0]], [[1, 0, 0]]),
                 octree.swept_pairs):
        with pytest.raises(ValueError, match="touching=True, which holds boxes only"):
            call()
    for bad in (1, None, "no"):
        with pytest.raises(TypeError, match="touching: expected True or False"):
            bp.LinearQuadtree((0, 0, 16, 16), 3, touching=bad)
        with pytest.raises(TypeError, match="touching: expected True or False"):
            bp.LinearOctree((0, 0, 0, 16, 16, 16), 2, touching=bad)


def test_for_objects_filters_and_input_kept():
    tree = bp.LinearQuadtree.for_objects((0, 0, 100, 100), 4, touching=True)
    boxes = np.array([[0, 0, 4, 4], [4, 4, 8, 8], [4, 0, 8, 4]], np.float64)
    before = boxes.copy()
    tree.insert(boxes, groups=[1, 1, 0])
    np.testing.assert_array_equal(boxes, before)
    assert tree.pairs().tolist() == [[0, 2], [1, 2]]
    tree.move(np.array([2], np.int64), boxes[:1] + 20)
    np.testing.assert_array_equal(boxes, before)
    assert tree.pairs().tolist() == []
    octree = bp.LinearOctree.for_objects((0, 0, 0, 100, 100, 100), 4, touching=True)
    octree.insert([[0, 0, 0, 4, 4, 4], [4, 4, 4, 8, 8, 8]], categories=[1, 2], masks=[2, 1])
    assert octree.pairs().tolist() == [[0, 1]]


@settings(deadline=None)
@given(boxes=st.lists(st.tuples(*[st.integers(0, 8)] * 2, *[st.sampled_from([0, 0, 1, 2])] * 2),
                      max_size=25),
       regions=st.lists(st.tuples(*[st.integers(-1, 9)] * 2, *[st.sampled_from([0, 0, 1, 3])] * 2),
                        min_size=1, max_size=5))
def test_tree_as_shapely_strtree(boxes, regions):
    """Pairs and regions of a closed quadtree: shapely's intersects on the envelopes."""
    shapely = pytest.importorskip("shapely")

    def rows(v):
        a = np.array(v, np.float64).reshape(-1, 4)
        return np.hstack([a[:, :2], a[:, :2] + a[:, 2:]])

    def geom(r):
        x0, y0, x1, y1 = r
        if x0 == x1 and y0 == y1:
            return shapely.Point(x0, y0)
        if x0 == x1 or y0 == y1:
            return shapely.LineString([(x0, y0), (x1, y1)])
        return shapely.box(x0, y0, x1, y1)

    b, q = rows(boxes), rows(regions)
    tree = bp.LinearQuadtree((0, 0, 8, 8), 2, touching=True)
    tree.insert(b)
    strtree = shapely.STRtree(np.array([geom(r) for r in b] or [], dtype=object))
    i, j = strtree.query(np.array([geom(r) for r in b] or [], dtype=object),
                         predicate="intersects")
    want = sorted([int(x), int(y)] for x, y in zip(i, j, strict=True) if x < y)
    assert tree.pairs().tolist() == want
    qi, hj = strtree.query(np.array([geom(r) for r in q], dtype=object), predicate="intersects")
    want = sorted([int(x), int(y)] for x, y in zip(qi, hj, strict=True))
    assert tree.query_many(q).tolist() == want
    for k, r in enumerate(q):
        assert tree.query(r).tolist() == [h for x, h in want if x == k]
