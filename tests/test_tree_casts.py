"""The tree's ray casts and swept pairs: equal to the static ones on the same
live objects (handles mapped), against exact Fractions for boxes and circles
mixed, through inserts, moves and removals."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp
import refs_casts as ref

INF = math.inf
SHAPES = ("boxes", "circles", "mixed")


def scene(seed: int, shapes: str, n: int = 40, ints: bool = False):
    """A tree after inserts, moves and removals; its live handles, kinds and rows."""
    rng = np.random.default_rng(seed)
    tree = bp.LinearQuadtree((-64, -64, 64, 64), depth=4)

    def draw_boxes(k):
        if ints:
            xy = rng.integers(-8, 8, (k, 2)).astype(float)
            return np.hstack([xy, xy + rng.integers(0, 5, (k, 2))])
        xy = rng.uniform(-40, 40, (k, 2))
        return np.hstack([xy, xy + rng.uniform(0, 12, (k, 2))])

    def draw_circles(k):
        if ints:
            return rng.integers(-8, 8, (k, 2)).astype(float), rng.integers(0, 4, k).astype(float)
        return rng.uniform(-40, 40, (k, 2)), rng.uniform(0, 6, k)

    bits = rng.integers(1, 8, n).astype(np.uint64), rng.integers(1, 8, n).astype(np.uint64)
    nb = {"boxes": n, "circles": 0, "mixed": n // 2}[shapes]
    if nb:
        tree.insert(draw_boxes(nb), categories=bits[0][:nb], masks=bits[1][:nb])
    if n - nb:
        c, r = draw_circles(n - nb)
        tree.insert_circles(c, r, categories=bits[0][nb:], masks=bits[1][nb:])
    live = sorted(range(n))
    gone = rng.choice(live, n // 5, replace=False)
    tree.remove(gone)
    live = [h for h in live if h not in set(gone.tolist())]
    is_circle = {h: h >= nb for h in live}  # boxes first, then circles
    moved = [h for h in live if rng.random() < 0.5]
    for h in moved:
        if is_circle[h]:
            c, _ = draw_circles(1)
            tree.move_circles([h], c)
        else:
            tree.move([h], draw_boxes(1))
    return tree, live, is_circle, bits


def rays(seed: int, m: int = 25, ints: bool = False):
    rng = np.random.default_rng(seed + 1)
    if ints:
        o = rng.integers(-10, 10, (m, 2)).astype(float)
        d = rng.integers(-3, 4, (m, 2)).astype(float)
        return o, d, rng.choice([0.0, 1.0, 2.5, INF], m)
    return rng.uniform(-50, 50, (m, 2)), rng.normal(size=(m, 2)), rng.choice([INF, 5.0, 40.0], m)


def static_hits(tree, live, is_circle, bits, o, d, max_t, hits, ignore=None, rays_bits=None):
    """The static casts on the live objects, one call per kind, in handles."""
    out = []
    for circle in (False, True):
        hs = [h for h in live if is_circle[h] == circle]
        if not hs:
            continue
        hs_arr = np.array(hs)
        ig = None if ignore is None else np.array(
            [hs.index(g) if g in hs else -1 for g in ignore])
        kw = dict(max_t=max_t, hits=hits, categories=bits[0][hs_arr], masks=bits[1][hs_arr],
                  ignore=ig)
        if rays_bits is not None:
            kw.update(ray_categories=rays_bits[0], ray_masks=rays_bits[1])
        if circle:
            xyr = tree.circles(hs_arr)
            res = bp.cast_rays_circles(xyr[:, :2], xyr[:, 2], o, d, **kw)
        else:
            res = bp.cast_rays(tree.boxes(hs_arr), o, d, **kw)
        out.append((hs_arr, res))
    return out


def check_against_static(tree, live, is_circle, bits, o, d, max_t, ignore=None, rays_bits=None):
    m = len(o)
    given = dict(ignore=ignore, rays_bits=rays_bits)
    kw = {"ignore": ignore}
    if rays_bits is not None:
        kw.update(ray_categories=rays_bits[0], ray_masks=rays_bits[1])
    parts = static_hits(tree, live, is_circle, bits, o, d, max_t, "all", **given)
    rows = sorted((int(k), int(hs[j]), float(t)) for hs, (p, ts) in parts
                  for (k, j), t in zip(p.tolist(), ts.tolist(), strict=True))
    pairs, t = tree.cast_rays(o, d, max_t=max_t, hits="all", **kw)
    assert pairs.dtype == np.intp
    assert [(a, b, c) for (a, b), c in zip(pairs.tolist(), t.tolist(), strict=True)] == rows
    anys = tree.cast_rays(o, d, max_t=max_t, hits="any", **kw)
    assert anys.tolist() == [any(r[0] == k for r in rows) for k in range(m)]
    index, tf = tree.cast_rays(o, d, max_t=max_t, **kw)
    if len(parts) == 1:  # one kind: the static first hits, mapped
        hs, (i, ts) = static_hits(tree, live, is_circle, bits, o, d, max_t, "first", **given)[0]
        assert index.tolist() == [int(hs[j]) if j >= 0 else -1 for j in i.tolist()]
        assert tf.tolist() == ts.tolist()
    else:  # the first of each ray is one of its hits, at the least t
        for k in range(m):
            mine = [r for r in rows if r[0] == k]
            if not mine:
                assert index[k] == -1 and tf[k] == INF
            else:
                assert (int(index[k]), float(tf[k])) in [(r[1], r[2]) for r in mine]
                assert tf[k] == min(r[2] for r in mine)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SHAPES), st.booleans())
def test_tree_casts_equal_the_static_ones(seed, shapes, ints):
    tree, live, is_circle, bits = scene(seed, shapes, ints=ints)
    o, d, max_t = rays(seed, ints=ints)
    check_against_static(tree, live, is_circle, bits, o, d, max_t)
    rng = np.random.default_rng(seed + 2)
    ignore = rng.choice(live + [-1], len(o)).tolist()
    rbits = rng.integers(1, 8, len(o)).astype(np.uint64), rng.integers(1, 8, len(o)).astype(
        np.uint64)
    check_against_static(tree, live, is_circle, bits, o, d, max_t, ignore=ignore,
                         rays_bits=rbits)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SHAPES), st.booleans())
def test_few_short_rays_walk_the_trees_cells_and_equal_the_static_ones(seed, shapes, ints):
    # a few finite rays on a tree of hundreds: the cast walks the tree's own cells
    tree, live, is_circle, bits = scene(seed, shapes, n=400, ints=ints)
    o, d, max_t = rays(seed, m=3, ints=ints)
    max_t = np.where(np.isinf(max_t), 2.0, max_t)
    check_against_static(tree, live, is_circle, bits, o, d, max_t)
    ignore = np.random.default_rng(seed).choice(live, len(o)).tolist()
    check_against_static(tree, live, is_circle, bits, o, d, max_t, ignore=ignore)


def exact_entry(tree, h, circle, o, d, s_max):
    if circle:
        hit, t = ref.ray_circle(tree.circles([h])[0].tolist(), o, d, s_max)
        return t if hit else None
    t = ref.ray_box(tree.boxes([h])[0].tolist(), o, d, s_max)
    return None if t is None else Decimal(t.numerator) / Decimal(t.denominator)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_mixed_first_hits_are_exact_near_ties(seed):
    # small integers: boxes' edges and circles' entries often tie exactly
    tree, live, is_circle, _ = scene(seed, "mixed", n=16, ints=True)
    tree2 = bp.LinearQuadtree((-64, -64, 64, 64), depth=4)  # no filters: every hit counts
    for h in range(max(live) + 1):
        if h in live and is_circle[h]:
            c = tree.circles([h])[0]
            got = tree2.insert_circles([c[:2]], c[2])
        else:
            got = tree2.insert(tree.boxes([h]) if h in live else [[0, 0, 0, 0]])
        assert got.tolist() == [h]
    for h in range(max(live) + 1):
        if h not in live:
            tree2.remove([h])
    o, d, max_t = rays(seed, m=12, ints=True)
    index, _ = tree2.cast_rays(o, d, max_t=max_t)
    for k in range(len(o)):
        hits = [(e, h) for h in live
                for e in [exact_entry(tree2, h, is_circle[h], o[k].tolist(), d[k].tolist(),
                                      float(max_t[k]))] if e is not None]
        assert index[k] == (min(hits)[1] if hits else -1)


def test_a_box_and_a_circle_tie_and_the_lower_handle_wins():
    tree = bp.LinearQuadtree((0, -8, 16, 8), depth=3)
    c = tree.insert_circles([[5, 0]], 2.0)[0]      # enters at 3
    b = tree.insert([[3, -1, 4, 1]])[0]            # enters at 3
    index, t = tree.cast_rays([[0, 0]], [[1, 0]])
    assert (index.tolist(), t.tolist()) == ([min(b, c)], [3.0])
    tree.move(b, [3 - 2**-50, -1, 4, 1])           # one step earlier: the box
    assert tree.cast_rays([[0, 0]], [[1, 0]])[0].tolist() == [b]
    # at y = 1 the circle enters at 5 - sqrt(3); boxes two ulps either side
    s = 5 - math.sqrt(3)
    for edge, want in ((np.nextafter(np.nextafter(s, 0), 0), b), (np.nextafter(s, 9) + 1e-15, c)):
        tree.move(b, [edge, 0, 9, 2])
        assert tree.cast_rays([[0, 1]], [[1, 0]])[0].tolist() == [want]


def test_errors_and_empty():
    tree = bp.LinearQuadtree((0, 0, 8, 8), depth=3)
    index, t = tree.cast_rays([[0, 0]], [[1, 0]])
    assert index.tolist() == [-1] and t.tolist() == [INF]
    with pytest.raises(ValueError, match=r"ignore\[1\]: expected a handle or -1"):
        tree.cast_rays([[0, 0], [1, 1]], [[1, 0], [1, 0]], ignore=[0, -2])
    with pytest.raises(ValueError, match="hits"):
        tree.cast_rays([[0, 0]], [[1, 0]], hits="some")
    with pytest.raises(ValueError, match=r"origins\[0\]"):
        tree.cast_rays([[np.nan, 0]], [[1, 0]])
    tree.insert([[1, -1, 2, 1]])
    assert tree.cast_rays([[0, 0]], [[1, 0]], ignore=99)[0].tolist() == [0]  # no such object
    pairs, t = tree.swept_pairs()
    assert pairs.shape == (0, 2) and pairs.dtype == np.intp and t.shape == (0,)


# ----------------------------------------------------------------------
# swept pairs


def rows_of(tree, hs, is_circle):
    return {h: (tree.circles([h])[0].tolist() if is_circle[h] else tree.boxes([h])[0].tolist())
            for h in hs}


def box_circle_ref(b0, b1, c0, c1):
    """Exact: the infimum over the six pieces (Fractions and 60-digit decimals), or None."""
    b0, b1 = [F(v) for v in b0], [F(v) for v in b1]
    c0, c1 = [F(v) for v in c0], [F(v) for v in c1]
    r = c0[2]
    if r == 0:
        return None
    found = []
    for k in range(2):
        o = 1 - k
        cons = []
        for axis, w in ((k, r), (o, 0)):
            cons.append((c0[axis] - b0[axis] + w, (c1[axis] - c0[axis]) - (b1[axis] - b0[axis])))
            cons.append((b0[axis + 2] - c0[axis] + w,
                         (b1[axis + 2] - b0[axis + 2]) - (c1[axis] - c0[axis])))
        t = ref.linear_set(cons, 1)
        if t is not None:
            found.append(Decimal(t.numerator) / Decimal(t.denominator))
    for kx in (0, 2):
        for ky in (1, 3):
            p = (c0[0] - b0[kx], c0[1] - b0[ky])
            v = ((c1[0] - c0[0]) - (b1[kx] - b0[kx]), (c1[1] - c0[1]) - (b1[ky] - b0[ky]))
            hit, t = ref.quadratic(p, v, r, 1)
            if hit:
                found.append(t)
    return min(found) if found else None


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from(SHAPES), st.booleans())
def test_swept_pairs_equal_the_static_ones(seed, shapes, ints):
    tree, live, is_circle, bits = scene(seed, shapes, ints=ints)
    rng = np.random.default_rng(seed + 3)
    assert tree.swept_pairs()[0].tolist() == tree.pairs().tolist()  # baseline, t = 0
    start = rows_of(tree, live, is_circle)
    # a frame: moves (fast ones too), a removal, an insert reusing a slot
    for h in live:
        if rng.random() < 0.6:
            jump = rng.uniform(-30, 30, 2).round() if ints else rng.uniform(-30, 30, 2)
            if is_circle[h]:
                c = np.array(start[h])
                tree.move_circles([h], [c[:2] + jump])
            else:
                b = np.array(start[h])
                tree.move([h], [b + np.r_[jump, jump]])
    gone = live[0]
    tree.remove([gone])
    new = tree.insert([[0, 0, 3, 3]])[0]
    is_circle[new] = False
    assert new == gone  # the slot removed last is given out first
    now_live = live
    end = rows_of(tree, now_live, is_circle)
    start = {h: (end[h] if h == new else start[h]) for h in now_live}
    pairs, t = tree.swept_pairs()
    got = dict(zip(map(tuple, pairs.tolist()), t.tolist(), strict=True))
    assert pairs.tolist() == sorted(pairs.tolist())
    # the static searches, one per kind, handles mapped
    for circle in (False, True):
        hs = [h for h in now_live if is_circle[h] == circle]
        if len(hs) < 2:
            continue
        arr = np.array(hs)
        kw = dict(categories=bits[0][arr], masks=bits[1][arr])
        if new in hs:  # the new box has the default bits
            at = hs.index(new)
            kw["categories"][at] = kw["masks"][at] = np.uint64(2**64 - 1)
        if circle:
            s0 = np.array([start[h] for h in hs])
            p, ts = bp.find_swept_circle_pairs(s0[:, :2], np.array([end[h][:2] for h in hs]),
                                               s0[:, 2], **kw)
        else:
            p, ts = bp.find_swept_pairs([start[h] for h in hs], [end[h] for h in hs], **kw)
        want = {(hs[i], hs[j]): s for (i, j), s in zip(p.tolist(), ts.tolist(), strict=True)}
        mine = {k: v for k, v in got.items() if is_circle[k[0]] == circle == is_circle[k[1]]}
        assert mine == want
    # box against circle: the exact reference
    for i in now_live:
        for j in now_live:
            if i >= j or is_circle[i] == is_circle[j]:
                continue
            b, c = (i, j) if not is_circle[i] else (j, i)
            cat = {h: (int(bits[0][h]), int(bits[1][h])) if h != new else (2**64 - 1,) * 2
                   for h in (i, j)}
            passes = cat[i][0] & cat[j][1] and cat[j][0] & cat[i][1]
            e = box_circle_ref(start[b], end[b], start[c], end[c][:2] + [start[c][2]])
            if e is None or not passes:
                assert (i, j) not in got
            else:
                assert (i, j) in got and abs(Decimal(got[(i, j)]) - e) <= e * Decimal(2) ** -30
    # nothing moved since: the pairs of pairs(), t = 0
    pairs, t = tree.swept_pairs()
    assert pairs.tolist() == tree.pairs().tolist() and not t.any()


def test_a_fast_bullet_through_a_thin_wall_is_reported():
    tree = bp.LinearQuadtree((0, -16, 64, 16), depth=4)
    bullet, wall = tree.insert([[0, 0, 4, 4], [20, -10, 23, 10]])
    ball = tree.insert_circles([[0, -8]], 2.0)[0]
    tree.swept_pairs()
    tree.move(bullet, [40, 0, 44, 4])
    tree.move_circles([ball], [[40, -8]])
    assert tree.pairs().tolist() == []
    pairs, t = tree.swept_pairs()
    assert pairs.tolist() == [[bullet, wall], [wall, ball]]
    assert t.tolist() == [0.4, 0.45]
    # next frame, nothing moved: no tunnelling pair stays
    assert tree.swept_pairs()[0].tolist() == []


def test_a_circle_that_grows_or_shrinks_sweeps_with_its_larger_radius():
    tree = bp.LinearQuadtree((-8, -8, 8, 8), depth=3)
    c = int(tree.insert_circles([[0, 0]], 1.0)[0])
    b = int(tree.insert([[2.5, -1, 3.5, 1]])[0])
    assert tree.swept_pairs()[0].tolist() == []
    tree.move_circles(c, [0, 0], 3.0)  # grows into the box where it stands
    assert tree.pairs().tolist() == [[c, b]]
    pairs, t = tree.swept_pairs()
    assert pairs.tolist() == [[c, b]] and t.tolist() == [0.0]
    tree.move_circles(c, [0, 0], 1.0)  # shrinks out of it: the pair was there at the start
    pairs, t = tree.swept_pairs()
    assert tree.pairs().tolist() == [] and pairs.tolist() == [[c, b]] and t.tolist() == [0.0]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_circles_changing_radius_are_the_static_sweep_with_the_larger_radius(seed):
    rng = np.random.default_rng(seed)
    n = 30
    tree = bp.LinearQuadtree((0, 0, 32, 32), depth=3)
    c0 = rng.integers(0, 32, (n, 2)).astype(float)
    r0 = rng.integers(0, 4, n).astype(float)
    h = tree.insert_circles(c0, r0)
    tree.swept_pairs()
    c1 = c0 + rng.integers(-6, 7, (n, 2))
    r1 = np.where(rng.random(n) < 0.5, r0, rng.integers(0, 4, n)).astype(float)
    tree.move_circles(h, c1, r1)
    now = set(map(tuple, tree.pairs().tolist()))
    pairs, t = tree.swept_pairs()
    want_p, want_t = bp.find_swept_circle_pairs(c0, c1, np.maximum(r0, r1))
    assert np.array_equal(pairs, h[want_p]) and np.array_equal(t, want_t)
    assert now <= set(map(tuple, pairs.tolist()))


# boxes that change size over the frame, with groups and bits: against Fractions
resized = st.lists(st.tuples(st.integers(-6, 6), st.integers(-6, 6), st.integers(0, 4),
                             st.integers(0, 4), st.integers(-6, 6), st.integers(-6, 6),
                             st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=14)


def filtered_reference(start, end, groups, cats, masks, exact):
    """Every pair ``i < j`` the filters let through, with ``exact(i, j)`` (or None)."""
    out = {}
    for i in range(len(start)):
        for j in range(i + 1, len(start)):
            if groups[i] and groups[i] == groups[j]:
                continue
            if not (cats[i] & masks[j] and cats[j] & masks[i]):
                continue
            e = exact(i, j)
            if e is not None:
                out[(i, j)] = e
    return out


@settings(max_examples=150, deadline=None)
@given(resized, st.sampled_from([1.0, 0.5, 2.0**500]), st.data())
def test_tree_swept_boxes_that_change_size_with_groups(rows, k, data):
    n = len(rows)
    start = [[x * k, y * k, (x + w) * k, (y + h) * k] for x, y, w, h, *_ in rows]
    end = [[x * k, y * k, (x + w) * k, (y + h) * k] for *_, x, y, w, h in rows]
    groups = data.draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    tree = bp.LinearQuadtree((-8, -8, 8, 8), depth=3)
    hs = tree.insert(start, groups=groups, categories=cats, masks=masks)
    assert hs.tolist() == list(range(n))
    tree.swept_pairs()  # the frame's start
    tree.move(hs, end)
    pairs, t = tree.swept_pairs()
    want = filtered_reference(start, end, groups, cats, masks,
                              lambda i, j: ref.swept_boxes(start[i], end[i], start[j], end[j]))
    assert pairs.dtype == np.intp
    assert pairs.tolist() == [list(p) for p in want]  # sorted: i, then j ascend
    assert t.tolist() == [float(e) for e in want.values()]  # correctly rounded
    # the same frame, static
    p2, t2 = bp.find_swept_pairs(start, end, groups=groups, categories=cats, masks=masks)
    np.testing.assert_array_equal(p2, pairs)
    np.testing.assert_array_equal(t2, t)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_tree_swept_circles_with_groups_within_the_bound(seed):
    rng = np.random.default_rng(seed)
    n = 30
    c0 = rng.uniform(-20, 20, (n, 2))
    c1 = c0 + rng.normal(0, 8, (n, 2))
    r = rng.uniform(0, 3, n)
    groups = rng.integers(0, 3, n)
    cats, masks = rng.integers(1, 4, n), rng.integers(1, 4, n)
    tree = bp.LinearQuadtree((-32, -32, 32, 32), depth=3)
    hs = tree.insert_circles(c0, r, groups=groups, categories=cats, masks=masks)
    tree.swept_pairs()
    tree.move_circles(hs, c1)
    pairs, t = tree.swept_pairs()
    c0, c1, r = c0.tolist(), c1.tolist(), r.tolist()
    want = filtered_reference(c0, c1, groups.tolist(), cats.tolist(), masks.tolist(),
                              lambda i, j: ref.swept_circles(c0[i], c1[i], c0[j], c1[j], r[i],
                                                             r[j])[1])
    assert pairs.tolist() == [list(p) for p in want]
    for (i, j), tk in zip(want, t.tolist(), strict=True):
        assert ref.swept_circles_within(c0[i], c1[i], c0[j], c1[j], r[i], r[j], tk, 2.0**-36)


def test_tree_swept_t_can_round_up_to_one():
    a0, a1 = [-2.0**71, 0, -2.0**70, 1], [2.0**69, 0, 2.0**70, 1]
    wall = [2.0**70 - 2.0**17, 0, 2.0**71, 1]
    assert ref.swept_boxes(a0, a1, wall, wall) == 1 - F(1, 2**54)  # rounds to 1.0
    tree = bp.LinearQuadtree((-2.0**72, -4, 2.0**72, 4), depth=4)
    wall_h, box = tree.insert([wall, a0])
    tree.swept_pairs()
    tree.move(box, a1)
    pairs, t = tree.swept_pairs()
    assert pairs.tolist() == [[wall_h, box]] and t.tolist() == [1.0]


def big_scene(workers, seed=21, n=20_000):
    """A tree of boxes and circles after a frame of moves (every object moves)."""
    rng = np.random.default_rng(seed)
    tree = bp.LinearQuadtree((0, 0, 1000, 1000), depth=7, workers=workers)
    xy = rng.uniform(0, 1000, (n, 2))
    boxes = np.hstack([xy, xy + rng.uniform(0.5, 5, (n, 2))])
    hb = tree.insert(boxes, groups=rng.integers(0, 50, n))
    c = rng.uniform(0, 1000, (n // 4, 2))
    hc = tree.insert_circles(c, rng.uniform(0.2, 3, n // 4))
    tree.swept_pairs()
    tree.move(hb, boxes + np.repeat(rng.uniform(-6, 6, (n, 2)), 2, axis=0).reshape(n, 4))
    tree.move_circles(hc, c + rng.uniform(-6, 6, (n // 4, 2)))
    return tree


def test_tree_swept_pairs_do_not_depend_on_threads():
    one, many = big_scene(1), big_scene(None)
    p1, t1 = one.swept_pairs()
    p2, t2 = many.swept_pairs()
    assert len(p1) > 20_000  # several chunks of candidates
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_array_equal(t1, t2)


def test_tree_casts_do_not_depend_on_threads():
    tree = big_scene(None)
    rng = np.random.default_rng(22)
    o = rng.uniform(0, 1000, (5000, 2))
    d = rng.normal(size=(5000, 2))
    max_t = rng.choice([INF, 30.0, 300.0], 5000)
    ignore = rng.integers(-1, 20_000, 5000)
    for hits in ("first", "all", "any"):
        one = tree.cast_rays(o, d, max_t=max_t, hits=hits, ignore=ignore, workers=1)
        many = tree.cast_rays(o, d, max_t=max_t, hits=hits, ignore=ignore, workers=2)
        default = tree.cast_rays(o, d, max_t=max_t, hits=hits, ignore=ignore)
        one, many, default = (x if isinstance(x, tuple) else (x,) for x in (one, many, default))
        assert len(one[0]) >= 5000
        for a, b, c in zip(one, many, default, strict=True):
            np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(a, c)
