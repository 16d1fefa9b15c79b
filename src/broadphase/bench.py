"""The benchmark behind ``broadphase bench``: our methods and the Python alternatives.

Every scene is a named scenario shared with the tests and the demo
(:mod:`broadphase.scenarios`): the box scenes, seed 003's ``bullets``
(circles with groups), the 3D scenes (``uniform3d``, ``mixed3d``,
``clustered3d``: boxes of six columns; ``spheres``), ``moving`` (seed 000's bouncing boxes, frame by
frame: ``tree`` is a :class:`~broadphase.LinearQuadtree` moving every box
and calling ``pairs()``, the other methods search each frame from
scratch) and ``sprites`` (two pygame groups of n sprites each:
:func:`broadphase.pygame.groupcollide` against pygame's own).
``np.argsort`` of n random int64 keys is timed alongside, as a yardstick
of this machine (not of others: sorts differ between processors).  Each
of our methods is called once first (the first call pays for fresh
memory and the thread pool starting; reported apart as ``first_ms``), then the methods take
turns round by round, so that a slow spell of the machine does not fall on
one of them alone; median and minimum over the rounds are reported.
Every result, ours and the peers', is checked equal to the first method's
pair set before its time is reported.

Examples
--------
>>> from broadphase import bench
>>> rows = bench.run(["uniform"], [300], methods=["auto", "grid"], repeats=2)
>>> [(r.method, r.pairs) for r in rows[:2]] == [("auto", rows[0].pairs), ("grid", rows[0].pairs)]
True
>>> print(bench.table(rows).splitlines()[0])
| scenario | n | pairs | auto | grid | np.argsort |
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from . import _cast_circles, scenarios
from ._api import METHODS, find_circle_pairs, find_pairs
from ._bench_report import BASELINE, Result, machine, plot, read_csv, table, write_csv
from ._peers import PEERS, NotApplicable, Problem, sprite_pairs
from ._progress import Progress

__all__ = ["SCENARIOS", "Result", "machine", "plot", "read_csv", "run", "table", "write_csv"]

#: Scenario names: the box scenes, the circle scenes, ``moving``, ``sprites`` and the 3D scenes.
SCENARIOS: tuple[str, ...] = (*scenarios.NAMES, *scenarios.CIRCLE_NAMES, "moving", "sprites",
                              *scenarios.NAMES_3D, *scenarios.SPHERE_NAMES)
SIZES = (1_000, 10_000, 100_000, 1_000_000)
#: Our methods whose cost grows faster than n log n are not run past these sizes.
LIMITS = {"brute": 20_000, "sweep": 100_000}
PEER_SECONDS = 3.0  # a slow peer gets as many rounds as fit in this, at least one
INSTALL = "pip install 'broadphase[bench]'"


def default_repeats(n: int) -> int:
    """Rounds per cell: 25 below 1e5, 11 at 1e5, 7 from 1e6 on."""
    return 25 if n < 100_000 else 11 if n < 1_000_000 else 7


class _Scene:
    """A scene's objects, our calls on them, and the problem handed to the peers."""

    def __init__(self, name: str, n: int, methods: Sequence[str], workers: int | None):
        self.name, self.n = name, n
        self.step: Callable[[], None] = lambda: None  # advance one frame (moving only)
        if name in scenarios.CIRCLE_NAMES:
            c, r, g = scenarios.make_circles(name, n)
            xyr, bxs = _cast_circles.circles(c, r)
            self.problem = lambda: Problem(bxs, xyr, g)
            self.calls = {m: (lambda m=m: find_circle_pairs(c, r, groups=g, method=m,
                                                            workers=workers)) for m in methods}
        elif name in scenarios.SPHERE_NAMES:
            c, r = scenarios.make_spheres(name, n)
            xyzr, bxs = _cast_circles.circles(c, r, dims=(3,))
            self.problem = lambda: Problem(bxs, xyzr)
            self.calls = {m: (lambda m=m: find_circle_pairs(c, r, method=m, workers=workers))
                          for m in methods}
        elif name in scenarios.NAMES_3D:
            boxes = scenarios.make_3d(name, n)
            self.problem = lambda: Problem(boxes)
            self.calls = {m: (lambda m=m: find_pairs(boxes, method=m, workers=workers))
                          for m in methods}
        elif name == "moving":
            self._moving(n, methods, workers)
        elif name == "sprites":
            self._sprites(n)
        else:
            boxes = scenarios.make(name, n)
            self.problem = lambda: Problem(boxes)
            self.calls = {m: (lambda m=m: find_pairs(boxes, method=m, workers=workers))
                          for m in methods}

    def _sprites(self, n):
        """Two pygame groups of n sprites each (seed 000's boxes): our groupcollide."""
        from . import pygame as bpg

        pygame = bpg.pygame

        rects = np.rint(scenarios.make("seed000", 2 * n)).astype(int).tolist()
        sprites = []
        for x0, y0, x1, y1 in rects:
            s = pygame.sprite.Sprite()
            s.rect = pygame.Rect(x0, y0, x1 - x0, y1 - y0)
            sprites.append(s)
        ga, gb = pygame.sprite.Group(sprites[:n]), pygame.sprite.Group(sprites[n:])
        self.problem = lambda: Problem(np.asarray(rects, float), sprites=(ga, gb))
        self.calls = {"groupcollide": lambda: sprite_pairs(
            bpg.groupcollide(ga, gb, False, False), ga, gb)}

    def _moving(self, n, methods, workers):
        from ._depth import suggest_depth
        from ._tree import LinearQuadtree

        scene = scenarios.Bouncing(n)
        depth = suggest_depth((0, 0, scene.world, scene.world), scene.SIZE)
        tree = LinearQuadtree((0, 0, scene.world, scene.world), depth, workers=workers)
        frame = {"boxes": scene.boxes()}
        handles = tree.insert(frame["boxes"])

        def step():
            scene.step()
            frame["boxes"] = scene.boxes()

        def tree_frame():
            tree.move(handles, frame["boxes"])
            return tree.pairs()

        self.step = step
        self.problem = lambda: Problem(frame["boxes"])
        self.calls = {"tree": tree_frame}
        self.calls.update({m: (lambda m=m: find_pairs(frame["boxes"], method=m,
                                                      workers=workers)) for m in methods})


