"""Named test scenes, shared by the tests, the benchmark and the samples.

Every scene returns ``(n, 4)`` float64 boxes ``minx, miny, maxx, maxy`` in a
square world, built from a seeded generator so a name, ``n`` and ``seed``
always give the same boxes.  Sizes shrink with ``n`` so that the number of
colliding pairs stays about proportional to ``n`` (a few per box): the
scenes measure how the cost of finding pairs grows, not how the answer does.

==============  ===========================================================
``uniform``     equal squares, uniform positions, about 2 pairs per box
``clustered``   equal squares in 50 Gaussian clusters (dense cores, empty
                space between them)
``mixed``       squares with sides log-uniform over 1.2 decades
``straddlers``  ``uniform`` plus 2% of tiny boxes sitting on the two centre
                lines: the seeds' quadtree puts them all at the root
``elongated``   1:10 sticks, half horizontal, half vertical
``wide``        squares with sides log-uniform over 3 decades (map-like:
                a parcel next to a park), about 1 pair per box
``seed000``     seed 000's scene: 10 x 10 boxes in a 500 x 500 world (1000
                of them), the world growing with ``n`` at the same density
==============  ===========================================================

Examples
--------
>>> from broadphase import scenarios
>>> scenarios.make("uniform", 1000).shape
(1000, 4)
>>> sorted(scenarios.NAMES)[:3]
['clustered', 'elongated', 'mixed']
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["NAMES", "make"]

_WORLD = 1000.0


def _squares(centers: NDArray, sides: NDArray) -> NDArray[np.float64]:
    half = np.asarray(sides, np.float64).reshape(-1, 1) / 2.0
    return np.hstack([centers - half, centers + half])


def _uniform(rng, n):
    side = _WORLD / np.sqrt(n)  # 4 neighbours per box on average: k ~ 2n
    return _squares(rng.uniform(0, _WORLD, (n, 2)), np.full(n, side))


def _clustered(rng, n):
    k = 50
    centers = rng.uniform(0.1 * _WORLD, 0.9 * _WORLD, (k, 2))
    which = rng.integers(0, k, n)
    pts = centers[which] + rng.normal(0, 0.03 * _WORLD, (n, 2))
    side = 0.3 * _WORLD / np.sqrt(n)  # cores are ~10x denser than uniform
    return _squares(pts, np.full(n, side))


def _mixed(rng, n):
    side = 0.6 * _WORLD / np.sqrt(n) * 10 ** rng.uniform(-0.6, 0.6, n)
    return _squares(rng.uniform(0, _WORLD, (n, 2)), side)


def _straddlers(rng, n):
    m = max(2, n // 50)
    boxes = _uniform(rng, n - m)
    # m tiny boxes on the lines x = W/2 and y = W/2, spaced so each meets
    # about two others along its line.
    t = _WORLD / (m / 2)
    along = rng.uniform(0, _WORLD, m)
    across = _WORLD / 2 + rng.uniform(-0.4, 0.4, m) * t
    vertical = rng.random(m) < 0.5
    centers = np.where(vertical[:, None], np.stack([across, along], 1),
                       np.stack([along, across], 1))
    return np.vstack([boxes, _squares(centers, np.full(m, t))])


def _elongated(rng, n):
    thin = 0.22 * _WORLD / np.sqrt(n)  # about 2 pairs per box, like uniform
    long = 10 * thin
    c = rng.uniform(0, _WORLD, (n, 2))
    horizontal = rng.random(n) < 0.5
    hw = np.where(horizontal, long, thin) / 2
    hh = np.where(horizontal, thin, long) / 2
    return np.stack([c[:, 0] - hw, c[:, 1] - hh, c[:, 0] + hw, c[:, 1] + hh], 1)


def _wide(rng, n):
    side = 0.1 * _WORLD / np.sqrt(n) * 10 ** rng.uniform(-1.5, 1.5, n)
    return _squares(rng.uniform(0, _WORLD, (n, 2)), side)


def _seed000(rng, n):
    world = 500.0 * np.sqrt(n / 1000)
    xy = rng.uniform(0, world, (n, 2))
    return np.hstack([xy, xy + 10.0])


_MAKERS = {
    "uniform": _uniform,
    "clustered": _clustered,
    "mixed": _mixed,
    "straddlers": _straddlers,
    "elongated": _elongated,
    "wide": _wide,
    "seed000": _seed000,
}

#: Scenario names accepted by :func:`make`.
NAMES: tuple[str, ...] = tuple(_MAKERS)


def make(name: str, n: int, seed: int = 0) -> NDArray[np.float64]:
    """Boxes of the scene ``name`` with ``n`` objects.

    Parameters
    ----------
    name : str
        One of :data:`NAMES`.
    n : int
        Number of boxes (>= 1).
    seed : int
        Seed of the generator; the same arguments give the same boxes.

    Returns
    -------
    ndarray of float64, shape (n, 4)

    Examples
    --------
    >>> import numpy as np
    >>> from broadphase import scenarios
    >>> b = scenarios.make("seed000", 1000)
    >>> bool(np.allclose(b[:, 2:] - b[:, :2], 10)), float(b[:, :2].max()) < 500
    (True, True)
    """
    if name not in _MAKERS:
        raise ValueError(f"name: expected one of {', '.join(NAMES)}; found {name!r}")
    if int(n) < 1:
        raise ValueError(f"n: expected at least 1, found {n}")
    return np.ascontiguousarray(_MAKERS[name](np.random.default_rng(seed), int(n)))
