"""Reading tables of boxes or circles and writing pairs, for ``broadphase pairs``.

CSV is read in blocks of lines parsed by NumPy (fast), and only a block
that fails is scanned again in Python to name the line and column of the
first bad field.  A number is read as the double nearest to it; one whose
reading would change what it is (an integer beyond 2**53 in magnitude, a
non-zero number that underflows to 0, one past float64's largest value) is
refused the same way (only the rows that could hold one are looked at
again).  What the rows are, which columns are read and the delimiter are
decided first (:func:`broadphase._io_plan.plan`): a header is read as a
table's column names are (:func:`broadphase._tables.pick_columns`): any
order and case, the usual aliases, other columns ignored.  Output goes to
a temporary file next to the target and is renamed over it at the end, so
an error or an interrupt never leaves a half written file.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from decimal import Decimal, InvalidOperation
from pathlib import Path

import numpy as np

from . import _io_plan, _tables
from ._io_plan import InputError, Plan
from ._io_plan import is_number as _is_number
from ._progress import Progress

BLOCK = 1 << 17  # lines parsed per NumPy call
PROGRESS_ROWS = 1_000_000  # inputs and outputs this big show a bar (on a terminal)
SUFFIXES = (".csv", ".npy")


__all__ = ["InputError", "read_table", "write_pairs", "check_output", "first_width"]


def read_table(path: str | os.PathLike, plan: Plan | tuple[str, ...], progress: bool = True):
    r"""The rows of a ``.csv`` or ``.npy`` file as ``plan`` says: ``(array, first_line)``.

    ``plan`` comes from :func:`broadphase._io_plan.plan`; a tuple of column
    names (a layout's, ``("x", "y", "r")``, ...) is the plan for rows of
    that kind.  The array holds the plan's columns in its layout's order
    (``plan.columns``).  ``first_line`` is the 1-based line of row 0 in a
    CSV file (2 after a header), 0 for ``.npy``, so row ``r`` is on line
    ``first_line + r``.

    Examples
    --------
    >>> import tempfile, os
    >>> from broadphase._io import read_table
    >>> d = tempfile.mkdtemp(); p = os.path.join(d, "b.csv")
    >>> _ = open(p, "w").write("minx,miny,maxx,maxy\n0,0,2,2\n1,1,3,3\n")
    >>> a, first = read_table(p, ("minx", "miny", "maxx", "maxy"))
    >>> a.tolist(), first
    ([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 3.0]], 2)
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise InputError(f"{path}: expected a .csv or .npy file, found {suffix or 'no suffix'}")
    if path.is_dir():
        raise InputError(f"{path}: is a folder, expected a file")
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if not isinstance(plan, Plan):
        balls = {("x", "y", "r"): "circles", ("x", "y", "z", "r"): "spheres"}
        plan = _io_plan.plan(path, balls=balls.get(tuple(plan)))
    if suffix == ".npy":
        return _read_npy(path, plan), 0
    return _read_csv(path, plan, progress)


def _read_npy(path: Path, plan: Plan) -> np.ndarray:
    try:
        arr = np.load(path, allow_pickle=False)
    except ValueError as e:
        raise InputError(f"{path}: not a NumPy array file of numbers ({e})") from None
    columns = plan.columns
    width = len(columns)
    if arr.ndim == 2 and plan.usecols != list(range(width)):  # --columns
        if arr.dtype.kind not in "iuf":
            raise InputError(f"{path}: expected real numbers, found dtype {arr.dtype}")
        return arr[:, plan.usecols]
    if arr.ndim != 2 or arr.shape[1] != width:
        hint = ""
        if arr.ndim == 2 and (arr.shape[1], width) == (3, 4):
            hint = " (circles x,y,r? use --circles)"
        elif arr.ndim == 2 and (arr.shape[1], width) == (4, 3):
            hint = " (boxes? leave out --circles)"
        elif arr.ndim == 2 and arr.shape[1] == 6 and _balls(columns):
            hint = f" (3D boxes? leave out --{'circles' if width == 3 else 'spheres'})"
        raise InputError(f"{path}: expected an array of shape (n, {width}) "
                         f"({', '.join(columns)}), found shape {arr.shape}{hint}")
    if arr.dtype.kind not in "iuf":
        raise InputError(f"{path}: expected real numbers, found dtype {arr.dtype}")
    return arr