def run(scenario_names: Sequence[str] = SCENARIOS, sizes: Sequence[int] = SIZES,
        methods: Sequence[str] = ("auto", *METHODS), peers: bool = False,
        repeats: int | None = None, threads: int | None = None,
        progress: bool = False) -> list[Result]:
    """Time our methods (and the installed peers) on every scenario and size.

    Parameters
    ----------
    scenario_names : sequence of str
        Names from :data:`SCENARIOS`.
    sizes : sequence of int
        Numbers of objects.
    methods : sequence of str
        ``"auto"`` and names from :data:`broadphase.METHODS`; ``moving``
        adds ``"tree"``.
    peers : bool
        Also run the Python alternatives (scipy's cKDTree, shapely's
        STRtree, rtree, python-fcl, pymunk, fastquadtree, pyqtree, NumPy
        brute force); one that is not installed, cannot do a scene (python-fcl
        2D, most others 3D) or is too slow for its n gets a note instead of
        a time.
    repeats : int, optional
        Rounds per cell; by default :func:`default_repeats`.
    threads : int, optional
        Threads of our methods (``workers=``); all cores by default.
    progress : bool
        Draw a progress bar on a terminal.

    Returns
    -------
    list of Result
        Per scenario and size, our methods in order, then the peers.

    Raises
    ------
    AssertionError
        If two of our methods disagree (a bug: please report it).

    Examples
    --------
    >>> from broadphase import bench
    >>> rows = bench.run(["uniform"], [500], methods=["grid", "sweep"], repeats=3)
    >>> [r.method for r in rows], rows[0].pairs == rows[1].pairs
    (['grid', 'sweep', 'np.argsort'], True)
    """
    for s in scenario_names:
        if s not in SCENARIOS:
            raise ValueError(f"scenario: expected one of {', '.join(SCENARIOS)}; found {s!r}")
    for m in methods:
        if m not in ("auto", *METHODS):
            raise ValueError(f"method: expected auto or one of {', '.join(METHODS)}; "
                             f"found {m!r}")
    npeers = len(PEERS) if peers else 0
    out: list[Result] = []
    cells = len(scenario_names) * len(sizes)
    with Progress(cells * (len(methods) + 1 + npeers), "benchmark", progress,
                  unit="timings") as bar:
        for name in scenario_names:
            for n in sizes:
                out += _cell(name, int(n), methods, peers, repeats or default_repeats(n),
                             threads, bar)
    return out


