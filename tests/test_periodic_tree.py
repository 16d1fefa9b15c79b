"""Periodic moving trees (``period=`` on LinearQuadtree and LinearOctree) against exact references.

The references shift copies by whole periods in Python Fractions: two
intervals meet when, for some whole ``k`` in the range where it can happen,
the first shifted by ``k`` periods overlaps the second strictly (open
shapes); two balls when the sum over the axes of the least squared shifted
difference of their centres is below the squared sum of their radii.  The
state machines insert, move and remove objects (near and across the
boundaries, at exactly 0 and L, far outside ``[0, L)``, widths of exactly
half the period, one axis open) and compare every pair question of the tree
with the model after each step; events are about objects, not handles.
"""

import copy
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

import broadphase as bp

ALL = 2**64 - 1


# ----------------------------------------------------------------------
# the references, in Fractions


def interval_meets(lo_a, hi_a, lo_b, hi_b, length):
    """Whether some copy of ``(lo_a, hi_a)`` shifted by whole ``length`` meets ``(lo_b, hi_b)``."""
    lo_a, hi_a, lo_b, hi_b = (F(v) for v in (lo_a, hi_a, lo_b, hi_b))
    if length is None:
        return lo_a < hi_b and lo_b < hi_a
    n = F(length)
    # lo_a + k n < hi_b and lo_b < hi_a + k n: k in ((lo_b - hi_a) / n, (hi_b - lo_a) / n)
    first, last = math.floor((lo_b - hi_a) / n), math.ceil((hi_b - lo_a) / n)
    return any(lo_a + k * n < hi_b and lo_b < hi_a + k * n for k in range(first, last + 1))


def boxes_meet(a, b, period):
    d = len(period)
    return all(interval_meets(a[k], a[d + k], b[k], b[d + k], period[k]) for k in range(d))


def balls_meet(a, b, period):
    d = len(period)
    total = F(0)
    for k in range(d):
        diff = F(a[k]) - F(b[k])
        if period[k] is None:
            total += diff * diff
            continue
        n = F(period[k])
        near = math.floor(diff / n)
        total += min((diff - s * n) ** 2 for s in range(near - 1, near + 3))
    return total < (F(a[d]) + F(b[d])) ** 2


def kept(fa, fb):
    """Whether the filters ``(group, category, mask)`` of two objects let them collide."""
    (ga, ca, ma), (gb, cb, mb) = fa, fb
    return not (ga != 0 and ga == gb) and bool(ca & mb) and bool(cb & ma)


def model_pairs(objs, meet, period):
    hs = sorted(objs)
    return [[i, j] for x, i in enumerate(hs) for j in hs[x + 1:]
            if kept(objs[i][1], objs[j][1]) and meet(objs[i][0], objs[j][0], period)]


# ----------------------------------------------------------------------
# objects near and across the boundaries


def coordinate(length):
    """A coordinate on an axis of period ``length`` (``None``: open)."""
    n = 10.0 if length is None else length
    special = [0.0, -0.0, n, -n, 2 * n, n / 2, np.nextafter(n, 0), np.nextafter(n, 2 * n),
               np.nextafter(0, 1), np.nextafter(0, -1), 1e4 + 0.5, -1e4 - 0.25, 12345.125,
               3 * n + 0.25]
    return st.one_of(st.integers(-40, 80).map(lambda k: k / 4), st.sampled_from(special),
                     st.floats(-30, 40, allow_nan=False, width=64))


def extent(length):
    """A width on an axis of period ``length``: at most half the period there."""
    if length is None:
        return st.sampled_from([0.0, 1.0, 3.0, 7.0]) | st.floats(0, 8)
    half = length / 2
    return st.sampled_from([0.0, half, half / 2, 1.0, np.nextafter(half, 0)]) | st.floats(0, half)


