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
    ``os.cpu_count()`` busy-looping processes run while a default call is timed at n = 1e4, 1e5,
    1e6; the ratio is against a ``workers=1`` call timed before the load started.

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


def under_load(pythons: dict[str, str], quick: bool) -> None:
    sizes = (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000)
    min_time, min_calls = (0.05, 3) if quick else (0.2, 5)
    quiet = {(label, n, w): measure(python, min_time, min_calls, n=n, scene="uniform", workers=w)
             for n in sizes for label, python in pythons.items() for w in (1, None)}
    cpus = os.cpu_count() or 1
    busy = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))  # so `finally` runs
    try:
        busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cpus)]
        time.sleep(0.5)
        loaded = {(label, n): measure(python, min_time, min_calls, n=n, scene="uniform")
                  for n in sizes for label, python in pythons.items()}
    finally:
        for p in busy:
            p.kill()
        for p in busy:
            p.wait()
    header = ["n"]
    for label in pythons:
        header += [f"{label} quiet workers=1", f"{label} quiet default",
                   f"{label} loaded default", f"{label} loaded / quiet workers=1"]
    rows = []
    for n in sizes:
        row = [f"{n:,}"]
        for label in pythons:
            one, default, busy_t = (quiet[label, n, 1]["t"], quiet[label, n, None]["t"],
                                    loaded[label, n]["t"])
            row += [ms(one), ms(default), ms(busy_t), f"{busy_t / one:.2f}"]
        rows.append(row)
    print(f"### Under load: {cpus} busy processes on {cpus} CPUs, uniform boxes (ms)\n")
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
        under_load(pythons, args.quick)


if __name__ == "__main__":
    main()
