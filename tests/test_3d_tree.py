"""The moving octree (``LinearOctree``) against a plain-Python model.

Every answer is recomputed from the model's objects with exact rational
arithmetic (Fractions), independently of the library: pairs, events,
partners, region and point queries, through inserts, moves and removals
of boxes and spheres with filters, and the errors that name the argument.
"""

from fractions import Fraction as F
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp

half = st.integers(-4, 36).map(lambda v: v / 2)
size = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 8.0])
radius = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.5, 6.0])
a_box = st.tuples(half, half, half, size, size, size).map(
    lambda t: [t[0], t[1], t[2], t[0] + t[3], t[1] + t[4], t[2] + t[5]])
a_sphere = st.tuples(half, half, half, radius)
a_filter = st.tuples(st.sampled_from([0, 0, 1, 2]), st.sampled_from([-1, -1, 1, 2, 3]),
                     st.sampled_from([-1, -1, 1, 2, 3]))


def _boxes_meet(a, b):
    return all(a[k] < b[3 + k] and b[k] < a[3 + k] for k in range(3))


def _sphere_box(c, b):
    p = [min(max(F(c[k]), F(b[k])), F(b[3 + k])) for k in range(3)]
    return sum((F(c[k]) - p[k]) ** 2 for k in range(3)) < F(c[3]) ** 2


def _collide(o, q):
    (ka, a, fa), (kb, b, fb) = o, q
    if fa[0] and fa[0] == fb[0]:
        return False
    if fa[1] & fb[2] == 0 or fb[1] & fa[2] == 0:
        return False
    if ka == "box" and kb == "box":
        return _boxes_meet(a, b)
    if ka == "sphere" and kb == "sphere":
        d2 = sum((F(a[k]) - F(b[k])) ** 2 for k in range(3))
        return d2 < (F(a[3]) + F(b[3])) ** 2
    return _sphere_box(a, b) if ka == "sphere" else _sphere_box(b, a)


def _pairs(model):
    hs = sorted(model)
    return [[i, j] for i, j in combinations(hs, 2) if _collide(model[i], model[j])]


def _filters(f):
    g, c, m = f
    return g, (c & (2**64 - 1)), (m & (2**64 - 1))


ops = st.lists(st.one_of(
    st.tuples(st.just("box"), a_box, a_filter),
    st.tuples(st.just("sphere"), a_sphere, a_filter),
    st.tuples(st.just("move"), st.integers(0, 99), a_box, a_sphere),
    st.tuples(st.just("remove"), st.integers(0, 99)),
    st.tuples(st.just("pairs")),
    st.tuples(st.just("update")),
    st.tuples(st.just("query"), a_box),
    st.tuples(st.just("point"), half, half, half),
    st.tuples(st.just("touching"), st.integers(0, 99)),
), max_size=40)


@settings(max_examples=150, deadline=None)
@given(depth=st.integers(0, 4), margin=st.sampled_from([0.0, 0.5, 3.0]), ops=ops,
       rebuild=st.sampled_from([0.1, -1.0, float("inf")]))