@st.composite
def a_box(draw, period):
    d = len(period)
    lo, hi = [], []
    for k in range(d):
        a = draw(coordinate(period[k]))
        top = a + draw(extent(period[k]))
        if period[k] is not None:
            while F(top) - F(a) > F(period[k]) / 2:  # the sum rounded above half the period
                top = np.nextafter(top, -np.inf)
        lo.append(a)
        hi.append(max(top, a))
    return lo + hi


def most_radius(period):
    return min([p / 4 for p in period if p is not None] + [3.0])


@st.composite
def a_ball(draw, period):
    most = most_radius(period)
    centre = [draw(coordinate(n)) for n in period]
    return centre + [draw(st.sampled_from([0.0, most, most / 2, 0.5]) | st.floats(0, most))]


filters = st.tuples(st.sampled_from([0, 0, 0, 1, 2]), st.sampled_from([ALL, ALL, 1, 2, 3]),
                    st.sampled_from([ALL, ALL, 1, 2, 3]))


def wide_box(period):
    """A box wider than half the period on its first periodic axis, and that axis."""
    d = len(period)
    axis = next(k for k, n in enumerate(period) if n is not None)
    box = [0.25] * d + [1.25] * d
    box[d + axis] = 0.25 + period[axis] / 2 + 0.25
    return box, axis


# ----------------------------------------------------------------------
# the state machines


