"""One reading rule on every path into the core.

Every entry point (find_pairs, find_pairs_between, find_circle_pairs, the
tree's insert / move / query / insert_circles / move_circles / query_point,
the CLI's files, Dask's Parquet and DataFrames) reads every input form
(arrays, nested lists, tuples, tables by column name, single rows, pygame
rects, scalars) the same way: the same boxes give the same pairs (checked
against the brute-force references of ``naive``), and a value float64
cannot hold exactly (an integer beyond 2**53, a fraction that would round),
a masked or missing value or a boolean is refused on every form, naming the
argument and the row or column.
"""

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import broadphase as bp
import naive
from helpers import assert_same

try:
    import pandas as pd
except ImportError:  # pragma: no cover
    pd = None
try:
    import pyarrow as pa
except ImportError:  # pragma: no cover
    pa = None
try:
    import polars as pl
except ImportError:
    pl = None
try:
    import pygame
except ImportError:  # pragma: no cover
    pygame = None

BIG = 2**53 + 1  # the first integer float64 rounds
BOUNDS = (-100, -100, 100, 100)
CORNERS = ("minx", "miny", "maxx", "maxy")
needs_pandas = pytest.mark.skipif(pd is None, reason="needs pandas")
needs_arrow = pytest.mark.skipif(pa is None, reason="needs pyarrow")
needs_polars = pytest.mark.skipif(pl is None, reason="needs polars")
needs_pygame = pytest.mark.skipif(pygame is None, reason="needs pygame")


def tree():
    return bp.LinearQuadtree(BOUNDS, 3)


# --------------------------------------------------------------------------
# the forms: the same boxes (corners b, an (n, 4) float64 array) written
# every way a caller may write them; None where a form cannot hold them


def _integral(b):
    return bool(np.all(b == np.round(b)))


def _xywh(b):
    return np.column_stack([b[:, 0], b[:, 1], b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]])


def _columns(b, names):
    return {n: b[:, k] for k, n in enumerate(names)}


def _mixed_ints(b):
    """Rows of Python ints where a value is whole, floats elsewhere."""
    return [[int(v) if float(v).is_integer() else float(v) for v in row] for row in b.tolist()]


BOX_FORMS = {
    "ndarray": lambda b: b,
    "int64": lambda b: b.astype(np.int64) if _integral(b) else None,
    "float32": lambda b: b.astype(np.float32),
    "fortran": lambda b: np.asfortranarray(b),
    "list": lambda b: b.tolist(),
    "ints and floats": _mixed_ints,
    "tuple": lambda b: tuple(map(tuple, b.tolist())),
    "list of rows": lambda b: list(b),
    "structured": lambda b: np.rec.fromarrays(
        [b[:, 2].astype(np.float32), b[:, 0], b[:, 3], b[:, 1]],
        names="maxx,minx,maxy,miny").view(np.ndarray),
}
if pd is not None:
    BOX_FORMS.update({
        # columns in another order, another case, with a column that is not read
        "pandas": lambda b: pd.DataFrame({"id": np.arange(len(b)), "MaxY": b[:, 3],
                                          "minx": b[:, 0], "maxx": b[:, 2], "miny": b[:, 1]}),
        "pandas aliases": lambda b: pd.DataFrame(_columns(b[:, [1, 0, 3, 2]],
                                                          ("ymin", "xmin", "ymax", "xmax"))),
        "pandas xywh": lambda b: pd.DataFrame(_columns(_xywh(b)[:, [2, 3, 0, 1]],
                                                       ("w", "h", "x", "y"))),
        "pandas int64 beside floats": lambda b: pd.DataFrame(
            {"minx": b[:, 0].astype(np.int64), "miny": b[:, 1], "maxx": b[:, 2].astype(np.int64),
             "maxy": b[:, 3]}) if _integral(b) else None,
        "pandas nullable": lambda b: pd.DataFrame(_columns(b, CORNERS)).astype("Float64"),
        "pandas unnamed": lambda b: pd.DataFrame(b),
    })
if pa is not None:
    BOX_FORMS.update({
        "arrow": lambda b: pa.table(_columns(b[:, ::-1], CORNERS[::-1])),
        "arrow xywh": lambda b: pa.table(_columns(_xywh(b), ("x", "y", "width", "height"))),
        "arrow batch": lambda b: pa.RecordBatch.from_pydict(_columns(b, CORNERS)),
    })
if pl is not None:
    BOX_FORMS.update({
        "polars": lambda b: pl.DataFrame(_columns(b[:, [3, 1, 2, 0]],
                                                  ("maxy", "miny", "maxx", "minx"))),
        "polars ints": lambda b: pl.DataFrame({"XMIN": b[:, 0].astype(np.int64),
                                               "ymin": b[:, 1], "xmax": b[:, 2],
                                               "YMAX": b[:, 3]}) if _integral(b) else None,
    })
if pygame is not None:
    BOX_FORMS["pygame rects"] = lambda b: (
        [pygame.Rect(*map(int, r)) for r in _xywh(b)] if _integral(b) else None)
    BOX_FORMS["pygame frects"] = lambda b: [pygame.FRect(*r) for r in _xywh(b).tolist()]


def _row_forms():
    """One box (a (4,) float64 row r) written every way a one-row argument may be."""
    forms = {
        "list": lambda r: r.tolist(),
        "tuple": lambda r: tuple(r.tolist()),
        "ndarray": lambda r: r,
        "one-row array": lambda r: r[None],
        "masked, nothing masked": lambda r: np.ma.array(r),
        "structured record": lambda r: np.rec.fromarrays(
            [[r[2]], [r[0]], [r[3]], [r[1]]], names="maxx,minx,maxy,miny")[0],
    }
    if pd is not None:
        forms["pandas row (df.iloc[k])"] = lambda r: pd.DataFrame(
            [r[[3, 2, 1, 0]]], columns=["maxy", "maxx", "miny", "minx"]).iloc[0]
        forms["one-row DataFrame"] = lambda r: pd.DataFrame([_xywh(r[None])[0]],
                                                            columns=list("xywh"))
    if pa is not None:
        forms["one-row arrow"] = lambda r: pa.table(_columns(r[None], CORNERS))
    if pygame is not None:
        forms["pygame rect"] = lambda r: (pygame.Rect(*map(int, _xywh(r[None])[0]))
                                          if _integral(r) else None)
        forms["pygame frect"] = lambda r: pygame.FRect(*_xywh(r[None])[0].tolist())
    return forms


ROW_FORMS = _row_forms()


def _circle_forms():
    """Circles (centres c (n, 2), radii r (n,)) as (centers, radii) arguments."""
    forms = {
        "ndarray": lambda c, r: (c, r),
        "lists": lambda c, r: (c.tolist(), r.tolist()),
        "tuples, int radii": lambda c, r: (tuple(map(tuple, c.tolist())),
                                           tuple(_mixed_ints(r[None])[0])),
        "structured with r": lambda c, r: (np.rec.fromarrays([r, c[:, 1], c[:, 0]],
                                                             names="r,y,x").view(np.ndarray),
                                           None),
    }
    if pd is not None:
        forms["pandas x, y"] = lambda c, r: (pd.DataFrame({"y": c[:, 1], "x": c[:, 0]}),
                                             pd.Series(r))
        forms["pandas x, y, r"] = lambda c, r: (pd.DataFrame({"R": r, "y": c[:, 1],
                                                              "X": c[:, 0]}), None)
    if pa is not None:
        forms["arrow x, y, radius"] = lambda c, r: (
            pa.table({"x": c[:, 0], "radius": r, "y": c[:, 1]}), None)
    if pl is not None:
        forms["polars x, y"] = lambda c, r: (pl.DataFrame({"x": c[:, 0], "y": c[:, 1]}), r)
    return forms


