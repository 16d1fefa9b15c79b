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
_IP = NDArray[np.intp]

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
def split_by_tile(
    boxes: _F64, xs: _F64, ybounds: _F64, rank: _I64
) -> tuple[_I64, _I64]:
    """Rows of valid boxes grouped by the tiles they meet: ``(order, starts)``."""
def owned_pairs(
    pairs: _IP, boxes: _F64, rows: _I64, xs: _F64, ybounds: _F64, rank: _I64, tile: int,
    edges: _I64,
) -> tuple[_IP, _I64]:
    """The pairs tile ``tile`` owns, as global rows, and their bucket cuts."""
def sort_pairs(pairs: _IP, lo: int, hi: int) -> _IP:
    """Pairs whose first value is in ``[lo, hi)``, in canonical order (a new array)."""
class PairMemory:
    """The memory under a big pair array (its ``base``).

    Given back to the core's scratch pool when NumPy frees the array, so the
    next search of about that size writes into pages it already has.
    """

def release_scratch() -> None:
    """Free the kept scratch buffers and give free memory back to the system."""
def stages(
    boxes: _F64, method_name: str, workers: int | None = None
) -> tuple[list[tuple[str, float]], int]:
    """Milliseconds of each stage of one box search, and the number of pairs."""
