"""Start-up, per-call and under-load cost of ``find_pairs``, for several interpreters at once.

Usage::

    python benchmarks/runtime.py                   # this interpreter: every section
    python benchmarks/runtime.py --quick           # fewer repeats, no 1e6 cases
    python benchmarks/runtime.py --python before=BEFORE_VENV/bin/python \\
        --python after=.venv/bin/python [--startup] [--per-call] [--load] [--quick]

Each ``--python`` is an interpreter with numpy and broadphase installed, given as ``PATH`` (the
label is the name of its venv) or ``LABEL=PATH``; without one, the interpreter running the
script (``sys.executable``).  ``BEFORE_VENV`` stands for a virtual environment holding another
version of broadphase (docs/benchmarks.md, "Comparing two versions").  Every measurement runs in
a fresh child process of that interpreter (``python -P -c CODE``; the child imports only numpy,
broadphase and the stdlib), with the interpreters taking turns, and each section prints a
markdown table:

``--startup``
    ``import numpy`` alone against ``import numpy; import broadphase; find_pairs(1000 boxes)``:
    the import and first call timed with ``perf_counter`` inside the child (the boxes are made
    before the clock starts), and the whole child's wall time seen by this process, minus that
    of a child that only imports numpy.  Min and median over ``--startup-repeats`` runs.
``--per-call``
    Median time of ``find_pairs(boxes)`` (default method and workers) after one warm-up call, for
    ``n`` uniform boxes of side about ``0.7/sqrt(n)`` in the unit square (n = 100 to 1e6) and a
    "mixed" 1e6 scene whose boxes are 10% ten times bigger; next to the median of ``np.argsort``
    of ``n`` float64 keys (``n <= 1e4``) or int64 keys (1e6), and the ratio of the two.  Calls
    repeat until 0.2 s have gone and at least 5 (1e6: 7) were made.  ``pairs`` is the number of
    pairs found; a ``!`` marks interpreters whose pair arrays differ.
``--load``
    Calls while the machine's CPUs are busy elsewhere: ``os.cpu_count()`` processes each
    spinning a Python loop (``while True: pass``), started half a second before and killed
    after.  Cases: a default ``find_pairs`` of n = 1e4, 1e5, 1e6 uniform boxes, and frames of a
    ``LinearQuadtree`` of 1e5 boxes of 10 x 10 in a 5000 x 5000 world (depth 6) moving 1% of
    them (scattered handles, each ``move`` then ``pairs()``) or all of them, back to back, and
    the 1% frame paced as a game's loop paces it (the next frame at the next tick of 60 a
    second, the thread asleep in between).  Per round, with the machine quiet, the minimum of
    a ``workers=1`` run and of a default run; then, loaded, the 90th percentile (p90) of a
    default run and of a ``workers=1`` run; ``--rounds`` rounds (default 4), interpreters
    taking turns.  The ratios are the loaded p90s over the quiet
    ``workers=1`` minimum: with every CPU busy, a fair share of the machine is about one CPU, so
    a call that takes its fair share stays near 1.  The ``workers=1`` ratio shows what the OS
    gives the calling thread alone: where it is high too, the calling thread itself was put
    aside (a scheduler's time slice of a few milliseconds, in some calls), which no library
    code can prevent.  Two control rows time a plain Python loop on one thread (``for _ in
    range(k): pass``, no library at all) of 40,000 and 560,000 steps, about as long as a 1e4
    and a 1e5 call, under the same load: what the OS gives any single thread of that length.

``--quick`` is for trying the script out: fewer repeats, no 1e6 cases.  The parent also needs only
the stdlib.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

STARTUP_CHILD = r"""
import sys, time
t0 = time.perf_counter()
import numpy as np
out = {"numpy": time.perf_counter() - t0}
if sys.argv[1] == "full":
    rng = np.random.default_rng(0)
    lo = rng.random((1000, 2))
    boxes = np.hstack([lo, lo + 0.022 * rng.uniform(0.5, 1.5, (1000, 2))])
    t1 = time.perf_counter()
    import broadphase
    t2 = time.perf_counter()
    broadphase.find_pairs(boxes)
    out.update(imp=t2 - t1, call=time.perf_counter() - t2)