CIRCLE_FORMS = _circle_forms()


# --------------------------------------------------------------------------
# the differential test: every entry point, every form, the same answer


quarter = st.integers(-160, 160).map(lambda v: v / 4)  # exact binary fractions
size = st.integers(0, 80).map(lambda v: v / 4)


@st.composite
def box_arrays(draw, min_size=1, max_size=8, whole=None):
    n = draw(st.integers(min_size, max_size))
    whole = draw(st.booleans()) if whole is None else whole
    scale = 4.0 if whole else 1.0
    xy = np.array([[draw(quarter) * scale, draw(quarter) * scale] for _ in range(n)])
    wh = np.array([[draw(size) * scale, draw(size) * scale] for _ in range(n)])
    return np.hstack([xy, xy + wh]).reshape(-1, 4)


@settings(max_examples=25, deadline=None)
@given(b=box_arrays(), b2=box_arrays(), moved=box_arrays())
def test_every_box_form_gives_the_same_pairs_everywhere(b, b2, moved):
    moved = np.resize(moved, b.shape)  # one new box per box
    want, between, after = (naive.box_pairs(b), naive.pairs_between(b, b2),
                            naive.box_pairs(moved))
    for label, make in BOX_FORMS.items():
        value, value2, value3 = make(b), make(b2), make(moved)
        if value is None or value2 is None or value3 is None:
            continue
        try:
            assert_same(bp.find_pairs(value), want)
            assert_same(bp.find_pairs(value, method="brute", workers=1), want)
            assert_same(bp.find_pairs_between(value, value2), between, between=True)
            t = tree()
            h = t.insert(value)
            assert h.tolist() == list(range(len(b)))
            np.testing.assert_array_equal(t.boxes(h), b)
            assert_same(t.pairs(), want)
            t.move(h, value3)
            np.testing.assert_array_equal(t.boxes(h), moved)
            assert_same(t.pairs(), after)
        except AssertionError as e:
            raise AssertionError(f"form {label!r}: {e}") from None


@settings(max_examples=25, deadline=None)
@given(b=box_arrays(min_size=1), q=box_arrays(min_size=1, max_size=1))
def test_every_one_row_form_is_one_box(b, q):
    q = q[0]
    want = naive.pairs_between(q[None], b)[:, 1].tolist()
    for label, make in ROW_FORMS.items():
        row = make(q)
        if row is None:
            continue
        t = tree()
        h = t.insert(b)
        assert t.query(row).tolist() == want, label
        k = t.insert(make(q))
        assert k.tolist() == [len(b)], label
        np.testing.assert_array_equal(t.boxes(k[0]), q, err_msg=label)
        t.move(h[0], make(q))
        np.testing.assert_array_equal(t.boxes(h[0]), q, err_msg=label)


SCALAR_FORMS = {
    "float": float,
    "int or float": lambda v: int(v) if float(v).is_integer() else float(v),
    "float32": np.float32,
    "0-d array": np.array,
    "Fraction": lambda v: Fraction(float(v)),
    "int64 or float": lambda v: np.int64(v) if float(v).is_integer() else np.float64(v),
}


@settings(max_examples=25, deadline=None)
@given(b=box_arrays(min_size=1), x=quarter, y=quarter)
def test_every_scalar_form_is_one_number(b, x, y):
    inside = [k for k, r in enumerate(b) if r[0] < x < r[2] and r[1] < y < r[3]]
    t = tree()
    t.insert(b)
    for label, make in SCALAR_FORMS.items():
        assert t.query_point(make(x), make(y)).tolist() == inside, label
        c = np.column_stack([b[:, 0], b[:, 1]])
        want = naive.circle_pairs(c, np.full(len(b), abs(x)))
        assert_same(bp.find_circle_pairs(c, make(abs(x))), want)
        u = tree()
        u.move_circles(u.insert_circles(c, 1.0), c, make(abs(x)))
        assert_same(u.pairs(), want)


@st.composite
def circle_arrays(draw):
    n = draw(st.integers(1, 7))
    c = np.array([[draw(quarter), draw(quarter)] for _ in range(n)]).reshape(-1, 2)
    r = np.array([draw(st.integers(0, 40)) / 4 for _ in range(n)])
    return c, r


@settings(max_examples=25, deadline=None)
@given(first=circle_arrays(), second=circle_arrays())
def test_every_circle_form_gives_the_same_pairs_everywhere(first, second):
    (c, r), (c2, r2) = first, second
    c2, r2 = np.resize(c2, c.shape), np.resize(r2, r.shape)
    want, after = naive.circle_pairs(c, r), naive.circle_pairs(c2, r2)
    for label, make in CIRCLE_FORMS.items():
        centers, radii = make(c, r)
        try:
            assert_same(bp.find_circle_pairs(centers, radii), want)
            t = tree()
            h = t.insert_circles(centers, radii)
            np.testing.assert_array_equal(t.circles(h), np.column_stack([c, r]))
            assert_same(t.pairs(), want)
            centers2, radii2 = make(c2, r2)
            t.move_circles(h, centers2, radii2)
            np.testing.assert_array_equal(t.circles(h), np.column_stack([c2, r2]))
            assert_same(t.pairs(), after)
        except AssertionError as e:
            raise AssertionError(f"form {label!r}: {e}") from None
    # one circle as one row: (2,) centres of each form
    for row in (c[0], c[0].tolist(), tuple(c[0].tolist())):
        t = tree()
        t.insert_circles(c, r)
        k = t.insert_circles(row, r[0])
        np.testing.assert_array_equal(t.circles(k[0]), [c[0, 0], c[0, 1], r[0]])


def test_move_circles_keeps_radii_unless_the_table_has_them():
    t = tree()
    h = t.insert_circles([[0, 0], [10, 0]], [1.0, 2.0])
    t.move_circles(h, [[1, 1], [5, 5]])
    np.testing.assert_array_equal(t.circles(h)[:, 2], [1, 2])
    if pd is not None:
        t.move_circles(h, pd.DataFrame({"x": [1, 2], "y": [1, 1]}))
        np.testing.assert_array_equal(t.circles(h), [[1, 1, 1], [2, 1, 2]])
        t.move_circles(h, pd.DataFrame({"x": [1, 2], "y": [1, 1], "r": [0.5, 0.25]}))
        np.testing.assert_array_equal(t.circles(h), [[1, 1, 0.5], [2, 1, 0.25]])
        assert t.pairs().tolist() == []


# --------------------------------------------------------------------------
# every refusal on every form


def _bad_value(kind):
    return {"big": BIG, "fraction": Fraction(1, 3), "bool": True}[kind]


