"""LinearQuadtree's one-object calls with plain Python arguments, and its batched queries.

The one-object calls read ints, floats, tuples, lists, float64 rows and
pygame rects directly; every other form, and every bad argument, goes the
full path.  Both are held to a brute-force model here (exact, with
Fractions for circles), with the arguments in each form, and to the full
path's errors.  ``query_many`` is held to the same model, query by query;
``suggest_depth`` to its formula worked out by a search over the depths.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp

pygame = pytest.importorskip("pygame")


# --------------------------------------------------------------------------
# the model


def _box_hits(b, q):
    return b[0] < q[2] and q[0] < b[2] and b[1] < q[3] and q[1] < b[3]


def _circle_box(c, q):
    x, y, r = (Fraction(v) for v in c)
    x0, y0, x1, y1 = (Fraction(v) for v in q)
    px, py = min(max(x, x0), x1), min(max(y, y0), y1)
    return (x - px) ** 2 + (y - py) ** 2 < r * r


def model_query(objs, q):
    return [h for h, (kind, g) in sorted(objs.items())
            if (_box_hits(g, q) if kind == "box" else _circle_box(g, q))]


def model_point(objs, x, y):
    out = []
    for h, (kind, g) in sorted(objs.items()):
        if kind == "box":
            hit = g[0] < x < g[2] and g[1] < y < g[3]
        else:
            cx, cy, r = (Fraction(v) for v in g)
            hit = (Fraction(x) - cx) ** 2 + (Fraction(y) - cy) ** 2 < r * r
        if hit:
            out.append(h)
    return out


def _overlap(a, b):
    (ka, ga), (kb, gb) = a, b
    if ka == "box" and kb == "box":
        return _box_hits(ga, gb)
    if ka == "circle" and kb == "circle":
        d2 = (Fraction(ga[0]) - Fraction(gb[0])) ** 2 + (Fraction(ga[1]) - Fraction(gb[1])) ** 2
        return d2 < (Fraction(ga[2]) + Fraction(gb[2])) ** 2
    c, b = (ga, gb) if ka == "circle" else (gb, ga)
    return _circle_box(c, b)


def model_touching(objs, h):
    return [o for o in sorted(objs) if o != h and _overlap(objs[h], objs[o])]


# --------------------------------------------------------------------------
# the arguments, in every form a game passes them

coord = st.integers(-4, 36).map(lambda v: v / 2)
side = st.sampled_from([0, 0.5, 1, 2, 3, 20])
ints = st.integers(-2, 18)


@st.composite
def a_box(draw):
    x, y = draw(coord), draw(coord)
    return (x, y, x + draw(side), y + draw(side))


@st.composite
def an_int_rect(draw):
    """Whole x, y, w, h: a pygame Rect holds them, and as corners: (x, y, x + w, y + h)."""
    x, y, w, h = draw(ints), draw(ints), draw(st.integers(0, 6)), draw(st.integers(0, 6))
    return (x, y, w, h), (float(x), float(y), float(x + w), float(y + h))


def box_forms(b):
    """One box (corners) as each form the calls read: tuple, list, float64 row, ints."""
    forms = [tuple(b), list(b), np.array(b, np.float64), [np.float64(v) for v in b]]
    if all(float(v).is_integer() for v in b):
        forms.append(tuple(int(v) for v in b))
        forms.append(tuple(np.int64(v) for v in b))
    return forms


def rect_forms(xywh):
    x, y, w, h = xywh

    class MyRect(pygame.Rect):
        pass

    return [pygame.Rect(x, y, w, h), pygame.FRect(x, y, w, h), MyRect(x, y, w, h)]


def handle_forms(h):
    return [h, np.int64(h), np.int32(h), np.uint64(h), np.intp(h)]


def new_tree(boxes, circles):
    tree = bp.LinearQuadtree((0, 0, 16, 16), depth=3)
    objs = {}
    for b in boxes:
        h = int(tree.insert(b)[0])
        objs[h] = ("box", tuple(float(v) for v in b))
    for c in circles:
        h = int(tree.insert_circles(c[:2], c[2])[0])
        objs[h] = ("circle", c)
    return tree, objs


a_circle = st.tuples(coord, coord, st.sampled_from([0.5, 1, 2.5]))


@settings(max_examples=60, deadline=None)
@given(boxes=st.lists(a_box(), max_size=12), circles=st.lists(a_circle, max_size=4),
       q=a_box(), r=an_int_rect(), px=coord, py=coord)
def test_questions_in_every_form_match_the_model(boxes, circles, q, r, px, py):
    tree, objs = new_tree(boxes, circles)
    want = model_query(objs, q)
    for form in box_forms(q):
        got = tree.query(form)
        assert got.dtype == np.intp and got.ndim == 1 and got.tolist() == want, form
    xywh, corners = r
    want = model_query(objs, corners)
    for form in rect_forms(xywh):
        assert tree.query(form).tolist() == want, form
    want = model_point(objs, px, py)
    for x, y in ((px, py), (np.float64(px), np.float64(py))):
        got = tree.query_point(x, y)
        assert got.dtype == np.intp and got.tolist() == want
    if float(px).is_integer() and float(py).is_integer():
        assert tree.query_point(int(px), int(py)).tolist() == want
    for h in objs:
        want = model_touching(objs, h)
        for form in handle_forms(h):
            got = tree.touching(form)
            assert got.dtype == np.intp and got.tolist() == want
            assert form in tree
            b = tree.boxes(form)
            assert b.dtype == np.float64 and b.shape == (4,)
            if objs[h][0] == "box":
                assert b.tolist() == list(objs[h][1])


@settings(max_examples=40, deadline=None)
@given(boxes=st.lists(a_box(), min_size=1, max_size=10),
       steps=st.lists(st.tuples(st.sampled_from(["move", "move_rect", "insert", "insert_rect",
                                                 "remove"]),
                                st.integers(0, 99), a_box(), an_int_rect(),
                                st.integers(0, 5)),
                      max_size=25))
def test_changes_of_one_object_in_every_form_match_the_model(boxes, steps):
    tree, objs = new_tree(boxes, [])
    for op, k, b, r, f in steps:
        live = sorted(objs)
        if op.startswith("move") and live:
            h = handle_forms(live[k % len(live)])[f % 5]
            if op == "move":
                tree.move(h, box_forms(b)[f % len(box_forms(b))])
                objs[int(h)] = ("box", tuple(b))
            else:
                tree.move(h, rect_forms(r[0])[f % 3])
                objs[int(h)] = ("box", r[1])
        elif op == "insert":
            got = tree.insert(box_forms(b)[f % len(box_forms(b))])
            assert got.dtype == np.intp and got.shape == (1,)
            assert int(got[0]) not in objs
            objs[int(got[0])] = ("box", tuple(b))
        elif op == "insert_rect":
            got = tree.insert(rect_forms(r[0])[f % 3])
            objs[int(got[0])] = ("box", r[1])
        elif op == "remove" and live:
            h = live[k % len(live)]
            tree.remove(handle_forms(h)[f % 5])
            del objs[h]
            assert h not in tree and np.int64(h) not in tree
        assert len(tree) == len(objs)
        for h, (_, g) in objs.items():
            assert tree.boxes(h).tolist() == list(g)
        want = [[i, j] for i in sorted(objs) for j in sorted(objs)
                if i < j and _overlap(objs[i], objs[j])]
        assert tree.pairs().tolist() == want
        tree.validate()


# --------------------------------------------------------------------------
# exactness and errors: the full path's rules on every form


def test_numbers_float64_cannot_hold_are_refused():
    tree, _ = new_tree([(0, 0, 1, 1)], [])
    big = 2**53 + 1
    for call in (lambda: tree.query((0, 0, big, 1)), lambda: tree.query([0, 0, big, 1]),
                 lambda: tree.insert((0, 0, big, 1)), lambda: tree.move(0, (0, 0, big, 1))):
        with pytest.raises(ValueError, match="2\\*\\*53"):
            call()
    with pytest.raises(ValueError, match="2\\*\\*53"):
        tree.query_point(big, 0)
    # 2**53 itself is held exactly: read, not refused
    assert tree.query((0, 0, 2**53, 2**53)).tolist() == [0]
    assert tree.query_point(np.int64(0), 0.5).tolist() == []
    # a Python int of any size in the handle's place names no object
    for h in (2**63, 2**64, 2**100, -1):
        assert h not in tree
        with pytest.raises(KeyError):
            tree.touching(h)
        with pytest.raises(KeyError):
            tree.remove(h)
    assert len(tree) == 1


def test_bools_and_bad_values_are_refused_as_on_the_full_path():
    tree, _ = new_tree([(0, 0, 1, 1), (2, 2, 3, 3)], [])
    with pytest.raises(TypeError, match="bool"):
        tree.query((0, 0, True, 1))
    with pytest.raises(TypeError, match="x"):
        tree.query_point(True, 0.5)
    with pytest.raises(ValueError, match="finite"):
        tree.query((0, 0, float("nan"), 1))
    with pytest.raises(ValueError, match="finite"):
        tree.query_point(float("inf"), 0)
    with pytest.raises(ValueError, match="minx 2.0 > maxx 1.0"):
        tree.query((2, 0, 1, 1))
    with pytest.raises(ValueError, match="minx 2.0 > maxx 1.0"):
        tree.insert((2, 0, 1, 1))
    with pytest.raises(ValueError, match="w -1"):
        tree.query(pygame.Rect(0, 0, -1, 2))
    with pytest.raises(ValueError, match="h -2"):
        tree.move(0, pygame.Rect(0, 0, 1, -2))
    assert True not in tree and 0.0 not in tree and "0" not in tree
    with pytest.raises(TypeError):
        tree.touching(True)
    with pytest.raises(TypeError):
        tree.remove(1.0)
    with pytest.raises(KeyError):
        tree.move(7, (0, 0, 1, 1))
    c = int(tree.insert_circles([5, 5], 1.0)[0])
    with pytest.raises(ValueError, match="is a circle"):
        tree.move(c, (0, 0, 1, 1))
    masked = np.ma.masked_array([0.0, 0, 1, 1], mask=[0, 0, 1, 0])
    with pytest.raises(ValueError, match="masked"):
        tree.query(masked)
    # nothing changed
    assert tree.boxes([0, 1]).tolist() == [[0, 0, 1, 1], [2, 2, 3, 3]] and len(tree) == 3
    tree.validate()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(["first", "all", "any"]))
def test_a_few_rays_of_python_numbers_are_the_full_paths_answer(seed, hits):
    rng = np.random.default_rng(seed)
    tree = bp.LinearQuadtree((0, 0, 64, 64), depth=4)
    xy = rng.integers(-4, 64, (60, 2))
    h = tree.insert(np.hstack([xy, xy + rng.integers(0, 6, (60, 2))]).astype(float))
    tree.insert_circles(rng.integers(0, 64, (10, 2)).astype(float), 1.5)
    tree.remove(h[::7])
    tree.move(h[1::7], np.hstack([xy[1::7] + 1, xy[1::7] + 3]).astype(float))
    m = int(rng.integers(1, 6))
    o = rng.integers(-8, 72, (m, 2)).tolist()
    d = [(float(a), float(b)) for a, b in rng.integers(-9, 10, (m, 2)).tolist()]
    for max_t in (0.5, 3, math.inf):
        for ignore in (None, int(h[2]), -1):
            got = tree.cast_rays(o, d, max_t=max_t, hits=hits, ignore=ignore)
            want = tree.cast_rays(np.array(o, float), np.array(d), max_t=np.float64(max_t),
                                  hits=hits, ignore=np.int64(-1 if ignore is None else ignore))
            for g, w in zip(got if hits != "any" else [got], want if hits != "any" else [want],
                            strict=True):
                assert g.dtype == w.dtype and np.array_equal(g, w)
    tree.validate()


def test_a_few_rays_with_bad_values_are_refused_as_on_the_full_path():
    tree, _ = new_tree([(0, 0, 1, 1), (2, 2, 3, 3)], [])
    with pytest.raises(ValueError, match=r"origins\[0\]: x is nan"):
        tree.cast_rays([(float("nan"), 0)], [(1, 0)])
    with pytest.raises(ValueError, match=r"max_t: expected a number >= 0"):
        tree.cast_rays([(0, 0)], [(1, 0)], max_t=-1.0)
    for hits in ("every", None, 1, "\ud800"):
        with pytest.raises(ValueError, match="hits: expected one of"):
            tree.cast_rays([(0, 0)], [(1, 0)], hits=hits)
    with pytest.raises(ValueError, match=r"ignore: .* \(one per ray\)"):
        tree.cast_rays([(0, 0)], [(1, 0)], ignore=[0, 1])
    with pytest.raises(ValueError, match="directions: expected 1 rows"):
        tree.cast_rays([(0, 0)], [(1, 0), (0, 1)])
    with pytest.raises(ValueError, match="ignore: expected a handle or -1"):
        tree.cast_rays([(0, 0)], [(1, 0)], ignore=-2)
    assert tree.cast_rays([(0.5, 0.5)], [(1, 1)], ignore=0)[0].tolist() == [1]
    with pytest.raises(TypeError, match="max_t"):
        tree.cast_rays([(0.5, 0.5)], [(1, 1)], max_t=True)
    with pytest.raises(TypeError, match="ignore"):
        tree.cast_rays([(0.5, 0.5)], [(1, 1)], ignore=True)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_one_circle_in_python_numbers_is_the_full_path(seed):
    rng = np.random.default_rng(seed)
    plain, full = (bp.LinearQuadtree((0, 0, 32, 32), depth=3) for _ in range(2))
    xy = rng.uniform(0, 30, (20, 2))
    for tree in (plain, full):
        tree.insert(np.hstack([xy, xy + 1.5]))
    hp, hf = [], []
    for _ in range(12):
        x, y = rng.integers(-4, 36, 2).tolist()
        r = float(rng.choice([0.0, 0.5, 2.0, 3.25]))
        hp.append(int(plain.insert_circles((x, y), r)[0]))
        hf.append(int(full.insert_circles(np.array([[x, y]], float), np.array([r]))[0]))
    for _ in range(20):
        k = int(rng.integers(len(hp)))
        x, y = rng.uniform(-4, 36, 2).tolist()
        if rng.random() < 0.5:
            plain.move_circles(hp[k], [x, y])
            full.move_circles(np.array([hf[k]]), np.array([[x, y]]))
        else:
            r = int(rng.integers(0, 4))
            plain.move_circles(hp[k], (x, y), r)
            full.move_circles(np.array([hf[k]]), np.array([[x, y]]), np.array([float(r)]))
    assert hp == hf
    assert np.array_equal(plain.circles(hp), full.circles(hf))
    assert np.array_equal(plain.boxes(hp), full.boxes(hf))
    assert np.array_equal(plain.pairs(), full.pairs())
    plain.validate()


def test_one_circle_with_bad_values_is_refused_as_on_the_full_path():
    tree, _ = new_tree([(0, 0, 1, 1)], [])
    with pytest.raises(ValueError, match="radii"):
        tree.insert_circles((5, 5), -1.0)
    with pytest.raises(ValueError, match="finite"):
        tree.insert_circles((float("nan"), 5), 1.0)
    with pytest.raises(TypeError):
        tree.insert_circles((5, 5), True)
    c = int(tree.insert_circles((5, 5), 1)[0])
    with pytest.raises(ValueError, match="is a box"):
        tree.move_circles(0, (5, 5))
    with pytest.raises(KeyError):
        tree.move_circles(9, (5, 5))
    with pytest.raises(ValueError, match="finite"):
        tree.move_circles(c, (5, float("inf")))
    tree.move_circles(c, (6, 5))
    assert tree.circles([c]).tolist() == [[6, 5, 1]] and len(tree) == 2
    # a circle whose box would be infinite: refused by the tree, naming the row
    for call in (lambda: tree.insert_circles((1e308, 1e308), 1e308),
                 lambda: tree.insert_circles([[0, 0], [1e308, 0]], [1, 1e308]),
                 lambda: tree.move_circles(c, (1e308, 1e308), 1e308),
                 lambda: tree.move_circles([c], np.array([[1e308, 0]]), [1e308])):
        with pytest.raises(ValueError, match=r"centers\[\d\]: the circle .* reaches past"):
            call()
    assert tree.circles([c]).tolist() == [[6, 5, 1]] and len(tree) == 2
    tree.validate()


def test_a_rect_is_read_as_pygame_means_it():
    tree = bp.LinearQuadtree((0, 0, 100, 100), depth=4)
    h = int(tree.insert(pygame.Rect(10, 20, 5, 6))[0])
    assert tree.boxes(h).tolist() == [10, 20, 15, 26]
    tree.move(h, pygame.Rect(40, 50, 3, 4))
    assert tree.boxes(h).tolist() == [40, 50, 43, 54]
    tree.move(h, pygame.FRect(1.5, 2.5, 0.25, 0.5))
    assert tree.boxes(h).tolist() == [1.5, 2.5, 1.75, 3.0]
    assert tree.query(pygame.Rect(1, 2, 1, 1)).tolist() == [h]      # (1, 2)-(2, 3)
    assert tree.query(pygame.Rect(0, 0, 1, 2)).tolist() == []       # (0, 0)-(1, 2): no overlap


def test_a_rect_subclass_is_read_as_its_struct_on_every_path():
    # a subclass whose attributes say otherwise: pygame's colliderect reads the struct, and
    # so do the full path and the one-object path
    class Shifted(pygame.Rect):
        x = property(lambda self: 100)

    tree = bp.LinearQuadtree((0, 0, 200, 200), depth=4)
    h = int(tree.insert([[1, 1, 2, 2]])[0])
    r = Shifted(0, 0, 5, 5)
    assert r.colliderect(pygame.Rect(1, 1, 1, 1))
    assert tree.query(r).tolist() == tree.query([r]).tolist() == [h]
    tree.move(h, r)
    assert tree.boxes(h).tolist() == [0, 0, 5, 5]


# --------------------------------------------------------------------------
# region queries in a batch


@settings(max_examples=60, deadline=None)
@given(boxes=st.lists(a_box(), max_size=14), circles=st.lists(a_circle, max_size=4),
       qs=st.lists(a_box(), max_size=12), removed=st.lists(st.integers(0, 20), max_size=3))
def test_query_many_is_each_query_of_the_model(boxes, circles, qs, removed):
    tree, objs = new_tree(boxes, circles)
    for k in removed:
        if k in objs:
            tree.remove(k)
            del objs[k]
    got = tree.query_many(qs if qs else np.empty((0, 4)))
    want = [[k, h] for k, q in enumerate(qs) for h in model_query(objs, q)]
    assert got.dtype == np.intp and got.shape == (len(want), 2)
    assert got.tolist() == want


def test_query_many_forms_errors_and_limits():
    tree, _ = new_tree([(0, 0, 2, 2), (1, 1, 3, 3), (10, 10, 11, 11)], [])
    assert tree.query_many([pygame.Rect(0, 0, 2, 2), pygame.Rect(9, 9, 5, 5)]).tolist() == [
        [0, 0], [0, 1], [1, 2]]
    empty = tree.query_many([[4, 4, 5, 5]])
    assert empty.shape == (0, 2) and empty.dtype == np.intp
    with pytest.raises(ValueError, match=r"boxes\[1\]: minx 3.0 > maxx 1.0"):
        tree.query_many([[0, 0, 1, 1], [3, 0, 1, 1]])
    with pytest.raises(MemoryError, match=r"^3 region rows \(query, handle\) found, more than "
                                          r"max_rows=2"):
        tree.query_many([[0, 0, 16, 16]], max_rows=2)
    assert tree.query_many([[0, 0, 16, 16]], max_rows=3).tolist() == [[0, 0], [0, 1], [0, 2]]
    with pytest.raises(ValueError, match="max_rows"):
        tree.query_many([[0, 0, 1, 1]], max_rows=-1)


def test_query_many_speaks_of_region_rows_when_there_are_too_many():
    tree, _ = new_tree([(0, 0, 2, 2), (1, 1, 3, 3), (10, 10, 11, 11)], [])
    with pytest.raises(MemoryError) as err:  # 3 rows for the first box, 2 for the second
        tree.query_many([[0, 0, 16, 16], [0, 0, 4, 4]], max_rows=2)
    assert str(err.value) == ("5 region rows (query, handle) found, more than max_rows=2; "
                              "query fewer or smaller boxes at a time, or raise max_rows")


def test_query_many_on_many_threads_is_the_same():
    rng = np.random.default_rng(5)
    xy = rng.uniform(0, 1000, (20_000, 2))
    tree = bp.LinearQuadtree.for_objects((0, 0, 1000, 1000), typical_size=5)
    tree.insert(np.hstack([xy, xy + 5]))
    qxy = rng.uniform(-10, 1000, (5000, 2))
    qs = np.hstack([qxy, qxy + rng.uniform(0, 30, (5000, 2))])
    tree.workers = 1
    one = tree.query_many(qs)
    tree.workers = None
    assert np.array_equal(one, tree.query_many(qs))
    for k in (0, 17, 4999):
        assert one[one[:, 0] == k, 1].tolist() == tree.query(qs[k]).tolist()


# --------------------------------------------------------------------------
# the depth helper


@given(w=st.floats(1e-3, 1e9), h=st.floats(1e-3, 1e9), size=st.floats(1e-4, 1e7))
def test_suggest_depth_is_the_depth_nearest_eight_objects_a_cell(w, h, size):
    got = bp.suggest_depth((0.0, 0.0, w, h), size)
    side = math.sqrt(w) * math.sqrt(h) if w != h else w
    # the depth d (1 to 12) whose cells, side / 2**d, are nearest to 8 objects
    # wide on a log scale (ties either way)
    target = math.log2(max(side / (8 * size), 1.0))
    best = min(abs(d - target) for d in range(1, 13))
    assert 1 <= got <= 12 and abs(got - target) <= best + 1e-9


def test_suggest_depth_examples_and_errors():
    assert bp.suggest_depth((0, 0, 5000, 5000), 10) == 6
    assert bp.suggest_depth((-500, -500, 500, 500), 10) == 4
    assert bp.suggest_depth((0, 0, 1, 1), 10) == 1
    assert bp.suggest_depth((0, 0, 1e300, 1e300), 1e-300) == 12
    assert bp.suggest_depth((-1.7e308, -1.7e308, 1.7e308, 1.7e308), 1.0) == 12
    tree = bp.LinearQuadtree.for_objects((0, 0, 5000, 5000), 10, margin=2.0, workers=1)
    assert (tree.depth, tree.margin, tree.workers) == (6, 2.0, 1)
    with pytest.raises(ValueError, match="typical_size"):
        bp.suggest_depth((0, 0, 10, 10), 0)
    with pytest.raises(ValueError, match="typical_size"):
        bp.suggest_depth((0, 0, 10, 10), float("nan"))
    with pytest.raises(TypeError, match="typical_size"):
        bp.suggest_depth((0, 0, 10, 10), True)
    with pytest.raises(ValueError, match="bounds"):
        bp.suggest_depth((0, 0, -10, 10), 1)