def _cell(name, n, methods, peers, repeats, threads, bar) -> list[Result]:
    if name == "sprites" and importlib.util.find_spec("pygame") is None:
        bar.update(len(methods) + 1 + (len(PEERS) if peers else 0))
        return [Result(name, n, "groupcollide", False,
                       note="needs pygame-ce: pip install 'broadphase[demo]'")]
    if name == "sprites":
        methods = []  # groupcollide only: find_pairs does not take two groups
    ours = [m for m in methods if n <= LIMITS.get(m, n)]
    scene = _Scene(name, n, ours, threads)
    results = {m: Result(name, n, m, False) for m in scene.calls}
    for m in methods:
        if m not in results:
            results[m] = Result(name, n, m, False, note=f"not run above n = {LIMITS[m]:,}")
    for m, fn in scene.calls.items():  # first calls: compile or load the cache
        t = time.perf_counter()
        fn()
        results[m].first_ms = (time.perf_counter() - t) * 1e3
    keys = np.random.default_rng(1).integers(0, 2**62, n)
    timed = {**scene.calls, BASELINE: lambda: np.argsort(keys)}
    results[BASELINE] = Result(name, n, BASELINE, False, note="reference: no pairs")
    times: dict[str, list[float]] = {m: [] for m in timed}
    ref = None
    for _ in range(repeats):
        scene.step()
        ref = None
        for m, fn in timed.items():
            t = time.perf_counter()
            got = fn()
            times[m].append(time.perf_counter() - t)
            if m == BASELINE:
                continue
            if ref is None:
                ref = got
            elif not np.array_equal(ref, got):
                raise AssertionError(f"{m} disagrees with {next(iter(scene.calls))} on "
                                     f"{name}, n = {n}")
    for m, v in times.items():
        r = results[m]
        r.pairs = None if ref is None or m == BASELINE else len(ref)
        r.median_ms, r.min_ms, r.rounds = np.median(v) * 1e3, min(v) * 1e3, len(v)
    bar.update(len(methods) + 1)
    order = [m for m in ("tree", "groupcollide") if m in results] + list(methods) + [BASELINE]
    rows = [results[m] for m in order]
    if peers:
        problem = scene.problem()
        for p in PEERS:
            rows.append(_peer(p, problem, name, n, ref, repeats))
            bar.update(1)
    return rows


def _peer(p, problem: Problem, name: str, n: int, ref, repeats: int) -> Result:
    r = Result(name, n, p.name, True)
    if not p.available():
        r.note = f"not installed: {INSTALL}"
        return r
    if (problem.sprites is not None) != (p.name == "pygame groupcollide"):
        r.note = "n/a: sprite groups only" if problem.sprites is None else "n/a: not sprites"
        return r
    if problem.dim not in p.dims:
        r.note = f"n/a: {' and '.join(f'{d}D' for d in p.dims)} only"
        return r
    if p.limit is not None and n > p.limit:
        r.note = f"not run above n = {p.limit:,} (a Python loop per object)"
        return r
    try:
        t = time.perf_counter()
        got = p.run(problem)
        first = time.perf_counter() - t
    except NotApplicable as e:
        r.note = f"n/a: {e}"
        return r
    except Exception as e:  # a peer's own failure (another version's API): mark it, go on
        r.note = f"failed: {type(e).__name__}: {str(e)[:80]}"
        return r
    r.first_ms = first * 1e3
    if ref is not None and not np.array_equal(ref, got):
        r.note = f"wrong pair set: {len(got):,} pairs, ours {len(ref):,}"
        return r
    r.pairs = len(got)
    v = []
    for _ in range(max(1, min(repeats, int(PEER_SECONDS / max(first, 1e-6))))):
        t = time.perf_counter()
        p.run(problem)
        v.append(time.perf_counter() - t)
    r.median_ms, r.min_ms, r.rounds = np.median(v) * 1e3, min(v) * 1e3, len(v)
    return r


def first_call_seconds() -> tuple[float, float]:
    """Seconds of import + first calls in a fresh process.

    Returns ``(whole, calls)``: with the import, and the first calls alone.
    """
    code = (
        "import time; t = time.perf_counter(); import numpy as np, broadphase as bp; "
        "b = np.random.default_rng(0).uniform(0, 100, (1000, 2)); "
        "b = np.hstack([b, b + 3]); t1 = time.perf_counter(); bp.find_pairs(b); "
        "bp.find_circle_pairs(b[:, :2], 1.0); "
        "print(time.perf_counter() - t, time.perf_counter() - t1)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])
