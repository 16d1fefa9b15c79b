"""benchmarks/md_systems.py on a slice of a solvated system: our pairs against a brute force."""

import json
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import broadphase as bp

pytest.importorskip("MDAnalysis")
pytest.importorskip("MDAnalysisTests")
pytest.importorskip("freud")
pytest.importorskip("scipy")

ROOT = Path(__file__).resolve().parents[1]
KEYS = {"system", "files", "atoms", "box", "cutoff", "threads", "workers", "reps", "pairs",
        "pairs_per_atom", "mdanalysis_method", "ms", "over_ours", "same_pairs"}
TOOLS = {"mdanalysis", "freud", "ckdtree"}


@pytest.fixture(scope="module")
def md():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import md_systems
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return md_systems


@pytest.fixture(scope="module")
def ab42(md):
    files, pos, box = md.load("ab42")
    return files, pos[:3000], box


def brute(pos, cut, period):
    """Every pair with minimum-image |d| < cut: NumPy, and fractions for the near ones."""
    c2 = cut * cut
    out = []
    for i in range(len(pos) - 1):
        d = pos[i + 1:] - pos[i]
        d -= period * np.round(d / period)
        d2 = (d * d).sum(1)
        near = np.abs(d2 - c2) <= 1e-9 * c2
        js = np.nonzero((d2 < c2) & ~near)[0].tolist()
        for j in np.nonzero(near)[0].tolist():
            d2x = sum((min(x % L, L - x % L)) ** 2 for x, L in
                      zip(map(Fraction, (pos[i + 1 + j] - pos[i]).tolist()),
                          map(Fraction, period.tolist()), strict=True))
            if d2x < Fraction(cut) ** 2:
                js.append(j)
        out += [(i, i + 1 + j) for j in sorted(js)]
    return np.array(out, np.intp).reshape(-1, 2)


@pytest.mark.parametrize("cut", [3.5, 6.0])
def test_md_slice(md, ab42, cut):
    files, pos, box = ab42
    assert len(pos) == 3000 and files == ["ab42_gmx_4.6.tpr"]
    period = box[:3]
    pairs = bp.find_point_pairs(pos, cut, period=period)
    ref = brute(pos, cut, period)
    assert len(ref) > 1000
    assert np.array_equal(pairs, ref)

    record = json.loads(json.dumps(md.measure("ab42", files, pos, box, cut, reps=1)))
    assert KEYS <= set(record)
    assert record["atoms"] == 3000 and record["pairs"] == len(ref)
    assert set(record["ms"]) >= {"ours", "ours_distances", *TOOLS}
    assert set(record["same_pairs"]) >= TOOLS
    for name, same in record["same_pairs"].items():
        assert same["ours_right"], name
        assert same["duplicates"] == 0, name
        assert same["equal"] == (same["only_ours"] == same["only_tool"] == 0), name
    # cKDTree counts <=, a tie at the cutoff is the only way it could differ
    ck = record["same_pairs"]["ckdtree"]
    assert ck["only_ours"] == 0 and ck["only_tool"] == ck["ties"]


def test_md_differences_show_ties(md):
    # (0, 1) exactly at the cutoff across the boundary, (0, 2) just inside, (1, 3) just outside
    pos = np.array([[0.25, 5, 5], [16.75, 5, 5], [0.25, 8.5, 5], [16.75, 5, 8.5]])
    box = np.array([20.0, 20.0, 20.0, 90, 90, 90])
    pos[2, 1] = np.nextafter(np.float32(8.5), np.float32(0))
    pos[3, 2] = np.nextafter(np.float32(8.5), np.float32(9))
    record = md.measure("tiny", [], pos, box, 3.5, reps=1)
    assert record["pairs"] == 1  # (0, 2)
    ck = record["same_pairs"]["ckdtree"]
    assert (ck["only_ours"], ck["only_tool"], ck["ties"], ck["ours_right"]) == (0, 1, 1, True)
    assert ck["examples"] == [{"pair": [0, 1], "in": "tool", "exact_d_minus_cutoff": 0.0,
                               "tie": True}]
    assert record["same_pairs"]["mdanalysis"]["ties"] == 1  # it counts <= as well
