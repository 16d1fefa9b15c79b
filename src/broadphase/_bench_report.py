"""What ``broadphase bench`` reports: its results, their table, CSV and plot, and the machine.

Re-exported by :mod:`broadphase.bench`, which runs the benchmark.
"""

from __future__ import annotations

import csv
import os
import platform
from collections.abc import Sequence
from dataclasses import asdict, dataclass

#: Timed beside our methods, as a yardstick of this machine: ``np.argsort`` of n int64 keys.
BASELINE = "np.argsort"


@dataclass
class Result:
    """One cell of the benchmark: a method (or peer) on a scene of n objects.

    Parameters
    ----------
    scenario, n, method : str, int, str
        The cell: the scene, its number of objects, and who was timed.
    peer : bool
        Whether ``method`` is a Python alternative rather than ours.
    pairs : int, optional
        Pairs found (checked equal to our first method's).
    median_ms, min_ms, first_ms : float, optional
        Median and minimum over the rounds, and the untimed-apart first call.
    rounds : int
        Timed rounds.
    note : str
        Why there is no time (not installed, cannot do the scene, too slow).

    Examples
    --------
    >>> from broadphase.bench import Result
    >>> Result("uniform", 1000, "grid", False, 12, 0.25, 0.2, 0.9, 25).cell()
    '0.25 (0.2)'
    >>> Result("uniform", 10**6, "pyqtree", True, note="not run past 1e4").cell()
    'not run past 1e4'
    """

    scenario: str
    n: int
    method: str
    peer: bool
    pairs: int | None = None
    median_ms: float | None = None
    min_ms: float | None = None
    first_ms: float | None = None
    rounds: int = 0
    note: str = ""

    def cell(self) -> str:
        """``median (min)`` milliseconds, or the note."""
        if self.median_ms is None:
            return self.note
        return f"{_ms(self.median_ms)} ({_ms(self.min_ms)})"


def _ms(v: float) -> str:
    return f"{v:,.3g}" if v < 100 else f"{v:,.0f}"


def table(results: Sequence[Result]) -> str:
    """Markdown table: one row per scenario and n, ``median (min)`` ms per method.

    Examples
    --------
    >>> from broadphase.bench import Result, table
    >>> print(table([Result("uniform", 1000, "auto", False, 2, 0.25, 0.2, 900.0, 5)]))
    | scenario | n | pairs | auto |
    |---|---|---|---|
    | uniform | 1,000 | 2 | 0.25 (0.2) |
    """
    cols = list(dict.fromkeys(r.method for r in results if not r.peer and r.method != BASELINE))
    cols += [BASELINE] * any(r.method == BASELINE for r in results)
    cols += list(dict.fromkeys(r.method for r in results if r.peer))
    lines = ["| scenario | n | pairs | " + " | ".join(cols) + " |", "|---" * (3 + len(cols)) + "|"]
    keys = list(dict.fromkeys((r.scenario, r.n) for r in results))
    for s, n in keys:
        row = {r.method: r for r in results if (r.scenario, r.n) == (s, n)}
        k = next((r.pairs for r in row.values() if r.pairs is not None and not r.peer), None)
        cells = [row[c].cell() if c in row else "" for c in cols]
        lines.append(f"| {s} | {n:,} | {'?' if k is None else f'{k:,}'} | "
                     + " | ".join(cells) + " |")
    return "\n".join(lines)


def write_csv(results: Sequence[Result], path: str) -> None:
    """One line per result, every field of :class:`Result`.

    Parameters
    ----------
    results : sequence of Result
        What :func:`broadphase.bench.run` returned.
    path : str
        The CSV file to write (replaced if it exists).

    Examples
    --------
    >>> import os, tempfile
    >>> from broadphase.bench import Result, write_csv
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> write_csv([Result("uniform", 10, "auto", False, 3, 0.5, 0.4, 9.0, 2)], p)
    >>> open(p).readline().strip()
    'scenario,n,method,peer,pairs,median_ms,min_ms,first_ms,rounds,note'
    """
    names = list(Result.__dataclass_fields__)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=names)
        w.writeheader()
        for r in results:
            w.writerow(asdict(r))


