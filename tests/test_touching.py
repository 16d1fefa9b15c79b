"""``touching=True``: closed boxes in the one-call searches, the command line and Dask.

Two closed boxes collide when ``min_i <= max_j`` and ``min_j <= max_i`` on every
axis.  Every expected answer here comes from that rule written out below on
the boxes as given (NumPy's ``<=``, which reads -0.0 as 0.0), or from shapely's
STRtree with ``predicate="intersects"`` on the boxes' envelopes -- never from
the code under test.  The trees are in ``test_touching_tree.py``.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import broadphase as bp
from broadphase._cli import main
from helpers import assert_canonical, assert_same
from naive import filter_mask

LARGEST = np.finfo(np.float64).max
TINY = np.nextafter(0.0, 1.0)  # 5e-324
ALL = np.iinfo(np.uint64).max


# --------------------------------------------------------------------------
# the reference: the closed rule, on the boxes as given


def closed_hit(a, b):
    """(na, nb) booleans: closed box ``a[i]`` meets closed box ``b[j]`` (2D or 3D rows)."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    d = a.shape[1] // 2
    lo_a, hi_a, lo_b, hi_b = a[:, None, :d], a[:, None, d:], b[None, :, :d], b[None, :, d:]
    return np.all((lo_a <= hi_b) & (lo_b <= hi_a), axis=2)


def closed_pairs(boxes, groups=None, categories=None, masks=None):
    b = np.asarray(boxes, np.float64)
    hit = closed_hit(b, b) & filter_mask(len(b), groups, categories, masks)
    i, j = np.nonzero(np.triu(hit, 1))
    return np.stack([i, j], axis=1).astype(np.intp).reshape(-1, 2)


def closed_between(a, b):
    i, j = np.nonzero(closed_hit(a, b))
    return np.stack([i, j], axis=1).astype(np.intp).reshape(-1, 2)


# --------------------------------------------------------------------------
# strategies: small integers (many exact touchings, points, segments), and
# floats one step apart, signed zeros, subnormals, values near the largest


def int_boxes(dims, max_size=30):
    @st.composite
    def box(draw):
        lo = [draw(st.integers(0, 6)) for _ in range(dims)]
        size = [draw(st.sampled_from([0, 0, 1, 1, 2, 3])) for _ in range(dims)]
        return [float(v) for v in lo] + [float(a + s) for a, s in zip(lo, size, strict=True)]

    return st.lists(box(), max_size=max_size)


TRICKY = sorted({-LARGEST, -1.0, -TINY, -0.0, 0.0, TINY, np.nextafter(1.0, 0.0), 1.0,
                 np.nextafter(1.0, 2.0), 2.0, np.nextafter(LARGEST, 0.0)})


def tricky_boxes(dims, max_size=25):
    @st.composite
    def box(draw):
        lo, hi = [], []
        for _ in range(dims):
            a, b = draw(st.sampled_from(TRICKY)), draw(st.sampled_from(TRICKY))
            if b < a:
                a, b = b, a
            lo.append(a)
            hi.append(b)  # (0.0, -0.0) stays as drawn: a valid box
        return lo + hi

    return st.lists(box(), max_size=max_size)


def as_rows(boxes, dims):
    return np.array(boxes, np.float64).reshape(-1, 2 * dims)


# --------------------------------------------------------------------------
# find_pairs


@pytest.mark.parametrize("dims", [2, 3])
@given(data=st.data())
def test_every_method_is_the_closed_rule(dims, data):
    boxes = as_rows(data.draw(st.one_of(int_boxes(dims), tricky_boxes(dims))), dims)
    before = boxes.copy()
    want = closed_pairs(boxes)
    for method in ("auto", *bp.METHODS):
        assert_same(bp.find_pairs(boxes, method=method, touching=True), want)
    assert_same(bp.find_pairs(boxes, method="grid", touching=True, workers=1), want)
    np.testing.assert_array_equal(boxes, before)  # the input is not modified
    assert np.array_equal(np.signbit(boxes), np.signbit(before))


