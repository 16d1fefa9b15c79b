"""What an input file of ``broadphase pairs`` holds: its layout, columns and delimiter.

Decided before a row is read (:func:`plan`), from the options and the file's
first line (or a ``.npy`` file's shape):

- the delimiter: ``--delimiter``, else the first of tab, ``;`` and ``,`` on
  the first line, else whitespace when it holds several words; every line
  must then have as many fields as the first;
- a header: a first line with a field that is not a number names the
  columns.  They are found by name as a table's are
  (:func:`broadphase._tables.pick_columns`: any order and case, the usual
  aliases, other columns such as ``id`` ignored, two columns of one role an
  error); rows are boxes (corners or position and size, 2D or 3D), or
  circles and spheres when the header has a radius and no box layout;
- ``--columns``: the columns read, by header name or 0-based index, in the
  layout's order; names that are all known aliases (``xmin``, ``w``, ...)
  give the layout as a header does, other names and indices are read as
  the layout of their number (4 or 6 for boxes, ``--format`` saying which);
- without a header: the options (``--circles``, ``--spheres``,
  ``--format``), then the width: six columns are 3D boxes, others 2D.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _tables

#: ``--delimiter`` spellings: None is any run of whitespace.
DELIMITERS = {",": ",", "comma": ",", ";": ";", "semicolon": ";", "\t": "\t", "\\t": "\t",
              "tab": "\t", " ": None, "space": None, "whitespace": None}
#: The layouts of boxes in each dimension by ``--format``.
_BOXES = {(2, "corners"): "corners", (2, "xywh"): "xywh",
          (3, "corners"): "corners3d", (3, "xywh"): "xywh3d"}


class InputError(ValueError):
    """A malformed input file; the message names the file, line and column."""


@dataclass
class Plan:
    """How to read an input file (see :func:`plan`)."""

    #: A key of ``_tables.LAYOUTS``: corners, xywh, circles, corners3d, xywh3d, spheres.
    layout: str
    #: The file's columns read, in the layout's order.
    usecols: list[int]
    #: Fields on every line of a CSV file (None for ``.npy``).
    width: int | None = None
    #: The CSV delimiter; None is whitespace.
    delimiter: str | None = ","
    #: Whether the first line names the columns.
    header: bool = False
    #: A name for each of the file's columns, for messages.
    labels: tuple[str, ...] = ()
    #: The layout came from the width alone (no header, ``--format`` or names):
    #: a failure gets a hint at ``--format xywh``.
    guessed: bool = False

    @property
    def columns(self) -> tuple[str, ...]:
        """The layout's column names (what the rows read are)."""
        return _tables.LAYOUTS[self.layout]

    @property
    def balls(self) -> bool:
        """Whether the rows are circles or spheres (a radius last)."""
        return self.layout in ("circles", "spheres")


def split(line: str, delimiter: str | None) -> list[str]:
    """A line's fields (whitespace: any run of it, ends ignored)."""
    line = line.rstrip("\r\n")
    return line.split() if delimiter is None else line.split(delimiter)


def sniff(line: str) -> str | None:
    """The delimiter of a first line: tab, ``;`` or ``,`` (the first found), else whitespace."""
    for d in ("\t", ";", ","):
        if d in line:
            return d
    return None if len(line.split()) > 1 else ","


def delimiter_option(text: str) -> str | None:
    """A ``--delimiter`` value as a delimiter (None: whitespace), or ValueError."""
    if text in DELIMITERS or text.lower() in DELIMITERS:
        return DELIMITERS.get(text, DELIMITERS.get(text.lower()))
    raise ValueError(f"expected one of , ; tab whitespace (or comma, semicolon, space), "
                     f"found {text!r}")


def is_number(v: str) -> bool:
    """Whether NumPy reads ``v`` as a number (not ``1_000`` or other scripts' digits)."""
    if "_" in v or not v.isascii():
        return False
    try:
        float(v)
    except ValueError:
        return False
    return True