GOOD = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6]], np.float64)
BAD_ROW, BAD_COL = 1, 2  # the value put in boxes[1], maxx


def _bad_rows(kind):
    """GOOD's rows as Python objects with the bad value at [BAD_ROW][BAD_COL]."""
    rows = [list(map(float, r)) for r in GOOD]
    if kind == "masked":
        rows[BAD_ROW] = np.ma.array(rows[BAD_ROW], mask=[k == BAD_COL for k in range(4)])
    else:
        rows[BAD_ROW][BAD_COL] = _bad_value(kind)
    return rows


def _bad_columns(kind):
    cols = {c: GOOD[:, k].copy() for k, c in enumerate(CORNERS)}
    if kind == "big":
        cols["maxx"] = GOOD[:, 2].astype(np.int64)
        cols["maxx"][BAD_ROW] = BIG
    elif kind == "fraction":
        cols["maxx"] = np.array([Fraction(int(v)) for v in GOOD[:, 2]], dtype=object)
        cols["maxx"][BAD_ROW] = Fraction(1, 3)
    elif kind == "bool":
        cols["maxx"] = np.array([True, True, False])
    return cols


def _bad_structured(kind):
    cols = _bad_columns(kind)
    arr = np.rec.fromarrays(list(cols.values()), names=",".join(cols)).view(np.ndarray)
    if kind == "masked":
        mask = np.zeros(3, dtype=[(c, bool) for c in CORNERS])
        mask["maxx"][BAD_ROW] = True
        return np.ma.array(arr, mask=mask)
    return arr


def _bad_pandas(kind):
    cols = _bad_columns(kind)
    df = pd.DataFrame(cols)
    if kind == "masked":  # pandas has missing values, not masks
        df["maxx"] = df["maxx"].astype("Float64")
        df.loc[BAD_ROW, "maxx"] = pd.NA
    return df


def _bad_arrow(kind):
    if kind == "fraction":
        return None
    cols = _bad_columns(kind)
    if kind == "masked":
        cols["maxx"] = pa.array([2.0, None, 6.0])
    return pa.table(cols)


def _bad_polars(kind):
    if kind == "fraction":
        return None
    cols = _bad_columns(kind)
    if kind == "masked":
        cols["maxx"] = [2.0, None, 6.0]
    return pl.DataFrame(cols)


def _bad_ndarray(kind):
    if kind == "big":
        a = GOOD.astype(np.int64)
        a[BAD_ROW, BAD_COL] = BIG
        return a
    if kind == "masked":
        mask = np.zeros(GOOD.shape, bool)
        mask[BAD_ROW, BAD_COL] = True
        return np.ma.array(GOOD, mask=mask)
    return np.array(_bad_rows(kind), dtype=object)


BAD_FORMS = {
    "ndarray": _bad_ndarray,
    "list": _bad_rows,
    "tuple": lambda kind: tuple(r if isinstance(r, np.ndarray) else tuple(r)
                                for r in _bad_rows(kind)),
    "structured": _bad_structured,
}
if pd is not None:
    BAD_FORMS["pandas"] = _bad_pandas
if pa is not None:
    BAD_FORMS["arrow"] = _bad_arrow
if pl is not None:
    BAD_FORMS["polars"] = _bad_polars

KINDS = ["big", "fraction", "masked", "bool"]
WHAT = {"big": (ValueError, r"integers up to 2\*\*53 in magnitude expected"),
        "fraction": (ValueError, r"exactly representable in float64 expected.*would round"),
        "masked": (ValueError, r"a (masked|missing) value"),
        "bool": (TypeError, r"bool")}


def _where(name, row, table, kind):
    """What the message must name: the row, or for a table's column of bools the column."""
    if table and kind == "bool":
        return rf"{name}, column 'maxx'"
    if table:
        return rf"{name}\[{row}\], column 'maxx'"
    return rf"{name}\[{row}\]"


def _calls(value):
    """Every entry point taking boxes, with the argument name it must report."""
    def move(v):
        t = tree()
        t.move(t.insert(GOOD), v)

    return [
        ("boxes", lambda: bp.find_pairs(value)),
        ("boxes", lambda: bp.find_pairs(value, method="sweep", workers=1)),
        ("boxes_a", lambda: bp.find_pairs_between(value, GOOD)),
        ("boxes_b", lambda: bp.find_pairs_between(GOOD, value)),
        ("boxes", lambda: tree().insert(value)),
        ("boxes", lambda: move(value)),
    ]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("form", list(BAD_FORMS))
def test_every_refusal_on_every_box_form(form, kind):
    value = BAD_FORMS[form](kind)
    if value is None:
        pytest.skip(f"{form} cannot hold a {kind} value")
    exc, what = WHAT[kind]
    table = form in ("pandas", "arrow", "polars", "structured")
    for name, call in _calls(value):
        with pytest.raises(exc, match=what) as info:
            call()
        assert re.search(_where(name, BAD_ROW, table, kind), str(info.value)), str(info.value)


def _bad_row(form, kind):
    """One box, the bad value in maxx, as a one-row argument of ``form``."""
    rows = _bad_rows(kind)
    if form == "list":
        return list(rows[BAD_ROW])
    if form == "tuple":
        return rows[BAD_ROW] if kind == "masked" else tuple(rows[BAD_ROW])
    if form == "ndarray":
        bad = BAD_FORMS["ndarray"](kind)
        return bad[BAD_ROW]
    if form == "arrow":
        return BAD_FORMS[form](kind).slice(BAD_ROW, 1)
    return BAD_FORMS[form](kind)[BAD_ROW:BAD_ROW + 1]  # pandas, structured: a one-row table


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("form", [f for f in BAD_FORMS if f != "polars"])
@pytest.mark.filterwarnings("ignore:Warning. converting a masked element:UserWarning")
def test_every_refusal_on_every_one_row_form(form, kind):
    if form == "arrow" and kind == "fraction":
        pytest.skip("arrow cannot hold a fraction")
    row = _bad_row(form, kind)
    if form == "pandas":
        row = row.reset_index(drop=True)
    exc, what = WHAT[kind]
    table = form in ("pandas", "arrow", "structured")
    def move(v):
        t = tree()
        t.move(t.insert([0, 0, 1, 1])[0], v)

    for name, call in [("box", lambda: tree().query(row)), ("boxes", lambda: tree().insert(row)),
                       ("boxes", lambda: move(row))]:
        with pytest.raises(exc, match=what) as info:
            call()
        assert re.search(_where(name, 0, table, kind), str(info.value)), str(info.value)


@pytest.mark.parametrize("rows", [3, 200])  # short lists and long ones are checked apart
@pytest.mark.parametrize("bad", [BIG, -BIG, 2**64 + 1, Fraction(1, 3), True, np.True_, False,
                                 np.ma.masked, "masked row", np.longdouble(1) / 3])
