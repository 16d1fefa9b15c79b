"""The 3D scenes of ``broadphase.scenarios``: deterministic, the promised shapes and densities."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import broadphase as bp
from broadphase import scenarios

ROOT = Path(__file__).resolve().parent.parent
N = 20_000

# pairs per object at N (about 2, fewer in the clouds: the cubes' sides are a third of
# uniform3d's), with room for the edges of the cube and the draw
DENSITY = {"uniform3d": (1.8, 2.1), "mixed3d": (1.75, 2.15), "clustered3d": (1.1, 1.45),
           "spheres": (2.0, 2.4)}


@pytest.mark.parametrize("name", scenarios.NAMES_3D)
def test_boxes_are_deterministic(name):
    a = scenarios.make_3d(name, 500, seed=3)
    assert np.array_equal(a, scenarios.make_3d(name, 500, seed=3))
    assert not np.array_equal(a, scenarios.make_3d(name, 500, seed=4))
    assert np.array_equal(scenarios.make_3d(name, 500), scenarios.make_3d(name, 500, seed=0))


def test_spheres_are_deterministic():
    c, r = scenarios.make_spheres("spheres", 500, seed=3)
    c2, r2 = scenarios.make_spheres("spheres", 500, seed=3)
    c3, r3 = scenarios.make_spheres("spheres", 500, seed=4)
    assert np.array_equal(c, c2) and np.array_equal(r, r2)
    assert not np.array_equal(c, c3) and not np.array_equal(r, r3)


@pytest.mark.parametrize("name", scenarios.NAMES_3D)
def test_boxes_are_cubes_in_the_world(name):
    b = scenarios.make_3d(name, N)
    assert b.shape == (N, 6) and b.dtype == np.float64 and b.flags.c_contiguous
    sides = b[:, 3:] - b[:, :3]
    assert (sides > 0).all()
    np.testing.assert_allclose(sides, sides[:, :1].repeat(3, 1), rtol=1e-9)  # cubes
    centres = (b[:, :3] + b[:, 3:]) / 2
    inside = ((centres >= 0) & (centres <= 1000)).all(1).mean()
    assert inside > (0.99 if name == "clustered3d" else 0.9999), inside  # clouds' tails only


def test_the_sides():
    uniform = scenarios.make_3d("uniform3d", N)
    side = uniform[0, 3] - uniform[0, 0]
    np.testing.assert_allclose(uniform[:, 3:] - uniform[:, :3], side, rtol=1e-9)  # all equal
    assert side == pytest.approx(1000 * (2 / (4 * N)) ** (1 / 3))  # 2 pairs per box
    clustered = scenarios.make_3d("clustered3d", N)
    np.testing.assert_allclose(clustered[:, 3:] - clustered[:, :3], side / 3, rtol=1e-9)
    mixed = scenarios.make_3d("mixed3d", N)
    s = mixed[:, 3] - mixed[:, 0]
    decades = np.log10(s.max() / s.min())
    assert 1.15 < decades <= 1.2 + 1e-9, decades  # log-uniform over 1.2 decades
    assert 10 ** -0.6 * 0.6 * side <= s.min() and s.max() <= 10 ** 0.6 * 0.6 * side * (1 + 1e-12)


def test_the_spheres():
    c, r = scenarios.make_spheres("spheres", N)
    assert c.shape == (N, 3) and r.shape == (N,) and c.dtype == r.dtype == np.float64
    assert c.flags.c_contiguous and ((c >= 0) & (c <= 1000)).all()
    ratio = r.max() / r.min()
    assert 9.5 < ratio <= 10, ratio  # radii over a decade
    # log-uniform: about as many radii in each half-decade
    low = (r < r.min() * 10 ** 0.5).mean()
    assert 0.45 < low < 0.55, low


@pytest.mark.parametrize("name", [*scenarios.NAMES_3D, *scenarios.SPHERE_NAMES])
def test_pairs_per_object(name):
    if name in scenarios.SPHERE_NAMES:
        pairs = bp.find_circle_pairs(*scenarios.make_spheres(name, N))
    else:
        pairs = bp.find_pairs(scenarios.make_3d(name, N))
    lo, hi = DENSITY[name]
    assert lo < len(pairs) / N < hi, len(pairs) / N


@pytest.mark.parametrize("name", scenarios.NAMES_3D)
def test_density_holds_as_n_grows(name):
    # sizes shrink with n: ten times the objects, about ten times the pairs
    small = len(bp.find_pairs(scenarios.make_3d(name, N // 10))) / (N // 10)
    big = len(bp.find_pairs(scenarios.make_3d(name, N))) / N
    assert 0.8 < small / big < 1.05, (small, big)


def test_3d_names_are_their_own():
    two = {*scenarios.NAMES, *scenarios.CIRCLE_NAMES}
    three = {*scenarios.NAMES_3D, *scenarios.SPHERE_NAMES}
    assert len(three) == 4 and not two & three


@pytest.mark.parametrize(("call", "name", "message"), [
    (scenarios.make_3d, "uniform", "name: expected one of uniform3d, mixed3d, clustered3d; "
                                   "found 'uniform' (a scene of make)"),
    (scenarios.make_spheres, "nope", "name: expected one of spheres; found 'nope'"),
    (scenarios.make, "spheres", "found 'spheres' (a scene of make_spheres)"),
    (scenarios.make_circles, "mixed3d", "found 'mixed3d' (a scene of make_3d)"),
])
def test_unknown_names(call, name, message):
    with pytest.raises(ValueError) as e:
        call(name, 10)
    assert message in str(e.value)


@pytest.mark.parametrize("call, name", [(scenarios.make_3d, "uniform3d"),
                                        (scenarios.make_spheres, "spheres")])
def test_n_at_least_one(call, name):
    with pytest.raises(ValueError, match="n: expected at least 1, found 0"):
        call(name, 0)
    out = call(name, 1)
    assert len(out[0] if isinstance(out, tuple) else out) == 1


def test_three_d_benchmark_uses_the_scenarios():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import three_d
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    assert np.array_equal(three_d.scene("mixed3d", 300), scenarios.make_3d("mixed3d", 300))
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks/three_d.py"), "--n", "2000",
                           "--reps", "1", "--peer-reps", "1"], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-800:]  # it checks its pairs against cKDTree's
    assert '"uniform3d"' in done.stdout and '"spheres"' in done.stdout
