"""``broadphase.dask.find_pairs`` on 3D boxes, against a brute-force reference written here."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

import broadphase as bp  # noqa: E402
import broadphase.dask as bpd  # noqa: E402
from broadphase import _core  # noqa: E402


def ref_pairs(boxes, groups=None, categories=None, masks=None):
    """Every pair overlapping strictly on all three axes and passing the filters, in order."""
    b = np.asarray(boxes, float)
    n = len(b)
    lo, hi = b[:, :3], b[:, 3:]
    out = []
    for i in range(n):
        j = np.arange(i + 1, n)
        keep = np.all((lo[i] < hi[j]) & (lo[j] < hi[i]), axis=1)
        if groups is not None:
            g = np.asarray(groups)
            keep &= (g[j] == 0) | (g[j] != g[i])
        if categories is not None or masks is not None:
            c = np.full(n, 2**64 - 1, np.uint64) if categories is None else np.asarray(
                categories, np.uint64)
            m = np.full(n, 2**64 - 1, np.uint64) if masks is None else np.asarray(masks, np.uint64)
            keep &= ((c[i] & m[j]) != 0) & ((c[j] & m[i]) != 0)
        out.extend([i, k] for k in j[keep].tolist())
    return np.array(out, np.intp).reshape(-1, 2)


def scene(n=4000, seed=0):
    """Integer-grid boxes (faces on tile borders), stacks apart in z alone, a cluster,
    one box over everything and one far away."""
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, 150, (n, 3)).astype(float)
    b = np.hstack([lo, lo + rng.integers(0, 4, (n, 3))])  # zero sizes too
    k = n // 5  # stacks: the same x-y square, z slabs touching or apart
    b[:k, :2] = rng.integers(0, 150, (k, 2))
    b[:k, 3:5] = b[:k, :2] + 2
    b[:k, 2] = rng.integers(0, 40, k) * 2.0
    b[:k, 5] = b[:k, 2] + 2.0
    c = slice(k, 2 * k)  # a dense cluster
    b[c, :3] = 60 + rng.normal(0, 2, (k, 3)).round(1)
    b[c, 3:] = b[c, :3] + 0.5
    b[n // 2] = [-10, -10, -10, 300, 300, 300]
    b[n // 2 + 1] = [1000, 1000, 1000, 1001, 1001, 1001]
    return b


def check(boxes, chunks, **kw):
    """The Dask search equals the reference and the one-process search (filters as arrays)."""
    got = bpd.find_pairs(da.from_array(boxes, chunks=(chunks, 6)), **kw).compute()
    filters = {k: v for k, v in kw.items() if k in ("groups", "categories", "masks")}
    assert got.dtype == np.intp and got.shape[1:] == (2,)
    np.testing.assert_array_equal(got, ref_pairs(boxes, **filters))
    np.testing.assert_array_equal(got, bp.find_pairs(boxes, **filters))
    return got


@pytest.mark.parametrize("tile_rows", [150, 700, 10**6])
def test_3d_scene(tile_rows):
    boxes = scene()
    got = check(boxes, 900, tile_rows=tile_rows)
    assert len(got) > 4000  # the big box alone meets nearly all
    # pairs whose x-y shadows overlap but whose z ranges do not are not pairs
    shadows = bp.find_pairs(boxes[:, [0, 1, 3, 4]])
    assert len(shadows) > len(got)


def test_filters_and_scalars():
    boxes = scene(2500, seed=1)
    rng = np.random.default_rng(2)
    g = rng.integers(0, 4, 2500)
    c = rng.integers(1, 8, 2500).astype(np.uint64)
    m = rng.integers(1, 8, 2500).astype(np.uint64)
    check(boxes, 600, tile_rows=300, groups=g, categories=c, masks=m)
    got = bpd.find_pairs(da.from_array(boxes, chunks=(600, 6)), groups=da.from_array(g, 500),
                         masks=3, tile_rows=300).compute()
    np.testing.assert_array_equal(got, ref_pairs(boxes, groups=g, masks=np.full(2500, 3)))


def test_3d_frames_by_their_column_names():
    boxes = scene(3000, seed=4)
    g = np.arange(3000) % 5
    # any order and case, aliases; a filter column named
    df = pd.DataFrame({"ZMAX": boxes[:, 5], "xmin": boxes[:, 0], "team": g, "ymin": boxes[:, 1],
                       "zmin": boxes[:, 2], "xmax": boxes[:, 3], "ymax": boxes[:, 4]})
    want = ref_pairs(boxes, groups=g)
    for frame in (dd.from_pandas(df, npartitions=3), df):
        got = bpd.find_pairs(frame, groups="team", tile_rows=500).compute()
        np.testing.assert_array_equal(got, want)
    # int64 corners beside floats: each partition converted exactly
    zmin = np.floor(boxes[:, 2]).astype(np.int64) - 2**40  # beyond what float32 holds
    ints = df.assign(zmin=zmin, ZMAX=boxes[:, 5] - 2**40)
    shifted = boxes.copy()
    shifted[:, 2] = zmin
    shifted[:, 5] = boxes[:, 5] - 2**40
    assert ints.dtypes["zmin"] == np.int64 and ints.dtypes["ZMAX"] == np.float64
    got = bpd.find_pairs(dd.from_pandas(ints, npartitions=4), tile_rows=700).compute()
    np.testing.assert_array_equal(got, ref_pairs(shifted))
    # a frame without names: six columns in order
    np.testing.assert_array_equal(
        bpd.find_pairs(pd.DataFrame(boxes), tile_rows=800).compute(), ref_pairs(boxes))


def test_empty_and_tiny_inputs():
    assert bpd.find_pairs(da.zeros((0, 6), chunks=1)).compute().shape == (0, 2)
    one = np.array([[0, 0, 0, 1, 1, 1.0]])
    assert bpd.find_pairs(one).compute().shape == (0, 2)
    two = [[0, 0, 0, 1, 1, 1], [0.5, 0.5, 0.5, 2, 2, 2]]  # a list in memory
    assert bpd.find_pairs(two).compute().tolist() == [[0, 1]]


def test_a_stack_apart_in_z_shares_its_tiles_and_no_pair():
    # one x-y square, slabs touching in z: every slab in every tile of the square
    z = np.arange(40, dtype=float)
    slabs = np.column_stack([np.zeros(40), np.zeros(40), z, np.ones(40), np.ones(40), z + 1])
    assert bpd.find_pairs(da.from_array(slabs, chunks=(7, 6)), tile_rows=3).compute().shape \
        == (0, 2)
    slabs[:, 5] += 0.5  # now each overlaps the next
    got = bpd.find_pairs(da.from_array(slabs, chunks=(7, 6)), tile_rows=3).compute()
    assert got.tolist() == [[k, k + 1] for k in range(39)]


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 300), st.integers(1, 40), st.integers(5, 200), st.integers(0, 2**32 - 1))
def test_random_tilings(n, chunk, tile_rows, seed):
    chunk = max(chunk, -(-n // 16))  # at most 16 chunks: a piece per chunk and tile
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, 12, (n, 3)).astype(float)
    boxes = np.hstack([lo, lo + rng.integers(0, 5, (n, 3))])
    check(boxes, chunk, tile_rows=tile_rows, sample=int(rng.integers(1, 400)))


def test_corners_near_the_largest_double():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow on the way to the tiles
        check(np.array([[1e308, 1e308, -1e308, 1.5e308, 1.5e308, 1.7e308]] * 4), 2, tile_rows=2)
        rows = [[-1.7e308, 0, -1.7e308, -1.6e308, 1, 1.7e308],
                [1.6e308, 0, 0, 1.7e308, 1, 1], [0, 0, 0, 1, 1, 1], [0.5, 0, 0.5, 2, 1, 2]]
        check(np.array(rows * 3), 3, tile_rows=2)


# --------------------------------------------------------------------------
# Parquet


def test_read_parquet_3d_columns(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    boxes = scene(2000, seed=7)
    g = np.arange(2000) % 4
    for k, part in enumerate(np.array_split(np.arange(2000), 2)):
        cols = {c: boxes[part, t] for t, c in enumerate(bpd.COLUMNS_3D)}
        cols["team"] = g[part]
        pq.write_table(pa.table(cols), tmp_path / f"part-{k}.parquet", row_group_size=300)
    arr = bpd.read_parquet(tmp_path, bpd.COLUMNS_3D)
    assert arr.shape == (2000, 6) and arr.chunks[0] == (300, 300, 300, 100) * 2
    np.testing.assert_array_equal(arr.compute(), boxes)
    team = bpd.read_parquet(tmp_path, "team", np.int64)
    got = bpd.find_pairs(arr, groups=team, tile_rows=400).compute()
    np.testing.assert_array_equal(got, ref_pairs(boxes, groups=g))
    # the columns in another order are read in the order asked
    swapped = bpd.read_parquet(tmp_path, ["maxz", "minx", "miny", "minz", "maxx", "maxy"])
    np.testing.assert_array_equal(swapped.compute(), boxes[:, [5, 0, 1, 2, 3, 4]])
    assert bpd.COLUMNS_3D == ("minx", "miny", "minz", "maxx", "maxy", "maxz")


def test_read_parquet_names_a_missing_z_column(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    pq.write_table(pa.table({c: [0.0] for c in bpd.COLUMNS}), tmp_path / "flat.parquet")
    with pytest.raises(ValueError, match=r"expected the columns minx, miny, minz, maxx, maxy, "
                                         r"maxz in .*flat.parquet, missing minz, maxz"):
        bpd.read_parquet(tmp_path, bpd.COLUMNS_3D)


# --------------------------------------------------------------------------
# errors: the argument, what was expected, what was found, the global row


def test_errors_name_the_global_row():
    boxes = scene(1000)
    boxes[777, 2] = boxes[777, 5] + 1
    with pytest.raises(ValueError, match=r"^boxes\[777\]: minz .* > maxz "):
        bpd.find_pairs(da.from_array(boxes, chunks=(300, 6)), tile_rows=100).compute()
    boxes[777, 2] = np.nan
    with pytest.raises(ValueError, match=r"^boxes\[777\]: minz is nan; expected finite numbers$"):
        bpd.find_pairs(da.from_array(boxes, chunks=(300, 6)), tile_rows=100).compute()
    with pytest.raises(ValueError, match=r"^boxes: expected shape \(n, 4\) or \(n, 6\), found "
                                         r"\(5, 5\)$"):
        bpd.find_pairs(da.zeros((5, 5), chunks=2))


def test_frame_errors_name_the_columns_and_the_row():
    df = pd.DataFrame({"minx": [0.0, 1], "miny": [0.0, 1], "minz": [0.0, 1], "maxx": [1.0, 2],
                       "maxy": [1.0, 2]})
    with pytest.raises(ValueError, match=r"missing maxz"):
        bpd.find_pairs(df)
    xyz = pd.DataFrame({c: [0.0, 1] for c in ("x", "y", "z", "w", "h", "d")})
    with pytest.raises(ValueError, match=r"^boxes: columns x, y, z, w, h, d \(position and size\) "
                                         r"are not read here; expected minx, miny, minz, maxx, "
                                         r"maxy, maxz$"):
        bpd.find_pairs(xyz)
    with pytest.raises(ValueError, match=r"^boxes: expected 4 columns \(minx, miny, maxx, maxy\) "
                                         r"or 6 \(minx, miny, minz, maxx, maxy, maxz\), found 5 "
                                         r"columns without names$"):
        bpd.find_pairs(pd.DataFrame(np.zeros((2, 5))))
    big = pd.DataFrame({"minx": [0.0, 1, 2], "miny": [0.0, 1, 2], "minz": [0, 1, 2**53 + 1],
                        "maxx": [1.0, 2, 3], "maxy": [1.0, 2, 3], "maxz": [1.0, 2, 2.0**54]})
    with pytest.raises(ValueError, match=r"boxes\[2\], column 'minz'"):
        bpd.find_pairs(dd.from_pandas(big, npartitions=2)).compute()
    with pytest.raises(TypeError, match=r"boxes, column 'maxz': expected real numbers"):
        bpd.find_pairs(big.assign(maxz=["a", "b", "c"]))


_B3 = np.array([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3.]])


@pytest.mark.parametrize("boxes, filters", [
    ([[True, 0, 0, 2, 2, 2.], [1, 1, 1, 3, 3, 3.]], {}),              # a bool
    ([[0, 0, 2**53 + 1, 2, 2, 2.**54], [1, 1, 1, 3, 3, 3.]], {}),     # would round
    (np.ma.masked_array(_B3, mask=[[0] * 6, [0, 0, 1, 0, 0, 0]]), {}),  # a masked value
    ([[0, 0, 3, 2, 2, 2.], [1, 1, 1, 3, 3, 3.]], {}),                 # minz > maxz
    (_B3, {"groups": [1, np.nan]}),
    (_B3[:1], {"groups": 1.5}),                                      # one box: still checked
    ([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]], {"groups": 1}),
    ([[0, 0, 0, 2, 2, 2], [1, 1, 1, 3, 3, 3]], {"groups": [1, 2]}),
])
def test_what_is_in_memory_is_read_as_in_memory(boxes, filters):
    # the same pairs, or the same error (type and text), as the in-memory call
    try:
        want = bp.find_pairs(boxes, **filters).tolist()
    except (TypeError, ValueError) as e:
        with pytest.raises(type(e)) as got:
            bpd.find_pairs(boxes, **filters).compute()
        assert str(got.value) == str(e)
    else:
        assert bpd.find_pairs(boxes, **filters).compute().tolist() == want


# --------------------------------------------------------------------------
# the tile kernels in 3D: columns over the x-y plane


def _tiling(rng, strips, cells):
    xs = np.concatenate([[-np.inf], np.sort(rng.integers(0, 20, strips - 1)), [np.inf]])
    inner = np.sort(rng.integers(0, 20, (strips, cells - 1)), axis=1)
    ybounds = np.hstack([np.full((strips, 1), -np.inf), inner, np.full((strips, 1), np.inf)])
    return xs.astype(float), ybounds.astype(float), rng.permutation(strips * cells)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 50), st.integers(0, 2**32 - 1))
def test_tile_kernels_against_the_half_open_columns(strips, cells, n, seed):
    rng = np.random.default_rng(seed)
    xs, ybounds, rank = _tiling(rng, strips, cells)
    lo = rng.integers(-2, 22, (n, 3)).astype(float)
    boxes = np.hstack([lo, lo + rng.integers(0, 8, (n, 3))])
    order, starts = _core.split_by_tile(boxes, xs, ybounds, rank)
    for i in range(strips):
        for c in range(cells):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ybounds[i, c], ybounds[i, c + 1]
            meets = ((boxes[:, 0] < x1) & (boxes[:, 3] >= x0)
                     & (boxes[:, 1] < y1) & (boxes[:, 4] >= y0))  # z plays no part
            t = rank[i * cells + c]
            assert order[starts[t]:starts[t + 1]].tolist() == np.flatnonzero(meets).tolist()
    pairs = np.array([(a, b) for a in range(n) for b in range(a + 1, n)], np.intp).reshape(-1, 2)
    rows = rng.permutation(10 * n + 1)[:n]
    edges = np.concatenate([[0], np.sort(rng.integers(0, 10 * n + 1, 3)), [10 * n + 1]])
    px = np.maximum(boxes[pairs[:, 0], 0], boxes[pairs[:, 1], 0])
    py = np.maximum(boxes[pairs[:, 0], 1], boxes[pairs[:, 1], 1])
    g = np.sort(rows[pairs], axis=1)
    seen = 0
    for i in range(strips):
        for c in range(cells):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ybounds[i, c], ybounds[i, c + 1]
            t = rank[i * cells + c]
            got, cut = _core.owned_pairs(pairs, boxes, rows, xs, ybounds, rank, t, edges)
            inside = (px >= x0) & (px < x1) & (py >= y0) & (py < y1)
            for q in range(len(edges) - 1):
                want = g[inside & (g[:, 0] >= edges[q]) & (g[:, 0] < edges[q + 1])]
                assert got[cut[q]:cut[q + 1]].tolist() == want.tolist()
            seen += len(got)
    assert seen == len(pairs)  # each pair owned by exactly one tile


def test_tile_kernels_refuse_other_widths():
    inf = np.inf
    xs, yb, rank = np.array([-inf, 0, inf]), np.array([[-inf, inf], [-inf, inf]]), np.arange(2)
    with pytest.raises(ValueError, match=r"^boxes: expected 4 columns \(2D\) or 6 \(3D\), "
                                         r"found 5$"):
        _core.split_by_tile(np.zeros((2, 5)), xs, yb, rank)
    with pytest.raises(ValueError, match=r"^boxes: expected 4 columns \(2D\) or 6 \(3D\), "
                                         r"found 3$"):
        _core.owned_pairs(np.zeros((0, 2), np.intp), np.zeros((2, 3)), np.arange(2), xs, yb,
                          rank, 0, np.array([0, 2]))
    b6 = np.array([[0.0, 0, 0, 1, 1, 1], [0.5, 0.5, 0.5, 2, 2, 2]])
    with pytest.raises(ValueError, match=r"pairs\[0\]: expected indices of the 2 boxes"):
        _core.owned_pairs(np.array([[0, 2]], np.intp), b6, np.arange(2), xs, yb, rank, 0,
                          np.array([0, 2]))
    with pytest.raises(ValueError, match=r"rank: expected a permutation of 0\.\.2"):
        _core.split_by_tile(b6, xs, yb, np.array([0, 5]))
