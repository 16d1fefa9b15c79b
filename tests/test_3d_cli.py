"""``broadphase pairs`` on files of 3D boxes and spheres, against plain-Python references."""

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadphase import _io
from broadphase._cli import main

# --------------------------------------------------------------------------
# references: every pair tested, in plain Python (Fractions where rounding could decide)


def ref_boxes(rows):
    """Pairs of boxes (2D or 3D corners) overlapping strictly on every axis."""
    half = len(rows[0]) // 2 if len(rows) else 0
    return [[i, j] for i, j in combinations(range(len(rows)), 2)
            if all(rows[i][k] < rows[j][half + k] and rows[j][k] < rows[i][half + k]
                   for k in range(half))]


def ref_spheres(rows):
    """Pairs of spheres x, y, z, r with |c_i - c_j| < r_i + r_j, decided exactly."""
    f = [[Fraction(v) for v in r] for r in rows]
    return [[i, j] for i, j in combinations(range(len(f)), 2)
            if sum((f[i][k] - f[j][k]) ** 2 for k in range(3)) < (f[i][3] + f[j][3]) ** 2]


def corners(xyzwhd):
    return [list(r[:3]) + [r[k] + r[3 + k] for k in range(3)] for r in xyzwhd]


def write_csv(path, rows, header=None):
    with open(path, "w", newline="") as f:
        if header is not None:
            f.write(header + "\n")
        for r in rows:
            f.write(",".join(repr(float(v)) for v in r) + "\n")


def read_pairs_csv(path):
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0] == "i,j"
    return [[int(v) for v in ln.split(",")] for ln in lines[1:]]


def run(tmp_path, src, *options):
    out = tmp_path / "p.npy"
    assert main(["pairs", str(src), "-o", str(out), *options]) == 0
    got = np.load(out)
    assert got.dtype == np.intp and got.shape[1:] == (2,)
    return got.tolist()


