"""Our methods before and after a change, every cell of the bench table, in one run.

Usage (``OLD`` is the commit to compare with; ``BEFORE_SRC`` and ``BEFORE_VENV`` are
folders of your choice, as in docs/benchmarks.md, "Comparing two versions")::

    git worktree add BEFORE_SRC OLD
    python3 -m venv BEFORE_VENV && BEFORE_VENV/bin/pip install BEFORE_SRC
    python benchmarks/before_after.py BEFORE_VENV .venv --out before_after --rounds 3

Both installs run ``broadphase bench --csv`` on one scene at a time, taking
turns (before, after, then after, before in the next round ...), so slow
drift of the machine (other tenants, memory compaction) falls on both sides
alike rather than on whichever ran second.  A cell's figure is the median,
over the rounds, of the bench's per-round median; the best of the per-round
medians is given too (a round that other work on the machine slowed shows
there as an outlier, not as a slower build).  Writes ``OUT/compare.md``:
each cell's before and after milliseconds and their ratios, the cells that
are not faster listed first.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
from pathlib import Path

SCENES = ("uniform", "clustered", "mixed", "straddlers", "elongated", "wide", "seed000",
          "bullets")
SIZES = ("1000", "10000", "100000", "1000000")


def run_side(venv: Path, scene: str, sizes, out: Path) -> list[dict]:
    """One ``broadphase bench`` of one scene; its CSV rows (our methods only)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(venv / "bin" / "broadphase"), "bench", "--scenario", scene, "--n",
                    *sizes, "--csv", str(out)], check=True, capture_output=True)
    with open(out, newline="") as f:
        return [r for r in csv.DictReader(f) if r["median_ms"] and r["method"] != "np.argsort"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path, help="virtual environment of the old install")
    ap.add_argument("after", type=Path, help="virtual environment of the new install")
    ap.add_argument("--out", type=Path, default=Path("before_after"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenario", nargs="+", default=SCENES)
    ap.add_argument("--n", nargs="+", default=SIZES)
    args = ap.parse_args(argv)
    times: dict[tuple, dict[str, list[float]]] = {}
    for r in range(args.rounds):
        for s, scene in enumerate(args.scenario):
            sides = ("before", "after") if (r + s) % 2 == 0 else ("after", "before")
            for side in sides:
                venv = args.before if side == "before" else args.after
                rows = run_side(venv, scene, args.n, args.out / f"{side}-{scene}-{r}.csv")
                for row in rows:
                    key = (row["scenario"], int(row["n"]), row["method"])
                    times.setdefault(key, {"before": [], "after": []})[side].append(
                        float(row["median_ms"]))
            print(f"round {r + 1}/{args.rounds}: {scene} done", flush=True)
    cells = []
    for key, v in times.items():
        if len(v["before"]) == len(v["after"]) == args.rounds:
            b, a = statistics.median(v["before"]), statistics.median(v["after"])
            best = min(v["after"]) / min(v["before"])
            cells.append((a / b, key, b, a, best, v))
    slower = [c for c in cells if c[0] >= 1.0]
    slower_best = [c for c in cells if c[4] >= 1.0]
    lines = [f"{len(cells) - len(slower)} of {len(cells)} cells faster after by the median of "
             f"the per-round medians, {len(cells) - len(slower_best)} by the best of them "
             f"({args.rounds} rounds, taking turns; ms).", "",
             "| scenario | n | method | before | after | after / before | best after / best "
             "before | rounds before | rounds after |", "|---|---|---|---|---|---|---|---|---|"]
    for ratio, (scene, n, m), b, a, best, v in sorted(slower, reverse=True) + sorted(
            (c for c in cells if c[0] < 1.0), key=lambda c: c[1]):
        each = [" ".join(f"{x:.3g}" for x in v[side]) for side in ("before", "after")]
        lines.append(f"| {scene} | {n:,} | {m} | {b:.3g} | {a:.3g} | {ratio:.2f} | {best:.2f} | "
                     f"{each[0]} | {each[1]} |")
    (args.out / "compare.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:1] + [ln for ln in lines[4:4 + len(slower)]]))


if __name__ == "__main__":
    main()