def _read_csv(path: Path, plan: Plan, progress: bool):
    width = len(plan.columns)
    size = path.stat().st_size
    blocks = []
    # utf-8-sig: a byte-order mark (Excel writes one) is not part of the first field
    with open(path, encoding="utf-8-sig", newline="") as f, \
            Progress(size, f"reading {path.name}", progress and size > 16 * PROGRESS_ROWS,
                     unit="B") as bar:
        try:
            first = f.readline()
            bar.update(len(first))
            first_line = 2 if plan.header else 1
            lines = [] if plan.header else [first]
            line_no = first_line
            while True:
                more = f.readlines(BLOCK * 32)
                bar.update(sum(map(len, more)))  # characters: bytes for ASCII
                lines.extend(more)
                # blank lines at a block's end wait for the next block: only
                # the end of the file says they are trailing, not empty rows
                body = len(lines)
                while body and not lines[body - 1].strip():
                    body -= 1
                if body:
                    blocks.append(_parse_block(lines[:body], plan, path, line_no))
                    line_no += body
                lines = lines[body:]
                if not more:
                    break  # the blank lines left end the file: dropped
        except UnicodeDecodeError as e:
            raise InputError(f"{path}, line {_line_of_byte(path)}: not UTF-8 text "
                             f"({e.reason})") from None
    data = np.concatenate(blocks) if blocks else np.empty((0, width))
    return data, first_line


def first_width(path: str | os.PathLike) -> int | None:
    """Fields on a CSV file's first line, or columns of a ``.npy`` file's 2-D array.

    The CSV delimiter is the one :func:`broadphase._io_plan.sniff` finds.
    None for an empty file, another shape, or a file that cannot be read
    (:func:`read_table` then says what is wrong).
    """
    p = Path(path)
    if not p.is_file():
        return None
    if p.suffix.lower() == ".npy":
        return _io_plan._npy_width(p)
    try:
        with open(p, encoding="utf-8-sig", newline="") as f:
            first = f.readline()
    except (OSError, ValueError):  # UnicodeDecodeError is a ValueError
        return None
    return len(_io_plan.split(first, _io_plan.sniff(first))) if first.strip() else None


def _balls(columns) -> bool:
    """Whether the columns read (or a header's names) end in a radius: circles or spheres."""
    return any(_tables._CANONICAL.get(str(c).strip().lower()) == "r" for c in columns)


def _line_of_byte(path: Path) -> int:
    """The 1-based line holding the first byte that is not UTF-8."""
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", errors="replace")
    bad = text.find("\ufffd")
    return 1 if bad < 0 else text.count("\n", 0, bad) + 1


def _parse_block(lines, plan: Plan, path, line_no) -> np.ndarray:
    width = len(plan.columns)
    if not lines:
        return np.empty((0, width))
    every = plan.usecols == list(range(plan.width))  # all columns, in order: NumPy checks widths
    try:
        arr = np.loadtxt(lines, delimiter=plan.delimiter, dtype=np.float64, ndmin=2,
                         comments=None, usecols=None if every else plan.usecols)
    except ValueError:
        arr = None
    if arr is not None and arr.shape == (len(lines), width) and (every or _widths_agree(
            lines, plan)):
        _refuse_misread(arr, lines, plan, path, line_no)
        return arr
    _raise_first_error(lines, plan, path, line_no)
    raise AssertionError("unreachable")  # pragma: no cover


def _widths_agree(lines, plan: Plan) -> bool:
    """Whether every line has the plan's number of fields (NumPy ignores those not read)."""
    d = plan.delimiter
    if d is None:
        return all(len(line.split()) == plan.width for line in lines)
    return all(line.count(d) == plan.width - 1 for line in lines)


def _refuse_misread(arr, lines, plan: Plan, path, line_no) -> None:
    """Name the first number the float64 parse did not read as written.

    A decimal number is read as the double nearest to it (``0.1`` as every
    CSV reader reads it); what is refused is a number whose reading changes
    what it is: an integer float64 cannot hold (``9007199254740993``, also as
    ``9007199254740993.0`` or ``9.007199254740993e15``), a non-zero number
    that underflows to 0 (``1e-400``), one past float64's largest value
    (``1e400``).  Only rows holding a value that large, or a zero written with
    an exponent or at length, are looked at again.
    """
    big = (np.abs(arr) >= 2.0**53).any(axis=1)
    suspect = big | (arr == 0).any(axis=1)
    for k in np.flatnonzero(suspect).tolist():
        line = lines[k].rstrip("\r\n")
        if not big[k] and not ("e" in line or "E" in line or len(line) > 300):
            continue  # plain zeros
        fields = _io_plan.split(line, plan.delimiter)
        for j, c in enumerate(plan.usecols):
            problem = _misread(fields[c], float(arr[k, j]))
            if problem:
                raise InputError(f"{path}, line {line_no + k}, column {c + 1} "
                                 f"({plan.labels[c]}): {problem}")