def cubes(n=300, seed=3):
    """Integer-grid boxes: faces, edges and corners touching, zero sizes, one over all."""
    rng = np.random.default_rng(seed)
    lo = rng.integers(0, 12, (n, 3))
    rows = np.hstack([lo, lo + rng.integers(0, 4, (n, 3))]).astype(float)
    rows[n // 2] = [-1, -1, -1, 20, 20, 20]
    return rows


def balls(n=200, seed=4):
    """Sphere centres on a grid and radii summing to their distances: many exact touches."""
    rng = np.random.default_rng(seed)
    return np.column_stack([rng.integers(0, 10, (n, 3)), rng.integers(0, 4, n) / 2.0])


# --------------------------------------------------------------------------
# boxes


@pytest.mark.parametrize("header", [
    None,
    "minx,miny,minz,maxx,maxy,maxz",
    "xmin,ymin,zmin,xmax,ymax,zmax",
    " MAXZ, minx ,miny,minz,maxx,maxy",  # any order, case and spaces: reordered
    "\ufeffminx,miny,minz,maxx,maxy,maxz",  # a byte-order mark before the header
])
def test_3d_box_csv(tmp_path, header, capsys):
    rows = cubes()
    src = tmp_path / "b.csv"
    if header is not None and "MAXZ" in header:
        write_csv(src, rows[:, [5, 0, 1, 2, 3, 4]], header)
    else:
        src.write_text("" if header is None else header + "\n", encoding="utf-8")
        with open(src, "a") as f:
            f.writelines(",".join(repr(float(v)) for v in r) + "\n" for r in rows)
    want = ref_boxes(rows.tolist())
    assert run(tmp_path, src) == want
    err = capsys.readouterr().err
    assert f"300 3D boxes, {len(want):,} colliding pairs" in err
    # a 2D reading of the same numbers would give other pairs: the file was read as 3D
    assert ref_boxes(rows[:, [0, 1, 3, 4]].tolist()) != want


@pytest.mark.parametrize("method", ["auto", "brute", "sweep", "grid", "quadtree", "octree"])
def test_3d_box_npy_every_method(tmp_path, method):
    rows = cubes(200, seed=5)
    np.save(tmp_path / "b.npy", rows)
    assert run(tmp_path, tmp_path / "b.npy", "--method", method) == ref_boxes(rows.tolist())


@pytest.mark.parametrize("header", ["x,y,z,w,h,d", "X,Y,Z,Width,Height,Depth",
                                    "d,h,w,z,y,x"])
def test_3d_position_and_size(tmp_path, header):
    rng = np.random.default_rng(6)
    xyzwhd = np.hstack([rng.integers(0, 10, (150, 3)), rng.integers(0, 4, (150, 3))]).astype(float)
    order = {"x": 0, "y": 1, "z": 2, "w": 3, "h": 4, "d": 5, "width": 3, "height": 4,
             "depth": 5}
    cols = [order[c.strip().lower()] for c in header.split(",")]
    src = tmp_path / "b.csv"
    write_csv(src, xyzwhd[:, cols], header)
    assert run(tmp_path, src) == ref_boxes(corners(xyzwhd.tolist()))


def test_four_columns_without_a_header_stay_2d_boxes(tmp_path, capsys):
    # read as spheres these rows would give other pairs: never reinterpreted
    rows = [[0, 0, 2, 2], [1, 1, 3, 3], [2.5, 0, 4, 0.5], [5, 5, 5.5, 5.5]]
    assert ref_boxes(rows) == [[0, 1]]
    assert ref_spheres(rows) != [[0, 1]]
    for name, make in (("b.csv", lambda p: write_csv(p, rows)),
                       ("b.npy", lambda p: np.save(p, np.array(rows, float)))):
        make(tmp_path / name)
        assert run(tmp_path, tmp_path / name) == [[0, 1]]
        assert "4 boxes, 1 colliding pair" in capsys.readouterr().err
        # and with --spheres they are spheres
        assert run(tmp_path, tmp_path / name, "--spheres") == ref_spheres(rows)
        assert "4 spheres" in capsys.readouterr().err


# --------------------------------------------------------------------------
# spheres


@pytest.mark.parametrize("header", ["x,y,z,r", "R,z,Y,x", "x,y,z,radius"])
def test_spheres_by_their_header(tmp_path, header, capsys):
    rows = balls()
    order = {"x": 0, "y": 1, "z": 2, "r": 3, "radius": 3}
    cols = [order[c.strip().lower()] for c in header.split(",")]
    src = tmp_path / "s.csv"
    write_csv(src, rows[:, cols], header)
    want = ref_spheres(rows.tolist())
    assert len(want) > 50
    assert run(tmp_path, src) == want
    assert f"200 spheres, {len(want):,} colliding pairs" in capsys.readouterr().err
    assert run(tmp_path, src, "--spheres") == want  # the option agrees with the header


def test_spheres_by_the_option(tmp_path):
    rows = balls(150, seed=7)
    want = ref_spheres(rows.tolist())
    write_csv(tmp_path / "s.csv", rows)
    np.save(tmp_path / "s.npy", rows)
    assert run(tmp_path, tmp_path / "s.csv", "--spheres") == want
    assert run(tmp_path, tmp_path / "s.npy", "--spheres", "--method", "octree") == want


def test_stdout_is_csv(tmp_path, capsys):
    rows = cubes(120, seed=8)
    np.save(tmp_path / "b.npy", rows)
    assert main(["pairs", str(tmp_path / "b.npy")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "i,j"
    assert [[int(v) for v in ln.split(",")] for ln in out[1:]] == ref_boxes(rows.tolist())


def test_no_rows_is_a_valid_empty_input(tmp_path, capsys):
    for name, make, opts in (
            ("b.npy", lambda p: np.save(p, np.empty((0, 6))), []),
            ("s.npy", lambda p: np.save(p, np.empty((0, 4))), ["--spheres"]),
            ("h.csv", lambda p: p.write_text("minx,miny,minz,maxx,maxy,maxz\n"), []),
            ("s.csv", lambda p: p.write_text("x,y,z,r\n"), [])):
        make(tmp_path / name)
        assert run(tmp_path, tmp_path / name, *opts) == []
        assert "0 colliding pairs" in capsys.readouterr().err


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(*[st.integers(-4, 4)] * 3, *[st.integers(0, 3)] * 3), max_size=30),
       st.booleans())
def test_random_3d_box_files(tmp_path_factory, raw, header):
    tmp = tmp_path_factory.mktemp("r")
    rows = corners([list(map(float, r)) for r in raw])
    write_csv(tmp / "b.csv", rows, "minx,miny,minz,maxx,maxy,maxz" if header else None)
    if not rows:
        return
    assert run(tmp, tmp / "b.csv") == ref_boxes(rows)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(*[st.integers(-6, 6)] * 3, st.integers(0, 8)), min_size=1,
                max_size=25))
