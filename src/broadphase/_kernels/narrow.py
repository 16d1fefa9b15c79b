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
and an exact expansion sum whose sign is the answer.
"""

import math

import numpy as np
from numba import njit

# mode bits: which parts of the narrow phase apply to a call.
MODE_CIRCLES = 1
MODE_GROUPS = 2
MODE_MASKS = 4

# Relative error bound of the float filter.  dx, dy, s each carry one
# rounding (relative error u = 2**-53); squaring adds one more and doubles the
# first, the sum adds one: |lhs~ - lhs| <= 4u(1+u)^4 lhs and likewise 3u for
# rhs.  1e-14 is about 45u, far above the bound, so a decided comparison is
# the exact one.
_FILTER_TOL = 1e-14
# Inside this magnitude window no product, nor the error term of a product,
# under- or overflows, which is what makes the expansion arithmetic exact.
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


@njit(cache=True)
def _scaled_parts(x1, y1, r1, x2, y2, r2):
    # Differences first (exact as double-doubles), then one power-of-two
    # scale so the largest part is near 1; powers of two scale exactly.
    m = max(abs(x1), abs(x2), abs(y1), abs(y2), abs(r1), abs(r2))
    if m > 2.0**1000:  # a difference could overflow: scale the inputs first
        f = 2.0**-64
        x1, x2, y1, y2, r1, r2 = x1 * f, x2 * f, y1 * f, y2 * f, r1 * f, r2 * f
    dxh, dxl = _two_sum(x1, -x2)
    dyh, dyl = _two_sum(y1, -y2)
    sh, sl = _two_sum(r1, r2)
    top = max(abs(dxh), abs(dyh), abs(sh))
    if top == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    if top > _EXACT_HI or top < _EXACT_LO:
        # 2**-e itself may overflow (e = -1073 for the smallest subnormal):
        # apply it as two factors, each finite.
        e = math.frexp(top)[1]
        for f in (math.ldexp(1.0, -(e // 2)), math.ldexp(1.0, -(e - e // 2))):
            dxh, dxl, dyh, dyl, sh, sl = dxh * f, dxl * f, dyh * f, dyl * f, sh * f, sl * f
    return dxh, dxl, dyh, dyl, sh, sl


@njit(inline="always")
def circle_overlap(x1, y1, r1, x2, y2, r2):
    """Exact test of ``hypot(x1 - x2, y1 - y2) < r1 + r2`` for radii >= 0.

    Exact for every input whose non-zero magnitudes lie between 2**-400
    and 2**400 (about 1e-120 to 1e120); outside that window the scaled
    expansion is still used and tiny terms may round away.
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
    dxh, dxl, dyh, dyl, sh, sl = _scaled_parts(x1, y1, r1, x2, y2, r2)
    return _exact_circle_sign(dxh, dxl, dyh, dyl, sh, sl) < 0


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
    """Everything after the box test: filters, then the exact circle test.

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
    return True
