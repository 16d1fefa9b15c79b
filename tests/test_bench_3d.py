"""``broadphase bench`` on the 3D scenes: our methods and the peers, against a NumPy reference."""

import importlib.util

import numpy as np
import pytest

from broadphase import _peers, bench, scenarios

N = 300
BOXES = scenarios.NAMES_3D
SCENES = (*BOXES, *scenarios.SPHERE_NAMES)
OURS = ("auto", "brute", "sweep", "grid", "quadtree")
HAS_FCL = importlib.util.find_spec("fcl") is not None


def reference_boxes(b):
    """Every pair of strictly overlapping boxes (any dimension), all n^2 tests."""
    d = b.shape[1] // 2
    lo, hi = b[:, :d], b[:, d:]
    hit = ((lo[:, None, :] < hi[None, :, :]) & (lo[None, :, :] < hi[:, None, :])).all(2)
    i, j = np.nonzero(np.triu(hit, 1))  # row-major: sorted, i < j
    return np.stack([i, j], 1).astype(np.intp).reshape(-1, 2)


def reference_spheres(c, r):
    """Every pair with |c_i - c_j| < r_i + r_j; no pair is near enough the limit for rounding."""
    d2 = ((c[:, None, :] - c[None, :, :]) ** 2).sum(2)
    s2 = (r[:, None] + r[None, :]) ** 2
    upper = np.triu(np.ones(d2.shape, bool), 1)
    assert (np.abs(d2 - s2)[upper] > 1e-9 * s2[upper]).all()  # floats decide it right here
    i, j = np.nonzero((d2 < s2) & upper)
    return np.stack([i, j], 1).astype(np.intp).reshape(-1, 2)


def reference(name, n=N):
    if name in scenarios.SPHERE_NAMES:
        return reference_spheres(*scenarios.make_spheres(name, n))
    return reference_boxes(scenarios.make_3d(name, n))


def fcl_raw_pairs(boxes=None, spheres=None):
    """python-fcl's own answer, unfiltered: the pairs of its contacts."""
    import fcl

    if spheres is not None:
        c, r = spheres
        geoms = [fcl.Sphere(float(x)) for x in r]
    else:
        c = (boxes[:, :3] + boxes[:, 3:]) / 2
        geoms = [fcl.Box(*e) for e in (boxes[:, 3:] - boxes[:, :3]).tolist()]
    objs = [fcl.CollisionObject(g, fcl.Transform(x)) for g, x in zip(geoms, c, strict=True)]
    manager = fcl.DynamicAABBTreeCollisionManager()
    manager.registerObjects(objs)
    manager.setup()
    data = fcl.CollisionData(request=fcl.CollisionRequest(num_max_contacts=10**9))
    manager.collide(data, fcl.defaultCollisionCallback)
    where = {id(g): k for k, g in enumerate(geoms)}
    pairs = {tuple(sorted((where[id(x.o1)], where[id(x.o2)]))) for x in data.result.contacts}
    return np.array(sorted(pairs), np.intp).reshape(-1, 2)


@pytest.fixture(scope="module")
def rows():
    return bench.run(SCENES, [N], peers=True, repeats=1)


def test_3d_scenes_are_bench_scenarios():
    assert set(SCENES) <= set(bench.SCENARIOS)
    assert len(set(bench.SCENARIOS)) == len(bench.SCENARIOS)


@pytest.mark.parametrize("name", SCENES)
def test_our_methods_find_the_reference_pairs(rows, name):
    ref = reference(name)
    assert len(ref) > N // 2  # a few pairs per object: the check means something
    mine = {r.method: r for r in rows if r.scenario == name and not r.peer}
    assert list(mine) == [*OURS, bench.BASELINE]
    for m in OURS:
        assert mine[m].pairs == len(ref) and mine[m].median_ms > 0 and mine[m].rounds == 1
        assert mine[m].note == "", mine[m]


@pytest.mark.parametrize("name", SCENES)
def test_peers_in_the_table(rows, name):
    peers = {r.method: r for r in rows if r.scenario == name and r.peer}
    assert list(peers) == [p.name for p in bench.PEERS]
    n_ref = len(reference(name))
    for p in bench.PEERS:
        r = peers[p.name]
        assert "wrong pair set" not in r.note and "failed" not in r.note, r
        if not p.available():
            assert r.note.startswith("not installed") and r.median_ms is None, r
        elif p.name == "pygame groupcollide":
            assert r.note == "n/a: sprite groups only", r
        elif 3 not in p.dims:
            assert r.note == "n/a: 2D only" and r.median_ms is None, r
        elif p.name == "scipy cKDTree" and name == "mixed3d":  # one distance for all
            assert r.note == "n/a: sizes differ: query_pairs takes one distance", r
        else:
            assert r.median_ms is not None and r.pairs == n_ref, r
    assert peers["scipy cKDTree"].median_ms is not None or name == "mixed3d"
    assert peers["numpy brute"].pairs == n_ref
    if HAS_FCL:
        assert peers["python-fcl"].pairs == n_ref