def test_random_sphere_files(tmp_path_factory, raw):
    # halves: radii whose sums meet the distances exactly, and ones just short of them
    tmp = tmp_path_factory.mktemp("s")
    rows = [[x / 2, y / 2, z / 2, r / 2] for x, y, z, r in raw]
    write_csv(tmp / "s.csv", rows, "x,y,z,r")
    assert run(tmp, tmp / "s.csv") == ref_spheres(rows)


# --------------------------------------------------------------------------
# errors: the file, the line and the column, as in 2D


@pytest.mark.parametrize("text, options, where", [
    ("minx,miny,minz,maxx,maxy,maxz\n0,0,0,1,1,1\n2,2,x,3,3,3\n", [],
     "line 3, column 3 (minz): expected a number, found 'x'"),
    ("0,0,0,1,1,1\n0,0,5,1,1,2\n", [], "line 2: boxes[1]: minz 5.0 > maxz 2.0"),
    ("0,0,0,1,1,1\n0,0,1,1\n", [], "line 2: expected 6 columns (minx,miny,minz,maxx,maxy,maxz), "
                                   "found 4"),
    ("0,0,0,1,1,1\n0,0,0,1,1,nan\n", [], "line 2: boxes[1]: maxz is nan; expected finite"),
    ("0,0,0,1,1,1\n0,0,0,1,1,1e400\n", [], "line 2, column 6 (maxz): 1e400 passes float64's "
                                           "largest value"),
    ("x,y,z,w,h,d\n0,0,0,1,1,-1\n", [], "line 2: boxes[0]: d -1.0 < 0"),
    ("xmin,ymin,zmin,xmax,ymax,zmax\n0,0,0,1,1\n", [],
     "line 2: expected 6 columns (xmin,ymin,zmin,xmax,ymax,zmax), found 5"),
    ("minx,miny,minz,maxx,maxy,zmin\n0,0,0,1,1,1\n", [],
     "line 1: columns 'minz' and 'zmin' both name minz; expected one of them"),
    ("a,b,c,d,e,f\n0,0,0,1,1,1\n", [], "line 1: header 'a,b,c,d,e,f' does not name the columns "
                                       "read (expected columns minx, miny, maxx, maxy (or xmin, "
                                       "ymin, xmax, ymax) or x, y, w, h (or x, y, width, height); "
                                       "found columns a, b, c, d, e, f); also read: 3D boxes "
                                       "minx,miny,minz,maxx,maxy,maxz or x,y,z,w,h,d"),
    ("x,y,z,r\n0,0,0,1\n1,1,1,-2\n", [], "line 3: radii[1]: expected a radius >= 0, found -2.0"),
    ("x,y,z,r\n0,0,inf,1\n", [], "line 2: centers[0]: z is inf; expected finite numbers"),
    ("x,y,z,r\n0,0,0,1\n0,0,0,1,1,1\n", [], "line 3: expected 4 columns (x,y,z,r), found 6 "
                                            "(3D boxes? this file is read as spheres, for "
                                            "--spheres or its header)"),
    ("0,0,0,1\n0,0,1\n", ["--spheres"], "line 2: expected 4 columns (x,y,z,r), found 3"),
    ("0,0,0,1,1,1\n", ["--spheres"], "line 1: expected 4 columns (x,y,z,r), found 6 (3D boxes? "
                                     "this file is read as spheres, for --spheres or its header)"),
    ("0,0,0,1,1,1\n", ["--circles"], "line 1: expected 3 columns (x,y,r), found 6 (3D boxes? "
                                     "this file is read as circles, for --circles or its "
                                     "header)"),
    # a header of other columns than the option reads, even one as wide: refused, not misread
    ("minx,miny,maxx,maxy\n0,0,1,1\n", ["--spheres"],
     "line 1: header 'minx,miny,maxx,maxy' names other columns than this command reads; "
     "expected x,y,z,r here, or no header"),
    ("x,y,r\n0,0,1\n", ["--spheres"], "line 1: header 'x,y,r' names other columns than this "
                                      "command reads; expected x,y,z,r here"),
    ("x,y,z,r\n0,0,0,1\n", ["--circles"], "line 1: header 'x,y,z,r' names other columns than "
                                          "this command reads; expected x,y,r here"),
    ("minx,miny,minz,maxx,maxy,maxz\n0,0,0,1,1,1\n", ["--circles"],
     "line 1: header 'minx,miny,minz,maxx,maxy,maxz' names other columns than this command "
     "reads; expected x,y,r here, or no header"),
])
def test_malformed_files_name_the_line(tmp_path, capsys, text, options, where):
    src = tmp_path / "bad.csv"
    src.write_text(text, encoding="utf-8")
    assert main(["pairs", str(src), "-o", str(tmp_path / "p.csv"), *options]) == 1
    err = capsys.readouterr().err
    assert f"bad.csv, {where}" in err, err
    assert "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("shape, options, msg", [
    ((5, 6), ["--circles"], "expected an array of shape (n, 3) (x, y, r), found shape (5, 6) "
                            "(3D boxes? leave out --circles)"),
    ((5, 6), ["--spheres"], "expected an array of shape (n, 4) (x, y, z, r), found shape (5, 6) "
                            "(3D boxes? leave out --spheres)"),
    ((5, 3), ["--spheres"], "found shape (5, 3) (circles x,y,r? use --circles)"),
    ((5, 5), [], "expected an array of shape (n, 4) (minx, miny, maxx, maxy), found shape (5, 5)"),
])
def test_npy_of_another_width_gets_a_hint(tmp_path, capsys, shape, options, msg):
    np.save(tmp_path / "a.npy", np.zeros(shape))
    assert main(["pairs", str(tmp_path / "a.npy"), *options]) == 1
    assert msg in capsys.readouterr().err