@pytest.mark.filterwarnings("ignore:Warning. converting a masked element:UserWarning")
def test_every_refusal_in_short_and_long_lists(rows, bad):
    if isinstance(bad, np.longdouble) and np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 here")
    b = np.tile(GOOD, (rows // 3 + 1, 1))[:rows]
    value = b.tolist()
    at = rows - 2
    value[at] = [0, 0.5, 1, 1]  # values 0 and 1 where a bool or a masked value could hide
    if isinstance(bad, str):
        value[at] = np.ma.array(value[at], mask=[0, 0, 1, 0])
    else:
        value[at][2] = bad
    exc = TypeError if isinstance(bad, (bool, np.bool_)) else ValueError
    for call in (lambda: bp.find_pairs(value), lambda: tree().insert(value),
                 lambda: bp.find_pairs(tuple(map(tuple, value[:at])) + (value[at],))):
        with pytest.raises(exc, match=re.escape(f"boxes[{at}]")):
            call()
    value[at] = [0, 0.5, 1, 1]
    assert_same(bp.find_pairs(value), naive.box_pairs(np.array(value, float)))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.filterwarnings("ignore:Warning. converting a masked element:UserWarning")
def test_every_refusal_in_circles(kind):
    bad = _bad_value(kind) if kind != "masked" else np.ma.masked
    exc, what = WHAT[kind]
    centers = [[0.0, 0.0], [1.0, 0.0]]
    if kind == "masked":
        centers[1] = np.ma.array([1.0, 0.0], mask=[True, False])
    else:
        centers[1][0] = bad
    radii = [1.0, bad] if kind != "masked" else np.ma.array([1.0, 1.0], mask=[False, True])

    def move(c, r):
        t = tree()
        t.move_circles(t.insert_circles([[0, 0], [1, 1]], 1.0), c, r)

    for name, call in [
        ("centers", lambda: bp.find_circle_pairs(centers, 1.0)),
        ("centers", lambda: tree().insert_circles(centers, 1.0)),
        ("centers", lambda: move(centers, 1.0)),
        ("radii", lambda: bp.find_circle_pairs(GOOD[:2, :2], radii)),
        ("radii", lambda: tree().insert_circles(GOOD[:2, :2], radii)),
        ("radii", lambda: move(GOOD[:2, :2], radii)),
    ]:
        with pytest.raises(exc, match=what) as info:
            call()
        assert re.search(rf"{name}\[1\]", str(info.value)), str(info.value)
    # one radius for all, and one centre as one row
    for name, call in [
        ("radii", lambda: bp.find_circle_pairs(GOOD[:2, :2], bad)),
        ("radii", lambda: tree().insert_circles([0, 0], bad)),
        ("centers", lambda: tree().insert_circles(centers[1], 1.0)),
        ("centers", lambda: move(centers[1], 1.0)),
    ]:
        with pytest.raises(exc, match=what) as info:
            call()
        assert str(info.value).startswith(name), str(info.value)


@needs_pandas
@pytest.mark.parametrize("kind", KINDS)
def test_every_refusal_in_a_table_of_circles(kind):
    cols = _bad_columns(kind)
    df = pd.DataFrame({"x": GOOD[:, 0], "y": GOOD[:, 1], "r": cols["maxx"]})
    if kind == "masked":
        df["r"] = df["r"].astype("Float64")
        df.loc[BAD_ROW, "r"] = pd.NA
    exc, what = WHAT[kind]
    where = r"centers, column 'r'" if kind == "bool" else r"centers\[1\], column 'r'"
    for call in (lambda: bp.find_circle_pairs(df), lambda: tree().insert_circles(df)):
        with pytest.raises(exc, match=what) as info:
            call()
        assert re.search(where, str(info.value)), str(info.value)


@pytest.mark.parametrize("kind", KINDS)
def test_every_refusal_in_query_point(kind):
    bad = _bad_value(kind) if kind != "masked" else np.ma.masked
    exc, what = WHAT[kind]
    if kind == "bool":
        what = r"expected a real number, found True"
    t = tree()
    t.insert([[0, 0, 1, 1]])
    for name, args in (("x", (bad, 0.5)), ("y", (0.5, bad))):
        with pytest.raises(exc, match=what) as info:
            t.query_point(*args)
        assert str(info.value).startswith(f"{name}:"), str(info.value)
    assert t.query_point(2**53, 0.5).tolist() == []  # exact: computed
    assert t.query_point(Fraction(1, 2), np.float32(0.5)).tolist() == [0]


# --------------------------------------------------------------------------
# the reproducers, one by one


def test_list_of_floats_and_big_ints_is_refused_not_rounded():
    # NumPy makes this list float64, turning 2**53 + 1 into 2**53: the boxes
    # would only touch, and [] would come back where the answer is [[0, 1]]
    rows = [[0, 0.5, 2**53 + 1, 1.5], [2**53, 0.5, 2**53 + 2, 1.5]]
    msg = re.escape(f"boxes[0]: integers up to 2**53 in magnitude expected (float64 holds "
                    f"them exactly), found {2**53 + 1}")
    with pytest.raises(ValueError, match=msg):
        bp.find_pairs(rows)
    with pytest.raises(ValueError, match=re.escape("boxes_b[0]: integers up to 2**53")):
        bp.find_pairs_between([[0, 0, 1, 1]], rows)
    with pytest.raises(ValueError, match=re.escape("boxes[0]: integers up to 2**53")):
        tree().insert(rows)
    with pytest.raises(ValueError, match=re.escape("radii[1]: integers up to 2**53")):
        bp.find_circle_pairs([[0, 0], [1, 1]], [0.5, 2**53 + 1])
    # exact values in the same kind of list: computed, and right
    ok = [[0, 0.5, 2**53, 1.5], [2**53 - 1, 0.5, 2**53, 1.5]]
    assert bp.find_pairs(ok).tolist() == [[0, 1]]
    assert bp.find_pairs([[0, 0.5, 2.5, 1.5], [2, 0.5, 2**53, 1.5]]).tolist() == [[0, 1]]


def test_a_masked_row_is_refused_in_every_one_row_form():
    row = np.ma.array([0, 0, 1, 1], mask=[0, 1, 0, 0])  # the hidden value 0 would be read
    t = tree()
    h = t.insert([[0, 0, 1, 1]])
    c = t.insert_circles([[5, 5]], 1.0)
    for name, call in [("box[0]", lambda: t.query(row)), ("boxes[0]", lambda: t.insert(row)),
                       ("boxes[0]", lambda: t.move(h, row)),
                       ("centers[0]", lambda: t.insert_circles(row[:2], 1.0)),
                       ("centers[0]", lambda: t.move_circles(c, row[:2])),
                       ("radii[0]", lambda: t.insert_circles([0, 0], row[1:2])),
                       ("radii", lambda: t.move_circles(c, [0, 0], row[1])),
                       ("radii", lambda: bp.find_circle_pairs([[0, 0]], row[1])),
                       ("y", lambda: t.query_point(0.5, row[1]))]:
        with pytest.raises(ValueError, match=re.escape(f"{name}: a masked value")):
            call()
    np.testing.assert_array_equal(t.boxes(h[0]), [0, 0, 1, 1])  # nothing changed
    np.testing.assert_array_equal(t.circles(c[0]), [5, 5, 1])
    assert len(t) == 2


def test_bools_are_refused_on_every_path():
    for value in (np.ones((2, 4), bool), [[True, False, True, True]] * 2,
                  [[True, 0.5, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0]],
                  [[1, 0, 2, 2], [np.True_, 0, 1, 1]]):
        with pytest.raises(TypeError, match=r"boxes.*bool"):
            bp.find_pairs(value)
        with pytest.raises(TypeError, match=r"boxes.*bool"):
            tree().insert(value)
        with pytest.raises(TypeError, match=r"boxes_b.*bool"):
            bp.find_pairs_between(GOOD, value)
    with pytest.raises(TypeError, match=re.escape("boxes[1]: expected real numbers, found True")):
        bp.find_pairs([[0, 0, 1, 1], [0, 0, True, 1]])
    with pytest.raises(TypeError, match=r"box.*bool"):
        tree().query([0, 0, True, 1])
    with pytest.raises(TypeError, match=r"radii.*bool"):
        bp.find_circle_pairs([[0, 0], [1, 1]], [True, 1.0])
    with pytest.raises(TypeError, match=r"radii.*bool"):
        bp.find_circle_pairs([[0, 0], [1, 1]], np.True_)
    with pytest.raises(TypeError, match=r"groups.*bool"):
        bp.find_pairs(GOOD, groups=[True, 1, 2])


@needs_pandas
def test_pandas_int64_beside_floats_is_refused_not_rounded():
    # DataFrame.to_numpy() would give float64 here, 2**53 + 1 rounded to 2**53
    df = pd.DataFrame({"minx": [0, 2**53], "miny": [0.5, 0.5], "maxx": [2**53 + 1, 2**53 + 2],
                       "maxy": [1.5, 1.5]})
    assert df["maxx"].dtype == np.int64
    with pytest.raises(ValueError, match=re.escape("boxes[0], column 'maxx': integers up to "
                                                   "2**53 in magnitude expected")):
        bp.find_pairs(df)
    ok = pd.DataFrame({"minx": [0, 2**53 - 1], "miny": [0.5, 0.5], "maxx": [2**53, 2**53],
                       "maxy": [1.5, 1.5]})
    assert bp.find_pairs(ok).tolist() == [[0, 1]]


@needs_pandas
def test_pandas_columns_are_read_by_name():
    df = pd.DataFrame({"minx": [0, 1], "maxx": [2, 3], "miny": [0, 1], "maxy": [2, 3]})
    assert bp.find_pairs(df).tolist() == [[0, 1]]  # read in order: [] (minx 0, miny 2, ...)
    assert bp.find_pairs(df.to_numpy()).tolist() == []  # the same numbers, in order
    assert bp.find_pairs_between(df, df).tolist() == [[0, 0], [0, 1], [1, 0], [1, 1]]
    t = tree()
    t.insert(df)
    assert t.pairs().tolist() == [[0, 1]]
    assert t.query(df.iloc[1]).tolist() == [0, 1]
    np.testing.assert_array_equal(t.boxes([0, 1]), [[0, 0, 2, 2], [1, 1, 3, 3]])


@needs_pandas
def test_format_against_the_names():
    xywh = pd.DataFrame({"x": [0, 1], "y": [0, 1], "w": [2, 2], "h": [2, 2]})
    corners = pd.DataFrame({"minx": [0, 1], "miny": [0, 1], "maxx": [2, 3], "maxy": [2, 3]})
    assert bp.find_pairs(xywh, format="xywh").tolist() == [[0, 1]]
    assert bp.find_pairs(corners, format="corners").tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=r"format: 'corners' reads columns minx, miny, maxx, "
                                         r"maxy.*but boxes has columns x, y, w, h"):
        bp.find_pairs(xywh, format="corners")
    with pytest.raises(ValueError, match=r"format: 'xywh' reads columns x, y, w, h.*but boxes_b "
                                         r"has columns minx, miny, maxx, maxy"):
        bp.find_pairs_between(xywh, corners, format="xywh")
    both = pd.concat([corners, pd.DataFrame({"x": [50, 60], "y": [0, 0], "w": [1, 1],
                                             "h": [1, 1]})], axis=1)
    with pytest.raises(ValueError, match=r"both corner columns .* and x, y, w, h; pass format"):
        bp.find_pairs(both)
    assert bp.find_pairs(both, format="corners").tolist() == [[0, 1]]
    assert bp.find_pairs(both, format="xywh").tolist() == []


@needs_pandas
def test_unknown_and_doubled_names_are_refused():
    df = pd.DataFrame({"left": [0], "up": [0], "right": [1], "down": [1]})
    with pytest.raises(ValueError, match=r"boxes: expected columns minx, miny, maxx, maxy \(or "
                                         r"xmin, ymin, xmax, ymax\) or x, y, w, h.*; found "
                                         r"columns left, up, right, down"):
        bp.find_pairs(df)
    # left, bottom, right, top are y up (GIS); y-down rows (top < bottom) are refused as such
    df = pd.DataFrame({"left": [0, 0], "top": [0, 0], "right": [1, 1], "bottom": [1, 1]})
    with pytest.raises(ValueError, match=r"boxes\[0\]: bottom 1.0 > top 0.0; left, bottom, "
                                         r"right, top are read with y up"):
        bp.find_pairs(df)
    with pytest.raises(ValueError, match=r"found columns minx, miny, maxx \(missing maxy\)"):
        tree().insert(pd.DataFrame({"minx": [0], "miny": [0], "maxx": [1]}))
    with pytest.raises(ValueError, match=r"columns 'minx' and 'XMIN' both name minx"):
        bp.find_pairs(pd.DataFrame({"minx": [0], "XMIN": [0], "miny": [0], "maxx": [1],
                                    "maxy": [1]}))
    with pytest.raises(ValueError, match=r"centers: expected columns x, y .*found columns a, y "
                                         r"\(missing x\)"):
        bp.find_circle_pairs(pd.DataFrame({"a": [0], "y": [0]}), 1.0)
    with pytest.raises(ValueError, match=r"boxes: expected 4 columns.*found 3 columns without "
                                         r"names"):
        bp.find_pairs(pd.DataFrame(np.zeros((2, 3))))


@needs_pandas
def test_radii_in_a_table_and_as_an_argument():
    df = pd.DataFrame({"x": [0, 3, 10], "y": [0, 0, 0], "radius": [2, 1.5, 1]})
    assert bp.find_circle_pairs(df).tolist() == [[0, 1]]
    assert bp.find_circle_pairs(df[["x", "y"]], [2, 1.5, 1]).tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=r"radii: given twice, as radii and as the column "
                                         r"'radius' of centers"):
        bp.find_circle_pairs(df, 1.0)
    with pytest.raises(TypeError, match=r"radii: expected real numbers, found None"):
        bp.find_circle_pairs(df[["x", "y"]])
    bad = df.assign(radius=[2, -1.5, 1])
    with pytest.raises(ValueError, match=re.escape("centers[1], column 'radius': expected a "
                                                   "finite radius >= 0, found -1.5")):
        tree().insert_circles(bad)