def read_csv(path: str) -> list[Result]:
    """Results written by :func:`write_csv` (to plot or tabulate them again).

    Examples
    --------
    >>> import os, tempfile
    >>> from broadphase.bench import Result, read_csv, write_csv
    >>> p = os.path.join(tempfile.mkdtemp(), "r.csv")
    >>> write_csv([Result("uniform", 10, "auto", False, 3, 0.5, 0.4, 9.0, 2)], p)
    >>> read_csv(p)[0].median_ms
    0.5
    """
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            num = {k: (float(v) if v else None) for k, v in row.items()
                   if k in ("median_ms", "min_ms", "first_ms")}
            out.append(Result(row["scenario"], int(row["n"]), row["method"],
                              row["peer"] == "True", int(row["pairs"]) if row["pairs"] else None,
                              rounds=int(row["rounds"]), note=row["note"], **num))
    return out


def plot(results: Sequence[Result], path: str) -> None:
    """Log-log median time against n, one panel per scenario, one line per method and peer.

    Needs matplotlib (the ``bench`` extra).

    Parameters
    ----------
    results : sequence of Result
        What :func:`broadphase.bench.run` returned.
    path : str
        The image file to write (PNG by its name).

    Examples
    --------
    >>> import os, tempfile
    >>> from broadphase import bench
    >>> p = os.path.join(tempfile.mkdtemp(), "times.png")
    >>> bench.plot(bench.run(["uniform"], [200, 400], methods=["grid"], repeats=1), p)
    >>> os.path.getsize(p) > 0
    True
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(dict.fromkeys(r.scenario for r in results))
    cols = min(3, len(names))
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols + 2, 3.8 * rows), squeeze=False)
    methods = list(dict.fromkeys(r.method for r in results if not r.peer))
    methods += list(dict.fromkeys(r.method for r in results if r.peer))
    colors = plt.get_cmap("tab20")
    lines = {}
    for ax, name in zip(axes.flat, names, strict=False):
        for k, m in enumerate(methods):
            pts = sorted((r.n, r.median_ms) for r in results
                         if r.scenario == name and r.method == m and r.median_ms is not None)
            if pts:
                x, y = zip(*pts, strict=True)
                peer = _is_peer(results, m)
                style = ":" if m == BASELINE else "--" if peer else "-"
                color = "0.55" if m == BASELINE else colors(k % 20)
                (lines[m],) = ax.plot(x, y, style, marker="s" if peer else "o", ms=3,
                                      color=color, label=m)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(name)
        ax.set_xlabel("objects")
        ax.set_ylabel("ms per call (median)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    shown = [m for m in methods if m in lines]
    fig.legend([lines[m] for m in shown], shown, loc="center right", fontsize=8,
               title="solid: broadphase\ndashed: peers\ndotted: yardstick", title_fontsize=8)
    fig.tight_layout(rect=(0, 0, 0.84, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def _is_peer(results, m) -> bool:
    return any(r.peer for r in results if r.method == m)


def machine() -> str:
    """Cores, CPU model, Python and package versions, for the record.

    Examples
    --------
    >>> from broadphase.bench import machine
    >>> "cores" in machine() and "numpy" in machine()
    True
    """
    parts = [f"{platform.machine()}, {os.cpu_count()} cores, {_cpu()}",
             f"Python {platform.python_version()}"]
    for mod in ("numpy", "scipy", "shapely", "rtree", "python-fcl", "pymunk", "fastquadtree",
                "pyqtree", "matplotlib"):
        parts.append(f"{mod} {_version(mod)}")
    return "; ".join(parts)


def _version(mod: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(mod)
    except metadata.PackageNotFoundError:
        name = {"pyqtree": "Pyqtree"}.get(mod)
        try:
            return metadata.version(name) if name else "not installed"
        except metadata.PackageNotFoundError:
            return "not installed"


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