@pytest.mark.parametrize("dims", [2, 3])
@given(data=st.data())
def test_filters(dims, data):
    boxes = as_rows(data.draw(int_boxes(dims)), dims)
    n = len(boxes)
    groups = data.draw(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=n, max_size=n))
    cats = data.draw(st.lists(st.sampled_from([ALL, 1, 2, 3]), min_size=n, max_size=n))
    masks = data.draw(st.lists(st.sampled_from([ALL, 1, 2, 3]), min_size=n, max_size=n))
    cats, masks = np.array(cats, np.uint64), np.array(masks, np.uint64)
    want = closed_pairs(boxes, groups, cats, masks)
    for method in ("auto", *bp.METHODS):
        got = bp.find_pairs(boxes, method=method, groups=groups, categories=cats, masks=masks,
                            touching=True)
        assert_same(got, want)


@pytest.mark.parametrize("dims", [2, 3])
@given(data=st.data())
def test_between(dims, data):
    strategy = st.one_of(int_boxes(dims, 15), tricky_boxes(dims, 15))
    a, b = as_rows(data.draw(strategy), dims), as_rows(data.draw(strategy), dims)
    want = closed_between(a, b)
    for method in ("auto", *bp.METHODS):
        assert_same(bp.find_pairs_between(a, b, method=method, touching=True), want,
                    between=True)


def test_the_closed_cases_by_hand():
    # shared edge, shared corner, a point on an edge, a point at a corner,
    # two equal points, a segment along an edge, crossing segments
    boxes = [[0, 0, 1, 1], [1, 0, 2, 1], [2, 1, 3, 2], [0.5, 1, 0.5, 1], [0, 0, 0, 0],
             [0, 0, 0, 0], [5, 5, 6, 5], [5, 5, 6, 5], [7, 0, 7, 2], [6, 1, 8, 1]]
    want = [[0, 1], [0, 3], [0, 4], [0, 5], [1, 2], [4, 5], [6, 7], [8, 9]]
    for method in ("auto", *bp.METHODS):
        assert bp.find_pairs(boxes, method=method, touching=True).tolist() == want
    assert bp.find_pairs(boxes).tolist() == [[8, 9]]  # open: only the crossing segments
    assert bp.find_pairs(boxes, touching=False).tolist() == [[8, 9]]
    # 3D: a shared face, a shared edge, a shared corner
    cubes = [[0, 0, 0, 1, 1, 1], [1, 0, 0, 2, 1, 1], [1, 1, 0, 2, 2, 1], [1, 1, 1, 2, 2, 2],
             [3, 3, 3, 4, 4, 4]]
    assert bp.find_pairs(cubes, touching=True).tolist() == [[0, 1], [0, 2], [0, 3], [1, 2],
                                                            [1, 3], [2, 3]]
    assert bp.find_pairs(cubes).tolist() == []


