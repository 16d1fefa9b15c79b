"""``broadphase.dask.find_pairs`` against the single-machine ``find_pairs``."""

import subprocess
import sys

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
from broadphase import scenarios  # noqa: E402


def adversarial(n=6000, seed=0):
    """Integer-grid boxes (many edges on tile borders), points, one huge box, clusters."""
    rng = np.random.default_rng(seed)
    xy = rng.integers(0, 200, (n, 2)).astype(float)
    wh = rng.integers(0, 4, (n, 2)).astype(float)  # zero sizes too: points and segments
    boxes = np.hstack([xy, xy + wh])
    boxes[:n // 4, :2] = 50 + rng.normal(0, 2, (n // 4, 2)).round(1)  # a dense cluster
    boxes[:n // 4, 2:] = boxes[:n // 4, :2] + 0.5
    boxes[n // 2] = [-10, -10, 300, 300]  # one box over everything
    boxes[n // 2 + 1] = [1000, 1000, 1001, 1001]  # far away: tiles between stay empty
    return boxes


def check(boxes, chunks, **kw):
    got = bpd.find_pairs(da.from_array(boxes, chunks=chunks), **kw).compute()
    want = bp.find_pairs(boxes, **{k: v for k, v in kw.items() if k in ("groups", "categories",
                                                                       "masks")})
    assert got.dtype == np.intp and got.shape[1:] == (2,)
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("tile_rows", [200, 1000, 10**6])
def test_adversarial_boxes(tile_rows):
    boxes = adversarial()
    got = check(boxes, 1000, tile_rows=tile_rows)
    assert len(got) > 6000  # the huge box alone meets nearly all


def test_filters_and_scalars():
    boxes = adversarial(3000, seed=1)
    rng = np.random.default_rng(2)
    g = rng.integers(0, 4, 3000)
    c = rng.integers(1, 8, 3000).astype(np.uint64)
    m = rng.integers(1, 8, 3000).astype(np.uint64)
    check(boxes, 700, tile_rows=300, groups=g, categories=c, masks=m)
    check(boxes, 700, tile_rows=300, groups=da.from_array(g, chunks=500), masks=3)


def test_dataframe_input_with_column_filters():
    boxes = scenarios.make("clustered", 4000, seed=4)
    g = np.arange(4000) % 5
    df = pd.DataFrame(boxes, columns=["minx", "miny", "maxx", "maxy"]).assign(team=g)
    got = bpd.find_pairs(dd.from_pandas(df, npartitions=3), groups="team",
                         tile_rows=500).compute()
    np.testing.assert_array_equal(got, bp.find_pairs(boxes, groups=g))


def test_empty_and_tiny_inputs():
    assert bpd.find_pairs(da.zeros((0, 4), chunks=1)).compute().shape == (0, 2)
    one = np.array([[0, 0, 1, 1.0]])
    assert bpd.find_pairs(one).compute().shape == (0, 2)


def test_errors_name_the_global_row():
    boxes = scenarios.make("uniform", 1000)
    boxes[777, 0] = boxes[777, 2] + 1
    with pytest.raises(ValueError, match=r"boxes\[777\]: minx"):
        bpd.find_pairs(da.from_array(boxes, chunks=300)).compute()
    with pytest.raises(ValueError, match="expected shape"):
        bpd.find_pairs(da.zeros((5, 3), chunks=2))
    with pytest.raises(ValueError, match="missing maxy"):
        bpd.find_pairs(pd.DataFrame({"minx": [0.0], "miny": [0.0], "maxx": [1.0]}))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 400), st.integers(1, 50), st.integers(5, 300), st.integers(0, 2**32 - 1))
def test_random_tilings(n, chunk, tile_rows, seed):
    # At most 16 chunks: the graph has a piece per chunk and tile, and at
    # 400 chunks of one box dask's graph optimisation alone took minutes.
    chunk = max(chunk, -(-n // 16))
    rng = np.random.default_rng(seed)
    xy = rng.integers(0, 20, (n, 2)).astype(float)
    boxes = np.hstack([xy, xy + rng.integers(0, 6, (n, 2))])
    check(boxes, chunk, tile_rows=tile_rows, sample=int(rng.integers(1, 500)))


def test_distributed_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        boxes = adversarial(8000, seed=5)
        g = np.arange(8000) % 3
        lazy = bpd.find_pairs(da.from_array(boxes, chunks=2000), groups=g, tile_rows=1500)
        got = client.compute(lazy).result()
        np.testing.assert_array_equal(got, bp.find_pairs(boxes, groups=g))
        assert len(client.scheduler_info()["workers"]) == 2
        # far below their limits (a share of this machine's memory), the
        # workers keep the core's scratch between tasks; outside a worker
        # it is always handed back
        from broadphase import _dask_tasks

        tight = [client.submit(_dask_tasks._tight, workers=[w], pure=False).result()
                 for w in client.scheduler_info()["workers"]]
        assert tight == [False, False]
        assert _dask_tasks._tight()


def test_a_worker_killed_mid_search_loses_nothing():
    """SIGKILL one of two worker processes while its tasks run: Dask reruns them, exactly."""
    distributed = pytest.importorskip("distributed")
    import os
    import signal
    import time

    boxes = adversarial(60_000, seed=8)
    want = bp.find_pairs(boxes)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        pids = client.run(os.getpid)  # worker address -> process id
        lazy = bpd.find_pairs(da.from_array(boxes, chunks=2000), tile_rows=2000)
        future = client.compute(lazy)
        victim, deadline = None, time.monotonic() + 60
        while victim is None and time.monotonic() < deadline and not future.done():
            busy = [w for w, tasks in client.processing().items() if tasks and w in pids]
            if busy:
                victim = busy[0]
            else:
                time.sleep(0.005)
        assert victim is not None, "no task seen running"
        os.kill(pids[victim], signal.SIGKILL)
        got = future.result(timeout=120)
        assert victim not in client.scheduler_info()["workers"] or \
            client.run(os.getpid).get(victim) != pids[victim]
    np.testing.assert_array_equal(got, want)


def test_empty_partitions():
    boxes = adversarial(2000, seed=6)
    arr = da.from_array(boxes, chunks=((700, 0, 800, 0, 500), (4,)))
    assert 0 in arr.chunks[0]
    got = bpd.find_pairs(arr, tile_rows=250).compute()
    np.testing.assert_array_equal(got, bp.find_pairs(boxes))


def _tiling(rng, strips, cells):
    """Random strip and cell edges on an integer grid (so boxes touch them), numbered at random."""
    xs = np.concatenate([[-np.inf], np.sort(rng.integers(0, 20, strips - 1)), [np.inf]])
    inner = np.sort(rng.integers(0, 20, (strips, cells - 1)), axis=1)
    ybounds = np.hstack([np.full((strips, 1), -np.inf), inner, np.full((strips, 1), np.inf)])
    return xs.astype(float), ybounds.astype(float), rng.permutation(strips * cells)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.integers(0, 60), st.integers(0, 2**32 - 1))
def test_tile_kernels_against_the_half_open_regions(strips, cells, n, seed):
    """A box is in every tile whose region [x0, x1) x [y0, y1) meets it, once; a pair in one."""
    from broadphase import _core as tiles

    rng = np.random.default_rng(seed)
    xs, ybounds, rank = _tiling(rng, strips, cells)
    xy = rng.integers(-2, 22, (n, 2)).astype(float)
    boxes = np.hstack([xy, xy + rng.integers(0, 8, (n, 2))])
    order, starts = tiles.split_by_tile(boxes, xs, ybounds, rank)
    for i in range(strips):
        for c in range(cells):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ybounds[i, c], ybounds[i, c + 1]
            meets = ((boxes[:, 0] < x1) & (boxes[:, 2] >= x0)
                     & (boxes[:, 1] < y1) & (boxes[:, 3] >= y0))
            t = rank[i * cells + c]
            assert order[starts[t]:starts[t + 1]].tolist() == np.flatnonzero(meets).tolist()
    # owned pairs: all pairs of these boxes (touching ones too), the reference
    # point (lower-left corner of the intersection) in the tile's region
    pairs = np.array([(a, b) for a in range(n) for b in range(a + 1, n)], np.intp).reshape(-1, 2)
    rows = rng.permutation(10 * n + 1)[:n]  # global rows, in no order
    edges = np.concatenate([[0], np.sort(rng.integers(0, 10 * n + 1, 3)), [10 * n + 1]])
    px = np.maximum(boxes[pairs[:, 0], 0], boxes[pairs[:, 1], 0])
    py = np.maximum(boxes[pairs[:, 0], 1], boxes[pairs[:, 1], 1])
    g = np.sort(rows[pairs], axis=1)
    seen = 0
    for i in range(strips):
        for c in range(cells):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ybounds[i, c], ybounds[i, c + 1]
            t = rank[i * cells + c]
            got, cut = tiles.owned_pairs(pairs, boxes, rows, xs, ybounds, rank, t, edges)
            inside = (px >= x0) & (px < x1) & (py >= y0) & (py < y1)
            for q in range(len(edges) - 1):
                want = g[inside & (g[:, 0] >= edges[q]) & (g[:, 0] < edges[q + 1])]
                assert got[cut[q]:cut[q + 1]].tolist() == want.tolist()
            seen += len(got)
    assert seen == len(pairs)  # each pair owned by exactly one tile


def _write_parquet(folder, boxes, files, row_group, **extra):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    paths = []
    for k, part in enumerate(np.array_split(np.arange(len(boxes)), files)):
        cols = {c: boxes[part, t] for t, c in enumerate(bpd.COLUMNS)}
        cols.update({name: v[part] for name, v in extra.items()})
        paths.append(str(folder / f"part-{k:03d}.parquet"))
        pq.write_table(pa.table(cols), paths[-1], row_group_size=row_group)
    return paths


def test_read_parquet_row_groups_in_file_order(tmp_path):
    boxes = adversarial(3000, seed=7)
    g = np.arange(3000) % 4
    paths = _write_parquet(tmp_path, boxes, 3, 400, team=g)
    arr = bpd.read_parquet(tmp_path)
    assert arr.chunks[0] == (400, 400, 200) * 3 and arr.dtype == np.float64
    np.testing.assert_array_equal(arr.compute(), boxes)
    for same in (paths, str(tmp_path / "*.parquet")):
        np.testing.assert_array_equal(bpd.read_parquet(same).compute(), boxes)
    np.testing.assert_array_equal(bpd.read_parquet(paths[1]).compute(), boxes[1000:2000])
    team = bpd.read_parquet(tmp_path, "team", np.int64)
    assert team.shape == (3000,)
    got = bpd.find_pairs(arr, groups=team, tile_rows=700).compute()
    np.testing.assert_array_equal(got, bp.find_pairs(boxes, groups=g))


def test_read_parquet_errors(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    with pytest.raises(ValueError, match="expected Parquet files, found none"):
        bpd.read_parquet(tmp_path)
    pq.write_table(pa.table({"minx": [0.0], "miny": [0.0], "maxx": [1.0]}),
                   tmp_path / "a.parquet")
    with pytest.raises(ValueError, match="missing maxy"):
        bpd.read_parquet(tmp_path)
    pq.write_table(pa.table({"v": pa.array([1.5, None])}), tmp_path / "b.parquet")
    with pytest.raises(ValueError, match=r"v: expected values, found a null in row 1 of "):
        bpd.read_parquet(tmp_path / "b.parquet", "v").compute()
    pq.write_table(pa.table({"v": [1.5, 2.0]}), tmp_path / "c.parquet")
    with pytest.raises(TypeError):  # floats are no int64
        bpd.read_parquet(tmp_path / "c.parquet", "v", np.int64).compute()


def test_row_groups_read_without_pandas_or_dask_array(tmp_path):
    """A worker reading and searching imports neither (tens of MiB under a memory limit)."""
    boxes = adversarial(500, seed=3)
    paths = _write_parquet(tmp_path, boxes, 1, 200)
    code = (
        "import sys, numpy as np\n"
        "from broadphase import _dask_tasks as t\n"
        f"a = t.read_row_group({paths[0]!r}, 1, ['minx', 'miny', 'maxx', 'maxy'], "
        "np.dtype(np.float64), (200, 4))\n"
        "one = (np.array([-np.inf, np.inf]), np.array([[-np.inf, np.inf]]), np.array([0]))\n"
        "piece = t.assign(a, None, None, None, start=200, tiling=one)[0]\n"
        "t.tile_pairs([piece], t=0, tiling=one, edges=np.array([0, 10**6]), given=[False] * 3, "
        "scalars=(None,) * 3)\n"
        "np.save(sys.argv[1], a)\n"
        "print(sorted(m for m in ('pandas', 'dask.array', 'dask.dataframe') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "a.npy")], check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "[]"
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), boxes[200:400])


@pytest.mark.parametrize("kind", ["float32", "int8", "uint16", "int64", "float64"])
def test_arrow_values_read_from_the_buffer(kind):
    pa = pytest.importorskip("pyarrow")
    from broadphase._dask_tasks import _values

    v = np.arange(-5, 20).astype(kind) if kind[0] != "u" else np.arange(25).astype(kind)
    arr = pa.array(v)[3:17]  # a slice: its values start at an offset into the buffer
    got = _values(arr)
    assert got.dtype == np.dtype(kind)
    np.testing.assert_array_equal(got, v[3:17])
    assert _values(pa.array(v)[:0]).shape == (0,)


def test_getitem_priorities_survive_optimisation_and_to_delayed():
    """The tuple-cutting getitems keep their priority (a worker under a limit needs it)."""
    boxes = adversarial(2000, seed=8)
    lazy = bpd.find_pairs(da.from_array(boxes, chunks=500), tile_rows=400)
    keys = lazy.__dask_keys__()
    prio = {}
    for layer in lazy.__dask_optimize__(lazy.__dask_graph__(), keys).layers.values():
        for k in layer:
            prio[k] = (layer.annotations or {}).get("priority", 0)
    kinds = {}
    for k, p in prio.items():
        name = k[0] if isinstance(k, tuple) else k
        kinds.setdefault(name.split("-")[1] if name.startswith("bp-") else "input", set()).add(p)
    assert kinds["piece"] == {100} and kinds["part"] == {100}
    assert kinds["split"] == kinds["tile"] == kinds["bucket"] == {0}
    blocks = lazy.to_delayed().ravel()
    assert len(blocks) == lazy.numblocks[0]
    got = np.concatenate(dask.compute(*blocks))
    np.testing.assert_array_equal(got, bp.find_pairs(boxes))
    layers = blocks[0].__dask_graph__().layers.values()
    assert any((layer.annotations or {}).get("priority") == 100 for layer in layers)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 300), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_sort_pairs_is_the_canonical_order(k, width, seed):
    from broadphase import _core as tiles

    rng = np.random.default_rng(seed)
    lo = int(rng.integers(0, 1000))
    i = rng.integers(lo, lo + width, k)
    j = i + 1 + rng.integers(0, 50, k)
    if k > 40:  # one first index with a long run, as a huge box makes
        i[: k // 2] = lo
    pairs = np.column_stack([i, j]).astype(np.intp)
    want = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    got = tiles.sort_pairs(pairs, lo, lo + width)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.intp


def test_tile_kernels_refuse_what_would_index_out_of_bounds():
    from broadphase import _core

    inf = np.inf
    xs, yb, rank = np.array([-inf, 0, inf]), np.array([[-inf, inf], [-inf, inf]]), np.arange(2)
    boxes = np.array([[0.0, 0, 1, 1], [0.5, 0.5, 2, 2]])
    with pytest.raises(ValueError, match=r"rank: expected a permutation of 0\.\.2"):
        _core.split_by_tile(boxes, xs, yb, np.array([0, 5]))
    with pytest.raises(ValueError, match="ybounds: expected 2 rows"):
        _core.split_by_tile(boxes, xs, yb[:1], rank)
    pairs = np.array([[0, 2]], np.intp)
    with pytest.raises(ValueError, match=r"pairs\[0\]: expected indices of the 2 boxes"):
        _core.owned_pairs(pairs, boxes, np.arange(2), xs, yb, rank, 0, np.array([0, 2]))
    with pytest.raises(ValueError, match=r"pairs: expected first values in \[0, 1\)"):
        _core.sort_pairs(np.array([[1, 2]], np.intp), 0, 1)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/statm, glibc")
def test_worker_tasks_hand_memory_back_and_never_import_numba():
    """After a task, the core's kept scratch is freed; no JIT is ever loaded."""
    code = (
        "import os, sys, numpy as np, broadphase as bp\n"
        "from broadphase import _dask_tasks as t, scenarios\n"
        "def rss():  # MiB resident\n"
        "    pages = int(open('/proc/self/statm').read().split()[1])\n"
        "    return pages * os.sysconf('SC_PAGE_SIZE') >> 20\n"
        "b = scenarios.make('uniform', 1_000_000)\n"
        "p = bp.find_pairs(b, workers=1); del p\n"
        "before = rss()\n"
        "t._release()\n"
        "after = rss()\n"
        "jit = sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'llvmlite'))\n"
        "print(before, after, jit)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    before, after, jit = run.stdout.split(maxsplit=2)
    assert int(after) < int(before) - 40, run.stdout  # MiB: the scratch of a 1e6 search
    assert jit.strip() == "[]"


_B2 = np.array([[0, 0, 2, 2], [1, 1, 3, 3.]])


@pytest.mark.parametrize("boxes, filters", [
    ([[True, 0, 2, 2.], [1, 1, 3, 3.]], {}),                       # a bool
    ([[2**53 + 1, 0, 2**54, 2.], [1, 1, 3, 3.]], {}),              # would round
    (np.ma.masked_array(_B2, mask=[[0] * 4, [1, 0, 0, 0]]), {}),    # a masked value
    (_B2, {"categories": [1, 1], "masks": [2**63 + 1, 1.0]}),      # bit 0 of a mask
    (_B2, {"groups": [2**60 + 1, float(2**60)]}),                  # two groups, not one
    (_B2, {"groups": "team"}),                                     # no column to name
    (_B2[:1], {"groups": 1.5}),                                    # one box: still checked
    (_B2, {"groups": [1, np.nan]}),
    ([[0, 0, 2, 2], [1, 1, 3, 3]], {"groups": 1}),
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


def test_a_filter_names_a_column_of_the_frame():
    df = pd.DataFrame({"minx": [0, 1.], "miny": [0, 1.], "maxx": [2, 3.], "maxy": [2, 3.],
                       "team": [1, 1]})
    assert bpd.find_pairs(dd.from_pandas(df, npartitions=1), groups="team").compute().tolist() \
        == []
    with pytest.raises(ValueError, match=r"groups: .* found 'nope', which is no column of it"):
        bpd.find_pairs(dd.from_pandas(df, npartitions=1), groups="nope")


def test_read_parquet_names_the_row_the_file_and_the_path(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    t = pa.table({"minx": [0., 1, None], "miny": [0., 1, 2], "maxx": [2., 3, 4],
                  "maxy": [2., 3, 4]})
    pq.write_table(t, tmp_path / "n.parquet", row_group_size=2)
    with pytest.raises(ValueError, match=r"minx: expected values, found a null in row 2 of "):
        bpd.read_parquet(str(tmp_path / "n.parquet")).compute()
    (tmp_path / "bad.parquet").write_bytes(b"hello")
    with pytest.raises(ValueError, match=r"path: expected Parquet files, found .*bad.parquet"):
        bpd.read_parquet(str(tmp_path / "bad.parquet"))
    with pytest.raises(ValueError, match=r"path: expected Parquet files, found .*gone.parquet"):
        bpd.read_parquet([str(tmp_path / "n.parquet"), str(tmp_path / "gone.parquet")])
    cols = [pa.array([0., 1]), pa.array([0., 1]), pa.array([2., 3]), pa.array([2., 3]),
            pa.array([5., 5])]
    pq.write_table(pa.Table.from_arrays(cols, names=["minx", "miny", "maxx", "maxy", "minx"]),
                   tmp_path / "dup.parquet")
    with pytest.raises(ValueError, match=r"found minx more than once"):
        bpd.read_parquet(str(tmp_path / "dup.parquet"))


@pytest.mark.parametrize("kw, error", [
    ({"tile_rows": 0}, ValueError), ({"tile_rows": True}, TypeError),
    ({"tile_rows": 2.5}, TypeError), ({"sample": -1}, ValueError),
])
def test_tile_rows_and_sample_are_positive_ints(kw, error):
    name = next(iter(kw))
    with pytest.raises(error, match=rf"{name}: expected an int"):
        bpd.find_pairs(_B2, **kw)


def test_corners_near_the_largest_double_and_rows_without_a_finite_sample():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow on the way to the tiles
        check(np.array([[1e308, 1e308, 1.5e308, 1.5e308]] * 4), 2, tile_rows=2)
        # the sample meets only the row whose centre overflowed before
        rows = [[1e308, 0, 1.5e308, 1]] + [[i, 0, i + 2, 1] for i in range(9)]
        check(np.array(rows, float), 5, tile_rows=5, sample=1)
        check(np.array([[-1.7e308, 0, -1.6e308, 1], [1.6e308, 0, 1.7e308, 1],
                        [0, 0, 1, 1], [0.5, 0, 2, 1]] * 3), 3, tile_rows=2)
    with pytest.raises(ValueError, match=r"boxes\[\d\]: minx is nan"):
        bpd.find_pairs(da.from_array(np.array([[np.nan, 0, 1, 1]] * 4), chunks=2),
                       tile_rows=2).compute()


@pytest.mark.parametrize("name, value, error", [
    ("groups", np.array([1, 2, 1.5]), r"groups\[2\]: expected an integer, found 1\.5"),
    ("categories", np.array([1, 1, -1]), r"categories\[2\]: expected bits"),
    ("masks", np.array([1, 1, -3]), r"masks\[2\]: expected bits"),
])
def test_a_bad_filter_of_a_box_alone_in_its_tile_is_refused(name, value, error):
    b = np.array([[0, 0, 1, 1], [0.5, 0.5, 2, 2], [100, 100, 101, 101]], float)
    with pytest.raises((TypeError, ValueError), match=error):
        bp.find_pairs(b, **{name: value})
    with pytest.raises((TypeError, ValueError), match=error):
        bpd.find_pairs(da.from_array(b, chunks=2), **{name: da.from_array(value, chunks=2)},
                       tile_rows=1).compute()