@needs_polars
def test_polars_columns_are_read_by_name():
    df = pl.DataFrame({"maxx": [2, 3], "maxy": [2, 3], "minx": [0, 1], "miny": [0.0, 1.0]})
    assert bp.find_pairs(df).tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=re.escape("boxes[0], column 'maxx': integers up to")):
        bp.find_pairs(df.with_columns(pl.Series("maxx", [2**53 + 1, 3])))
    with pytest.raises(ValueError, match=re.escape("boxes[1], column 'miny': a missing value")):
        bp.find_pairs(df.with_columns(pl.Series("miny", [0.0, None])))


@needs_arrow
def test_arrow_columns_are_read_by_name():
    t = pa.table({"maxx": [2, 3], "maxy": [2, 3], "minx": [0, 1], "miny": [0.0, 1.0]})
    assert bp.find_pairs(t).tolist() == [[0, 1]]
    assert bp.find_pairs(t.to_batches()[0]).tolist() == [[0, 1]]
    with pytest.raises(TypeError, match=re.escape("boxes[0], column 'maxx': expected real "
                                                  "numbers, found Decimal('2.5')")):
        import decimal
        bp.find_pairs(t.set_column(0, "maxx", pa.array([decimal.Decimal("2.5"),
                                                        decimal.Decimal("3")])))


