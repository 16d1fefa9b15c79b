"""The world a search quantizes into, computed without overflow.

Kernels quantize a coordinate as ``floor((v/2 - origin/2) * scale)``
(``_kernels.morton.quantize``).  Halves of finite floats never overflow
when subtracted, so even a world from -1.7e308 to 1.7e308 works; the scale
is capped so that a subnormal world gives a coarse but correct grid instead
of an infinite one.  Correctness never depends on the scale, only on
quantization being monotone: a poor scale costs time, not pairs.
"""

from __future__ import annotations

import math

_MAX_SCALE = 1e300


def half_span(lo: float, hi: float) -> float:
    """(hi - lo) / 2, finite for any finite lo <= hi."""
    return hi * 0.5 - lo * 0.5


def scale(half: float, cells: float) -> float:
    """Scale mapping a half-span ``half`` onto ``cells`` cells (0 if empty)."""
    half = float(half)
    if not half > 0.0:
        return 0.0
    if half * _MAX_SCALE <= cells:  # the quotient would exceed the cap (or overflow)
        return _MAX_SCALE
    return cells / half


def log2_ratio(num: float, den: float) -> float | None:
    """log2(num / den) for positive finite values, None when undefined."""
    num, den = float(num), float(den)
    if not (num > 0.0 and den > 0.0 and math.isfinite(num) and math.isfinite(den)):
        return None
    return math.log2(num) - math.log2(den)