def plan(path, *, balls: str | None = None, format: str | None = None,
         select: list[str] | None = None, delimiter: str | None | bool = False) -> Plan:
    r"""How to read the file ``path``: layout, columns and delimiter.

    Parameters
    ----------
    path : str or path
        A ``.csv`` or ``.npy`` file (other problems are left to the reader).
    balls : {None, "circles", "spheres"}
        ``--circles`` or ``--spheres``.
    format : {None, "corners", "xywh"}
        ``--format``: boxes as corners or as position and size.
    select : list of str, optional
        ``--columns``: names of the header's columns or 0-based indices.
    delimiter : str or None, optional
        ``--delimiter`` (None: whitespace); detected when not given.

    Examples
    --------
    >>> import os, tempfile
    >>> from broadphase._io_plan import plan
    >>> p = os.path.join(tempfile.mkdtemp(), "b.csv")
    >>> _ = open(p, "w").write("id;Left;Bottom;Right;Top\na;0;0;2;2\n")
    >>> got = plan(p)
    >>> got.layout, got.usecols, got.delimiter, got.header
    ('corners', [1, 2, 3, 4], ';', True)
    >>> _ = open(p, "w").write("7 0 0 2 2\n")
    >>> got = plan(p, format="xywh", select=["1", "2", "3", "4"])
    >>> got.layout, got.usecols, got.delimiter
    ('xywh', [1, 2, 3, 4], None)
    """
    p = Path(path)
    if p.suffix.lower() == ".npy":
        return _plan_npy(p, balls, format, select)
    first = _first_line(p)
    d = sniff(first) if delimiter is False else delimiter
    fields = [v.strip() for v in split(first, d)] if first.strip() else []
    header = any(v and not is_number(v) for v in fields)
    labels = tuple(_unquote(v) for v in fields) if header else ()
    if select:
        usecols = _resolve(select, labels, len(fields), header, p)
        layout = (header and _named_layout([labels[k] for k in usecols], select, balls, format)
                  or _by_count(len(usecols), balls, format))
        names = labels or tuple(f"column {k + 1}" for k in range(len(fields)))
        named = dict(zip(usecols, _tables.LAYOUTS[layout], strict=True))
        labels = tuple(named.get(k, n) if not header else n for k, n in enumerate(names))
        return Plan(layout, usecols, len(fields), d, header, labels,
                    guessed=not header and format is None and balls is None)
    if header:
        picked = _pick_header(labels, balls, format, p)
        if picked is not None:
            layout, usecols = picked
            return Plan(layout, usecols, len(fields), d, True, labels)
    # no header (or names without meaning, f0, ...): by the options, then the width
    layout = balls or _BOXES[(3 if len(fields) == 6 else 2, format or "corners")]
    cols = _tables.LAYOUTS[layout]
    return Plan(layout, list(range(len(cols))), len(cols), d, header, labels or cols,
                guessed=format is None and balls is None and not header)


def _first_line(p: Path) -> str:
    if not p.is_file():
        return ""  # the reader names the problem
    try:
        with open(p, encoding="utf-8-sig", newline="") as f:
            return f.readline()
    except UnicodeDecodeError:
        return ""  # the reader names the line


def _unquote(v: str) -> str:
    """A header field without the quotes some writers put around every name."""
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "\"'":
        return v[1:-1].strip()
    return v


def _plan_npy(p: Path, balls, format, select) -> Plan:
    if select:
        words = [s for s in select if not s.strip().isdigit()]
        if words:
            raise InputError(f"--columns: a .npy file has no column names, found {words[0]!r}; "
                             "expected 0-based column indices")
        width = _npy_width(p)
        usecols = _resolve(select, (), width, False, p)
        return Plan(_by_count(len(usecols), balls, format), usecols, None, None,
                    guessed=format is None and balls is None)
    width = _npy_width(p)
    layout = balls or _BOXES[(3 if width == 6 else 2, format or "corners")]
    cols = _tables.LAYOUTS[layout]
    return Plan(layout, list(range(len(cols))), None, None, labels=cols,
                guessed=format is None and balls is None)


def _npy_width(p: Path) -> int | None:
    """Columns of a ``.npy`` file's 2-D array, read from its header; None otherwise."""
    try:
        with open(p, "rb") as f:
            major, _ = np.lib.format.read_magic(f)
            read = (np.lib.format.read_array_header_1_0 if major == 1
                    else np.lib.format.read_array_header_2_0)
            shape = read(f)[0]
    except (OSError, ValueError, SyntaxError, EOFError):
        return None
    return shape[1] if len(shape) == 2 else None


def _resolve(select, labels, width, header, p) -> list[int]:
    """``--columns`` as the file's column indices (0-based), each once."""
    out = []
    for s in select:
        s = s.strip()
        if s.isdigit():
            k = int(s)
            if width is not None and k >= width:
                raise InputError(f"--columns: column {k} (0-based) is past the file's "
                                 f"{width} columns")
        elif not header:
            raise InputError(f"--columns: {s!r} names a column, but {p.name} has no header "
                             "naming its columns; expected 0-based column indices")
        else:
            same = [k for k, v in enumerate(labels) if v == s]
            if not same:
                same = [k for k, v in enumerate(labels) if v.lower() == s.lower()]
            if len(same) != 1:
                found = "no column" if not same else f"{len(same)} columns"
                raise InputError(f"--columns: {found} named {s!r} in the header; expected "
                                 f"one of {', '.join(labels)}")
            k = same[0]
        if k in out:
            raise InputError(f"--columns: column {s!r} given twice")
        out.append(k)
    return out


def _by_count(k: int, balls, format) -> str:
    """The layout of ``k`` columns chosen by ``--columns``."""
    if balls:
        want = len(_tables.LAYOUTS[balls])
        if k != want:
            raise InputError(f"--columns: expected {want} columns for --{balls} "
                             f"({', '.join(_tables.LAYOUTS[balls])}), found {k}")
        return balls
    if k not in (4, 6):
        hint = " (circles x,y,r? add --circles)" if k == 3 else ""
        raise InputError(f"--columns: expected 4 columns (2D boxes) or 6 (3D boxes), "
                         f"found {k}{hint}")
    return _BOXES[(2 if k == 4 else 3, format or "corners")]


