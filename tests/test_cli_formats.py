"""broadphase pairs: header aliases, --format, --columns, delimiters, the output's mode.

Every expected pair list is computed here by brute force (``naive`` and the small
3D references below) on the rows as written, never by the code under test.
"""

import os
import sys

import numpy as np
import pytest

import naive
from broadphase import _io
from broadphase._cli import main

RNG = np.random.default_rng(11)


def boxes2(n=60):
    lo = RNG.integers(0, 40, (n, 2))
    return np.hstack([lo, lo + RNG.integers(0, 8, (n, 2))]).astype(float)


def boxes3(n=60):
    lo = RNG.integers(0, 25, (n, 3))
    return np.hstack([lo, lo + RNG.integers(0, 8, (n, 3))]).astype(float)


def balls(n, dim):
    return np.hstack([RNG.integers(0, 30, (n, dim)), RNG.integers(0, 4, (n, 1))]).astype(float)


def brute3(b):
    lo, hi = b[:, :3], b[:, 3:]
    hit = np.all((lo[:, None] < hi[None]) & (lo[None] < hi[:, None]), axis=2)
    i, j = np.nonzero(np.triu(hit, 1))
    return np.stack([i, j], axis=1).tolist()


def brute_balls(rows):
    """Exact on integers: squared distance below the squared sum of radii."""
    rows = rows.astype(int).tolist()
    out = []
    for i in range(len(rows)):
        for j in range(i + 1, len(rows)):
            *a, ra = rows[i]
            *b, rb = rows[j]
            if sum((p - q) ** 2 for p, q in zip(a, b, strict=True)) < (ra + rb) ** 2:
                out.append([i, j])
    return out


def write(path, header, rows, sep=",", extra=None):
    """Rows (and a header) with ``sep``; ``extra`` a column of ids put first."""
    lines = [] if header is None else [sep.join(header)]
    for k, r in enumerate(rows):
        fields = [f"{v:g}" for v in r]
        if extra is not None:
            fields = [f"{extra}{k}"] + fields
        lines.append(sep.join(fields))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def pairs(tmp_path, src, *options):
    out = tmp_path / "out.npy"
    assert main(["pairs", str(src), "-o", str(out), *options]) == 0
    return np.load(out).tolist()