import json
print(json.dumps(out))
"""

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
import broadphase as bp

spec = json.loads(sys.argv[1])
if spec.get("info"):
    print(json.dumps({"python": sys.version.split()[0], "numpy": np.__version__,
                      "broadphase": bp.__version__, "path": bp.__file__}))
    sys.exit()
n = spec["n"]
rng = np.random.default_rng(0)
side = 0.7 / np.sqrt(n) * rng.uniform(0.5, 1.5, (n, 2))
if spec["scene"] == "mixed":
    side[: n // 10] *= 10
lo = rng.random((n, 2))
boxes = np.hstack([lo, lo + side])

def median_call(f):
    times, start = [], time.perf_counter()
    while len(times) < spec["min_calls"] or time.perf_counter() - start < spec["min_time"]:
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return float(np.median(times))

kw = {} if spec["workers"] is None else {"workers": spec["workers"]}
pairs = bp.find_pairs(boxes, **kw)  # warm-up
out = {"t": median_call(lambda: bp.find_pairs(boxes, **kw)), "pairs": len(pairs),
       "hash": hashlib.sha1(np.ascontiguousarray(pairs, np.int64).tobytes()).hexdigest()}
if spec["keys"]:
    keys = rng.random(n) if spec["keys"] == "float64" else rng.integers(0, 2**62, n)
    np.argsort(keys)
    out["argsort"] = median_call(lambda: np.argsort(keys))
print(json.dumps(out))
"""


LOAD_CHILD = r"""
import json, sys, time
import numpy as np
import broadphase as bp

spec = json.loads(sys.argv[1])
kw = {} if spec["workers"] is None else {"workers": spec["workers"]}
times = []
if spec["case"] == "find_pairs":
    n = spec["n"]
    rng = np.random.default_rng(0)
    side = 0.7 / np.sqrt(n) * rng.uniform(0.5, 1.5, (n, 2))
    lo = rng.random((n, 2))
    boxes = np.hstack([lo, lo + side])
    bp.find_pairs(boxes, **kw)  # warm-up
    for _ in range(spec["calls"]):
        t = time.perf_counter()
        bp.find_pairs(boxes, **kw)
        times.append(time.perf_counter() - t)
elif spec["case"] == "loop":
    # the control: a plain loop on one thread, no library (workers play no part)
    for _ in range(spec["calls"] + 1):
        t = time.perf_counter()
        for _ in range(spec["iters"]):
            pass
        times.append(time.perf_counter() - t)
    times = times[1:]
else:
    n, share = 100_000, spec["share"]
    rng = np.random.default_rng(1)
    lo = rng.uniform(0, 4990, (n, 2))
    boxes = np.hstack([lo, lo + 10])
    tree = bp.LinearQuadtree((0, 0, 5000, 5000), depth=6, **kw)
    h = tree.insert(boxes)
    tree.pairs()
    m = max(1, int(n * share))
    pace, tick = spec.get("pace"), time.perf_counter()
    for k in range(spec["calls"] + 1):
        idx = np.sort(rng.choice(n, m, replace=False)) if m < n else np.arange(n)
        lo = np.clip(boxes[idx, :2] + rng.uniform(-5, 5, (m, 2)), 0, 4990)
        boxes[idx] = np.hstack([lo, lo + 10])
        new = boxes[idx]
        if pace:  # a game's loop: the next frame starts at the next tick
            tick += pace
            time.sleep(max(0.0, tick - time.perf_counter()))
        t = time.perf_counter()
        tree.move(h[idx], new)
        tree.pairs()
        if k:  # the first frame lays the lists out after the insert
            times.append(time.perf_counter() - t)
print(json.dumps(times))
"""


