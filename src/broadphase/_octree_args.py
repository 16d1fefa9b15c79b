"""The arguments of ``LinearOctree``: its depth, 3D boxes and spheres.

Checked and converted here, every error naming the argument, as
:mod:`._tree_args` does for :class:`broadphase.LinearQuadtree` (whose
handles, single rows and settings the octree shares): the deepest level
the octree allows, and boxes and spheres read as 3D rows through
:mod:`._cast` and :mod:`._cast_circles`.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import _cast, _cast_circles, _core
from ._tree_args import _one_or_many

__all__ = ["MAX_DEPTH_3D"]

#: Deepest octree: the list heads of all levels, ``(8**(depth+1) - 1) / 7``
#: cells of 9 bytes, take 172 MB of address space at depth 8 (zeroed
#: memory, mapped only where objects are).
MAX_DEPTH_3D: int = _core.TREE_MAX_DEPTH_3D

_DIMS = (3,)


def _check_depth(depth) -> int:
    if isinstance(depth, (bool, np.bool_)) or not isinstance(depth, numbers.Integral):
        raise TypeError(f"depth: expected an int, found {depth!r}")
    if not 0 <= depth <= MAX_DEPTH_3D:
        raise ValueError(f"depth: expected 0 <= depth <= {MAX_DEPTH_3D} (the list heads of "
                         f"depth 8 take 172 MB, each level more eight times that), "
                         f"found {depth}")
    return int(depth)


def _boxes(value, name: str = "boxes") -> np.ndarray:
    """Validated 3D boxes: ``(n, 6)`` corners (a table by its column names)."""
    arr, _ = _cast.boxes(_one_or_many(value, 6), name, dims=_DIMS)
    if arr.shape[1] != 6:
        raise ValueError(f"{name}: expected 3D boxes, shape (n, 6) (minx, miny, minz, maxx, "
                         f"maxy, maxz), found shape {arr.shape}")
    return arr


def _spheres(centers, radii) -> tuple[np.ndarray, np.ndarray]:
    """Validated ``(x, y, z, r)`` rows and their outward-rounded (finite) boxes."""
    xyzr, bxs = _cast_circles.circles(_one_or_many(centers, 3), radii, _DIMS)
    bad = np.flatnonzero(~np.isfinite(bxs).all(axis=1))
    if bad.size:
        k = int(bad[0])
        raise ValueError(f"centers[{k}]: the sphere {xyzr[k].tolist()} reaches past the "
                         f"largest float64; a tree holds objects whose box is finite")
    return xyzr, bxs
