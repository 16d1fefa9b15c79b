"""The ``broadphase`` command (also ``python -m broadphase``).

``broadphase pairs INPUT``: the colliding pairs of the boxes or circles in a
file.  ``broadphase bench``: how fast, against what.  ``broadphase demo``:
the seeds' scenes live (pygame-ce).

Examples
--------
>>> from broadphase._cli import main
>>> main(["bench", "--scenario", "seed000", "--n", "300", "--repeats", "1"])  # doctest: +ELLIPSIS
| scenario | n | pairs | auto | brute | sweep | grid | quadtree | np.argsort |
...
First call of each method (not in the table), slowest over the cells, ms: ...
0
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

from . import _io, _io_plan, _tables, bench
from ._api import METHODS, find_circle_pairs, find_pairs


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 done, 1 a problem with the input, an output or the memory, 2 bad
    usage, 130 interrupted (Ctrl-C), 141 the reader of stdout went away.
    Problems a user can fix are one line on stderr, never a traceback.
    """
    ap = _parser()
    args = ap.parse_args(argv)
    if args.command is None:
        ap.print_help()
        return 2
    try:
        return args.run(args)
    except BrokenPipeError:
        # the reader went away (`broadphase pairs big.csv | head -1`): end
        # quietly, as Unix tools do; Python would complain again at exit
        # while flushing stdout, so it goes to /dev/null first
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, a pipe writer's usual status
    except KeyboardInterrupt:
        # Ctrl-C: no output file is left half written (_io.write_pairs)
        print("broadphase: interrupted", file=sys.stderr)
        return 130  # 128 + SIGINT, as shells report it
    except MemoryError as e:
        # the core's message says how many pairs and how much memory they need
        print(f"broadphase: {str(e) or 'out of memory'}", file=sys.stderr)
        return 1
    except (ValueError, TypeError) as e:  # _io.InputError included
        print(f"broadphase {args.command}: {e}", file=sys.stderr)
        return 1
    except OSError as e:  # a file that cannot be read or written, a full disk
        where = f"{e.filename}: " if e.filename is not None else ""
        print(f"broadphase {args.command}: {where}{e.strerror or e}", file=sys.stderr)
        return 1


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="broadphase",
        description="Every colliding pair among many boxes, circles or spheres (2D or 3D), "
        "exactly and fast.")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("pairs", help="the colliding pairs of the boxes, circles or spheres "
                       "in a file",
                       description="Read boxes (minx,miny,maxx,maxy) or circles (x,y,r) from "
                       "a .csv or .npy file and write every colliding pair "
                       "(i,j: row numbers from 0, i < j, sorted) to a .csv or .npy file, or "
                       "to stdout as CSV. Count and time go to stderr. A CSV header is "
                       "optional; when present its names say what the rows are, in any order "
                       "and case, other columns (an id, ...) ignored: corners minx,miny,maxx,"
                       "maxy (or xmin,ymin,xmax,ymax; left,bottom,right,top; x0,y0,x1,y1), "
                       "corner and size x,y,w,h (or width,height), circles x,y,r (or radius; "
                       "no --circles needed). In 3D: rows of six columns are boxes minx,miny,"
                       "minz,maxx,maxy,maxz (or x,y,z,w,h,d, depth, zmin, zmax, z0, z1 by "
                       "their header), and spheres x,y,z,r come with their header or "
                       "--spheres (four columns without either are 2D boxes). Fields are "
                       "separated by commas, semicolons, tabs or whitespace, as the first "
                       "line shows (or --delimiter).")
    p.add_argument("input", metavar="INPUT",
                   help=".csv or .npy file of boxes, circles or spheres")
    p.add_argument("-o", "--output", metavar="OUTPUT",
                   help=".csv or .npy file for the pairs, with the mode new files get (0666 "
                   "less the umask), replacing the file there whole (default: CSV on stdout)")
    balls = p.add_mutually_exclusive_group()
    balls.add_argument("--circles", action="store_true", help="rows are circles x,y,r")
    balls.add_argument("--spheres", action="store_true", help="rows are spheres x,y,z,r")
    p.add_argument("--format", choices=("corners", "xywh"),
                   help="boxes as corners (minx,miny,maxx,maxy; 3D minx,miny,minz,maxx,maxy,"
                   "maxz) or as corner and size (x,y,w,h; 3D x,y,z,w,h,d): for files "
                   "without a header, .npy files and --columns (default corners)")
    p.add_argument("--columns", metavar="A,B,...", type=_column_list,
                   help="the columns to read, by header name or 0-based index, in the order "
                   "of the rows' layout (4 or 6 for boxes, as --format says; x,y,r with "
                   "--circles, x,y,z,r with --spheres), e.g. --columns 1,2,3,4 or "
                   "--columns lon0,lat0,lon1,lat1")
    p.add_argument("--delimiter", metavar="D", type=_delimiter, default=False,
                   help="the CSV field separator: , ; tab or whitespace (default: the first "
                   "line's)")
    p.add_argument("--method", default="auto", choices=("auto", *METHODS, "octree"),
                   help="every method gives the same pairs; in 3D quadtree is the octree "
                   "(also spelled octree)")
    p.add_argument("--touching", action="store_true",
                   help="closed boxes: boxes that share an edge, a face or a corner collide "
                   "(as shapely's intersects on envelopes, STRtree and geopandas' sjoin)")
    p.set_defaults(run=_pairs)
    b = sub.add_parser("bench", help="time our methods and the Python alternatives",
                       description="Time find_pairs per method on named scenarios (median "
                       "and min milliseconds over rounds; the first call apart) and, "
                       "with --peers, every installed alternative, each checked to find "
                       "the same pairs. The 3D scenarios are uniform3d, mixed3d and "
                       "clustered3d (cubes) and spheres; a peer of the other dimension "
                       "only is marked n/a.")
    b.add_argument("--scenario", nargs="+", default=["uniform"], choices=bench.SCENARIOS,
                   metavar="S", help=f"one or more of {', '.join(bench.SCENARIOS)} "
                   "(default uniform)")
    b.add_argument("--n", nargs="+", type=int, default=[1_000, 10_000, 100_000], metavar="N",
                   help="numbers of objects (default 1000 10000 100000)")
    b.add_argument("--method", nargs="+", default=["auto", *METHODS],
                   choices=("auto", *METHODS), metavar="M",
                   help=f"auto and/or {', '.join(METHODS)} (default all)")
    b.add_argument("--peers", action="store_true",
                   help=f"also time the installed alternatives ({bench.INSTALL})")
    b.add_argument("--repeats", type=_positive, metavar="R",
                   help="rounds per cell (default 25 below 1e5, 11 from 1e5, 7 from 1e6)")
    b.add_argument("--threads", type=int, metavar="T", help="threads for our methods")
    b.add_argument("--csv", metavar="FILE", help="also write every result to this CSV file")
    b.add_argument("--plot", metavar="FILE.png", help="draw time against n (needs matplotlib)")
    b.add_argument("--markdown", metavar="FILE",
                   help="also write the machine, start-up time and the table as Markdown")
    b.set_defaults(run=_bench)
    d = sub.add_parser("demo", help="the seeds' scenes live in a pygame-ce window",
                       description="Animate a seed's scene: objects turn red when they touch; "
                       "keys 0-6 switch the method (0 none, 1 brute, 2 sweep, 3 grid, 4 the "
                       "moving tree, 5 auto, 6 quadtree), +/- double or halve the objects, G "
                       "shows the quadtree cells, Space pauses, S saves a screenshot (the HUD "
                       "says where). The bullets scene: F fast bullets, W swept pairs (those "
                       "only they catch in yellow). The morton scene: arrow keys move the box, "
                       "a click shows a cell's Morton number. The sight scene: rays from the "
                       "mouse to the first wall each meets. Needs pygame-ce (pip install "
                       "'broadphase[demo]').")
    d.add_argument("--scene", default="rects",
                   choices=("rects", "bullets", "circles", "morton", "sight"))
    d.add_argument("--n", type=_positive,
                   help="objects (bullets: per ring; sight: rays); the seed's by default")
    d.add_argument("--method", default="auto", choices=("none", "auto", *METHODS, "tree"))
    d.add_argument("--headless", action="store_true", help="no window (SDL dummy driver)")
    d.add_argument("--frames", type=_positive, metavar="K", help="stop after K frames")
    d.add_argument("--screenshot", metavar="FILE.png", help="save the last frame")
    d.add_argument("--keys", default="", metavar="KEYS",
                   help="keys pressed before the first frame, e.g. G (cells) or FW (bullets: "
                   "fast, swept pairs)")
    d.set_defaults(run=_demo)
    return ap