def run_child(python: str, code: str, arg: str) -> tuple[dict, float]:
    """Run ``python -P -c code arg``; its last line of output as JSON, and its wall time."""
    t = time.perf_counter()
    r = subprocess.run([python, "-P", "-c", code, arg], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if r.returncode:
        sys.exit(f"{python} failed on {arg}:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1]), wall


def measure(python: str, min_time: float, min_calls: int, **case) -> dict:
    spec = {"min_time": min_time, "min_calls": min_calls, "keys": None, "workers": None, **case}
    return run_child(python, CHILD, json.dumps(spec))[0]


def ms(seconds: float) -> str:
    v = seconds * 1e3
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def table(header: list[str], rows: list[list[str]]) -> None:
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---:" if i else "---" for i in range(len(header))) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()


def label_of(arg: str) -> tuple[str, str]:
    """``LABEL=PATH`` or ``PATH``, whose label is its venv's name (``.venv``: the folder above)."""
    if "=" in arg and "/" not in arg.split("=", 1)[0]:
        label, path = arg.split("=", 1)
        return label, path
    venv = Path(arg).absolute().parent.parent
    if not (venv / "pyvenv.cfg").exists():
        return arg, arg
    return venv.parent.name if venv.name in (".venv", "venv", "env", ".env") else venv.name, arg


def startup(pythons: dict[str, str], repeats: int) -> None:
    runs: dict[str, dict[str, list[float]]] = {k: {} for k in pythons}
    for _ in range(repeats):
        for label, python in pythons.items():
            r = runs[label]
            base, base_wall = run_child(python, STARTUP_CHILD, "numpy")
            full, full_wall = run_child(python, STARTUP_CHILD, "full")
            for key, v in (("numpy", base["numpy"]), ("imp", full["imp"]), ("call", full["call"]),
                           ("inside", full["imp"] + full["call"]), ("wall0", base_wall),
                           ("wall1", full_wall)):
                r.setdefault(key, []).append(v)
    print(f"### Start-up: cost beyond `import numpy` (ms, {repeats} runs)\n")
    rows = []
    for label, r in runs.items():
        med = {k: statistics.median(v) for k, v in r.items()}
        rows.append([label, ms(med["numpy"]), ms(min(r["inside"])), ms(med["inside"]),
                     ms(med["imp"]), ms(med["call"]), ms(min(r["wall1"]) - min(r["wall0"])),
                     ms(med["wall1"] - med["wall0"]), ms(med["wall0"])])
    table(["interpreter", "import numpy", "import bp + 1st call: min", "median",
           "of which import", "of which call", "child wall beyond numpy-only child: min",
           "median", "numpy-only child wall"], rows)


def per_call(pythons: dict[str, str], quick: bool) -> None:
    cases = [("uniform", 100), ("uniform", 1000), ("uniform", 10_000)]
    if not quick:
        cases += [("uniform", 1_000_000), ("mixed", 1_000_000)]
    header = ["scene", "n", "pairs"]
    for label in pythons:
        header += [f"{label} ms", f"{label} argsort ms", f"{label} / argsort"]
    rows = []
    for scene, n in cases:
        keys = "float64" if n <= 10_000 else "int64"
        min_time, min_calls = (0.05, 3) if quick else (0.2, 5 if n <= 10_000 else 7)
        res = {label: measure(python, min_time, min_calls, n=n, scene=scene, keys=keys)
               for label, python in pythons.items()}
        first = next(iter(res.values()))
        same = all(r["hash"] == first["hash"] for r in res.values())
        row = [scene, f"{n:,}", f"{first['pairs']:,}" + ("" if same else " !")]
        for r in res.values():
            row += [ms(r["t"]), ms(r["argsort"]), f"{r['t'] / r['argsort']:.2f}"]
        rows.append(row)
    print("### Per call: median `find_pairs(boxes)` against `np.argsort` of n keys (ms)\n")
    table(header, rows)


LOAD_CASES = (  # label, spec, calls (quick: a third)
    ("find_pairs 1e4", {"case": "find_pairs", "n": 10_000}, 300),
    ("find_pairs 1e5", {"case": "find_pairs", "n": 100_000}, 60),
    ("find_pairs 1e6", {"case": "find_pairs", "n": 1_000_000}, 15),
    ("tree frame, 1% of 1e5 moving", {"case": "frame", "share": 0.01}, 300),
    ("tree frame, all of 1e5 moving", {"case": "frame", "share": 1.0}, 60),
    ("tree frame, 1% of 1e5 moving, 60 frames a second",
     {"case": "frame", "share": 0.01, "pace": 1 / 60}, 120),
    ("control: plain loop, no library, 40,000 steps", {"case": "loop", "iters": 40_000}, 300),
    ("control: plain loop, no library, 560,000 steps", {"case": "loop", "iters": 560_000}, 60),
)


def load_times(python: str, spec: dict, calls: int, workers) -> list[float]:
    arg = json.dumps({**spec, "calls": calls, "workers": workers})
    return run_child(python, LOAD_CHILD, arg)[0]


def p90(v: list[float]) -> float:
    return statistics.quantiles(v, n=10, method="inclusive")[-1]


def under_load(pythons: dict[str, str], quick: bool, rounds: int) -> None:
    cases = [(case, spec, max(5, calls // 3) if quick else calls)
             for case, spec, calls in LOAD_CASES if not (quick and "1e6" in case)]
    cpus = os.cpu_count() or 1
    # (label, case) -> per round: (quiet workers=1 min, quiet default min, loaded default p90,
    # loaded workers=1 p90)
    res: dict[tuple[str, str], list[tuple[float, float, float, float]]] = {}
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))  # so `finally` runs
    for r in range(rounds):
        order = list(pythons.items()) if r % 2 == 0 else list(pythons.items())[::-1]
        quiet = {}
        for case, spec, calls in cases:
            for label, python in order:
                quiet[label, case] = (min(load_times(python, spec, calls, 1)),
                                      min(load_times(python, spec, calls, None)))
        busy = []
        try:
            busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(cpus)]
            time.sleep(0.5)
            for case, spec, calls in cases:
                for label, python in order:
                    loaded = p90(load_times(python, spec, calls, None))
                    alone = p90(load_times(python, spec, calls, 1))
                    res.setdefault((label, case), []).append((*quiet[label, case], loaded, alone))
        finally:
            for p in busy:
                p.kill()
            for p in busy:
                p.wait()
    print(f"### Under load: {cpus} busy processes on {cpus} CPUs, {rounds} rounds (ms)\n")
    print("Per round: quiet `workers=1` minimum / quiet default minimum / loaded default p90 / "
          "loaded `workers=1` p90; then the loaded default p90 over the quiet `workers=1` "
          "minimum, and the same for the loaded `workers=1` p90 (what the OS gives one thread "
          "of the calling process), per round.\n")
    header = ["case"]
    for label in pythons:
        header += [f"{label}: quiet 1 thread / quiet default / loaded p90 / loaded 1 thread p90",
                   f"{label}: loaded p90 / quiet 1 thread",
                   f"{label}: loaded 1 thread p90 / quiet 1 thread"]
    rows = []
    for case, _, _ in cases:
        row = [case]
        for label in pythons:
            rs = res[label, case]
            row.append("; ".join(f"{ms(a)} / {ms(b)} / {ms(c)} / {ms(d)}" for a, b, c, d in rs))
            row.append(" ".join(f"{c / a:.2f}" for a, _, c, _ in rs))
            row.append(" ".join(f"{d / a:.2f}" for a, _, _, d in rs))
        rows.append(row)
    table(header, rows)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", action="append", metavar="[LABEL=]PATH",
                    help="interpreter with numpy and broadphase installed (repeatable; "
                         "default: this one)")
    ap.add_argument("--startup", action="store_true", help="start-up cost")
    ap.add_argument("--per-call", action="store_true", help="per-call time against argsort")
    ap.add_argument("--load", action="store_true", help="default call with all CPUs busy")
    ap.add_argument("--quick", action="store_true", help="fewer repeats, no 1e6 cases")
    ap.add_argument("--rounds", type=int, default=4, help="rounds of --load (default 4)")
    ap.add_argument("--startup-repeats", type=int, default=None, help="default 5 (quick: 2)")
    args = ap.parse_args(argv)
    pythons: dict[str, str] = {}
    for arg in args.python or [sys.executable]:
        label, path = label_of(arg)
        pythons[label if label not in pythons else f"{label}#{len(pythons) + 1}"] = path
    everything = not (args.startup or args.per_call or args.load)
    for label, python in pythons.items():
        info = run_child(python, CHILD, json.dumps({"info": True}))[0]
        print(f"- **{label}**: `{python}`: Python {info['python']}, numpy {info['numpy']}, "
              f"broadphase {info['broadphase']} from `{info['path']}`")
    print(f"- {os.cpu_count()} CPUs; {'quick run' if args.quick else 'full run'}\n")
    if everything or args.startup:
        startup(pythons, args.startup_repeats or (2 if args.quick else 5))
    if everything or args.per_call:
        per_call(pythons, args.quick)
    if everything or args.load:
        under_load(pythons, args.quick, args.rounds)


if __name__ == "__main__":
    main()
