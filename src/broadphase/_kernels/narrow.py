"""Narrow phase: the exact overlap predicates and the pair filters.

Every broad-phase kernel ends in :func:`accept`, so every method applies the
same rules and their results can be compared for exact equality.

Box rule: two boxes collide when their open interiors intersect, i.e. the
overlap has positive length on both axes.  The four comparisons are exact on
floats; the kernels write them inline, branch-free, before calling
:func:`accept` on the survivors.

Circle rule: ``|c1 - c2| < r1 + r2``.  Evaluated naively in floating point the
two sides can round across each other, so :func:`circle_overlap` first tries a
float filter whose error bound is proven below, and only for the rare
undecided cases falls back to error-free transformations (TwoSum, TwoProduct)
and an exact expansion sum whose sign is the answer, or, for magnitudes where
those could underflow, to integer arithmetic (``bigint``).
"""

import numpy as np
from numba import njit

from .bigint import circle_sign

# mode bits: which parts of the narrow phase apply to a call.
MODE_CIRCLES = 1  # every object a circle: ``circles`` rows are x, y, r
MODE_GROUPS = 2
MODE_MASKS = 4
MODE_SHAPES = 8  # boxes and circles mixed: ``circles`` rows are SHAPE_* rows
# Rows of a mixed shape table: kind, then minx, miny, maxx, maxy for a box
# or x, y, r, 0 for a circle.
SHAPE_BOX = 0.0
SHAPE_CIRCLE = 1.0

# Relative error bound of the float filter.  dx, dy, s each carry one
# rounding (relative error u = 2**-53); squaring adds one more and doubles the
# first, the sum adds one: |lhs~ - lhs| <= 4u(1+u)^4 lhs and likewise 3u for
# rhs.  1e-14 is about 45u, far above the bound, so a decided comparison is
# the exact one.
_FILTER_TOL = 1e-14
# With every non-zero input inside this window, the parts of the differences
# (multiples of 2**-452), the products and their error terms (multiples of
# 2**-904) stay normal and nothing exceeds 2**802: the expansion is exact.
_EXACT_LO = 2.0**-400
_EXACT_HI = 2.0**400


@njit(inline="always")
def _two_sum(a, b):
    # Knuth's TwoSum: s + e == a + b exactly (no overflow assumed).
    s = a + b
    bb = s - a
    e = (a - (s - bb)) + (b - bb)
    return s, e


@njit(inline="always")
def _split(a):
    # Dekker's split into two 26-bit halves: a == hi + lo exactly.
    c = 134217729.0 * a
    hi = c - (c - a)
    return hi, a - hi


@njit(inline="always")
def _two_prod(a, b):
    # Dekker's TwoProduct: p + e == a * b exactly (no under/overflow).
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@njit(inline="always")
def _add_square(terms, k, h, lo, sign):
    # (h + lo)**2 = h*h + 2*h*lo + lo*lo, each product split exactly.
    p, e = _two_prod(h, h)
    terms[k] = sign * p
    terms[k + 1] = sign * e
    p, e = _two_prod(h, 2.0 * lo)
    terms[k + 2] = sign * p
    terms[k + 3] = sign * e
    p, e = _two_prod(lo, lo)
    terms[k + 4] = sign * p
    terms[k + 5] = sign * e
    return k + 6


@njit(cache=True)
def _exact_circle_sign(dxh, dxl, dyh, dyl, sh, sl):
    """Sign of (dxh+dxl)^2 + (dyh+dyl)^2 - (sh+sl)^2, computed exactly.

    The 18 product terms are added with Shewchuk's Grow-Expansion, which keeps
    a non-overlapping expansion whose most significant non-zero component
    carries the sign of the exact sum.
    """
    terms = np.empty(18)
    k = _add_square(terms, 0, dxh, dxl, 1.0)
    k = _add_square(terms, k, dyh, dyl, 1.0)
    k = _add_square(terms, k, sh, sl, -1.0)
    exp = np.zeros(19)
    m = 0
    for t in range(k):
        q = terms[t]
        for i in range(m):
            q, h = _two_sum(q, exp[i])
            exp[i] = h
        exp[m] = q
        m += 1
    for i in range(m - 1, -1, -1):
        if exp[i] > 0.0:
            return 1
        if exp[i] < 0.0:
            return -1
    return 0


