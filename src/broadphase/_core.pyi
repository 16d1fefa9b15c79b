"""Type stub of ``broadphase._core``, the compiled core (``rust/bindings``)."""

import numpy as np
from numpy.typing import NDArray

NOT_FINITE: int
X_REVERSED: int
Y_REVERSED: int
NEGATIVE_RADIUS: int
MAX_DEPTH: int
MORTON_MAX_DEPTH: int

_F64 = NDArray[np.float64]
_I64 = NDArray[np.int64]

def find_pairs(
    boxes: _F64 | None,
    method_name: str,
    *,
    circles: _F64 | None = None,
    groups: _I64 | None = None,
    categories: NDArray[np.uint64] | None = None,
    masks: NDArray[np.uint64] | None = None,
    workers: int | None = None,
    max_pairs: int | None = None,
) -> NDArray[np.intp] | tuple[int, int]:
    """Canonical pairs of ``(n, 4)`` boxes or ``(n, 3)`` circles, or ``(row, code)``.

    Raises ``MemoryError`` naming the count when the pairs would not fit in
    memory (or in ``max_pairs``, a limit for tests).
    """

def scan_boxes(
    boxes: _F64, workers: int | None = None
) -> tuple[float, float, float, float] | tuple[int, int]:
    """Bounds of valid boxes, or ``(row, code)`` of the first bad row."""

def circle_boxes(circles: _F64, workers: int | None = None) -> _F64 | tuple[int, int]:
    """Outward-rounded boxes of ``(x, y, r)`` rows, or ``(row, code)``."""

def morton_encode(ix: _I64, iy: _I64) -> _I64: ...
def morton_decode(code: _I64) -> tuple[_I64, _I64]: ...
def morton_cell_of(code0: _I64, code1: _I64, depth: int) -> tuple[_I64, _I64]: ...
def morton_locate(
    boxes: _F64, bounds: tuple[float, float, float, float], depth: int
) -> tuple[_I64, _I64]: ...
def stages(
    boxes: _F64, method_name: str, workers: int | None = None
) -> tuple[list[tuple[str, float]], int]:
    """Milliseconds of each stage of one box search, and the number of pairs."""