class PeriodicTreeMachine(RuleBasedStateMachine):
    """A periodic tree of boxes (``balls = False``) or balls against the model."""

    period: tuple = (10.0, 10.0)
    balls = False
    handles = Bundle("handles")

    def __init__(self):
        super().__init__()
        d = self.dims = len(self.period)
        if d == 2:
            self.tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=self.period)
        else:
            self.tree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=self.period)
        self.meet = balls_meet if self.balls else boxes_meet
        self.objs = {}
        self.ids = {}  # each insert a new identity: events are about objects
        self.fresh = iter(range(1 << 30))
        self.reported = {}

    # the tree's calls by kind
    def obj(self):
        return a_ball(self.period) if self.balls else a_box(self.period)

    def insert_rows(self, rows, **kw):
        arr = np.array(rows, np.float64).reshape(len(rows), -1)
        if not self.balls:
            return self.tree.insert(arr, **kw)
        insert = (self.tree.insert_circles if self.dims == 2 else self.tree.insert_spheres)
        return insert(arr[:, :-1], arr[:, -1], **kw)

    def move_rows(self, hs, rows, keep_radii=False):
        arr = np.array(rows, np.float64).reshape(len(rows), -1)
        if not self.balls:
            return self.tree.move(np.array(hs, np.int64), arr)
        move = self.tree.move_circles if self.dims == 2 else self.tree.move_spheres
        if keep_radii:
            return move(np.array(hs, np.int64), arr[:, :-1])
        return move(np.array(hs, np.int64), arr[:, :-1], arr[:, -1])

    def pairs_now(self):
        return model_pairs(self.objs, self.meet, self.period)

    # --- changes

    @rule(target=handles, data=st.data(), f=filters)
    def insert(self, data, f):
        row = data.draw(self.obj())
        h = int(self.insert_rows([row], groups=f[0], categories=f[1], masks=f[2])[0])
        assert h not in self.objs
        self.objs[h], self.ids[h] = (row, f), next(self.fresh)
        return h

    @rule(data=st.data(), n=st.integers(1, 4))
    def insert_many(self, data, n):
        rows = [data.draw(self.obj()) for _ in range(n)]
        fs = [data.draw(filters) for _ in range(n)]
        hs = self.insert_rows(rows, groups=[f[0] for f in fs], categories=[f[1] for f in fs],
                              masks=[f[2] for f in fs])
        assert len(set(hs.tolist()) | set(self.objs)) == len(self.objs) + n
        for h, row, f in zip(hs.tolist(), rows, fs, strict=True):
            self.objs[h], self.ids[h] = (row, f), next(self.fresh)

    @rule(hs=st.lists(handles, max_size=4, unique=True), data=st.data(), keep=st.booleans())
    def move(self, hs, data, keep):
        hs = [h for h in hs if h in self.objs]
        if not hs:
            return
        rows = [data.draw(self.obj()) for _ in hs]
        keep = keep and self.balls
        if keep:  # new centres, the radii kept
            rows = [r[:-1] + [self.objs[h][0][-1]] for h, r in zip(hs, rows, strict=True)]
        self.move_rows(hs, rows, keep_radii=keep)
        for h, r in zip(hs, rows, strict=True):
            self.objs[h] = (r, self.objs[h][1])

    @rule(h=consumes(handles))
    def remove(self, h):
        if h in self.objs:
            self.tree.remove(h)
            del self.objs[h]
        else:
            with pytest.raises(KeyError):
                self.tree.remove(h)

    @rule(h=handles, data=st.data(), same=st.booleans())
    def reinsert(self, h, data, same):
        """Remove an object and insert another, which takes its handle: a new identity."""
        if h not in self.objs:
            return
        row, f = self.objs.pop(h)
        self.tree.remove(h)
        row = row if same else data.draw(self.obj())
        new = int(self.insert_rows([row], groups=f[0], categories=f[1], masks=f[2])[0])
        assert new not in self.objs
        self.objs[new], self.ids[new] = (row, f), next(self.fresh)

    @rule(h=handles, data=st.data())
    def refused_wide(self, h, data):
        """An object wider than half the period is refused, naming its row; nothing changes."""
        before = self.tree.pairs()
        n = len(self.tree)
        good = data.draw(self.obj())
        if self.balls:
            r = most_radius(self.period) + 0.25
            bad = good[:-1] + [r]
            with pytest.raises(ValueError, match=r"radii\[1\]: a diameter of .* is more than "
                                                 r"half the period"):
                self.insert_rows([good, bad])
            if h in self.objs:
                with pytest.raises(ValueError, match=r"radii\[0\]: a diameter"):
                    self.move_rows([h], [bad])
        else:
            bad, axis = wide_box(self.period)
            axis_name = "xyz"[axis]
            with pytest.raises(ValueError, match=rf"boxes\[1\]: spans .* on the periodic "
                                                 rf"{axis_name} axis, more than half"):
                self.insert_rows([good, bad])
            if h in self.objs:
                with pytest.raises(ValueError, match=r"boxes\[0\]: spans"):
                    self.move_rows([h], [bad])
        assert len(self.tree) == n
        assert np.array_equal(self.tree.pairs(), before)

    @rule(choice=st.sampled_from(["copy", "copy.copy", "deepcopy"]), data=st.data())
    def copied(self, choice, data):
        """Carry on with a copy; the original changed afterwards leaves it as it was."""
        old = self.tree
        self.tree = {"copy": old.copy, "copy.copy": lambda: copy.copy(old),
                     "deepcopy": lambda: copy.deepcopy(old)}[choice]()
        assert self.tree.period == old.period
        live = np.array(sorted(self.objs), np.int64)
        row = data.draw(self.obj())
        h = int(self.insert_rows([row])[0])
        self.objs[h], self.ids[h] = (row, (0, ALL, ALL)), next(self.fresh)
        old.remove(live)

    # --- questions

    @rule()
    def pairs_between_updates(self):
        """pairs() changes nothing in the events (the model is not touched)."""
        assert self.tree.pairs().tolist() == self.pairs_now()

    @rule()
    def update(self):
        began, ended = self.tree.update()
        assert began.dtype == np.intp and began.shape[1:] == (2,) and ended.shape[1:] == (2,)
        now = {(self.ids[i], self.ids[j]): [i, j] for i, j in self.pairs_now()}
        assert began.tolist() == sorted(now[k] for k in now.keys() - self.reported.keys())
        assert ended.tolist() == sorted(self.reported[k]
                                        for k in self.reported.keys() - now.keys())
        self.reported = now

    @rule(data=st.data())
    def query_point(self, data):
        p = [data.draw(coordinate(n)) for n in self.period]
        if self.balls:
            probe, meet = p + [0.0], balls_meet
        else:
            probe, meet = p + p, boxes_meet
        want = sorted(h for h, (row, _) in self.objs.items() if meet(probe, row, self.period))
        assert self.tree.query_point(*p).tolist() == want

    @rule(data=st.data(), m=st.integers(1, 3))
    def query(self, data, m):
        regions = [data.draw(a_box(self.period)) for _ in range(m)]
        if self.balls and self.objs:
            with pytest.raises(ValueError, match="region queries of a periodic tree"):
                self.tree.query(regions[0])
            with pytest.raises(ValueError, match="region queries of a periodic tree"):
                self.tree.query_many(regions)
            return
        want = [[k, h] for k, q in enumerate(regions) for h in sorted(self.objs)
                if boxes_meet(q, self.objs[h][0], self.period)]
        assert self.tree.query_many(regions).tolist() == want
        assert self.tree.query(regions[0]).tolist() == [h for k, h in want if k == 0]

    @invariant()
    def agrees_with_model(self):
        assert len(self.tree) == len(self.objs)
        want = self.pairs_now()
        got = self.tree.pairs()
        assert got.dtype == np.intp and got.shape == (len(want), 2)
        assert got.tolist() == want
        for h in self.objs:
            assert self.tree.touching(h).tolist() == sorted(
                {j if i == h else i for i, j in want if h in (i, j)})
        self.tree.validate()


