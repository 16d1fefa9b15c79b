"""LinearQuadtree and Contacts against a brute-force model, step by step."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule

import broadphase as bp
from broadphase import scenarios

ALL = np.iinfo(np.uint64).max


# --------------------------------------------------------------------------
# the model: exact shapes in a dict, every question answered by brute force


def _box_box(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _dist2_lt(px, py, qx, qy, r):
    """Exact |p - q| < r with Fractions."""
    dx, dy = Fraction(px) - Fraction(qx), Fraction(py) - Fraction(qy)
    return dx * dx + dy * dy < Fraction(r) ** 2


def _box_circle(b, c):
    x, y, r = c
    px, py = min(max(x, b[0]), b[2]), min(max(y, b[1]), b[3])
    return _dist2_lt(x, y, px, py, r)


def _overlap(a, b):
    (ka, ga), (kb, gb) = a, b
    if ka == "box" and kb == "box":
        return _box_box(ga, gb)
    if ka == "circle" and kb == "circle":
        return _dist2_lt(ga[0], ga[1], gb[0], gb[1], Fraction(ga[2]) + Fraction(gb[2]))
    if ka == "circle":
        return _box_circle(gb, ga)
    return _box_circle(ga, gb)


def _filtered(fa, fb):
    (g1, c1, m1), (g2, c2, m2) = fa, fb
    if g1 != 0 and g1 == g2:
        return True
    return (c1 & m2) == 0 or (c2 & m1) == 0


def model_pairs(objs):
    hs = sorted(objs)
    out = []
    for x, i in enumerate(hs):
        for j in hs[x + 1:]:
            if not _filtered(objs[i][2], objs[j][2]) and _overlap(objs[i][:2], objs[j][:2]):
                out.append([i, j])
    return np.array(out, np.intp).reshape(-1, 2)


def model_query(objs, q):
    return [h for h in sorted(objs) if _overlap(objs[h][:2], ("box", q))]


def model_point(objs, x, y):
    out = []
    for h in sorted(objs):
        kind, g = objs[h][:2]
        if kind == "box":
            hit = g[0] < x < g[2] and g[1] < y < g[3]
        else:
            hit = _dist2_lt(x, y, g[0], g[1], g[2])
        if hit:
            out.append(h)
    return out


# --------------------------------------------------------------------------
# strategies: a 16 x 16 world, coordinates on a half-unit grid from -4 to 20
# (ties, touching, outside the world), sizes from points to the whole world

coord = st.integers(-8, 40).map(lambda v: v / 2)
size = st.sampled_from([0, 0.5, 1, 1, 2, 3, 8, 24])


@st.composite
def a_box(draw):
    x, y = draw(coord), draw(coord)
    return [x, y, x + draw(size), y + draw(size)]


@st.composite
def a_circle(draw):
    return [draw(coord), draw(coord)], draw(st.sampled_from([0, 0.5, 1, 1.5, 2.5, 6]))


# Asked after every step: the whole plane and the world, a quadrant, a
# strip across the centre lines, a region outside, a point-sized box; the
# centre (on both split lines), a cell corner, a world corner, outside.
PROBE_BOXES = ([-100, -100, 100, 100], [0, 0, 16, 16], [0, 0, 8, 8], [7.5, -4, 8.5, 24],
               [17, 17, 22, 22], [8, 8, 8, 8])
PROBE_POINTS = ((8, 8), (4.25, 11.75), (0, 0), (-1, 3), (16, 16))

filters = st.tuples(st.sampled_from([0, 0, 0, 1, 2]),
                    st.sampled_from([ALL, ALL, 1, 2, 3]),
                    st.sampled_from([ALL, ALL, 1, 2, 3]))


# How pairs() may find the pairs after a change: by its own choice, always
# by queries of the changed objects merged with the kept pairs (after the
# first call), always by a search from scratch.  Set through the core tree's
# rebuild share (the share of changed objects above which it searches anew).
PATHS = {"incremental": float("inf"), "rebuild": -1.0}


def new_tree(bounds, depth, paths=None, margin=0.0, consolidate=None):
    tree = bp.LinearQuadtree(bounds, depth, margin=margin)
    if paths:
        tree._t.rebuild_share = PATHS[paths]
    if consolidate is not None:
        # delta pairs past an eighth of the kept base at which the two are
        # consolidated: 0 at nearly every change
        tree._t.consolidate_from = consolidate
    return tree


class TreeMachine(RuleBasedStateMachine):
    handles = Bundle("handles")
    paths = None  # pairs() chooses
    margin = 0.0
    consolidate = None  # the kept pairs consolidated as by default

    def __init__(self):
        super().__init__()
        self.tree = None
        self.objs = {}
        # events are about objects: each insert a new identity, and the
        # model's pairs of identities at the last update() (pairs() calls
        # in between make no difference)
        self.ids = {}
        self.fresh = iter(range(1 << 30))
        self.reported = {}

    @rule(depth=st.integers(0, 5))
    def make(self, depth):
        if self.tree is None:
            self.tree = new_tree((0, 0, 16, 16), depth, self.paths, self.margin, self.consolidate)

    def _tree(self):
        if self.tree is None:
            self.tree = new_tree((0, 0, 16, 16), 3, self.paths, self.margin, self.consolidate)
        return self.tree

    @rule(target=handles, box=a_box(), f=filters)
    def insert_box(self, box, f):
        h = int(self._tree().insert(box, groups=f[0], categories=f[1], masks=f[2])[0])
        assert h not in self.objs
        self.objs[h] = ("box", box, f)
        self.ids[h] = next(self.fresh)
        return h

    @rule(target=handles, c=a_circle(), f=filters)
    def insert_circle(self, c, f):
        h = int(self._tree().insert_circles(c[0], c[1], groups=f[0], categories=f[1],
                                            masks=f[2])[0])
        self.objs[h] = ("circle", [*c[0], c[1]], f)
        self.ids[h] = next(self.fresh)
        return h

    @rule(h=handles, box=a_box(), c=a_circle(), keep_radius=st.booleans())
    def move(self, h, box, c, keep_radius):
        if h not in self.objs:
            with pytest.raises(KeyError, match=f"handle {h}"):
                self.tree.move(h, box)
            return
        kind, g, f = self.objs[h]
        if kind == "box":
            self.tree.move([h], [box])
            self.objs[h] = ("box", box, f)
        else:
            r = g[2] if keep_radius else c[1]
            self.tree.move_circles(h, c[0], None if keep_radius else r)
            self.objs[h] = ("circle", [*c[0], r], f)

    @rule(h=consumes(handles))
    def remove(self, h):
        if h in self.objs:
            self.tree.remove(h)
            del self.objs[h]
        else:
            with pytest.raises(KeyError):
                self.tree.remove(h)

    @rule(q=a_box())
    def query(self, q):
        if self.tree is not None:
            assert self.tree.query(q).tolist() == model_query(self.objs, q)

    @rule(x=coord, y=coord)
    def query_point(self, x, y):
        if self.tree is not None:
            assert self.tree.query_point(x, y).tolist() == model_point(self.objs, x, y)

    # Several changes between two pairs() calls (the invariant asks after
    # every rule): there and back, removed and the handle given out again,
    # a batch of moves.

    @rule(h=handles, box=a_box(), c=a_circle())
    def move_there_and_back(self, h, box, c):
        if h not in self.objs:
            return
        kind, g, f = self.objs[h]
        if kind == "box":
            self.tree.move(h, box)
            self.tree.move(h, g)
        else:
            self.tree.move_circles(h, c[0], c[1])
            self.tree.move_circles([h], [g[:2]], [g[2]])

    @rule(h=consumes(handles), box=a_box(), f=filters, target=handles)
    def remove_and_insert(self, h, box, f):
        if h not in self.objs:
            return h
        self.tree.remove(h)
        del self.objs[h]
        assert int(self.tree.insert(box, groups=f[0], categories=f[1], masks=f[2])[0]) == h
        self.objs[h] = ("box", box, f)  # the handle just removed is given out first
        self.ids[h] = next(self.fresh)
        return h

    @rule(hs=st.lists(handles, max_size=6, unique=True), data=st.data())
    def move_many(self, hs, data):
        hs = [h for h in hs if h in self.objs and self.objs[h][0] == "box"]
        boxes = [data.draw(a_box()) for _ in hs]
        if self.tree is not None:
            self.tree.move(np.array(hs, np.intp), np.array(boxes, np.float64).reshape(-1, 4))
        for h, b in zip(hs, boxes, strict=True):
            self.objs[h] = ("box", b, self.objs[h][2])

    @rule()
    def update(self):
        if self.tree is None:
            return
        began, ended = self.tree.update()
        now = {(self.ids[i], self.ids[j]): [i, j] for i, j in model_pairs(self.objs).tolist()}
        assert began.tolist() == sorted(now[k] for k in now.keys() - self.reported.keys())
        assert ended.tolist() == sorted(self.reported[k]
                                        for k in self.reported.keys() - now.keys())
        self.reported = now

    @rule(h=handles)
    def touching(self, h):
        if h not in self.objs:
            with pytest.raises(KeyError, match=f"handle {h}"):
                self.tree.touching(h)
            return
        want = sorted({j if i == h else i for i, j in model_pairs(self.objs).tolist()
                       if h in (i, j)})
        assert self.tree.touching(h).tolist() == want

    @invariant()
    def agrees_with_model(self):
        if self.tree is None:
            return
        assert len(self.tree) == len(self.objs)
        for h in self.objs:
            assert h in self.tree
        got = self.tree.pairs()
        assert got.dtype == np.intp and got.shape[1] == 2
        np.testing.assert_array_equal(got, model_pairs(self.objs))
        self.tree.validate()
        for q in PROBE_BOXES:
            assert self.tree.query(q).tolist() == model_query(self.objs, q)
        for x, y in PROBE_POINTS:
            assert self.tree.query_point(x, y).tolist() == model_point(self.objs, x, y)
        for h, (kind, g, _) in self.objs.items():
            if kind == "box":
                assert self.tree.boxes(h).tolist() == g
            else:
                assert self.tree.circles(h).tolist() == g
        # the queries placed every moved object: now every placement is checked
        self.tree.validate()
        assert self.tree.stats()["levels"].sum() == len(self.objs)


TreeMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40,
                                         deadline=None)
test_tree_machine = TreeMachine.TestCase


def test_a_circle_at_the_origin_of_radius_zero():
    """The first circle equal to the circles' default, (0, 0) of radius 0:
    the tree still keeps a circle column (a search or query of a box near it
    reads it; found by the consolidating machine, it panicked)."""
    tree = new_tree((0, 0, 16, 16), 3)
    objs = {}
    objs[int(tree.insert_circles([0.0, 0.0], 0.0)[0])] = ("circle", [0.0, 0.0, 0.0], (0, ALL, ALL))
    tree.update()
    h = int(tree.insert([0, 0, 0, 0])[0])
    objs[h] = ("box", [0, 0, 0, 0], (0, ALL, ALL))
    h = int(tree.insert([-1, -1, 1, 1])[0])
    objs[h] = ("box", [-1, -1, 1, 1], (0, ALL, ALL))
    np.testing.assert_array_equal(tree.pairs(), model_pairs(objs))
    tree.move_circles(0, [0.5, 0.5], 0.25)
    objs[0] = ("circle", [0.5, 0.5, 0.25], (0, ALL, ALL))
    np.testing.assert_array_equal(tree.pairs(), model_pairs(objs))
    want = sorted({j if i == h else i for i, j in model_pairs(objs).tolist() if h in (i, j)})
    assert 0 in want and tree.touching(h).tolist() == want
    tree.validate()


class IncrementalMachine(TreeMachine):
    paths = "incremental"


class RebuildMachine(TreeMachine):
    paths = "rebuild"


class FatBoxMachine(TreeMachine):
    paths = "incremental"
    margin = 1.5


class ConsolidatingMachine(TreeMachine):
    paths = "incremental"
    consolidate = 0


for _m in (IncrementalMachine, RebuildMachine, FatBoxMachine, ConsolidatingMachine):
    _m.TestCase.settings = settings(max_examples=30, stateful_step_count=40, deadline=None)
test_tree_machine_incremental = IncrementalMachine.TestCase
test_tree_machine_rebuild = RebuildMachine.TestCase
test_tree_machine_fat_boxes = FatBoxMachine.TestCase
test_tree_machine_consolidating = ConsolidatingMachine.TestCase


# --------------------------------------------------------------------------
# against find_pairs on the named scenes, frame after frame


@pytest.mark.parametrize("paths", [None, *PATHS])
@pytest.mark.parametrize("name", ["seed000", "straddlers", "mixed", "wide"])
def test_moving_scene_matches_find_pairs(name, paths):
    boxes = scenarios.make(name, 3000, seed=3)
    lo, hi = boxes[:, :2].min(), boxes[:, 2:].max()
    tree = new_tree((lo, lo, hi, hi), 6, paths, margin=(hi - lo) / 500)
    h = tree.insert(boxes)
    assert h.tolist() == list(range(3000))
    rng = np.random.default_rng(0)
    before = np.empty((0, 2), np.intp)
    for frame in range(6):
        want = bp.find_pairs(boxes, method="brute")
        if frame % 3 == 2:
            began, ended = tree.update()
            now, was = ({tuple(p) for p in a.tolist()} for a in (want, before))
            assert {tuple(p) for p in began.tolist()} == now - was
            assert {tuple(p) for p in ended.tolist()} == was - now
            before = want  # the events are since the last update(), pairs() or not
        else:
            np.testing.assert_array_equal(tree.pairs(), want)
        tree.validate()
        # all objects, then a tenth of them (the incremental path by default)
        rows = np.arange(3000) if frame % 2 else rng.choice(3000, 300, replace=False)
        step = rng.uniform(-1, 1, (rows.shape[0], 2)) * (hi - lo) / 100
        boxes = boxes.copy()
        boxes[rows] += np.hstack([step, step])  # some leave the world: clamped, not lost
        tree.move(h[rows], boxes[rows])


def test_frames_moving_everything_keep_matching_find_pairs():
    """Circles, and boxes with groups, categories and masks: every object moves each
    frame, so each ``pairs()`` searches from scratch re-sorting the last search's grid
    order (1,500 objects and more), frame after frame equal to brute force."""
    rng = np.random.default_rng(11)
    n = 2500
    c = rng.uniform(0, 1000, (n, 2))
    r = rng.uniform(2, 12, n)
    circles = bp.LinearQuadtree((0, 0, 1000, 1000), depth=7)
    hc = circles.insert_circles(c, r)
    boxes = scenarios.make("mixed", n, seed=5)
    g, cat = rng.integers(0, 4, n), rng.integers(1, 8, n)
    m = np.where(rng.random(n) < 0.1, cat ^ 7, 255).astype(np.uint64)
    tree = bp.LinearQuadtree((0, 0, 1000, 1000), depth=6)
    hb = tree.insert(boxes, groups=g, categories=cat, masks=m)
    for _ in range(4):
        np.testing.assert_array_equal(circles.pairs(), bp.find_circle_pairs(c, r, method="brute"))
        want = bp.find_pairs(boxes, groups=g, categories=cat, masks=m, method="brute")
        np.testing.assert_array_equal(tree.pairs(), want)
        c = c + rng.uniform(-4, 4, (n, 2))
        circles.move_circles(hc, c)
        step = rng.uniform(-4, 4, (n, 2))
        boxes = boxes + np.hstack([step, step])
        tree.move(hb, boxes)
    assert tree.stats()["rebuilt"] and circles.stats()["rebuilt"]


def test_a_floor_as_wide_as_the_world():
    """A platformer's floor under 29,999 small boxes: the search from scratch puts it in
    every one of 2^16 grid columns (that count once overflowed 16 bits and crashed)."""
    n = 29_999
    x = np.arange(n) * (400_000 / n)
    y = np.where(np.arange(n) % 1000 == 0, 0.0, 1.0)
    boxes = np.vstack([np.column_stack([x, y, x + 1, y + 1]), [0, 0, 400_000, 0.5]])
    tree = bp.LinearQuadtree((0, 0, 400_000, 400_000), depth=8)
    h = tree.insert(boxes)
    on_floor = np.arange(0, n, 1000)
    np.testing.assert_array_equal(tree.pairs(), np.column_stack([on_floor, np.full(30, n)]))
    boxes[:n:3, 1::2] -= 0.75  # every third box sinks into the floor
    tree.move(h, boxes)
    on_floor = np.union1d(on_floor, np.arange(0, n, 3))
    want = np.column_stack([on_floor, np.full(on_floor.size, n)])
    np.testing.assert_array_equal(tree.pairs(), want)
    assert tree.stats()["rebuilt"]


def ref_placement(ix0, iy0, ix1, iy1, depth):
    """The straddler rule in plain Python: level max(XOR level, fit level), cells entered."""
    home = depth
    while home > 0 and ((ix0 >> (depth - home)) != (ix1 >> (depth - home))
                        or (iy0 >> (depth - home)) != (iy1 >> (depth - home))):
        home -= 1  # the smallest cell holding both corners
    fit = depth  # the deepest level at which it spans at most 2 cells per axis
    while (ix1 >> (depth - fit)) - (ix0 >> (depth - fit)) > 1 or \
            (iy1 >> (depth - fit)) - (iy0 >> (depth - fit)) > 1:
        fit -= 1
    lv = max(home, fit)
    s = depth - lv
    return lv, ((ix1 >> s) - (ix0 >> s) + 1) * ((iy1 >> s) - (iy0 >> s) + 1)


@given(depth=st.integers(0, 10), data=st.data())
def test_placement_is_the_straddler_rule(depth, data):
    """Integer corners (boxes on the cell grid), small ones often: level and cells entered."""
    top = 2**depth - 1
    ix0, iy0 = (data.draw(st.integers(0, top)) for _ in range(2))
    span = st.integers(0, 2) | st.integers(0, top)
    ix1, iy1 = min(top, ix0 + data.draw(span)), min(top, iy0 + data.draw(span))
    tree = bp.LinearQuadtree((0, 0, 2**depth, 2**depth), depth)  # one unit per cell
    tree.insert([ix0, iy0, ix1 + 0.5, iy1 + 0.5])
    tree.pairs()
    level, cells = ref_placement(ix0, iy0, ix1, iy1, depth)
    s = tree.stats()
    assert s["levels"].tolist() == [int(k == level) for k in range(depth + 1)]
    assert s["entries"] == cells
    tree.validate()


def test_circles_and_boxes_match_find_pairs():
    boxes = scenarios.make("clustered", 2000, seed=1)
    c = (boxes[:, :2] + boxes[:, 2:]) / 2
    r = (boxes[:, 2] - boxes[:, 0]) * 0.7
    tree = bp.LinearQuadtree((0, 0, 1000, 1000), depth=7)
    tree.insert_circles(c, r)
    np.testing.assert_array_equal(tree.pairs(), bp.find_circle_pairs(c, r, method="brute"))
    g = np.arange(2000) % 3
    tree2 = bp.LinearQuadtree((0, 0, 1000, 1000), depth=7)
    tree2.insert(boxes, groups=g)
    np.testing.assert_array_equal(tree2.pairs(), bp.find_pairs(boxes, groups=g, method="brute"))


def test_locate_is_morton_locate():
    boxes = scenarios.make("mixed", 500, seed=2)
    bounds = (0.0, -50.0, 1000.0, 1200.0)  # oblong cells
    tree = bp.LinearQuadtree(bounds, depth=5)
    h = tree.insert(boxes)
    levels, index = bp.morton.locate(boxes, bounds, 5)
    assert [tree.locate(k) for k in h] == list(zip(levels.tolist(), index.tolist(), strict=True))


def test_seed_worked_example_cells():
    # seed 001's 8 x 8 world at depth 3: a box in cell (3, 6) is in cell 45 of level 3
    tree = bp.LinearQuadtree((0, 0, 8, 8), 3)
    h = tree.insert([[3.2, 6.2, 3.8, 6.8], [0.5, 0.5, 7.5, 7.5]])
    assert tree.locate(h[0]) == (3, 45) and tree.locate(h[1]) == (0, 0)


def test_straddlers_are_entered_below_the_root():
    # tiny boxes on the centre lines: the seeds' cell is the root, the tree
    # enters them at their fit level, the finest here (stats counts entry
    # levels), each in the two cells either side of y = 32
    tree = bp.LinearQuadtree((0, 0, 64, 64), 6)
    xs = np.arange(1, 63, 2.0)
    tree.insert(np.stack([xs, np.full_like(xs, 31.9), xs + 0.2, np.full_like(xs, 32.1)], 1))
    assert all(tree.locate(h)[0] == 0 for h in range(len(xs)))
    levels = tree.stats()["levels"]
    assert levels[0] == 0 and levels[6] == len(xs)
    tree.pairs()
    assert tree.stats()["entries"] == 2 * len(xs)
    tree.validate()


def test_depth_12_and_beyond():
    tree = bp.LinearQuadtree((0, 0, 1, 1), 12)
    h = tree.insert([[0.1, 0.1, 0.10001, 0.10001], [0.100005, 0.100005, 0.2, 0.2]])
    assert tree.pairs().tolist() == [[0, 1]]
    assert tree.locate(h[0])[0] == 12
    with pytest.raises(ValueError, match=r"depth: expected 0 <= depth <= 12.*found 13"):
        bp.LinearQuadtree((0, 0, 1, 1), 13)


def test_handles_are_reused_and_checked():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    h = tree.insert([[0, 0, 1, 1], [1, 1, 2, 2], [2, 2, 3, 3]])
    tree.remove([1, 0])
    assert tree.insert([[5, 5, 6, 6]]).tolist() == [1]  # the first removed comes back first
    assert tree.insert([[5, 5, 6, 6], [7, 7, 8, 8]]).tolist() == [0, 3]
    with pytest.raises(KeyError, match="handle 9: not in the tree"):
        tree.move([9], [[0, 0, 1, 1]])
    tree.remove(h[2])
    with pytest.raises(KeyError, match="handle 2: not in the tree"):
        tree.locate(2)
    with pytest.raises(ValueError, match="each handle at most once, found 0 twice"):
        tree.remove([0, 0])
    assert len(tree) == 3 and 0 in tree and 2 not in tree and "a" not in tree
    tree.validate()


@pytest.mark.parametrize("handles", [[np.uint64(0), 1], np.array([0, 1], np.uint32),
                                     [np.int16(0), np.int64(1)], (0, 1), np.array([0, 1])])
def test_handles_of_any_integer_kind(handles):
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
    tree.move(handles, [[0, 0, 1, 1], [0.5, 0.5, 1.5, 1.5]])
    assert tree.pairs().tolist() == [[0, 1]]


@pytest.mark.parametrize("handle", [2**63, 2**64, 2**70, -(2**70), np.uint64(2**63)])
def test_huge_handles_are_not_in_the_tree(handle):
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    tree.insert([[0, 0, 1, 1]])
    with pytest.raises(KeyError, match=f"handle {int(handle)}: not in the tree"):
        tree.remove(handle)
    with pytest.raises(KeyError, match=f"handle {int(handle)}: not in the tree"):
        tree.remove([0, handle])
    assert handle not in tree and len(tree) == 1


def test_move_circles_names_the_centers():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    h = tree.insert_circles([[1, 1], [5, 5]], 1.0)
    with pytest.raises(ValueError, match=r"centers: expected 2 rows \(one per handle\), found 1"):
        tree.move_circles(h, [3, 3])
    with pytest.raises(ValueError, match=r"radii: expected a scalar or shape \(2,\)"):
        tree.move_circles(h, [[3, 3], [4, 4]], [1.0, 2.0, 3.0])


def test_inputs_are_never_modified():
    rng = np.random.default_rng(2)
    boxes = rng.uniform(0, 90, (50, 2)).astype(np.float32)
    boxes = np.hstack([boxes, boxes + 8])
    centers, radii = rng.uniform(0, 100, (20, 2)), rng.uniform(0, 5, 20)
    groups = np.arange(50) % 3
    handles_in = np.arange(50)
    kept = [a.copy() for a in (boxes, centers, radii, groups, handles_in)]
    tree = bp.LinearQuadtree((0, 0, 100, 100), 3)
    h = tree.insert(boxes, groups=groups)
    hc = tree.insert_circles(centers, radii)
    tree.move(handles_in, boxes)
    tree.move_circles(hc, centers, radii)
    tree.pairs(), tree.query(boxes[0]), bp.Contacts().update(tree.pairs())
    for a, b in zip((boxes, centers, radii, groups, handles_in), kept, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
    assert h.tolist() == list(range(50))


def test_bad_arguments_change_nothing():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    h = tree.insert([[0, 0, 1, 1]])
    c = tree.insert_circles([5, 5], 1.0)
    with pytest.raises(ValueError, match=r"handles\[0\]: handle 1 is a circle"):
        tree.move(c, [[0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"handles\[0\]: handle 0 is a box"):
        tree.move_circles(h, [1, 1])
    with pytest.raises(ValueError, match=r"boxes\[0\]: minx 3.0 > maxx 1.0"):
        tree.move(h, [[3, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"boxes: expected 1 rows \(one per handle\), found 2"):
        tree.move(h, [[0, 0, 1, 1], [0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"radii: expected a radius >= 0"):
        tree.insert_circles([[1, 1]], -1.0)
    with pytest.raises(ValueError, match=r"groups: expected a scalar or shape \(2,\)"):
        tree.insert([[0, 0, 1, 1], [1, 1, 2, 2]], groups=[1, 2, 3])
    with pytest.raises(ValueError, match=r"bounds: expected finite"):
        bp.LinearQuadtree((0, 0, 0, 10), 2)
    with pytest.raises(TypeError, match=r"depth: expected an int"):
        bp.LinearQuadtree((0, 0, 1, 1), 2.0)
    with pytest.raises(TypeError, match=r"x: expected a real number"):
        tree.query_point("1", 1)
    assert len(tree) == 2 and tree.query([0, 0, 10, 10]).tolist() == [0, 1]
    tree.validate()


def test_stats_count_outside_levels_and_tests():
    tree = bp.LinearQuadtree((0, 0, 100, 100), 4)
    tree.insert([[10, 10, 12, 12], [11, 11, 13, 13], [-20, -20, -10, -10], [90, 90, 120, 95]])
    p = tree.pairs()
    s = tree.stats()
    assert s["objects"] == 4 and s["outside"] == 2 and s["pairs"] == len(p) == 1
    assert s["levels"].sum() == 4 and s["entries"] >= 4 and s["candidate_tests"] >= 1


def test_move_without_cell_change_relinks_nothing():
    tree = bp.LinearQuadtree((0, 0, 16, 16), 2)  # cells of 4 x 4
    h = tree.insert([[0.5, 0.5, 1, 1], [8.5, 8.5, 9, 9]])
    assert tree.stats()["relinked"] == 2  # inserting links both
    tree.move(h, [[1, 1, 1.5, 1.5], [9, 9, 9.5, 9.5]])
    assert tree.stats()["relinked"] == 0
    tree.move(h, [[1, 1, 1.5, 1.5], [13, 13, 13.5, 13.5]])
    assert tree.stats()["relinked"] == 1
    tree.validate()


def test_relinked_counts_only_the_moves_since_the_last_placing():
    # 20 objects: a move of one is answered incrementally (its entries are
    # rewritten by the move itself when it keeps its cells)
    tree = bp.LinearQuadtree((0, 0, 16, 16), 2)  # cells of 4 x 4
    h = tree.insert([[0.5 + 0.5 * (k % 4), 0.5, 0.6 + 0.5 * (k % 4), 0.6] for k in range(20)])
    assert tree.stats()["relinked"] == 20
    tree.pairs()  # the next moves are answered incrementally
    tree.query([0, 0, 16, 16])  # the lists catch up
    tree.move(h[0], [0.7, 0.7, 0.8, 0.8])  # keeps its cell
    assert tree.stats()["relinked"] == 0
    tree.move(h[1], [9, 9, 9.5, 9.5])  # another cell
    tree.move(h[2], [0.7, 0.7, 0.8, 0.8])  # keeps its cell
    assert tree.stats()["relinked"] == 1
    tree.pairs()
    tree.move(h[3], [1.7, 0.7, 1.8, 0.8])  # keeps its cell, a frame later
    assert tree.stats()["relinked"] == 0
    tree.validate()


def test_stats_place_what_moved_since_the_tree_last_placed_objects():
    # a move only stores boxes; stats() places the moved objects first
    tree = bp.LinearQuadtree((0, 0, 16, 16), 2)  # cells of 4 x 4
    h = tree.insert([[0.5, 0.5, 1, 1], [8.5, 8.5, 9, 9]])
    s = tree.stats()
    assert s["levels"].tolist() == [0, 0, 2] and s["entries"] == 2 and s["relinked"] == 2
    tree.move(h[0], [1, 1, 12, 12])  # spans 4 finest cells: 2 x 2 cells of level 1
    tree.move(h[1], [13, 13, 13.5, 13.5])
    tree.validate()
    tree.move(h[1], [8.6, 8.6, 9, 9])  # back in its own cell
    tree.move(h[1], [8.7, 8.7, 9.1, 9.1])  # this last move keeps its cell
    s = tree.stats()
    assert s["levels"].tolist() == [0, 1, 1] and s["entries"] == 5
    # every move since the last placing counts: object 0's, not object 1's round trip
    assert s["relinked"] == 1
    tree.validate()
    assert tree.pairs().tolist() == [[0, 1]]


# --------------------------------------------------------------------------
# Contacts against set differences

pair_sets = st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)).filter(
    lambda p: p[0] != p[1]), max_size=40)


@given(frames=st.lists(pair_sets, min_size=1, max_size=6))
def test_contacts_against_sets(frames):
    contacts = bp.Contacts()
    before = set()
    for frame in frames:
        now = {(min(a, b), max(a, b)) for a, b in frame}
        began, ended = contacts.update(np.array(frame, np.intp).reshape(-1, 2))
        assert began.tolist() == [list(p) for p in sorted(now - before)]
        assert ended.tolist() == [list(p) for p in sorted(before - now)]
        assert contacts.current.tolist() == [list(p) for p in sorted(now)]
        before = now


def test_contacts_with_a_tree():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 3)
    h = tree.insert([[0, 0, 2, 2], [1, 1, 3, 3], [6, 6, 7, 7]])
    contacts = bp.Contacts()
    assert contacts.update(tree.pairs())[0].tolist() == [[0, 1]]
    tree.move(h[2], [[2, 2, 4, 4]])
    began, ended = contacts.update(tree.pairs())
    assert began.tolist() == [[1, 2]] and ended.tolist() == []
    tree.remove(h[0])
    began, ended = contacts.update(tree.pairs())
    assert began.tolist() == [] and ended.tolist() == [[0, 1]]


def test_contacts_bad_input():
    with pytest.raises(ValueError, match=r"pairs: expected shape \(k, 2\)"):
        bp.Contacts().update([[1, 2, 3]])
    with pytest.raises(ValueError, match=r"pairs\[1\]: expected indices in \[0, 2\*\*31\)"):
        bp.Contacts().update([[1, 2], [-1, 3]])
    with pytest.raises(TypeError, match=r"pairs: expected integers"):
        bp.Contacts().update([[1.5, 2]])
    with pytest.raises(ValueError,
                       match=r"pairs\[1\]: expected two different objects, found \[4, 4\]"):
        bp.Contacts().update([[1, 2], [4, 4]])
    with pytest.raises(ValueError, match=r"pairs: expected shape \(k, 2\), found shape \(0, 3\)"):
        bp.Contacts().update(np.empty((0, 3), np.intp))
    assert bp.Contacts().update([])[0].shape == (0, 2)


def test_unaligned_handles_are_read():
    tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
    h = tree.insert([[0, 0, 1, 1], [5, 5, 6, 6]])
    buf = bytearray(1) + np.asarray(h, np.int64).tobytes()  # the handles one byte in
    unaligned = np.frombuffer(buf, np.int64, count=2, offset=1)
    assert not unaligned.flags.aligned
    tree.move(unaligned, [[4.5, 4.5, 5.5, 5.5], [5, 5, 6, 6]])
    assert tree.pairs().tolist() == [[0, 1]]


@pytest.mark.parametrize("bounds, error, match", [
    ((0, 0, True, 1), TypeError, r"bounds\[2\]: expected a real number, found True"),
    ((0, 0, Fraction(1, 3), 1), ValueError, r"bounds\[2\]: values exactly representable"),
    ((0, 0, 2**53 + 1, 1e20), ValueError, r"bounds\[2\]: integers up to 2\*\*53"),
    ((0, 0, np.inf, 1), ValueError, r"bounds\[2\]: expected a finite number"),
    ((0, 0, 1), TypeError, r"bounds: expected \(minx, miny, maxx, maxy\)"),
])
def test_world_bounds_are_read_exactly_or_refused(bounds, error, match):
    # the same reader for the tree, suggest_depth and morton.locate
    for make in (lambda: bp.LinearQuadtree(bounds, 2),
                 lambda: bp.suggest_depth(bounds, 1),
                 lambda: bp.morton.locate([[0, 0, 0.5, 0.5]], bounds, 2)):
        with pytest.raises(error, match=match):
            make()


def test_typical_size_and_margin_are_read_exactly_or_refused():
    with pytest.raises(ValueError, match=r"typical_size: values exactly representable"):
        bp.suggest_depth((0, 0, 10, 10), Fraction(1, 3))
    with pytest.raises(ValueError, match=r"margin: values exactly representable"):
        bp.LinearQuadtree((0, 0, 10, 10), 2, margin=Fraction(1, 3))
    with pytest.raises(TypeError, match=r"margin: expected a real number, found True"):
        bp.LinearQuadtree((0, 0, 10, 10), 2, margin=True)
    assert bp.LinearQuadtree((0, 0, 10, 10), 2, margin=Fraction(1, 2)).margin == 0.5


def test_suggest_depth_of_a_world_wider_than_the_doubles():
    # the width 3.4e308 passes float64's largest value; the formula still holds:
    # round(log2(3.4e308 / (8 * 1e307))) = 2, and for a strip one unit high 11
    assert bp.suggest_depth((-1.7e308, -1.7e308, 1.7e308, 1.7e308), 1e307) == 2
    assert bp.suggest_depth((-1.7e308, 0, 1.7e308, 1), 1e150) == 11
    assert bp.LinearQuadtree.for_objects((-1.7e308, -1.7e308, 1.7e308, 1.7e308), 1e307).depth == 2


def test_a_box_asked_for_as_a_circle_is_worded_for_any_call():
    tree = bp.LinearQuadtree((0, 0, 10, 10), 2)
    h = tree.insert([[0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"handle 0 is a box, not a circle \(boxes reads"):
        tree.circles(h)
    with pytest.raises(ValueError, match=r"handle 0 is a box, not a circle \(move moves boxes"):
        tree.move_circles(h, [[1, 1]], 0.5)
    c = tree.insert_circles([[5, 5]], 1)
    with pytest.raises(ValueError, match=r"is a circle, not a box \(move_circles moves"):
        tree.move(c, [[1, 1, 2, 2]])


def test_one_handle_calls_name_their_argument():
    tree = bp.LinearQuadtree((0, 0, 8, 8), 3)
    tree.insert([[0, 0, 2, 2], [1, 1, 3, 3]])
    for call in (tree.touching, tree.locate):
        with pytest.raises(TypeError, match=r"^handle: expected integers, found dtype float64"):
            call(1.0)
        with pytest.raises(ValueError, match=r"^handle: expected one handle, found 2"):
            call([0, 1])
    with pytest.raises(TypeError, match=r"^handles: expected integers"):
        tree.remove(1.0)


def test_a_circle_whose_box_is_exact_is_inside_the_world():
    # (4, 4, 4) has the box [0, 0, 8, 8] exactly: not one double wider, so not outside
    tree = bp.LinearQuadtree((0, 0, 8, 8), 2)
    h = tree.insert_circles([[4, 4], [0.1, 0.2]], [4.0, 0.3])
    assert tree.boxes(h[0]).tolist() == [0.0, 0.0, 8.0, 8.0]
    assert tree.stats()["outside"] == 1  # the second reaches below 0
    lo = tree.boxes(h[1])
    assert Fraction(lo[0]) <= Fraction(0.1) - Fraction(0.3) < Fraction(np.nextafter(lo[0], 1))
