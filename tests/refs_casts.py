"""Exact references for ray casts and swept pairs, in Python Fractions.

Every float is a Fraction exactly, so these decide with no rounding at all:
the set of ``s`` in ``[0, S]`` where every strict inequality ``a + b s > 0``
holds is found from its bounds, and the circle tests from the minimum of a
quadratic over a closed range (negative exactly when the open set is not
empty).  Entries into circles are irrational in general: they are computed
in 60-digit decimals, enough to order the entries of small inputs (equal
entries of different circles are equal integers or come from equal
coefficients, where the decimals agree too).
"""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction as F

getcontext().prec = 60


def linear_set(cons, s_max):
    """Infimum (a Fraction) of ``{s in [0, s_max] : a + b s > 0 for all (a, b)}``, or None."""
    low, low_strict = F(0), False
    high, high_strict = (None, False) if s_max == math.inf else (F(s_max), False)
    for a, b in cons:
        if b == 0:
            if a <= 0:
                return None
            continue
        r = -a / b
        if b > 0 and (r > low or (r == low and not low_strict)):
            low, low_strict = r, True
        if b < 0 and (high is None or r < high or (r == high and not high_strict)):
            high, high_strict = r, True
    if high is None or low < high:
        return low
    if low == high and not low_strict and not high_strict:
        return low
    return None


def ray_box(b, o, d, s_max):
    b, o, d = [F(v) for v in b], [F(v) for v in o], [F(v) for v in d]
    cons = []
    for k in range(2):
        cons += [(o[k] - b[k], d[k]), (b[k + 2] - o[k], -d[k])]
    return linear_set(cons, s_max)


def swept_boxes(a0, a1, b0, b1):
    a0, a1, b0, b1 = ([F(v) for v in x] for x in (a0, a1, b0, b1))
    cons = []
    for k in range(2):
        for h0, h1, l0, l1 in ((b0, b1, a0, a1), (a0, a1, b0, b1)):
            cons.append((h0[k + 2] - l0[k], (h1[k + 2] - h0[k + 2]) - (l1[k] - l0[k])))
    return linear_set(cons, 1)


def quadratic(p, v, r, s_max):
    """Whether ``|p + s v| < r`` for some ``s`` in ``[0, s_max]``, and the entry (a Decimal)."""
    A = v[0] * v[0] + v[1] * v[1]
    B = p[0] * v[0] + p[1] * v[1]
    C = p[0] * p[0] + p[1] * p[1] - r * r
    if C < 0:
        return True, Decimal(0)
    if A == 0:
        return False, None
    s = max(F(0), -B / A)
    if s_max != math.inf:
        s = min(s, F(s_max))
    if A * s * s + 2 * B * s + C >= 0:
        return False, None
    D = B * B - A * C
    num = C
    den = Decimal(D.numerator) / Decimal(D.denominator)
    root = (den.sqrt() - Decimal(B.numerator) / Decimal(B.denominator))
    return True, Decimal(num.numerator) / Decimal(num.denominator) / root


def ray_circle(c, o, d, s_max):
    c, o, d = [F(v) for v in c], [F(v) for v in o], [F(v) for v in d]
    return quadratic((o[0] - c[0], o[1] - c[1]), d, c[2], s_max)


def swept_circles(a0, a1, b0, b1, ra, rb):
    a0, a1, b0, b1 = ([F(v) for v in x] for x in (a0, a1, b0, b1))
    p = (a0[0] - b0[0], a0[1] - b0[1])
    v = tuple((a1[k] - a0[k]) - (b1[k] - b0[k]) for k in range(2))
    return quadratic(p, v, F(ra) + F(rb), 1)


def passes(k, j, cats, masks, rcats, rmasks, ignore):
    def bits(arr, i):
        return (1 << 64) - 1 if arr is None else int(arr[i])
    if ignore is not None and int(ignore[k]) == j:
        return False
    return bits(rcats, k) & bits(masks, j) != 0 and bits(cats, j) & bits(rmasks, k) != 0


def quadratic_within(p, v, r, t, rel):
    """Whether the double ``t`` is within a relative ``rel`` of the entry of a hit of
    ``|p + s v| < r``, decided exactly: the entry ``s-`` is 0 (then ``t`` must be 0) or
    the smaller root of ``f(s) = A s^2 + 2 B s + C``, which decreases from ``f(0) = C > 0``
    to the vertex ``w = -B / A`` past ``s-``; so ``lo <= s-`` exactly when ``lo >= w`` is
    false and ``f(lo) >= 0``, and ``s- <= hi`` exactly when ``hi >= w`` or ``f(hi) <= 0``.
    """
    t, rel = F(t), F(rel)
    A = v[0] * v[0] + v[1] * v[1]
    B = p[0] * v[0] + p[1] * v[1]
    C = p[0] * p[0] + p[1] * p[1] - r * r
    if C <= 0:
        return t == 0
    assert A > 0 and B < 0 and B * B - A * C > 0, "not a hit"

    def f(s):
        return A * s * s + 2 * B * s + C
    w = -B / A
    lo, hi = t / (1 + rel), t / (1 - rel)
    return t > 0 and lo < w and f(lo) >= 0 and (hi >= w or f(hi) <= 0)


def ray_circle_within(c, o, d, t, rel):
    c, o, d = [F(v) for v in c], [F(v) for v in o], [F(v) for v in d]
    return quadratic_within((o[0] - c[0], o[1] - c[1]), d, c[2], t, rel)


def swept_circles_within(a0, a1, b0, b1, ra, rb, t, rel):
    a0, a1, b0, b1 = ([F(v) for v in x] for x in (a0, a1, b0, b1))
    p = (a0[0] - b0[0], a0[1] - b0[1])
    v = tuple((a1[k] - a0[k]) - (b1[k] - b0[k]) for k in range(2))
    return quadratic_within(p, v, F(ra) + F(rb), t, rel)