def machine(name, period, balls=False):
    cls = type(name, (PeriodicTreeMachine,), {"period": period, "balls": balls})
    cls.TestCase.settings = settings(max_examples=30, stateful_step_count=25, deadline=None)
    return cls.TestCase


TestBoxes2D = machine("Boxes2D", (10.0, 10.0))
TestBoxes2DOneAxis = machine("Boxes2DOneAxis", (10.0, None))
TestBoxes2DOtherAxis = machine("Boxes2DOtherAxis", (None, 7.5))
TestBoxes3D = machine("Boxes3D", (10.0, 10.0, 10.0))
TestBoxes3DMixed = machine("Boxes3DMixed", (10.0, None, 4.0))
TestCircles = machine("Circles", (10.0, 10.0), balls=True)
TestCirclesOneAxis = machine("CirclesOneAxis", (None, 7.5), balls=True)
TestSpheres = machine("Spheres", (10.0, 10.0, 10.0), balls=True)
TestSpheresMixed = machine("SpheresMixed", (7.5, None, 10.0), balls=True)


# ----------------------------------------------------------------------
# worked cases, with the expected answers by hand


def test_pairs_across_the_boundary_and_at_exactly_zero_and_l():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=(10, None))
    h = tree.insert([[9, 0, 11, 1],        # reaches past x = 10
                     [0.5, 0, 1.5, 1],     # meets the copy of 0 at -1..1
                     [10, 5, 11, 6],       # at exactly L: the copy at 0..1
                     [0, 5, 0.5, 6],       # at exactly 0: meets 2
                     [-4.5, 5, 0, 6],      # ends at 0 = starts of 3 (touching): no
                     [25, 0, 30, 0.5]])    # far outside, half the period wide: 5..10
    assert h.tolist() == [0, 1, 2, 3, 4, 5]
    assert tree.pairs().tolist() == [[0, 1], [0, 5], [2, 3]]
    assert tree.touching(0).tolist() == [1, 5] and tree.touching(4).tolist() == []
    assert tree.query([-0.5, 0, 0.25, 1]).tolist() == [0, 5]   # 5 is -5..0 too; 1 from 0.5
    assert tree.query([-0.5, 5, 0.25, 6]).tolist() == [2, 3, 4]
    assert tree.query_point(20.75, 5.5).tolist() == [2]        # 0.75: inside 2 (10..11)
    assert tree.query_point(20.25, 5.5).tolist() == [2, 3]
    assert tree.query_point(10, 0.25).tolist() == [0]   # on the edge of 5 (25..30 is 5..10)
    assert tree.query_point(-0.25, 0.25).tolist() == [0, 5]