def option_words(message: str) -> str:
    """A message of the Python calls (``format='xywh'``) in the command line's words."""
    message = re.sub(r"\bformat='(\w+)'", r"--format \1", message)
    message = message.replace("leave format unset", "leave out --format")
    return "--" + message if message.startswith("format: ") else message


def _named_layout(names, select, balls, format) -> str | None:
    """The layout ``--columns`` names when every name is a known one (``xmin``, ``w``, ...).

    Read as a header is (``--format`` only where the names allow both), but
    in the order given, which must be the layout's; None for other names
    (read in the order given, as the layout of their number).
    """
    if not all(_tables._CANONICAL.get(n.strip().lower()) for n in names):
        return None
    dims = {"circles": (2,), "spheres": (3,)}.get(balls, (2, 3))
    where = f"--columns {','.join(select)}"
    try:
        picked = _tables.pick_columns(names, "centers" if balls else "boxes", where, format,
                                      dims)
    except ValueError as e:
        picked = None if not balls and format is None else e
        if picked is None:  # circles or spheres by their names, as a header says
            try:
                picked = _tables.pick_columns(names, "centers", where, None, dims)
            except ValueError:
                picked = e
        if isinstance(picked, ValueError):
            raise InputError(option_words(str(picked))) from None
    layout = picked[0]
    cols = _tables.LAYOUTS[layout]
    if balls and layout != balls:
        raise InputError(f"{where}: expected the columns {', '.join(_tables.LAYOUTS[balls])} "
                         f"for --{balls}")
    if len(cols) != len(names):
        raise InputError(f"{where}: these name the columns {', '.join(cols)} and "
                         f"{len(names) - len(cols)} more; expected {len(cols)} columns")
    if picked[1] != list(range(len(names))):
        raise InputError(f"{where}: these name the columns {', '.join(cols)}; expected them in "
                         f"that order (or leave out --columns to read a header by name)")
    return layout


def _pick_header(labels, balls, format, p):
    """The layout and columns a header names, or None for names without meaning (f0, ...)."""
    where = f"{p}, line 1: "
    if balls:
        dims = (2,) if balls == "circles" else (3,)
        try:
            picked = _tables.pick_columns(labels, "centers", "header", dims=dims)
        except ValueError as e:
            picked, problem = None, str(e).partition(": ")[2]
        else:
            problem = None
        keys = {_tables._CANONICAL.get(v.lower()) for v in labels}
        z = balls == "circles" and keys & {"z", "minz", "maxz"}
        if picked is not None and picked[0] == balls and not z:
            return picked
        if picked is None and problem is None:
            return None  # unnamed
        other = _other_kind(labels, balls)
        if other or z:
            raise InputError(f"{where}header {','.join(labels)!r} names other columns than "
                             f"this command reads; expected {','.join(_tables.LAYOUTS[balls])} "
                             f"here, or no header")
        if problem is None:  # centres without a radius
            problem = (f"expected a radius column (r or radius) for --{balls}; found columns "
                       f"{', '.join(labels)}")
        raise InputError(where + problem)
    try:
        return _tables.pick_columns(labels, "boxes", "header", format, dims=(2, 3))
    except ValueError as e:
        box_error = e
    if format is None and not str(box_error).startswith("header: columns"):
        try:
            picked = _tables.pick_columns(labels, "centers", "header", dims=(2, 3))
        except ValueError as e:
            if any(_tables._CANONICAL.get(v.lower()) == "r" for v in labels):
                raise InputError(where + str(e).partition(": ")[2]) from None
        else:
            if picked is not None and picked[0] in ("circles", "spheres"):
                return picked
    message = str(box_error)
    message = (option_words(message) if message.startswith("format: ")
               else message.partition(": ")[2])
    if message.startswith("expected columns"):
        words = [c for c, v in enumerate(labels, start=1) if not is_number(v)]
        typo = (f" (or a row with a typo in column {words[0]}?)" if len(words) == 1 < len(labels)
                else "")
        message = (f"header {','.join(labels)!r} does not name the columns read ({message}); "
                   f"also read: 3D boxes minx,miny,minz,maxx,maxy,maxz or x,y,z,w,h,d, circles "
                   f"x,y,r, spheres x,y,z,r, and files without a header{typo}")
    raise InputError(where + message) from None


def _other_kind(labels, balls) -> bool:
    """Whether a header names a layout other than the ``balls`` one (boxes or other balls)."""
    try:
        if _tables.pick_columns(labels, "boxes", "header", dims=(2, 3)):
            return True
    except ValueError:
        pass
    try:
        picked = _tables.pick_columns(labels, "centers", "header", dims=(2, 3))
    except ValueError:
        return False
    return picked is not None and picked[0] in ("circles", "spheres") and picked[0] != balls