def test_signed_zeros_and_single_steps():
    # a max of -0.0 meets a min of 0.0 and the other way round: -0.0 == 0.0
    boxes = np.array([[-1, -1, -0.0, 1], [0.0, 0, 1, 1], [-1, -2, 1, -0.0], [-1, 0.0, 1, 1]])
    for method in ("auto", *bp.METHODS):
        assert bp.find_pairs(boxes, method=method, touching=True).tolist() == [
            [0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    # one step of float64 apart is no contact, in either direction and at 0
    for lo, hi in ((1.0, np.nextafter(1.0, 2.0)), (-0.0, TINY), (-TINY, 0.0), (-TINY, -0.0)):
        b = [[-1, 0, lo, 1], [hi, 0, 2, 1]]
        assert bp.find_pairs(b, touching=True).tolist() == ([[0, 1]] if lo == hi else [])
    assert bp.find_pairs([[-1, 0, -TINY, 1], [-TINY, 0, 1, 1]], touching=True).tolist() == [
        [0, 1]]
    # 3D, across the axes
    cubes = np.array([[0, 0, -1, 1, 1, -0.0], [0, 0, 0.0, 1, 1, 1]])
    assert bp.find_pairs(cubes, touching=True).tolist() == [[0, 1]]


def test_near_the_largest_float():
    top = np.nextafter(LARGEST, 0.0)
    boxes = [[-LARGEST, -LARGEST, top, top], [top, top, top, top], [0, 0, 1, 1]]
    for method in ("auto", *bp.METHODS):
        assert bp.find_pairs(boxes, method=method, touching=True).tolist() == [
            [0, 1], [0, 2]]


@pytest.mark.parametrize("col, name", [(2, "maxx"), (3, "maxy")])
def test_a_max_of_the_largest_float_is_refused(col, name):
    boxes = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 2, 2]], np.float64)
    boxes[2, col] = LARGEST
    before = boxes.copy()
    assert bp.find_pairs(boxes).tolist() == [[0, 1], [0, 2], [1, 2]]  # open: fine
    with pytest.raises(ValueError, match=rf"boxes\[2\]: {name} is 1\.797.*e\+308.*touching=True"):
        bp.find_pairs(boxes, touching=True)
    with pytest.raises(ValueError, match=rf"boxes_b\[2\]: {name} is"):
        bp.find_pairs_between(boxes[:1], boxes, touching=True)
    np.testing.assert_array_equal(boxes, before)
    # 3D names the column too; a min of -LARGEST is fine
    cubes = np.array([[-LARGEST, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, LARGEST]])
    with pytest.raises(ValueError, match=r"boxes\[1\]: maxz is"):
        bp.find_pairs(cubes, touching=True)


def test_bad_rows_are_named_as_given():
    # a row that is invalid as given, though its raised max would be valid
    bad = [[0, 0, 1, 1], [np.nextafter(1.0, 2.0), 0, 1, 1]]
    with pytest.raises(ValueError, match=r"boxes\[1\]: minx .* > maxx 1\.0"):
        bp.find_pairs(bad, touching=True)
    with pytest.raises(ValueError, match=r"boxes\[1\]: maxy is nan"):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, 1, np.nan]], touching=True)


def test_touching_must_be_a_bool():
    for bad in (1, 0, "yes", None, 1.0):
        with pytest.raises(TypeError, match="touching: expected True or False"):
            bp.find_pairs([[0, 0, 1, 1]], touching=bad)
        with pytest.raises(TypeError, match="touching: expected True or False"):
            bp.find_pairs_between([[0, 0, 1, 1]], [[1, 1, 2, 2]], touching=bad)
    assert bp.find_pairs([[0, 0, 1, 1], [1, 1, 2, 2]], touching=np.True_).tolist() == [[0, 1]]
    assert bp.find_pairs([[0, 0, 1, 1], [1, 1, 2, 2]], touching=np.False_).tolist() == []


def test_formats_and_tables():
    pd = pytest.importorskip("pandas")
    xywh = [[0, 0, 2, 2], [2, 2, 1, 1], [4, 0, 1, 1]]
    assert bp.find_pairs(xywh, format="xywh", touching=True).tolist() == [[0, 1]]
    df = pd.DataFrame({"maxx": [1, 2], "miny": [0, 1], "minx": [0, 1], "maxy": [1, 2]})
    assert bp.find_pairs(df, touching=True).tolist() == [[0, 1]]
    assert bp.find_pairs(df).tolist() == []
    assert bp.find_pairs_between(df, df, touching=True).tolist() == [[0, 0], [0, 1], [1, 0],
                                                                     [1, 1]]


def test_empty_and_one():
    assert_canonical(bp.find_pairs(np.empty((0, 4)), touching=True))
    assert bp.find_pairs([[0, 0, 0, 0]], touching=True).tolist() == []
    assert bp.find_pairs_between([], [[0, 0, 1, 1]], touching=True).shape == (0, 2)