def test_octree_agrees_with_the_model(depth, margin, ops, rebuild):
    tree = bp.LinearOctree((0, 0, 0, 16, 16, 16), depth, margin=margin)
    tree._t.rebuild_share = rebuild
    model, ids, last, next_id = {}, {}, set(), 0
    for op in ops:
        kind = op[0]
        if kind in ("box", "sphere"):
            g, c, m = _filters(op[2])
            if kind == "box":
                (h,) = tree.insert([op[1]], groups=g, categories=c, masks=m).tolist()
            else:
                x, y, z, r = op[1]
                (h,) = tree.insert_spheres([[x, y, z]], r, groups=g, categories=c,
                                           masks=m).tolist()
            model[h] = (kind, list(op[1]), (g, c, m))
            ids[h], next_id = next_id, next_id + 1
        elif kind == "move" and model:
            h = sorted(model)[op[1] % len(model)]
            shape, _, f = model[h]
            if shape == "box":
                tree.move(h, op[2])
                model[h] = (shape, list(op[2]), f)
            else:
                x, y, z, r = op[3]
                tree.move_spheres(h, [x, y, z], r)
                model[h] = (shape, list(op[3]), f)
        elif kind == "remove" and model:
            h = sorted(model)[op[1] % len(model)]
            tree.remove(h)
            del model[h], ids[h]
        elif kind == "pairs":
            assert tree.pairs().tolist() == _pairs(model)
        elif kind == "update":
            began, ended = tree.update()
            now = {(ids[i], ids[j]): (i, j) for i, j in _pairs(model)}
            assert sorted(map(list, (now[k] for k in set(now) - last))) == began.tolist()
            assert len(ended) == len(last - set(now))
            last = set(now)
        elif kind == "query":
            q = op[1]
            want = [h for h in sorted(model)
                    if (_boxes_meet(model[h][1], q) if model[h][0] == "box"
                        else _sphere_box(model[h][1], q))]
            assert tree.query(q).tolist() == want
        elif kind == "point":
            p = op[1:]
            want = [h for h in sorted(model)
                    if _sphere_box(model[h][1], [*p, *p]) and model[h][0] == "sphere"
                    or model[h][0] == "box"
                    and all(model[h][1][k] < p[k] < model[h][1][3 + k] for k in range(3))]
            assert tree.query_point(*p).tolist() == want
        elif kind == "touching" and model:
            h = sorted(model)[op[1] % len(model)]
            want = sorted(j if i == h else i for i, j in _pairs(model) if h in (i, j))
            assert tree.touching(h).tolist() == want
        assert tree._t.validate() is None
        assert len(tree) == len(model)