def fails(tmp_path, capsys, src, *options):
    (tmp_path / "out.npy").unlink(missing_ok=True)
    assert main(["pairs", str(src), "-o", str(tmp_path / "out.npy"), *options]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert not (tmp_path / "out.npy").exists()
    return err


# --------------------------------------------------------------------------
# header aliases: every spelling, any order and case, other columns ignored

CORNERS2 = [("minx", "miny", "maxx", "maxy"), ("xmin", "ymin", "xmax", "ymax"),
            ("left", "bottom", "right", "top"), ("x0", "y0", "x1", "y1"),
            ("MinX", "MINY", "maxX", "MaxY"), ("Left", "Bottom", "Right", "Top")]
XYWH2 = [("x", "y", "w", "h"), ("x", "y", "width", "height"), ("X", "Y", "Width", "Height")]
CORNERS3 = [("minx", "miny", "minz", "maxx", "maxy", "maxz"),
            ("xmin", "ymin", "zmin", "xmax", "ymax", "zmax"),
            ("x0", "y0", "z0", "x1", "y1", "z1"), ("MINX", "miny", "MinZ", "maxx", "MAXY", "zMax")]
XYWH3 = [("x", "y", "z", "w", "h", "d"), ("x", "y", "z", "width", "height", "depth"),
         ("X", "Y", "Z", "W", "H", "Depth")]


@pytest.mark.parametrize("names", CORNERS2 + XYWH2 + CORNERS3 + XYWH3)
@pytest.mark.parametrize("shuffle", [False, True])
def test_box_header_aliases_with_an_id_column(tmp_path, names, shuffle):
    dim = len(names) // 2
    b = boxes2() if dim == 2 else boxes3()
    xywh = names in XYWH2 + XYWH3
    rows = np.hstack([b[:, :dim], b[:, dim:] - b[:, :dim]]) if xywh else b
    order = list(RNG.permutation(len(names))) if shuffle else list(range(len(names)))
    write(tmp_path / "b.csv", ["id"] + [names[k] for k in order], rows[:, order], extra="box-")
    want = naive.box_pairs(b).tolist() if dim == 2 else brute3(b)
    assert len(want) > 5
    assert pairs(tmp_path, tmp_path / "b.csv") == want


@pytest.mark.parametrize("names", [("x", "y", "r"), ("X", "Y", "Radius"), ("r", "y", "x"),
                                   ("x", "y", "z", "r"), ("Z", "radius", "y", "x")])
def test_ball_header_aliases(tmp_path, names):
    dim = len(names) - 1
    rows = balls(50, dim)
    canon = [{"radius": "r"}.get(c.lower(), c.lower()) for c in names]
    order = [("x", "y", "z")[:dim].index(c) if c != "r" else dim for c in canon]
    write(tmp_path / "c.csv", ("name",) + names, rows[:, order], extra="n")
    want = brute_balls(rows)
    assert len(want) > 3
    assert pairs(tmp_path, tmp_path / "c.csv") == want


def test_quoted_header_names(tmp_path):
    b = boxes2()
    write(tmp_path / "b.csv", ['"id"', '"xmin"', '"ymin"', '"xmax"', '"ymax"'], b, extra="k")
    assert pairs(tmp_path, tmp_path / "b.csv") == naive.box_pairs(b).tolist()


def test_header_only_extra_columns_may_hold_text(tmp_path):
    src = tmp_path / "b.csv"
    src.write_text("name,minx,miny,maxx,maxy,note\nfirst one,0,0,2,2,a\nsecond,1,1,3,3,\n"
                   "third,5,5,6,6,x y z\n")
    assert pairs(tmp_path, src) == [[0, 1]]


@pytest.mark.parametrize("header, found", [
    ("minx,miny,maxx,xmin", "columns 'minx' and 'xmin' both name minx"),
    ("id,left,minx,miny,maxx,maxy", "columns 'left' and 'minx' both name minx"),
    ("x,y,width,w", "columns 'width' and 'w' both name w"),
    ("x,y,r,radius", "columns 'r' and 'radius' both name r"),
])
def test_two_columns_of_one_role_are_an_error(tmp_path, capsys, header, found):
    src = tmp_path / "b.csv"
    src.write_text(header + "\n" + ",".join(["1"] * header.count(",")) + ",1\n")
    assert f"b.csv, line 1: {found}; expected one of them" in fails(tmp_path, capsys, src)


@pytest.mark.parametrize("header, found", [
    ("id,minx,miny,maxx", "found columns id, minx, miny, maxx (missing maxy)"),
    ("id,x,y,w", "found columns id, x, y, w (missing h)"),
    ("lon,lat,size", "found columns lon, lat, size)"),
])
def test_missing_columns_name_what_was_found(tmp_path, capsys, header, found):
    src = tmp_path / "b.csv"
    src.write_text(header + "\n" + ",".join(["1"] * (header.count(",") + 1)) + "\n")
    err = fails(tmp_path, capsys, src)
    assert "b.csv, line 1: " in err and found in err, err


def test_a_typo_in_the_first_row_is_named(tmp_path, capsys):
    src = tmp_path / "b.csv"
    src.write_text("0,0,2,x\n1,1,3,3\n")
    assert "(or a row with a typo in column 4?)" in fails(tmp_path, capsys, src)


def test_a_bad_row_names_its_line_and_column(tmp_path, capsys):
    src = tmp_path / "b.csv"
    src.write_text("id;xmin;ymin;xmax;ymax\na;0;0;1;1\nb;0;0;oops;1\n")
    err = fails(tmp_path, capsys, src)
    assert "b.csv, line 3, column 4 (xmax): expected a number, found 'oops'" in err
    src.write_text("id;xmin;ymin;xmax;ymax\na;0;0;1;1\nb;0;0;1\n")
    err = fails(tmp_path, capsys, src)
    assert "b.csv, line 3: expected 5 columns (id,xmin,ymin,xmax,ymax), found 4" in err
    src.write_text("id;xmin;ymin;xmax;ymax\na;0;0;1;1\nb;5;0;1;1\n")
    assert "b.csv, line 3: boxes[1]: minx 5.0 > maxx 1.0" in fails(tmp_path, capsys, src)
    src.write_text("xmin;ymin;xmax;ymax\n0;0;1,5;1\n")
    assert "(a decimal comma? numbers are read with a point: 1.5)" in fails(
        tmp_path, capsys, src)


def test_y_down_bottom_and_top_are_named(tmp_path, capsys):
    src = tmp_path / "b.csv"
    src.write_text("left,top,right,bottom\n0,0,2,2\n")
    assert "line 2: boxes[0]: bottom 2.0 > top 0.0; left, bottom, right, top are read with y up" \
        in fails(tmp_path, capsys, src)


# --------------------------------------------------------------------------
# delimiters


@pytest.mark.parametrize("sep", [",", ";", "\t", " ", "   "])
@pytest.mark.parametrize("header", [True, False])
def test_delimiters_are_detected(tmp_path, sep, header):
    b = boxes2()
    write(tmp_path / "b.csv", ("xmin", "ymin", "xmax", "ymax") if header else None, b, sep)
    assert pairs(tmp_path, tmp_path / "b.csv") == naive.box_pairs(b).tolist()


@pytest.mark.parametrize("option, sep", [(",", ","), ("comma", ","), (";", ";"),
                                         ("semicolon", ";"), ("tab", "\t"), ("\\t", "\t"),
                                         ("whitespace", "  "), ("space", " ")])
def test_delimiter_option(tmp_path, option, sep):
    b = boxes2()
    write(tmp_path / "b.csv", ("minx", "miny", "maxx", "maxy"), b, sep)
    assert pairs(tmp_path, tmp_path / "b.csv", "--delimiter", option) == \
        naive.box_pairs(b).tolist()


def test_delimiter_must_hold_across_the_file(tmp_path, capsys):
    src = tmp_path / "b.csv"
    src.write_text("minx;miny;maxx;maxy\n0;0;1;1\n0,0,1,1\n")
    err = fails(tmp_path, capsys, src)
    assert "b.csv, line 3: expected 4 columns (minx,miny,maxx,maxy), found 1 (another " \
           "delimiter than ';'?" in err
    src.write_text("0,0,1,1\n0 0 1 1\n")
    assert "b.csv, line 2: expected 4 columns" in fails(tmp_path, capsys, src)
    src.write_text("0,0,1,1\n")  # one field, not a number: a header naming nothing read
    assert "line 1: header '0,0,1,1' does not name" in fails(tmp_path, capsys, src,
                                                             "--delimiter", ";")


def test_bad_delimiter_option(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["pairs", str(tmp_path / "b.csv"), "--delimiter", "||"])
    assert e.value.code == 2
    assert "expected one of , ; tab whitespace" in capsys.readouterr().err


# --------------------------------------------------------------------------
# --format


def test_xywh_without_a_header_and_in_npy(tmp_path, capsys):
    b = boxes2()
    xywh = np.hstack([b[:, :2], b[:, 2:] - b[:, :2]])
    want = naive.box_pairs(b).tolist()
    write(tmp_path / "b.csv", None, xywh)
    assert pairs(tmp_path, tmp_path / "b.csv", "--format", "xywh") == want
    np.save(tmp_path / "b.npy", xywh)
    assert pairs(tmp_path, tmp_path / "b.npy", "--format", "xywh") == want
    write(tmp_path / "h.csv", ("x", "y", "w", "h"), xywh)
    assert pairs(tmp_path, tmp_path / "h.csv", "--format", "xywh") == want
    assert pairs(tmp_path, tmp_path / "h.csv") == want


def test_3d_formats(tmp_path):
    b = boxes3()
    xyzwhd = np.hstack([b[:, :3], b[:, 3:] - b[:, :3]])
    want = brute3(b)
    write(tmp_path / "c.csv", None, b)
    assert pairs(tmp_path, tmp_path / "c.csv") == want
    assert pairs(tmp_path, tmp_path / "c.csv", "--format", "corners") == want
    write(tmp_path / "x.csv", None, xyzwhd, sep="\t")
    assert pairs(tmp_path, tmp_path / "x.csv", "--format", "xywh") == want
    np.save(tmp_path / "x.npy", xyzwhd)
    assert pairs(tmp_path, tmp_path / "x.npy", "--format", "xywh") == want
    write(tmp_path / "h.csv", ("id", "x", "y", "z", "w", "h", "d"), xyzwhd, extra="a")
    assert pairs(tmp_path, tmp_path / "h.csv", "--format", "xywh") == want


@pytest.mark.parametrize("name", ["b.csv", "b.npy"])
def test_xywh_rows_read_as_corners_get_a_hint(tmp_path, capsys, name):
    rows = np.array([[0, 0, 2, 2], [5, 5, 1, 1]], float)  # x, y, w, h
    if name.endswith(".npy"):
        np.save(tmp_path / name, rows)
    else:
        write(tmp_path / name, None, rows)
    err = fails(tmp_path, capsys, tmp_path / name)
    assert "boxes[1]: minx 5.0 > maxx 1.0" in err
    assert "(rows of x,y,w,h, corner and size? pass --format xywh)" in err
    # a header says what the rows are: no guess, no hint
    write(tmp_path / "h.csv", ("minx", "miny", "maxx", "maxy"), rows)
    assert "--format xywh" not in fails(tmp_path, capsys, tmp_path / "h.csv")


def test_format_against_the_header(tmp_path, capsys):
    write(tmp_path / "b.csv", ("x", "y", "w", "h"), boxes2())
    err = fails(tmp_path, capsys, tmp_path / "b.csv", "--format", "corners")
    assert "b.csv, line 1: --format: 'corners' reads columns minx, miny, maxx, maxy" in err
    assert "leave out --format or pass --format xywh" in err
    assert "reads boxes, not --circles" in fails(tmp_path, capsys, tmp_path / "b.csv",
                                                 "--format", "xywh", "--circles")


def test_header_with_both_layouts_needs_format(tmp_path, capsys):
    b, c = boxes2(), boxes2()
    xywh = np.hstack([c[:, :2], c[:, 2:] - c[:, :2]])
    write(tmp_path / "b.csv", ("minx", "miny", "maxx", "maxy", "x", "y", "w", "h"),
          np.hstack([b, xywh]))
    assert "pass format='corners' or format='xywh'" in fails(tmp_path, capsys,
                                                             tmp_path / "b.csv")
    assert pairs(tmp_path, tmp_path / "b.csv", "--format", "corners") == \
        naive.box_pairs(b).tolist()
    assert pairs(tmp_path, tmp_path / "b.csv", "--format", "xywh") == \
        naive.box_pairs(c).tolist() != naive.box_pairs(b).tolist()


# --------------------------------------------------------------------------
# --columns


def test_columns_by_index_without_a_header(tmp_path):
    b = boxes2()
    rows = np.hstack([np.arange(len(b))[:, None], b[:, [2, 3]], b[:, [0, 1]]])  # id,max,min
    write(tmp_path / "b.csv", None, rows, sep=" ")
    want = naive.box_pairs(b).tolist()
    assert pairs(tmp_path, tmp_path / "b.csv", "--columns", "3,4,1,2") == want
    np.save(tmp_path / "b.npy", rows)
    assert pairs(tmp_path, tmp_path / "b.npy", "--columns", "3, 4, 1, 2") == want


def test_columns_by_name_of_ones_own(tmp_path):
    b = boxes2()
    write(tmp_path / "b.csv", ("gid", "lon_max", "lat_max", "lon_min", "lat_min"),
          b[:, [2, 3, 0, 1]], extra="g")
    want = naive.box_pairs(b).tolist()
    assert pairs(tmp_path, tmp_path / "b.csv", "--columns",
                 "lon_min,lat_min,lon_max,lat_max") == want
    assert pairs(tmp_path, tmp_path / "b.csv", "--columns", "LON_MIN,4,lon_max,2") == want
    xywh = np.hstack([b[:, :2], b[:, 2:] - b[:, :2]])
    write(tmp_path / "s.csv", ("a", "b", "c", "d"), xywh)
    assert pairs(tmp_path, tmp_path / "s.csv", "--columns", "a,b,c,d", "--format",
                 "xywh") == want


def test_columns_by_known_names(tmp_path, capsys):
    b = boxes2()
    xywh = np.hstack([b[:, :2], b[:, 2:] - b[:, :2]])
    write(tmp_path / "b.csv", ("X", "Y", "Width", "Height", "minx"), np.hstack(
        [xywh, np.zeros((len(b), 1))]))
    want = naive.box_pairs(b).tolist()
    # the names say position and size: read so, as a header would be
    assert pairs(tmp_path, tmp_path / "b.csv", "--columns", "X,Y,Width,Height") == want
    capsys.readouterr()
    err = fails(tmp_path, capsys, tmp_path / "b.csv", "--columns", "Y,X,Width,Height")
    assert "--columns Y,X,Width,Height: these name the columns x, y, w, h; expected them in " \
           "that order" in err
    err = fails(tmp_path, capsys, tmp_path / "b.csv", "--columns", "X,Y,Width,Height",
                "--format", "corners")
    assert "--format: 'corners' reads columns minx, miny, maxx, maxy" in err


def test_columns_for_balls_and_3d(tmp_path):
    rows = balls(40, 3)
    write(tmp_path / "s.csv", ("a", "b", "c", "rad", "other"),
          np.hstack([rows, np.ones((40, 1))]))
    assert pairs(tmp_path, tmp_path / "s.csv", "--spheres", "--columns", "a,b,c,rad") == \
        brute_balls(rows)
    assert pairs(tmp_path, tmp_path / "s.csv", "--circles", "--columns", "0,1,3") == \
        brute_balls(rows[:, [0, 1, 3]])
    b = boxes3()
    write(tmp_path / "c.csv", None, np.hstack([np.zeros((len(b), 1)), b]))
    assert pairs(tmp_path, tmp_path / "c.csv", "--columns", "1,2,3,4,5,6") == brute3(b)


@pytest.mark.parametrize("header, columns, msg", [
    ("a,b,c,d", "a,b,c,e", "--columns: no column named 'e' in the header; expected one of "
                           "a, b, c, d"),
    ("a,b,c,a", "a,b,c,d", "--columns: 2 columns named 'a' in the header"),
    (None, "a,b,c,d", "--columns: 'a' names a column, but b.csv has no header naming its "
                      "columns; expected 0-based column indices"),
    (None, "0,1,2,9", "--columns: column 9 (0-based) is past the file's 5 columns"),
    (None, "0,1,2", "--columns: expected 4 columns (2D boxes) or 6 (3D boxes), found 3 "
                    "(circles x,y,r? add --circles)"),
    (None, "0,1,2,2", "--columns: column '2' given twice"),
])
def test_bad_columns(tmp_path, capsys, header, columns, msg):
    write(tmp_path / "b.csv", None if header is None else header.split(","),
          np.ones((2, 5 if header is None else 4)))
    assert msg in fails(tmp_path, capsys, tmp_path / "b.csv", "--columns", columns)


def test_columns_option_syntax(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["pairs", str(tmp_path / "b.csv"), "--columns", "1,,2"])
    assert e.value.code == 2
    assert "expected comma-separated column names" in capsys.readouterr().err
    np.save(tmp_path / "b.npy", np.ones((2, 4)))
    assert main(["pairs", str(tmp_path / "b.npy"), "--columns", "minx,1,2,3"]) == 1
    assert "a .npy file has no column names, found 'minx'" in capsys.readouterr().err


def test_help_names_the_options(capsys):
    with pytest.raises(SystemExit):
        main(["pairs", "--help"])
    out = capsys.readouterr().out
    for word in ("--format", "--columns", "--delimiter", "left,bottom,right,top", "xywh"):
        assert word in out


# --------------------------------------------------------------------------
# the output file's mode


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_output_files_honour_the_umask(tmp_path, mask, mode):
    write(tmp_path / "b.csv", None, np.array([[0, 0, 2, 2], [1, 1, 3, 3]]))
    old = os.umask(mask)
    try:
        for name in ("pairs.csv", "pairs.npy"):
            out = tmp_path / name
            assert main(["pairs", str(tmp_path / "b.csv"), "-o", str(out)]) == 0
            assert out.stat().st_mode & 0o777 == mode
            out.chmod(0o600)  # an existing file is replaced by a new one, of the new mode
            assert main(["pairs", str(tmp_path / "b.csv"), "-o", str(out)]) == 0
            assert out.stat().st_mode & 0o777 == mode
        assert (tmp_path / "pairs.csv").read_text() == "i,j\n0,1\n"
    finally:
        os.umask(old)
    assert sorted(os.listdir(tmp_path)) == ["b.csv", "pairs.csv", "pairs.npy"]  # no leftovers


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks")
def test_output_symlink_is_replaced_not_followed(tmp_path):
    write(tmp_path / "b.csv", None, np.array([[0, 0, 2, 2], [1, 1, 3, 3]]))
    target = tmp_path / "elsewhere.csv"
    target.write_text("keep\n")
    link = tmp_path / "pairs.csv"
    link.symlink_to(target)
    old = os.umask(0o022)
    try:
        _io.write_pairs(str(link), np.array([[0, 1]]))
    finally:
        os.umask(old)
    assert not link.is_symlink() and link.read_text() == "i,j\n0,1\n"
    assert target.read_text() == "keep\n"
    assert link.stat().st_mode & 0o777 == 0o644