def _misread(text: str, x: float) -> str | None:
    """What reading ``text`` as the double ``x`` changed, if it changed what it is."""
    if not (x == 0 or abs(x) >= 2.0**53):
        return None
    try:
        d = Decimal(text.strip())
    except InvalidOperation:
        return None
    if not d.is_finite() or d.is_zero():
        return None  # inf and nan are refused with the rows; a zero is a zero
    shown = text.strip() if len(text.strip()) <= 40 else text.strip()[:37] + "..."
    if x == 0:
        return f"{shown} is closer to 0 than float64 reaches (it would be read as 0)"
    if math.isinf(x):
        return f"{shown} passes float64's largest value"
    if d == d.to_integral_value() and Decimal(x) != d:
        return (f"integers up to 2**53 in magnitude expected (float64 holds them exactly), "
                f"found {shown}")
    return None


def _raise_first_error(lines, plan: Plan, path, line_no) -> None:
    """Name the first line (and column) NumPy could not read."""
    width, labels = plan.width, plan.labels
    balls = plan.balls
    for k, line in enumerate(lines):
        at = line_no + k
        if not line.strip():
            raise InputError(f"{path}, line {at}: empty line (rows are numbered by line)")
        fields = _io_plan.split(line, plan.delimiter)
        if len(fields) != width:
            hint = ""
            if len(fields) == 3 and width == 4 and not balls:
                hint = " (circles x,y,r? use --circles or an x,y,r header)"
            elif len(fields) in (4, 6) and balls:
                kind = plan.layout
                hint = (f" ({'boxes' if len(fields) == 4 else '3D boxes'}? this file is read "
                        f"as {kind}, for --{kind} or its header)")
            elif plan.delimiter is not None and len(fields) == 1 and width > 1:
                hint = (f" (another delimiter than {plan.delimiter!r}? the first line's "
                        "is used for every line; see --delimiter)")
            raise InputError(f"{path}, line {at}: expected {width} columns "
                             f"({','.join(labels)}), found {len(fields)}{hint}")
        for c in plan.usecols:
            v = fields[c]
            if not _is_number(v):
                hint = ""
                if plan.delimiter == ";" and "," in v and _is_number(v.replace(",", ".", 1)):
                    hint = " (a decimal comma? numbers are read with a point: 1.5)"
                raise InputError(f"{path}, line {at}, column {c + 1} ({labels[c]}): "
                                 f"expected a number, found {v.strip()!r}{hint}")
    raise InputError(f"{path}, lines {line_no}-{line_no + len(lines) - 1}: unreadable")


def check_output(path: str | None) -> None:
    """Refuse an output name we cannot write before any work is done."""
    if path is None:
        return
    p = Path(path)
    if p.suffix.lower() not in SUFFIXES:
        raise InputError(f"{p}: expected a .csv or .npy output file, found "
                         f"{p.suffix or 'no suffix'}")
    if p.is_dir():
        raise InputError(f"{p}: is a folder, expected a file to write")
    if not p.parent.resolve().is_dir():
        raise InputError(f"{p}: the folder {p.parent} does not exist")
    try:  # the temporary file the output goes to first: can we make it here?
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".part")
    except OSError as e:
        raise InputError(f"{p}: cannot write here ({e.strerror})") from None
    os.close(fd)
    os.unlink(tmp)


def write_pairs(path: str | None, pairs: np.ndarray, progress: bool = True) -> None:
    r"""Write ``(k, 2)`` pairs as ``i,j`` CSV (with a header) or ``.npy``; stdout if no path.

    A file is written under a temporary name in the same folder and renamed
    over ``path`` once complete.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> from broadphase._io import write_pairs
    >>> p = os.path.join(tempfile.mkdtemp(), "pairs.csv")
    >>> write_pairs(p, np.array([[0, 1], [2, 5]]))
    >>> open(p).read()
    'i,j\n0,1\n2,5\n'
    """
    if path is None:
        _write_csv(sys.stdout, pairs, progress)
        sys.stdout.flush()
        return
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".part")
    try:
        # mkstemp makes the file for its owner alone; the output gets the
        # mode any new file gets (0666 less the umask), as open() would give
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(fd, 0o666 & ~umask)
        if p.suffix.lower() == ".npy":
            with os.fdopen(fd, "wb") as f:
                np.save(f, pairs)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                _write_csv(f, pairs, progress)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_csv(f, pairs: np.ndarray, progress: bool) -> None:
    f.write("i,j\n")
    k = pairs.shape[0]
    with Progress(k, "writing pairs", progress and k >= PROGRESS_ROWS, unit="pairs") as bar:
        for a in range(0, k, BLOCK):
            chunk = pairs[a:a + BLOCK]
            # str.format mapped over two lists: twice as fast as an f-string per row
            f.write("\n".join(map("{0},{1}".format, chunk[:, 0].tolist(), chunk[:, 1].tolist())))
            f.write("\n")
            bar.update(chunk.shape[0])
