"""Exact sign of ``(x1 - x2)**2 + (y1 - y2)**2 - (r1 + r2)**2`` for any doubles.

The last resort of the circle test, for the rare undecided pairs whose
magnitudes lie outside the window where floating-point expansions are exact
(a tiny part of a huge difference underflows once squared).

Every finite double is an integer multiple of 2**-1074 below 2**1024, so
``v * 2**1074`` is an integer of at most 2098 bits: stored here little-endian
in 70 limbs of 30 bits (held in int64, so the product of two limbs plus a
carry never overflows).  Differences, sums, squares and the comparison are
then plain integer arithmetic: no rounding anywhere.  Loops run only over
the limbs in use, so the usual cost is a few dozen operations.
"""

import math

import numpy as np
from numba import njit

_BITS = 30
_MASK = (1 << _BITS) - 1
_LIMBS = 70  # 70 * 30 = 2100 bits >= 1074 + 1024
_SHIFT0 = 1074  # exponent of the smallest subnormal, negated


@njit(inline="always")
def _used(a):
    """Number of limbs up to the highest non-zero one."""
    k = a.shape[0]
    while k > 0 and a[k - 1] == 0:
        k -= 1
    return k


@njit(cache=True)
def _from_double(v, out):
    """|v| * 2**1074 into ``out`` (zeroed); returns the sign of v."""
    out[:] = 0
    if v == 0.0:
        return 0
    f, ex = math.frexp(abs(v))  # |v| = f * 2**ex, 0.5 <= f < 1
    m = np.int64(math.ldexp(f, 53))  # exact: f has at most 53 significant bits
    sh = ex - 53 + _SHIFT0
    if sh < 0:  # subnormal: the low bits of m are zeros
        m >>= -sh
        sh = 0
    i = sh // _BITS
    off = sh % _BITS
    out[i] = (m & ((1 << (_BITS - off)) - 1)) << off
    rest = m >> (_BITS - off)
    out[i + 1] = rest & _MASK
    out[i + 2] = rest >> _BITS
    return 1 if v > 0.0 else -1


@njit(inline="always")
def _compare(a, b):
    """Sign of |a| - |b| for magnitudes of equal length."""
    for k in range(a.shape[0] - 1, -1, -1):
        if a[k] != b[k]:
            return 1 if a[k] > b[k] else -1
    return 0


@njit(inline="always")
def _add(a, b, out):
    carry = 0
    for k in range(max(_used(a), _used(b)) + 1):
        t = a[k] + b[k] + carry
        out[k] = t & _MASK
        carry = t >> _BITS


@njit(inline="always")
def _sub(a, b, out):
    """Out = a - b for a >= b."""
    borrow = 0
    for k in range(_used(a)):
        t = a[k] - b[k] - borrow
        borrow = 1 if t < 0 else 0
        out[k] = t + (borrow << _BITS)


@njit(cache=True)
def _difference(sa, a, sb, b, out):
    """|sa*a - sb*b| into ``out`` (zeroed)."""
    out[:] = 0
    if sa * sb < 0:  # opposite signs: magnitudes add
        _add(a, b, out)
    elif _compare(a, b) >= 0:
        _sub(a, b, out)
    else:
        _sub(b, a, out)


@njit(cache=True)
def _square_into(a, acc):
    """Acc += a * a (acc has twice the limbs of a)."""
    n = _used(a)
    for i in range(n):
        ai = a[i]
        if ai == 0:
            continue
        carry = 0
        for j in range(n):
            t = acc[i + j] + ai * a[j] + carry  # < 2**30 + 2**60 + 2**31
            acc[i + j] = t & _MASK
            carry = t >> _BITS
        k = i + n
        while carry:
            t = acc[k] + carry
            acc[k] = t & _MASK
            carry = t >> _BITS
            k += 1


@njit(inline="always")
def _add_square(p, q, sign_q, acc, u, v, d):
    """Acc += (p + sign_q * q)**2."""
    sp = _from_double(p, u)
    sq = _from_double(q, v)
    _difference(sp, u, -sign_q * sq, v, d)
    _square_into(d, acc)


@njit(cache=True)
def circle_sign(x1, y1, r1, x2, y2, r2):
    """Sign (-1, 0, 1) of ``(x1-x2)**2 + (y1-y2)**2 - (r1+r2)**2``, exactly."""
    u = np.empty(_LIMBS + 2, np.int64)
    v = np.empty(_LIMBS + 2, np.int64)
    d = np.empty(_LIMBS + 2, np.int64)
    lhs = np.zeros(2 * _LIMBS + 6, np.int64)
    rhs = np.zeros(2 * _LIMBS + 6, np.int64)
    _add_square(x1, x2, -1, lhs, u, v, d)
    _add_square(y1, y2, -1, lhs, u, v, d)
    _add_square(r1, r2, 1, rhs, u, v, d)
    return _compare(lhs, rhs)