def test_structured_arrays_are_read_by_name():
    s = np.array([(2, 0.0, 2, 0), (3, 1.0, 3, 1)],
                 dtype=[("maxx", "i4"), ("minx", "f8"), ("maxy", "f4"), ("miny", "u1")])
    assert bp.find_pairs(s).tolist() == [[0, 1]]
    t = tree()
    t.insert(s[1])  # one record
    np.testing.assert_array_equal(t.boxes(0), [1, 1, 3, 3])
    unnamed = np.rec.fromarrays([[0, 1], [0, 1], [2, 3], [2, 3]]).view(np.ndarray)
    assert unnamed.dtype.names == ("f0", "f1", "f2", "f3")
    assert bp.find_pairs(unnamed).tolist() == [[0, 1]]


@needs_pygame
def test_a_rect_is_x_y_w_h_in_every_tree_call():
    a, b = pygame.Rect(100, 100, 5, 5), pygame.Rect(22, 22, 5, 5)
    moved = pygame.Rect(5, 5, 20, 20)
    assert moved.colliderect(b)  # pygame's own word: they collide
    t = bp.LinearQuadtree((0, 0, 200, 200), 4)
    h = t.insert([a, b])
    assert t.pairs().tolist() == []
    t.move(h[0], moved)
    np.testing.assert_array_equal(t.boxes(h[0]), [5, 5, 25, 25])
    assert t.pairs().tolist() == [[0, 1]]
    assert t.query(pygame.Rect(24, 24, 1, 1)).tolist() == [0, 1]
    assert t.query(pygame.FRect(1, 1, 2, 2)).tolist() == []  # the corners would be [1, 1, 2, 2]
    t.move(h, [pygame.Rect(0, 0, 1, 1), pygame.FRect(0.5, 0.5, 1, 1)])
    assert t.pairs().tolist() == [[0, 1]]
    k = t.insert(pygame.Rect(30, 30, 4, 4))
    np.testing.assert_array_equal(t.boxes(k[0]), [30, 30, 34, 34])


@needs_pygame
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-2**31, 2**31 - 1 - 2**20),
                          st.integers(-2**31, 2**31 - 1 - 2**20),
                          st.integers(0, 2**20), st.integers(0, 2**20),
                          st.floats(-2.0**100, 2.0**100, width=32),
                          st.floats(0, 2.0**100, width=32)),
                min_size=1, max_size=30), st.booleans())
def test_lists_of_rects_read_as_x_y_w_h_exactly(rows, floats):
    # the fast read of plain Rect/FRect lists against the rects' own attributes, in Fractions
    if floats:
        rects = [pygame.FRect(f, f / 3, g, g / 7) for *_, f, g in rows]
    else:
        rects = [pygame.Rect(x, y, w, h) for x, y, w, h, *_ in rows]

    class Sub(type(rects[0])):
        pass

    for value in (rects, [Sub(r) for r in rects]):
        got = bp._cast.box_rows(value, "boxes", None)
        for k, r in enumerate(value):
            x, y = Fraction(r.x), Fraction(r.y)
            want = [x, y, x + Fraction(r.w), y + Fraction(r.h)]
            assert [float(v) for v in want] == got[k].tolist(), (k, r)


@needs_pygame
def test_rects_against_colliderect_everywhere():
    # sizes >= 1: a rect of zero width collides with nothing in pygame, where a
    # zero-width box inside another box overlaps it (broadphase.pygame moves
    # such rects away; not these functions)
    rng = np.random.default_rng(3)
    ra = [pygame.Rect(*rng.integers(0, 50, 2).tolist(), *rng.integers(1, 12, 2).tolist())
          for _ in range(40)]
    rb = [pygame.Rect(*rng.integers(0, 50, 2).tolist(), *rng.integers(1, 12, 2).tolist())
          for _ in range(30)]
    want = [[i, j] for i, r in enumerate(ra) for j, s in enumerate(rb) if r.colliderect(s)]
    assert bp.find_pairs_between(ra, rb).tolist() == want
    assert bp.find_pairs_between(tuple(ra), rb, format="xywh").tolist() == want
    within = [[i, j] for i in range(len(ra)) for j in range(i + 1, len(ra))
              if ra[i].colliderect(ra[j])]
    assert bp.find_pairs(ra).tolist() == within
    t = bp.LinearQuadtree((0, 0, 64, 64), 3)
    t.insert(ra)
    assert t.pairs().tolist() == within
    for j, s in enumerate(rb[:10]):
        assert t.query(s).tolist() == [i for i, r in enumerate(ra) if r.colliderect(s)], j


@needs_pygame
def test_rects_among_other_rows_are_refused():
    with pytest.raises(ValueError, match=re.escape("boxes[1]: a pygame rect (x, y, w, h) where "
                                                   "boxes[0] is not")):
        bp.find_pairs([[0, 0, 1, 1], pygame.Rect(0, 0, 1, 1)])
    with pytest.raises(ValueError, match=re.escape("boxes[1]: expected a pygame rect like "
                                                   "boxes[0], found list")):
        tree().move([0, 1], [pygame.Rect(0, 0, 1, 1), [0, 0, 1, 1]])
    with pytest.raises(ValueError, match=r"boxes: pygame rects are \(x, y, w, h\), not corners"):
        bp.find_pairs([pygame.Rect(0, 0, 1, 1)], format="corners")


@pytest.mark.parametrize("call", [
    lambda w: bp.find_pairs(GOOD, workers=w),
    lambda w: bp.find_circle_pairs(GOOD[:, :2], 1.0, workers=w),
    lambda w: bp.find_pairs_between(GOOD, GOOD, workers=w),
    lambda w: bp.LinearQuadtree(BOUNDS, 3, workers=w),
    lambda w: setattr(tree(), "workers", w),
])
def test_workers_beyond_2_31_named(call):
    for w in (2**31, 2**64, np.uint64(2**63)):
        with pytest.raises(ValueError, match=re.escape("workers: expected None or a positive "
                                                       "int up to 2**31 - 1, found")):
            call(w)
    call(2**31 - 1)  # more threads than there are: the ones there are


# --------------------------------------------------------------------------
# files: the CLI's CSV and .npy, Dask's Parquet