# --------------------------------------------------------------------------
# shapely: intersects on envelopes (STRtree), what GIS users compare with


def envelope(row):
    import shapely

    x0, y0, x1, y1 = row
    if x0 == x1 and y0 == y1:
        return shapely.Point(x0, y0)
    if x0 == x1 or y0 == y1:
        return shapely.LineString([(x0, y0), (x1, y1)])
    return shapely.box(x0, y0, x1, y1)


def strtree_pairs(boxes):
    shapely = pytest.importorskip("shapely")
    geoms = np.array([envelope(r) for r in boxes] or [], dtype=object)
    i, j = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    keep = i < j
    out = np.stack([i[keep], j[keep]], axis=1).astype(np.intp).reshape(-1, 2)
    return out[np.lexsort((out[:, 1], out[:, 0]))]


def strtree_between(a, b):
    shapely = pytest.importorskip("shapely")
    ga = np.array([envelope(r) for r in a], dtype=object)
    gb = np.array([envelope(r) for r in b], dtype=object)
    i, j = shapely.STRtree(gb).query(ga, predicate="intersects")
    out = np.stack([i, j], axis=1).astype(np.intp).reshape(-1, 2)
    return out[np.lexsort((out[:, 1], out[:, 0]))]


@given(boxes=int_boxes(2, 40))
def test_as_shapely_strtree(boxes):
    pytest.importorskip("shapely")
    b = as_rows(boxes, 2)
    want = strtree_pairs(b)
    for method in ("auto", *bp.METHODS):
        assert_same(bp.find_pairs(b, method=method, touching=True), want)


@given(a=int_boxes(2, 20), b=int_boxes(2, 20))
def test_between_as_shapely_strtree(a, b):
    pytest.importorskip("shapely")
    a, b = as_rows(a, 2), as_rows(b, 2)
    assert_same(bp.find_pairs_between(a, b, touching=True), strtree_between(a, b), between=True)


def test_as_shapely_on_a_map_of_segments():
    """Road segments that share their nodes: every pair shapely reports, none missing."""
    pytest.importorskip("shapely")
    rng = np.random.default_rng(7)
    nodes = rng.integers(0, 50, (400, 2)).astype(float)
    ends = rng.integers(0, 400, (1500, 2))
    p, q = nodes[ends[:, 0]], nodes[ends[:, 1]]
    boxes = np.hstack([np.minimum(p, q), np.maximum(p, q)])  # segments' envelopes
    want = strtree_pairs(boxes)
    got = bp.find_pairs(boxes, touching=True)
    assert_same(got, want)
    assert len(bp.find_pairs(boxes)) < len(got)  # the open rule misses the shared nodes


# --------------------------------------------------------------------------
# the command line


def test_cli_touching(tmp_path, capsys):
    boxes = np.array([[0, 0, 1, 1], [1, 0, 2, 1], [2, 1, 3, 2], [5, 5, 5, 5], [5, 5, 6, 6]])
    src = tmp_path / "b.csv"
    np.savetxt(src, boxes, delimiter=",", header="minx,miny,maxx,maxy", comments="")
    out = tmp_path / "p.npy"
    assert main(["pairs", str(src), "--touching", "-o", str(out)]) == 0
    assert np.load(out).tolist() == [[0, 1], [1, 2], [3, 4]]
    assert main(["pairs", str(src), "-o", str(out)]) == 0
    assert np.load(out).tolist() == []
    for method in bp.METHODS:
        assert main(["pairs", str(src), "--touching", "--method", method]) == 0
        assert capsys.readouterr().out == "i,j\n0,1\n1,2\n3,4\n"
    cubes = tmp_path / "c.npy"
    np.save(cubes, np.array([[0, 0, 0, 1, 1, 1], [1, 1, 1, 2, 2, 2], [3, 0, 0, 4, 1, 1.0]]))
    assert main(["pairs", str(cubes), "--touching"]) == 0
    assert capsys.readouterr().out == "i,j\n0,1\n"


