"""``python -m broadphase``: the README's first command."""

import subprocess
import sys

import broadphase as bp
from broadphase import scenarios
from broadphase.__main__ import main


def test_main_quiet_returns_zero():
    assert main(["--n", "1000", "--scenario", "seed000", "--quiet"]) == 0


def test_main_prints_the_pair_count(capsys):
    assert main(["--n", "2000", "--scenario", "mixed", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    k = len(bp.find_pairs(scenarios.make("mixed", 2000), method="brute"))
    assert f"2,000 boxes (mixed), method auto: {k:,} colliding pairs" in out


def test_module_runs():
    proc = subprocess.run([sys.executable, "-m", "broadphase", "--n", "500", "--repeats", "0"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-800:]
    assert "colliding pairs" in proc.stdout