def test_one_axis_open_is_not_wrapped():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=(10, None))
    tree.insert([[0, 9, 1, 11], [0, 19.5, 1, 20.5]])
    assert tree.pairs().tolist() == []          # y is open: 9..11 and 19.5..20.5 apart
    tree.move(1, [0, -0.5, 1, 0.5])
    assert tree.pairs().tolist() == []
    tree.move(1, [10.5, 10.5, 11, 12])
    assert tree.pairs().tolist() == [[0, 1]]    # x 10.5..11 is 0.5..1


def test_events_after_a_move_across_the_boundary():
    tree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=10)
    a, b = tree.insert([[9.5, 0, 0, 10.5, 1, 1], [0, 0, 0, 0.25, 1, 1]]).tolist()
    assert [e.tolist() for e in tree.update()] == [[[0, 1]], []]
    tree.move(b, [-30, 0, 0, -29.5, 1, 1])      # still at the copy 0..0.5
    assert [e.tolist() for e in tree.update()] == [[], []]
    tree.move(b, [5, 5, 5, 6, 6, 6])
    assert tree.pairs().tolist() == []          # pairs() first: no effect on the events
    assert [e.tolist() for e in tree.update()] == [[], [[0, 1]]]
    tree.remove(b)
    assert tree.insert([[0, 0, 0, 0.25, 1, 1]]).tolist() == [b]   # the handle again
    tree.update()
    tree.remove(b)
    tree.insert([[0, 0, 0, 0.25, 1, 1]])
    began, ended = tree.update()                # the old object's pair ended, the new begun
    assert began.tolist() == [[0, 1]] and ended.tolist() == [[0, 1]]


def test_balls_by_the_nearest_copy():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    tree.insert_circles([[0.5, 5], [9.5, 5], [5, 9.875], [5, 0.125]],
                        [0.75, 0.75, 0.125, 0.125])
    assert tree.pairs().tolist() == [[0, 1]]    # 1 apart; 2 and 3 exactly 0.25 apart: touch
    tree.move_circles(3, [5, 0.0625])
    assert tree.pairs().tolist() == [[0, 1], [2, 3]]
    assert tree.touching(2).tolist() == [3]
    assert tree.query_point(10, 5).tolist() == [0, 1]
    assert tree.query_point(1.25, 5).tolist() == []   # on circle 0's edge


def test_groups_and_masks_apply():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    tree.insert([[9, 0, 11, 1], [0.5, 0, 1.5, 1], [0.2, 0, 0.6, 1]], groups=[5, 5, 0],
                categories=[ALL, ALL, 1])
    assert tree.pairs().tolist() == [[0, 2], [1, 2]]   # 0 and 1 share group 5
    tree.insert([0.1, 0.1, 0.3, 0.3], categories=2, masks=2)
    assert tree.pairs().tolist() == [[0, 2], [0, 3], [1, 2]]   # 2's category 1 & 3's mask 2


# ----------------------------------------------------------------------
# settings, copies and what is refused


def test_period_is_fixed_kept_by_copies_and_shown():
    for tree in (bp.LinearQuadtree((0, 0, 10, 10), 3, period=(10, None)),
                 bp.LinearQuadtree.for_objects((0, 0, 10, 10), 1, period=(10, None))):
        assert tree.period == (10.0, None)
        assert "period=(10.0, None)" in repr(tree)
        tree.insert([[9, 0, 11, 1], [0.5, 0, 1.5, 1]])
        tree.update()
        for other in (tree.copy(), copy.copy(tree), copy.deepcopy(tree)):
            assert other.period == (10.0, None) and "period=(10.0, None)" in repr(other)
            other.move(1, [5, 5, 6, 6])
            assert other.pairs().tolist() == [] and tree.pairs().tolist() == [[0, 1]]
            assert [e.tolist() for e in other.update()] == [[], [[0, 1]]]
            other.validate()
        assert [e.tolist() for e in tree.update()] == [[], []]
    octree = bp.LinearOctree.for_objects((0, 0, 0, 8, 8, 8), 1, period=8)
    assert octree.period == (8.0, 8.0, 8.0) and "period=(8.0, 8.0, 8.0)" in repr(octree)
    assert copy.deepcopy(octree).period == (8.0, 8.0, 8.0)
    assert bp.LinearQuadtree((0, 0, 1, 1), 1).period is None
    assert "period" not in repr(bp.LinearOctree((0, 0, 0, 1, 1, 1), 1))