@njit(inline="always")
def _in_window(v):
    a = abs(v)
    return a == 0.0 or (_EXACT_LO <= a <= _EXACT_HI)


@njit(inline="always")
def circle_overlap(x1, y1, r1, x2, y2, r2):
    """Exact test of ``hypot(x1 - x2, y1 - y2) < r1 + r2`` for radii >= 0.

    Exact for every finite input: a float filter decides almost every pair;
    the undecided rest go to :func:`_exact_overlap`.  Only the filter is
    inlined into the pair kernels (inlining the exact arithmetic at every
    call site doubled their compile time).
    """
    dx = x1 - x2
    dy = y1 - y2
    s = r1 + r2
    lhs = dx * dx + dy * dy
    rhs = s * s
    if lhs > 1e-280 and rhs > 1e-280 and lhs < 1e280 and rhs < 1e280:
        gap = rhs - lhs
        tol = _FILTER_TOL * (lhs + rhs)
        if gap > tol:
            return True
        if gap < -tol:
            return False
    elif s == 0.0:
        return False  # two points (zero radii) never overlap
    return _exact_overlap(x1, y1, r1, x2, y2, r2)


@njit(inline="always")
def _in_window(v):
    a = abs(v)
    return a == 0.0 or (_EXACT_LO <= a <= _EXACT_HI)


@njit(cache=True)
def _exact_overlap(x1, y1, r1, x2, y2, r2):
    """Exact circle test of the pairs the float filter leaves undecided.

    An exact expansion when every non-zero input lies between 2**-400 and
    2**400 (no product or product error under- or overflows there), integer
    arithmetic (``bigint``) otherwise.
    """
    if (_in_window(x1) and _in_window(y1) and _in_window(r1)
            and _in_window(x2) and _in_window(y2) and _in_window(r2)):
        dxh, dxl = _two_sum(x1, -x2)
        dyh, dyl = _two_sum(y1, -y2)
        sh, sl = _two_sum(r1, r2)
        return _exact_circle_sign(dxh, dxl, dyh, dyl, sh, sl) < 0
    return circle_sign(x1, y1, r1, x2, y2, r2) < 0


@njit(inline="always")
def passes_filter(i, j, groups, cats, masks, mode):
    """Group and category/mask rules (Box2D style) for the pair (i, j)."""
    if mode & MODE_GROUPS:
        g = groups[i]
        if g != 0 and g == groups[j]:
            return False
    if mode & MODE_MASKS:
        if (cats[i] & masks[j]) == 0 or (cats[j] & masks[i]) == 0:
            return False
    return True


@njit(inline="always")
def accept(i, j, circles, groups, cats, masks, mode):
    """Everything after the box test: filters, then the exact shape test.

    Callers have already found the boxes (for circles: their outward-rounded
    bounding boxes) strictly overlapping.
    """
    if mode & (MODE_GROUPS | MODE_MASKS):
        if not passes_filter(i, j, groups, cats, masks, mode):
            return False
    if mode & MODE_CIRCLES:
        return circle_overlap(
            circles[i, 0], circles[i, 1], circles[i, 2],
            circles[j, 0], circles[j, 1], circles[j, 2],
        )
    if mode & MODE_SHAPES:
        return shape_overlap(circles, i, j)
    return True


@njit(inline="always")
def box_circle_overlap(x0, y0, x1, y1, cx, cy, r):
    """Exact: the box point closest to the centre lies strictly inside the circle.

    The closest point is the centre clamped to the box, made of existing
    coordinates (no rounding), so the circle test against a radius-0 circle
    there is the exact answer.
    """
    return circle_overlap(cx, cy, r, min(max(cx, x0), x1), min(max(cy, y0), y1), 0.0)


@njit(cache=True)
def shape_overlap(shapes, i, j):
    """Exact overlap of two objects of a mixed shape table whose boxes overlap."""
    a = shapes[i]
    b = shapes[j]
    if a[0] == SHAPE_BOX and b[0] == SHAPE_BOX:
        return True  # the box test has decided
    if a[0] == SHAPE_CIRCLE and b[0] == SHAPE_CIRCLE:
        return circle_overlap(a[1], a[2], a[3], b[1], b[2], b[3])
    if a[0] == SHAPE_CIRCLE:
        a, b = b, a
    return box_circle_overlap(a[1], a[2], a[3], a[4], b[1], b[2], b[3])