def _run_cli(capsys, *args):
    from broadphase._cli import main

    code = main(["pairs", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_csv_integers_beyond_2_53_are_refused(tmp_path, capsys):
    src = tmp_path / "b.csv"
    src.write_text(f"minx,miny,maxx,maxy\n0,0.5,{2**53 + 1},1.5\n{2**53},0.5,{2**53 + 2},1.5\n")
    code, out, err = _run_cli(capsys, src)
    assert code == 1 and out == ""
    assert f"{src}, line 2, column 3 (maxx): integers up to 2**53 in magnitude expected " \
           f"(float64 holds them exactly), found {2**53 + 1}" in err
    src.write_text(f"0,0.5,2,1.5\n1,-{2**60 + 1},3,1.5\n")  # no header: named as read
    code, out, err = _run_cli(capsys, src)
    assert code == 1 and f"{src}, line 2, column 2 (miny): integers up to 2**53" in err
    src.write_text(f"x,y,r\n0,0,1\n1,0,{2**53 + 1}\n")
    code, out, err = _run_cli(capsys, src)
    assert code == 1 and f"{src}, line 3, column 3 (r): integers up to 2**53" in err
    # exact: computed, and right
    src.write_text(f"0,0.5,{2**53},1.5\n{2**53 - 1},0.5,{2**53},1.5\n")
    code, out, err = _run_cli(capsys, src)
    assert code == 0 and out.splitlines() == ["i,j", "0,1"]


def test_csv_header_names_in_any_order(tmp_path, capsys):
    b = np.array([[0, 0, 2, 2], [1, 1, 3, 3], [5, 5, 6, 6], [2.5, 0, 4, 1]])
    want = naive.box_pairs(b).tolist()
    for header, cols in (("maxx,MINX,maxy,miny", [2, 0, 3, 1]),
                         ("xmin,ymin,xmax,ymax", [0, 1, 2, 3])):
        src = tmp_path / "b.csv"
        src.write_text(header + "\n" + "".join(",".join(repr(float(v)) for v in r[cols]) + "\n"
                                               for r in b))
        code, out, err = _run_cli(capsys, src)
        assert code == 0, err
        assert [list(map(int, ln.split(","))) for ln in out.splitlines()[1:]] == want
    src.write_text("y,x,width,height\n0,0,2,2\n1,1,2,2\n")  # x and y swapped: read by name
    code, out, err = _run_cli(capsys, src)
    assert code == 0 and out.splitlines() == ["i,j", "0,1"]
    src.write_text("radius,y,x\n1,0,0\n1.5,0,2\n")
    code, out, err = _run_cli(capsys, src)
    assert code == 0 and out.splitlines() == ["i,j", "0,1"]


def test_npy_integers_beyond_2_53_are_refused(tmp_path, capsys):
    src = tmp_path / "b.npy"
    np.save(src, np.array([[0, 0, 2**53 + 1, 1], [2**53, 0, 2**53 + 2, 1]], np.int64))
    code, out, err = _run_cli(capsys, src)
    assert code == 1 and f"{src}: boxes[0]: integers up to 2**53" in err
    np.save(src, np.ones((2, 4), bool))
    code, out, err = _run_cli(capsys, src)
    assert code == 1 and "expected real numbers, found dtype bool" in err


@pytest.fixture
def dask_sync():
    dask = pytest.importorskip("dask")
    pytest.importorskip("pyarrow.parquet")
    with dask.config.set(scheduler="synchronous"):
        yield


def _parquet(path, **cols):
    import pyarrow.parquet as pq

    pq.write_table(pa.table(cols), path, row_group_size=2)
    return str(path)


@needs_arrow
def test_parquet_integers_beyond_2_53_are_refused(tmp_path, dask_sync):
    import broadphase.dask as bpd

    # 2**53 + 2 is a float64, but no integer beyond 2**53 is taken (as everywhere)
    f = _parquet(tmp_path / "b.parquet", minx=np.array([0, 2**53, 5], np.int64),
                 miny=[0.5, 0.5, 0.5], maxx=np.array([2, 2**53 + 2, 6], np.uint64),
                 maxy=[1.5, 1.5, 1.5])
    arr = bpd.read_parquet(f)  # nothing read yet
    msg = re.escape(f"maxx: integers up to 2**53 in magnitude expected (float64 holds them "
                    f"exactly), found {2**53 + 2} in row 1 of {f}")
    with pytest.raises(ValueError, match=msg):
        arr.compute()
    with pytest.raises(ValueError, match=msg):
        bpd.find_pairs(arr).compute()
    # in the second row group, named by its row in the file
    f = _parquet(tmp_path / "c.parquet", v=np.array([1, 2, 3, -(2**53) - 1], np.int64))
    with pytest.raises(ValueError, match=re.escape(f"v: integers up to 2**53 in magnitude "
                                                   f"expected (float64 holds them exactly), "
                                                   f"found {-(2**53) - 1} in row 3 of {f}")):
        bpd.read_parquet(f, "v").compute()
    # exact integers beside floats: read exactly, and the right pairs
    f = _parquet(tmp_path / "d.parquet", minx=np.array([0, 2**53 - 1], np.int64),
                 miny=[0.5, 0.5], maxx=np.array([2**53, 2**53], np.int64), maxy=[1.5, 1.5])
    assert bpd.find_pairs(bpd.read_parquet(f)).compute().tolist() == [[0, 1]]


@needs_arrow
def test_parquet_column_types_checked_before_reading(tmp_path, dask_sync):
    import decimal

    import broadphase.dask as bpd

    good = {"minx": [0.0, 1.0], "miny": [0.0, 1.0], "maxx": [2.0, 3.0], "maxy": [2.0, 3.0]}
    for bad, found in ((pa.array([True, False]), "bool"), (pa.array(["1", "2"]), "string"),
                       (pa.array([decimal.Decimal("1.5"), decimal.Decimal("2")]), "decimal")):
        f = _parquet(tmp_path / f"{found}.parquet", **{**good, "maxy": bad})
        with pytest.raises(TypeError, match=re.escape(f"maxy: expected integers or floats of "
                                                      f"at most 64 bits (read as float64), "
                                                      f"found type {found}")) as info:
            bpd.read_parquet(f)  # from the schema: nothing read, no compute
        assert str(info.value).endswith(f" in {f}")
    f = _parquet(tmp_path / "floats.parquet", team=[1.0, 2.0])
    with pytest.raises(TypeError, match=re.escape(f"team: expected integers (read as int64), "
                                                  f"found type double in {f}")):
        bpd.read_parquet(f, "team", np.int64)
    f = _parquet(tmp_path / "u64.parquet", team=np.array([1, 2**63], np.uint64))
    with pytest.raises(ValueError, match=re.escape("team: integers in [-9223372036854775808, "
                                                   "9223372036854775807] expected (read as "
                                                   f"int64), found {2**63} in row 1 of {f}")):
        bpd.read_parquet(f, "team", np.int64).compute()
    f = _parquet(tmp_path / "neg.parquet", bits=np.array([1, -1], np.int64))
    with pytest.raises(ValueError, match=re.escape(f"found -1 in row 1 of {f}")):
        bpd.read_parquet(f, "bits", np.uint64).compute()


@needs_pandas
def test_dask_dataframes_read_by_name_and_exactly(dask_sync):
    pytest.importorskip("dask.dataframe")
    import dask.dataframe as dd

    import broadphase.dask as bpd

    df = pd.DataFrame({"maxy": [2.0, 3, 6, 1.5], "XMIN": [0, 1, 5, 2**53 - 1],
                       "miny": [0.0, 1, 5, 0.5], "maxx": np.array([2, 3, 6, 2**53], np.int64)})
    want = naive.box_pairs(np.column_stack([df.XMIN, df.miny, df.maxx, df.maxy])).tolist()
    assert bpd.find_pairs(df).compute().tolist() == want
    assert bpd.find_pairs(dd.from_pandas(df, npartitions=2)).compute().tolist() == want
    bad = df.assign(maxx=np.array([2, 3, 6, 2**53 + 1], np.int64))
    with pytest.raises(ValueError, match=re.escape("boxes[3], column 'maxx': integers up to "
                                                   "2**53")):
        bpd.find_pairs(dd.from_pandas(bad, npartitions=2)).compute()
    with pytest.raises(TypeError, match=r"boxes, column 'maxy': expected real numbers, found "
                                        r"dtype bool"):
        bpd.find_pairs(df.assign(maxy=[True, True, True, True]))
    with pytest.raises(ValueError, match=r"columns x, y, w, h .* are not read here"):
        bpd.find_pairs(pd.DataFrame({"x": [0.0], "y": [0.0], "w": [1.0], "h": [1.0]}))


def test_a_row_rewritten_after_the_core_read_it_is_said_to_have_changed():
    # The core reports a bad row from its own copy; the message reads the
    # caller's row again.  If another thread has rewritten it meanwhile, the
    # message says so instead of comparing values that are no longer wrong.
    from broadphase import _core
    from broadphase._cast import box_problem, circle_problem

    b = np.array([[0, 0, 1, 1], [753.5, 1, 755.5, 3]])
    changed = "boxes[1]: changed during the call (written by another thread?); "
    valid = changed + "found valid now: [753.5, 1.0, 755.5, 3.0]"
    for code in (_core.NOT_FINITE, _core.X_REVERSED, _core.Y_REVERSED):
        assert box_problem(b, "boxes", 1, code) == valid
    # rewritten into another fault: that one is named
    b[1] = [753.5, 3, 755.5, 1]
    now = changed + "found now: miny 3.0 > maxy 1.0"
    assert box_problem(b, "boxes", 1, _core.X_REVERSED) == now
    # the fault still there: the usual message
    assert box_problem(b, "boxes", 1, _core.Y_REVERSED) == "boxes[1]: miny 3.0 > maxy 1.0"
    b[1, 2] = np.nan
    assert box_problem(b, "boxes", 1, _core.NOT_FINITE) == ("boxes[1]: maxx is nan; expected "
                                                             "finite numbers")

    xyr = np.array([[0, 0, 1], [2, 3, 0.5]])
    valid = ("centers[1]: changed during the call (written by another thread?); "
             "found valid now: [2.0, 3.0, 0.5]")
    for code in (_core.NOT_FINITE, _core.NEGATIVE_RADIUS):
        assert circle_problem(xyr, xyr[:, 2], 1, code) == valid
    xyr[1, 2] = -1
    assert circle_problem(xyr, 0.5, 1, _core.NEGATIVE_RADIUS) == ("radii: expected a radius >= 0, "
                                                                   "found -1.0")
    assert circle_problem(xyr, xyr[:, 2], 1, _core.NOT_FINITE) == (
        "centers[1]: changed during the call (written by another thread?); found now: "
        "radii[1]: expected a radius >= 0, found -1.0")


def test_a_fraction_past_the_doubles_is_refused_by_name():
    with pytest.raises(ValueError, match=r"boxes\[1\]: values exactly representable"):
        bp.find_pairs([[0, 0, 1, 1], [Fraction(0), 0, Fraction(10**400), 1]])
    with pytest.raises(ValueError, match=r"radii\[1\]: values exactly representable"):
        bp.find_circle_pairs([[0, 0], [1, 1]], [1, Fraction(10**400)])


def test_rows_with_named_fields_are_read_by_name():
    pd = pytest.importorskip("pandas")
    # named in another order than corners: read by position they would overlap
    df = pd.DataFrame({"minx": [0, 0.5], "maxx": [1, 1.5], "miny": [2, 10], "maxy": [3, 11.]})
    assert bp.find_pairs(df).tolist() == []
    assert bp.find_pairs([df.iloc[0], df.iloc[1]]).tolist() == []
    near = df.assign(miny=[2, 2.5], maxy=[3, 3.5])
    assert bp.find_pairs([near.iloc[0], near.iloc[1]]).tolist() == [[0, 1]]
    with pytest.raises(TypeError, match=r"boxes\[1\]: expected every row with named fields"):
        bp.find_pairs([df.iloc[0], [0, 0, 1, 1]])
    pl = pytest.importorskip("polars")
    assert bp.find_pairs(pl.from_pandas(df).to_struct("b")).tolist() == []
    assert bp.find_pairs(pl.from_pandas(near).to_struct("b")).tolist() == [[0, 1]]


def test_a_polars_column_of_128_bit_integers_is_read_exactly():
    pl = pytest.importorskip("polars")
    cols = {"minx": [0, 1], "miny": [0, 1], "maxx": [2, 3], "maxy": [2, 3]}
    df = pl.DataFrame(cols, schema={"minx": pl.Int128, "miny": pl.Int64, "maxx": pl.Int64,
                                    "maxy": pl.Int64})
    assert bp.find_pairs(df).tolist() == [[0, 1]]
    with pytest.raises(ValueError, match=r"boxes\[1\], column 'minx': integers up to 2\*\*53"):
        bp.find_pairs(df.with_columns(pl.Series("minx", [0, 2**60], dtype=pl.Int128)))


def test_import_leaves_numpy_ma_unloaded_and_masked_values_are_still_refused():
    # numpy.ma is looked up, not imported: a masked array exists only once it was imported
    import subprocess
    import sys

    code = (
        "import sys, broadphase as bp\n"
        "print('numpy.ma' in sys.modules)\n"
        "import numpy as np\n"
        "m = np.ma.masked_array([[0, 0, 1, 1.]], mask=[[1, 0, 0, 0]])\n"
        "try:\n"
        "    bp.find_pairs(m)\n"
        "except ValueError as e:\n"
        "    print(e)\n"
        "try:\n"
        "    bp.find_pairs([[0, 0, 1, 1.], [np.ma.masked, 0, 1, 1]])\n"
        "except ValueError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = out.stdout.splitlines()
    assert lines[0] == "False", out.stdout + out.stderr
    assert lines[1].startswith("boxes[0]: a masked value")
    assert lines[2].startswith("boxes[1]") and "masked" in lines[2], lines


def test_xywh_whose_far_edge_overflows_is_refused_for_what_it_is():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning on the way
        with pytest.raises(ValueError, match=r"^boxes\[1\]: y \+ h = 1e\+308 \+ 1e\+308 passes "
                                             r"float64's largest value"):
            bp.find_pairs([[0, 0, 1, 1], [0, 1e308, 1, 1e308]], format="xywh")