def _positive(text: str) -> int:
    """An argument that counts something: an int of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, found {value}")
    return value


def _column_list(text: str) -> list[str]:
    """A ``--columns`` argument: comma-separated names or indices, none empty."""
    parts = [v.strip() for v in text.split(",")]
    if not all(parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated column names or 0-based "
                                         f"indices, found {text!r}")
    return parts


def _delimiter(text: str) -> str | None:
    """A ``--delimiter`` argument (None: whitespace)."""
    try:
        return _io_plan.delimiter_option(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _check_file_to_write(path: str | None, option: str) -> None:
    """Refuse an output file that cannot be written before any work is done."""
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise _io.InputError(f"{option} {path}: is a folder, expected a file to write")
    if not p.parent.resolve().is_dir():
        raise _io.InputError(f"{option} {path}: the folder {p.parent} does not exist")


def _check_npy(path: str, columns: tuple[str, ...]) -> None:
    """Name what ``numpy.load`` reads without a word: an empty file, a ``.npz`` archive."""
    p = Path(path)
    if p.suffix.lower() != ".npy" or not p.is_file():
        return  # _io.read_table names the problem
    with open(p, "rb") as f:
        head = f.read(4)
    wanted = (f"an array of shape (n, {len(columns)}) ({', '.join(columns)}) saved by "
              "numpy.save")
    if not head:
        raise _io.InputError(f"{path}: empty file (0 bytes), expected {wanted}")
    if head == b"PK\x03\x04":
        raise _io.InputError(f"{path}: a .npz archive of arrays (numpy.savez), expected {wanted}")


#: Objects from which ``--method brute`` (n^2 / 2 tests) gets a warning.
BRUTE_WARN = 50_000


def _plural(k: int, one: str, many: str) -> str:
    return f"{k:,} {one if k == 1 else many}"


def _plan(args) -> _io_plan.Plan:
    """What the rows of the input are, and which of its columns are read.

    An option first (the header must then agree), then a CSV header; without
    either, six columns are 3D boxes and anything else is read as 2D boxes,
    as before 3D (four columns are never taken for spheres unasked).
    """
    balls = "circles" if args.circles else "spheres" if args.spheres else None
    if balls and args.format:
        raise _io.InputError(f"--format {args.format}: reads boxes, not --{balls}")
    options = {} if args.delimiter is False else {"delimiter": args.delimiter}
    return _io_plan.plan(args.input, balls=balls, format=args.format, select=args.columns,
                         **options)


def _pairs(args) -> int:
    _io.check_output(args.output)
    plan = _plan(args)
    layout = plan.layout
    circles = plan.balls
    if circles and args.touching:
        raise _io.InputError(f"--touching: applies to boxes, found {layout} in {args.input} "
                             "(circles and spheres that touch never collide)")
    _check_npy(args.input, plan.columns)
    t0 = time.perf_counter()
    data, first_line = _io.read_table(args.input, plan)
    t1 = time.perf_counter()
    n = data.shape[0]
    if args.method == "brute" and n >= BRUTE_WARN:
        print(f"broadphase pairs: --method brute tests all {n * (n - 1) // 2:,} pairs of "
              f"{n:,} objects, which takes minutes; the default (auto) gives the same pairs",
              file=sys.stderr)
    try:
        if circles:  # centres, then the radius
            pairs = find_circle_pairs(data[:, :-1], data[:, -1], method=args.method)
        else:  # 2D or 3D by the columns read
            if plan.layout in ("corners", "corners3d") and plan.header:
                _tables.y_up(data, [plan.labels[k] for k in plan.usecols], "boxes")
            pairs = find_pairs(data, method=args.method, touching=args.touching,
                               format="xywh" if layout in ("xywh", "xywh3d") else None)
    except ValueError as e:
        message = _locate(str(e), args.input, first_line)
        if plan.guessed and re.search(r": min[xyz] \S+ > max[xyz] ", message):
            message += " (rows of x,y,w,h, corner and size? pass --format xywh)"
        raise _io.InputError(message) from None
    t2 = time.perf_counter()
    try:
        _io.write_pairs(args.output, pairs)
    except BrokenPipeError:
        raise
    except OSError as e:
        raise _io.InputError(f"{args.output or 'stdout'}: cannot write the pairs "
                             f"({e.strerror or e})") from None
    t3 = time.perf_counter()
    what = {"circles": ("circle", "circles"), "spheres": ("sphere", "spheres"),
            "corners3d": ("3D box", "3D boxes"), "xywh3d": ("3D box", "3D boxes")
            }.get(layout, ("box", "boxes"))
    print(f"{_plural(n, *what)}, {_plural(len(pairs), 'colliding pair', 'colliding pairs')}; "
          "search "
          f"{(t2 - t1) * 1e3:.1f} ms (method {args.method}), "
          f"read {(t1 - t0) * 1e3:.0f} ms, write {(t3 - t2) * 1e3:.0f} ms",
          file=sys.stderr)
    return 0


def _locate(message: str, path: str, first_line: int) -> str:
    """Add the file and line to a validation error naming a row (``boxes[17]: ...``)."""
    head, sep, rest = message.partition("]")
    name, bracket, row = head.partition("[")
    if sep and bracket and row.isdigit() and first_line:
        return f"{path}, line {first_line + int(row)}: {message}"
    return f"{path}: {message}"


def _bench(args) -> int:
    for path, option in ((args.csv, "--csv"), (args.plot, "--plot"),
                         (args.markdown, "--markdown")):
        _check_file_to_write(path, option)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print(f"broadphase bench: --plot needs matplotlib: {bench.INSTALL}",
                  file=sys.stderr)
            return 2
    if args.peers:
        missing = [p.pip for p in bench.PEERS if not p.available()]
        if missing:
            print(f"broadphase bench: not installed, marked in the table: {', '.join(missing)} "
                  f"({bench.INSTALL})", file=sys.stderr)
    rows = bench.run(args.scenario, args.n, args.method, args.peers, args.repeats,
                     args.threads, progress=True)
    text = bench.table(rows)
    print(text)
    first = {}
    for r in rows:  # the first call per method: page faults, the thread pool starting
        if not r.peer and r.first_ms is not None:
            first[r.method] = max(first.get(r.method, 0.0), r.first_ms)
    if first:
        print("\nFirst call of each method (not in the table), slowest over the cells, ms: "
              + ", ".join(f"{m} {v:,.0f}" for m, v in first.items()))
    if args.csv:
        bench.write_csv(rows, args.csv)
    if args.plot:
        bench.plot(rows, args.plot)
    if args.markdown:
        whole, _ = bench.first_call_seconds()
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write(f"Machine: {bench.machine()}\n\n"
                    f"Start-up: a new process imports broadphase and makes its first calls "
                    f"(1,000 boxes, then circles) in {whole * 1e3:.0f} ms.\n\n"
                    "Median (min) milliseconds per call, first call apart; "
                    "pairs = colliding pairs found.\n\n" + text + "\n")
    return 0


def _demo(args) -> int:
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # the demo's output only
    try:
        import pygame  # noqa: F401
    except ImportError:
        print("broadphase demo: needs pygame-ce: pip install 'broadphase[demo]'", file=sys.stderr)
        return 2
    _check_file_to_write(args.screenshot, "--screenshot")
    from . import demo

    stats = demo.run(args.scene, args.n, args.method, args.headless, args.frames,
                     args.screenshot, keys=args.keys)
    print(f"{stats['frames']} frames of {args.scene}: {stats['objects']:,} objects, "
          f"{stats['pairs']:,} pairs in the last; collision {stats['collide_ms']:.2f} ms, "
          f"drawing {stats['draw_ms']:.2f} ms (moving averages)", file=sys.stderr)
    return 0