def test_cli_touching_refusals(tmp_path, capsys):
    circles = tmp_path / "c.csv"
    circles.write_text("x,y,r\n0,0,1\n2,0,1\n")
    assert main(["pairs", str(circles), "--touching"]) == 1
    assert "--touching: applies to boxes" in capsys.readouterr().err
    assert main(["pairs", str(circles), "--circles", "--touching"]) == 1
    top = tmp_path / "top.npy"
    np.save(top, np.array([[0, 0, 1, 1], [0, 0, 1, LARGEST]]))
    assert main(["pairs", str(top), "--touching"]) == 1
    err = capsys.readouterr().err
    assert "boxes[1]: maxy is" in err and "touching=True" in err


# --------------------------------------------------------------------------
# Dask: every tile agrees, a pair touching on a tile border is kept once


def unit_tiles(k):
    """A k x k tiling of unit squares: each touches its 8 neighbours, edges on integers."""
    x, y = np.meshgrid(np.arange(k, dtype=float), np.arange(k, dtype=float))
    lo = np.column_stack([x.ravel(), y.ravel()])
    return np.hstack([lo, lo + 1])


def test_dask_tiles_on_touching_borders():
    da = pytest.importorskip("dask.array")
    import broadphase.dask as bpd

    boxes = unit_tiles(30)  # 900 squares; tile borders fall on their shared edges
    rng = np.random.default_rng(3)
    points = rng.integers(0, 31, (300, 2)).astype(float)  # corners of the squares
    segments = np.column_stack([points[:100, 0], points[:100, 1], points[:100, 0] + 2,
                                points[:100, 1]])
    boxes = np.vstack([boxes, np.hstack([points, points]), segments])
    boxes = boxes[rng.permutation(len(boxes))]
    want = closed_pairs(boxes)
    # the precondition: tile borders on the squares' shared edges
    xs, ybounds, _ = bpd._tiles(da.from_array(boxes, chunks=130), len(boxes), 50, 500)
    inner = np.concatenate([xs[1:-1], ybounds[:, 1:-1].ravel()])
    assert (inner % 1 == 0).sum() >= 5
    for tile_rows, chunks in ((50, 130), (200, 400), (10_000, 1000)):
        got = bpd.find_pairs(da.from_array(boxes, chunks=chunks), tile_rows=tile_rows,
                             sample=500, touching=True).compute()
        assert_same(got, want)
    groups = (np.arange(len(boxes)) % 3).astype(np.int64)
    got = bpd.find_pairs(da.from_array(boxes, chunks=300), groups=da.from_array(groups, 300),
                         tile_rows=80, touching=True).compute()
    assert_same(got, closed_pairs(boxes, groups))
    open_pairs = bpd.find_pairs(da.from_array(boxes, chunks=300), tile_rows=80).compute()
    assert_same(open_pairs, bp.find_pairs(boxes))


def test_dask_3d_and_refusal():
    da = pytest.importorskip("dask.array")
    import broadphase.dask as bpd

    rng = np.random.default_rng(5)
    lo = rng.integers(0, 12, (2000, 3)).astype(float)
    cubes = np.hstack([lo, lo + rng.integers(0, 3, (2000, 3))])
    got = bpd.find_pairs(da.from_array(cubes, chunks=450), tile_rows=150, sample=400,
                         touching=True).compute()
    assert_same(got, closed_pairs(cubes))
    cubes[1234, 4] = LARGEST
    with pytest.raises(ValueError, match=r"boxes\[1234\]: maxy is"):
        bpd.find_pairs(da.from_array(cubes, chunks=450), tile_rows=150,
                       touching=True).compute()
    with pytest.raises(TypeError, match="touching: expected True or False"):
        bpd.find_pairs(da.from_array(cubes, chunks=450), touching="yes")