@pytest.mark.parametrize("period, error, match", [
    (0, ValueError, r"period\[0\]: expected a length > 0"),
    ((10, -1), ValueError, r"period\[1\]"),
    ((10, 10, 10), ValueError, "found 3 values for 2D objects"),
    ("10", TypeError, "period"),
    ((10, float("inf")), ValueError, r"period\[1\]"),
])
def test_bad_periods(period, error, match):
    with pytest.raises(error, match=match):
        bp.LinearQuadtree((0, 0, 10, 10), 3, period=period)


def test_touching_true_with_a_period_is_refused():
    with pytest.raises(ValueError, match="touching: expected False with a period"):
        bp.LinearQuadtree((0, 0, 10, 10), 3, period=10, touching=True)
    with pytest.raises(ValueError, match="touching: expected False with a period"):
        bp.LinearOctree.for_objects((0, 0, 0, 10, 10, 10), 1, period=10, touching=True)


def test_boxes_and_balls_in_one_periodic_tree_are_refused():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    h = tree.insert([[0, 0, 1, 1]])
    with pytest.raises(ValueError, match="insert_circles: a periodic tree holds boxes or "
                                         "circles, not both; this one holds boxes"):
        tree.insert_circles([[1, 1]], 1)
    assert len(tree) == 1
    tree.remove(h)                              # empty: either kind again
    c = tree.insert_circles([[1, 1]], 1)
    with pytest.raises(ValueError, match="insert: a periodic tree holds boxes or circles, "
                                         "not both; this one holds circles"):
        tree.insert([[0, 0, 1, 1]])
    octree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=10)
    octree.insert_spheres([[1, 1, 1]], 1)
    with pytest.raises(ValueError, match="insert: a periodic tree holds boxes or spheres"):
        octree.insert([0, 0, 0, 1, 1, 1])
    octree.remove(0)
    octree.insert([0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="insert_spheres: .* this one holds boxes"):
        octree.insert_spheres([[1, 1, 1]], 1)
    assert c.tolist() == [0]


def test_region_queries_of_balls_are_refused():
    for tree in (bp.LinearQuadtree((0, 0, 10, 10), 3, period=10),
                 bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=10)):
        d = 2 if isinstance(tree, bp.LinearQuadtree) else 3
        insert = tree.insert_circles if d == 2 else tree.insert_spheres
        insert([[1.0] * d], 1)
        with pytest.raises(ValueError, match="query: region queries of a periodic tree of"):
            tree.query([0] * d + [1] * d)
        with pytest.raises(ValueError, match="query_many: region queries"):
            tree.query_many([[0] * d + [1] * d])
        assert tree.query_point(*[0.5] * d).tolist() == [0]


def test_casts_and_swept_pairs_are_refused():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    tree.insert([0, 0, 1, 1])
    with pytest.raises(ValueError, match="cast_rays: not supported on a periodic tree"):
        tree.cast_rays([[0, 0]], [[1, 0]])
    with pytest.raises(ValueError, match="cast_rays: not supported on a periodic tree"):
        tree.cast_rays([[0, 0]], [[1, 0]], workers=1)
    with pytest.raises(ValueError, match="swept_pairs: not supported on a periodic tree"):
        tree.swept_pairs()
    octree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=(None, 10, None))
    with pytest.raises(ValueError, match="cast_rays: not supported"):
        octree.cast_rays([[0, 0, 0]], [[1, 0, 0]])
    with pytest.raises(ValueError, match="swept_pairs: not supported"):
        octree.swept_pairs()