def test_the_table_names_every_column(rows):
    head = bench.table(rows).splitlines()[0]
    assert head.startswith("| scenario | n | pairs | auto | brute | sweep | grid | quadtree |")
    assert "| scipy cKDTree |" in head and "| python-fcl |" in head


@pytest.mark.parametrize("name", SCENES)
def test_each_3d_peer_gives_the_reference_array(name):
    problem = bench._Scene(name, N, [], None).problem()
    assert problem.dim == 3
    ref = reference(name)
    for p in bench.PEERS:
        if 3 not in p.dims or not p.available():
            continue
        if p.name == "scipy cKDTree" and name == "mixed3d":
            with pytest.raises(_peers.NotApplicable, match="sizes differ"):
                p.run(problem)
            continue
        got = p.run(problem)
        assert got.dtype == np.intp and got.shape[1:] == (2,)
        np.testing.assert_array_equal(got, ref, err_msg=p.name)


# ---------------------------------------------------------------------------
# python-fcl: what it counts as a collision


@pytest.mark.skipif(not HAS_FCL, reason="needs python-fcl (the bench extra)")
def test_fcl_counts_touching_boxes_the_filter_drops_them():
    boxes = np.array([
        [0, 0, 0, 1, 1, 1],
        [1, 0, 0, 2, 1, 1],  # shares a face with 0
        [1, 1, 0, 2, 2, 1],  # shares an edge with 0, a face with 1
        [1, 1, 1, 2, 2, 2],  # shares a corner with 0, a face with 2
        [5, 5, 5, 7, 7, 7],
        [6, 6, 6, 8, 8, 8],  # overlaps 4
    ], float)
    raw = fcl_raw_pairs(boxes)
    assert raw.tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3], [4, 5]]
    strict = reference_boxes(boxes)
    assert strict.tolist() == [[4, 5]]
    np.testing.assert_array_equal(_peers._fcl(_peers.Problem(boxes)), strict)


@pytest.mark.skipif(not HAS_FCL, reason="needs python-fcl (the bench extra)")
def test_fcl_counts_touching_spheres_the_filter_drops_them():
    c = np.array([[0, 0, 0], [2, 0, 0], [1, 1, 0], [9, 9, 9]], float)
    r = np.array([1, 1, 1, 1], float)
    assert fcl_raw_pairs(spheres=(c, r)).tolist() == [[0, 1], [0, 2], [1, 2]]  # 0-1 touch
    xyzr = np.hstack([c, r[:, None]])
    got = _peers._fcl(_peers.Problem(np.hstack([c - 1, c + 1]), xyzr))
    assert got.tolist() == [[0, 2], [1, 2]]  # 2 is sqrt(2) < 2 from 0 and from 1


@pytest.mark.skipif(not HAS_FCL, reason="needs python-fcl (the bench extra)")
@pytest.mark.parametrize("name", SCENES)
def test_fcl_alone_agrees_on_the_scenes(name):
    # random floats: no two objects touch exactly, so fcl's own rule gives our pairs
    if name in scenarios.SPHERE_NAMES:
        raw = fcl_raw_pairs(spheres=scenarios.make_spheres(name, 2000))
    else:
        raw = fcl_raw_pairs(scenarios.make_3d(name, 2000))
    np.testing.assert_array_equal(raw, reference(name, 2000))


# ---------------------------------------------------------------------------
# the peers' dimensions


def test_a_peer_of_the_other_dimension_is_marked(monkeypatch):
    two_d = _peers.Peer("flat", "numpy", "numpy", None, _peers._numpy_brute)
    three_d = _peers.Peer("deep", "numpy", "numpy", None, _peers._numpy_brute, dims=(3,))
    monkeypatch.setattr(bench, "PEERS", (two_d, three_d))
    got = bench.run(["uniform", "uniform3d"], [200], methods=["auto"], peers=True, repeats=1)
    notes = {(r.scenario, r.method): (r.note, r.pairs) for r in got if r.peer}
    auto = {r.scenario: r.pairs for r in got if r.method == "auto"}
    assert notes[("uniform", "flat")] == ("", auto["uniform"])
    assert notes[("uniform", "deep")] == ("n/a: 3D only", None)
    assert notes[("uniform3d", "flat")] == ("n/a: 2D only", None)
    assert notes[("uniform3d", "deep")] == ("", auto["uniform3d"])


def test_ckdtree_takes_circles_of_several_radii():
    rng = np.random.default_rng(5)
    for d in (2, 3):
        c = rng.uniform(0, 100, (400, d))
        r = 10 ** rng.uniform(-0.5, 0.5, 400)
        xyr = np.hstack([c, r[:, None]])
        p = _peers.Problem(np.hstack([c - r[:, None], c + r[:, None]]), xyr)
        np.testing.assert_array_equal(_peers._ckdtree(p), reference_spheres(c, r))