def test_many_objects_equal_find_pairs():
    rng = np.random.default_rng(5)
    lo = rng.uniform(0, 100, (4000, 3))
    boxes = np.hstack([lo, lo + rng.uniform(0.5, 4, (4000, 3))])
    tree = bp.LinearOctree((0, 0, 0, 100, 100, 100), depth=5, margin=0.5)
    tree.insert(boxes)
    for frame in range(4):
        assert np.array_equal(tree.pairs(), bp.find_pairs(boxes, method="brute"))
        moved = np.flatnonzero(rng.random(4000) < (0.9 if frame == 2 else 0.05))
        boxes[moved] += rng.uniform(-1, 1, (moved.size, 1))
        tree.move(moved, boxes[moved])
    spheres = rng.uniform(0, 100, (500, 3))
    h = tree.insert_spheres(spheres, 2.0)
    s = tree.stats()
    assert s["objects"] == 4500 and h.tolist() == list(range(4000, 4500))
    assert tree.pairs().shape[1] == 2


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="depth"):
        bp.LinearOctree((0, 0, 0, 1, 1, 1), depth=bp._octree.MAX_DEPTH_3D + 1)
    with pytest.raises(TypeError, match="bounds"):
        bp.LinearOctree((0, 0, 1, 1), depth=2)
    tree = bp.LinearOctree((0, 0, 0, 8, 8, 8), depth=2)
    with pytest.raises(ValueError, match=r"boxes.*\(n, 6\)|boxes"):
        tree.insert([[0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"boxes\[1\]"):
        tree.insert([[0, 0, 0, 1, 1, 1], [0, 0, 2, 1, 1, 1]])
    h = tree.insert([0, 0, 0, 1, 1, 1])
    s = tree.insert_spheres([2, 2, 2], 1.0)
    with pytest.raises(KeyError, match="handle 7"):
        tree.move(7, [0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="a sphere, not a box"):
        tree.move(s, [0, 0, 0, 1, 1, 1])
    with pytest.raises(ValueError, match="a box, not a sphere|a box, not a circle"):
        tree.move_spheres(h, [1, 1, 1])
    with pytest.raises(ValueError, match="twice"):
        tree.remove([h[0], h[0]])
    assert len(tree) == 2 and tree.spheres(s[0]).tolist() == [2.0, 2.0, 2.0, 1.0]


def test_region_queries_copies_and_settings():
    rng = np.random.default_rng(9)
    lo = rng.uniform(0, 50, (600, 3))
    tree = bp.LinearOctree((0, 0, 0, 50, 50, 50), depth=3, margin=1.0, workers=1)
    h = tree.insert(np.hstack([lo, lo + rng.uniform(0, 5, (600, 3))]))
    tree.insert_spheres(rng.uniform(0, 50, (200, 3)), rng.uniform(0, 3, 200))
    qlo = rng.uniform(-5, 50, (300, 3))
    qs = np.hstack([qlo, qlo + rng.uniform(0, 10, (300, 3))])
    want = [[k, int(o)] for k, q in enumerate(qs) for o in tree.query(q)]
    assert tree.query_many(qs).tolist() == want
    with pytest.raises(MemoryError):
        tree.query_many(qs, max_rows=len(want) - 1)
    snapshot = tree.copy()
    tree.remove(h[:100])
    assert len(snapshot) == 800 and len(tree) == 700
    assert snapshot.margin == 1.0 and snapshot.workers == 1
    snapshot.validate()
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle
        pickle.dumps(tree)


def test_casts_and_swept_pairs_equal_the_static_calls():
    rng = np.random.default_rng(11)
    lo = rng.uniform(0, 60, (500, 3))
    boxes = np.hstack([lo, lo + rng.uniform(0.5, 4, (500, 3))])
    centres, radii = rng.uniform(0, 60, (300, 3)), rng.uniform(0.2, 2.5, 300)
    tree = bp.LinearOctree((0, 0, 0, 64, 64, 64), depth=3)
    hb = tree.insert(boxes)
    hs = tree.insert_spheres(centres, radii)
    gone = hb[::7]
    tree.remove(gone)
    keep = np.setdiff1d(np.arange(500), gone)
    o, d = rng.uniform(-5, 65, (200, 3)), rng.normal(size=(200, 3))
    for max_t in (np.inf, 20.0):
        pairs, t = tree.cast_rays(o, d, max_t=max_t, hits="all")
        bp_pairs, bt = bp.cast_rays(boxes[keep], o, d, max_t=max_t, hits="all")
        sp_pairs, st_ = bp.cast_rays_circles(centres, radii, o, d, max_t=max_t, hits="all")
        want = sorted(
            [(int(r), int(hb[keep[j]]), float(v)) for (r, j), v in zip(bp_pairs, bt, strict=True)]
            + [(int(r), int(hs[j]), float(v)) for (r, j), v in zip(sp_pairs, st_, strict=True)])
        assert [(int(r), int(h)) for r, h in pairs] == [w[:2] for w in want]
        assert t.tolist() == [w[2] for w in want]
        index, tf = tree.cast_rays(o, d, max_t=max_t)
        first = {}
        for r, h, v in want:
            if r not in first or (v, h) < first[r]:
                first[r] = (v, h)
        assert index.tolist() == [first[r][1] if r in first else -1 for r in range(200)]
        assert tree.cast_rays(o, d, max_t=max_t, hits="any").tolist() == \
            [r in first for r in range(200)]
    # swept pairs: boxes and spheres in their own trees, against the static calls
    for spheres in (False, True):
        tree = bp.LinearOctree((0, 0, 0, 64, 64, 64), depth=3)
        if spheres:
            h = tree.insert_spheres(centres, radii)
        else:
            h = tree.insert(boxes)
        tree.swept_pairs()
        step = rng.normal(scale=4.0, size=(len(h), 3))
        if spheres:
            tree.move_spheres(h, centres + step)
            want = bp.find_swept_circle_pairs(centres, centres + step, radii)
        else:
            moved = boxes + np.hstack([step, step])
            tree.move(h, moved)
            want = bp.find_swept_pairs(boxes, moved)
        got = tree.swept_pairs()
        assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()
        assert len(got[0]) > 0