def test_bad_3d_rows_of_npy_name_the_row(tmp_path, capsys):
    rows = cubes(50)
    rows[17, 2] = rows[17, 5] + 1
    np.save(tmp_path / "b.npy", rows)
    assert main(["pairs", str(tmp_path / "b.npy")]) == 1
    assert "b.npy: boxes[17]: minz" in capsys.readouterr().err


def test_circles_and_spheres_exclude_each_other(tmp_path, capsys):
    np.save(tmp_path / "s.npy", balls(5))
    with pytest.raises(SystemExit) as e:
        main(["pairs", str(tmp_path / "s.npy"), "--circles", "--spheres"])
    assert e.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_help_names_the_3d_options(capsys):
    with pytest.raises(SystemExit):
        main(["pairs", "--help"])
    out = capsys.readouterr().out
    assert "--spheres" in out and "minx,miny,minz,maxx,maxy" in out and "octree" in out


def test_first_width(tmp_path):
    (tmp_path / "a.csv").write_text("0,0,0,1,1,1\n0,0\n")
    (tmp_path / "e.csv").write_text("\n0,0,1,1\n")
    (tmp_path / "b.csv").write_bytes(b"\xff,0\n")
    np.save(tmp_path / "a.npy", np.zeros((0, 6)))
    np.save(tmp_path / "c.npy", np.zeros((2, 6, 1)))
    np.save(tmp_path / "o.npy", np.array([[1, "a"]], dtype=object), allow_pickle=True)
    (tmp_path / "bad.npy").write_bytes(b"not numpy")
    got = {p: _io.first_width(tmp_path / p) for p in
           ("a.csv", "e.csv", "b.csv", "a.npy", "c.npy", "o.npy", "bad.npy", "none.csv")}
    assert got == {"a.csv": 6, "e.csv": None, "b.csv": None, "a.npy": 6, "c.npy": None,
                   "o.npy": 2, "bad.npy": None, "none.csv": None}