def test_wide_objects_name_the_argument_and_row():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=(None, 10))
    with pytest.raises(ValueError, match=r"boxes\[2\]: spans 6.0 on the periodic y axis, "
                                         r"more than half the period 10.0"):
        tree.insert([[0, 0, 1, 1], [0, 0, 100, 5], [0, 0, 1, 6]])
    assert len(tree) == 0
    h = tree.insert([[0, 0, 100, 5], [0, 0, 1, 1]])  # 100 wide on the open x axis
    with pytest.raises(ValueError, match=r"boxes\[1\]: spans 5.25"):
        tree.move(h, [[0, 0, 1, 1], [0, 0, 1, 5.25]])
    assert tree.boxes(h).tolist() == [[0, 0, 100, 5], [0, 0, 1, 1]]   # nothing moved
    with pytest.raises(KeyError, match="handle 7"):   # a bad handle first
        tree.move([7], [[0, 0, 1, 6]])
    with pytest.raises(ValueError, match=r"boxes\[0\]: .*minx > maxx|boxes\[0\]"):
        tree.move(h[0], [2, 0, 1, 1])
    balls = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    with pytest.raises(ValueError, match=r"radii\[1\]: a diameter of 5.5 is more than half"):
        balls.insert_circles([[0, 0], [1, 1]], [1, 2.75])
    with pytest.raises(ValueError, match=r"radii: a diameter of 6.0"):
        balls.insert_circles([[0, 0], [1, 1]], 3)
    c = balls.insert_circles([[0, 0]], 2.5)            # exactly half the period
    with pytest.raises(ValueError, match=r"radii\[0\]: a diameter of 5.5"):
        balls.move_circles(c, [[0, 0]], [2.75])
    assert balls.circles(c[0]).tolist() == [0, 0, 2.5]
    octree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=(None, None, 4))
    with pytest.raises(ValueError, match=r"boxes\[0\]: spans 2.5 on the periodic z axis"):
        octree.insert([0, 0, 0, 1, 1, 2.5])
    with pytest.raises(ValueError, match=r"radii: a diameter of 2.5"):
        octree.insert_spheres([0, 0, 0], 1.25)


def test_half_the_period_exactly_and_one_step_more():
    half = 5.0
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=10)
    tree.insert([[0, 0, half, half]])
    with pytest.raises(ValueError, match=r"boxes\[0\]: spans"):
        tree.insert([[0, 0, np.nextafter(half, 10), 1]])
    # a sum that rounds: the exact width decides, as in the static calls
    lo = 0.1
    hi = lo + half                               # 5.1 rounded: is it wider than 5?
    wide = F(hi) - F(lo) > F(half)
    if wide:
        with pytest.raises(ValueError, match="spans"):
            tree.insert([[lo, 0, hi, 1]])
    else:
        tree.insert([[lo, 0, hi, 1]])


def test_query_regions_wider_than_half_the_period_are_refused():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3, period=(10, None))
    tree.insert([0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"box: spans 6.0 on the periodic x axis, more than "
                                         r"half the period 10.0; a periodic tree's query"):
        tree.query([0, 0, 6, 100])
    with pytest.raises(ValueError, match=r"boxes\[1\]: spans 5.5"):
        tree.query_many([[0, 0, 1, 100], [0, 0, 5.5, 1]])
    assert tree.query([0.5, 0.5, 5.5, 100]).tolist() == [0]
    octree = bp.LinearOctree((0, 0, 0, 10, 10, 10), 2, period=10)
    octree.insert([9.5, 9.5, 9.5, 10.5, 10.5, 10.5])
    assert octree.query([0, 0, 0, 1, 1, 1]).tolist() == [0]
    assert octree.query_many([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2]]).tolist() == [[0, 0]]
    with pytest.raises(MemoryError, match="max_rows=0"):
        octree.query_many([[0, 0, 0, 1, 1, 1]], max_rows=0)
    assert octree.query_many([[0, 0, 0, 1, 1, 1]], max_rows=1).tolist() == [[0, 0]]
    with pytest.raises(ValueError, match=r"boxes\[0\]: spans"):
        octree.query_many([[0, 0, 0, 1, 1, 6]])
