"""Named test scenes, shared by the tests, the benchmark and the samples.

Every 2D box scene returns ``(n, 4)`` float64 boxes ``minx, miny, maxx, maxy``
in a square world, built from a seeded generator so a name, ``n`` and
``seed`` always give the same boxes (the circle and 3D scenes too).  Sizes
shrink with ``n`` so that the number of colliding pairs stays about
proportional to ``n`` (a few per box): the scenes measure how the cost of
finding pairs grows, not how the answer does.

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
``outliers``    ``uniform`` plus two points far away, at -1e20 and +1e20: a
                grid placed from the global bounds would put every other box
                in one cell
==============  ===========================================================

Circles (:func:`make_circles`, names in :data:`CIRCLE_NAMES`):

==============  ===========================================================
``bullets``     seed 003's field: ten emitters fire rings of 32 bullets of
                radius 4 every 24 frames; bullets of one emitter share a
                group (never a pair); tiles of the 360 x 480 field side by
                side for large n
==============  ===========================================================

3D scenes, in a cube of side 1000 and with about 2 pairs per object at
every n (boxes: :func:`make_3d`, names in :data:`NAMES_3D`; spheres:
:func:`make_spheres`, names in :data:`SPHERE_NAMES`):

===============  ==========================================================
``uniform3d``    equal cubes, uniform positions, about 2 pairs per box
``mixed3d``      cubes with sides log-uniform over 1.2 decades
``clustered3d``  cubes a third of ``uniform3d``'s side in 50 Gaussian
                 clouds, about 1.3 pairs per box
``spheres``      spheres with radii log-uniform over a decade
                 (``r_max = 10 r_min``), uniform centres
===============  ==========================================================

Moving objects: :class:`Bouncing` (seed 000's update loop), the ``moving``
scene of the benchmark.

Examples
--------
>>> from broadphase import scenarios
>>> scenarios.make("uniform", 1000).shape
(1000, 4)
>>> sorted(scenarios.NAMES)[:3]
['clustered', 'elongated', 'mixed']
>>> c, r, g = scenarios.make_circles("bullets", 5000); c.shape, float(r[0]), int(g.max())
((5000, 2), 4.0, 17)
>>> scenarios.make_3d("uniform3d", 1000).shape, scenarios.make_spheres("spheres", 1000)[0].shape
((1000, 6), (1000, 3))
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["CIRCLE_NAMES", "NAMES", "NAMES_3D", "SPHERE_NAMES", "Bouncing", "make", "make_3d",
           "make_circles", "make_spheres"]

_WORLD = 1000.0


def _check(name: str, n: int, names: tuple[str, ...]) -> None:
    """Refuse a name not in ``names`` (saying which function makes it) and ``n < 1``."""
    if name not in names:
        owner = {**dict.fromkeys(NAMES, "make"), **dict.fromkeys(CIRCLE_NAMES, "make_circles"),
                 **dict.fromkeys(NAMES_3D, "make_3d"),
                 **dict.fromkeys(SPHERE_NAMES, "make_spheres")}.get(name)
        hint = f" (a scene of {owner})" if owner else ""
        raise ValueError(f"name: expected one of {', '.join(names)}; found {name!r}{hint}")
    if int(n) < 1:
        raise ValueError(f"n: expected at least 1, found {n}")


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


def _outliers(rng, n):
    boxes = _uniform(rng, max(n - 2, 1))
    far = np.array([[-1e20, -1e20, -1e20, -1e20], [1e20, 1e20, 1e20, 1e20]])
    return np.vstack([boxes, far])[:n]


_MAKERS = {
    "uniform": _uniform,
    "clustered": _clustered,
    "mixed": _mixed,
    "straddlers": _straddlers,
    "elongated": _elongated,
    "wide": _wide,
    "seed000": _seed000,
    "outliers": _outliers,
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
    _check(name, n, NAMES)
    return np.ascontiguousarray(_MAKERS[name](np.random.default_rng(seed), int(n)))


# Seed 003: the field, the emitters (fractions of it) and the rings.
BULLET_FIELD = (360.0, 480.0)
BULLET_EMITTERS = ((0.2, 0.1), (0.2, 0.5), (0.2, 0.9), (0.4, 0.35), (0.4, 0.65),
                   (0.6, 0.1), (0.6, 0.5), (0.6, 0.9), (0.8, 0.35), (0.8, 0.65))
BULLET_RADIUS = 4.0
BULLET_PERIOD = 24  # frames between two rings
BULLET_RING = 32  # bullets per ring, at angles pi/16 * i, speed 1
_MARGIN = 10.0  # a bullet dies once more than this outside the field


def _bullet_tile(phase: int) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Centres and emitters of the bullets alive in one field, ``phase`` frames after a ring."""
    w, h = BULLET_FIELD
    angles = np.pi / 16 * np.arange(BULLET_RING)
    ages = np.arange(phase, int(np.hypot(w, h)) + 2 * int(_MARGIN), BULLET_PERIOD, dtype=float)
    pts, ids = [], []
    for e, (fx, fy) in enumerate(BULLET_EMITTERS):
        x = fx * w + np.outer(ages, np.cos(angles)).ravel()
        y = fy * h + np.outer(ages, np.sin(angles)).ravel()
        alive = (x >= -_MARGIN) & (x <= w + _MARGIN) & (y >= -_MARGIN) & (y <= h + _MARGIN)
        pts.append(np.stack([x[alive], y[alive]], 1))
        ids.append(np.full(int(alive.sum()), e))
    return np.vstack(pts), np.concatenate(ids)


def _bullets(n: int, seed: int):
    tile, ids = _bullet_tile(seed % BULLET_PERIOD)
    ntiles = -(-n // tile.shape[0])
    cols = int(np.ceil(np.sqrt(ntiles)))
    step = np.array(BULLET_FIELD) + 2 * _MARGIN  # tiles never meet
    t = np.arange(ntiles)
    offsets = np.stack([t % cols, t // cols], 1) * step
    centers = (offsets[:, None, :] + tile[None, :, :]).reshape(-1, 2)[:n]
    groups = (t[:, None] * len(BULLET_EMITTERS) + ids[None, :] + 1).ravel()[:n]  # 0: none
    return centers, np.full(n, BULLET_RADIUS), groups.astype(np.int64)


_CIRCLE_MAKERS = {"bullets": _bullets}

#: Names accepted by :func:`make_circles`.
CIRCLE_NAMES: tuple[str, ...] = tuple(_CIRCLE_MAKERS)


def make_circles(name: str, n: int, seed: int = 0):
    """Circles of the scene ``name``: ``(centers, radii, groups)``.

    Parameters
    ----------
    name : str
        One of :data:`CIRCLE_NAMES`.
    n : int
        Number of circles (>= 1).
    seed : int
        For ``bullets``, the frame of the 24-frame firing cycle shown
        (``seed % 24``); the same arguments give the same circles.

    Returns
    -------
    centers : ndarray of float64, shape (n, 2)
    radii : ndarray of float64, shape (n,)
    groups : ndarray of int64, shape (n,)
        Circles of one group never collide: one emitter's bullets, numbered
        from 1 (group 0 would mean no group).

    Examples
    --------
    >>> import broadphase as bp
    >>> from broadphase import scenarios
    >>> c, r, g = scenarios.make_circles("bullets", 2000)
    >>> p = bp.find_circle_pairs(c, r, groups=g)
    >>> bool((g[p[:, 0]] != g[p[:, 1]]).all()), len(p) > 0
    (True, True)
    """
    _check(name, n, CIRCLE_NAMES)
    c, r, g = _CIRCLE_MAKERS[name](int(n), int(seed))
    return np.ascontiguousarray(c), r, g


def _side_3d(n: int) -> float:
    """Cube side for about 2 pairs per cube: ``(n / 2) (2 s / W)^3 = 2 n``."""
    return _WORLD * (2.0 / (4 * n)) ** (1 / 3)


def _uniform3d(rng, n):
    return _squares(rng.uniform(0, _WORLD, (n, 3)), np.full(n, _side_3d(n)))


def _mixed3d(rng, n):
    centres = rng.uniform(0, _WORLD, (n, 3))  # before the sides: the draws' order is the scene
    return _squares(centres, 0.6 * _side_3d(n) * 10 ** rng.uniform(-0.6, 0.6, n))


def _clustered3d(rng, n):
    k = 50
    centres = rng.uniform(0.1 * _WORLD, 0.9 * _WORLD, (k, 3))
    pts = centres[rng.integers(0, k, n)] + rng.normal(0, 0.03 * _WORLD, (n, 3))
    return _squares(pts, np.full(n, _side_3d(n) / 3))  # cores ~27x denser than uniform


def _spheres(rng, n):
    r = 0.14 * _side_3d(n) * 10 ** rng.uniform(0, 1, n)
    return rng.uniform(0, _WORLD, (n, 3)), r


_MAKERS_3D = {"uniform3d": _uniform3d, "mixed3d": _mixed3d, "clustered3d": _clustered3d}
_SPHERE_MAKERS = {"spheres": _spheres}

#: Names accepted by :func:`make_3d`: boxes of six columns.
NAMES_3D: tuple[str, ...] = tuple(_MAKERS_3D)
#: Names accepted by :func:`make_spheres`.
SPHERE_NAMES: tuple[str, ...] = tuple(_SPHERE_MAKERS)


def make_3d(name: str, n: int, seed: int = 0) -> NDArray[np.float64]:
    """3D boxes of the scene ``name`` with ``n`` objects, in a cube of side 1000.

    Parameters
    ----------
    name : str
        One of :data:`NAMES_3D`.
    n : int
        Number of boxes (>= 1).
    seed : int
        Seed of the generator; the same arguments give the same boxes.

    Returns
    -------
    ndarray of float64, shape (n, 6)
        ``minx, miny, minz, maxx, maxy, maxz``.

    Examples
    --------
    >>> import broadphase as bp
    >>> from broadphase import scenarios
    >>> b = scenarios.make_3d("uniform3d", 10_000)
    >>> b.shape, 1.8 < len(bp.find_pairs(b)) / 10_000 < 2.1
    ((10000, 6), True)
    """
    _check(name, n, NAMES_3D)
    return np.ascontiguousarray(_MAKERS_3D[name](np.random.default_rng(seed), int(n)))


def make_spheres(name: str, n: int, seed: int = 0) -> tuple[NDArray[np.float64],
                                                            NDArray[np.float64]]:
    """Spheres of the scene ``name``: ``(centres, radii)``, in a cube of side 1000.

    Parameters
    ----------
    name : str
        One of :data:`SPHERE_NAMES`.
    n : int
        Number of spheres (>= 1).
    seed : int
        Seed of the generator; the same arguments give the same spheres.

    Returns
    -------
    centres : ndarray of float64, shape (n, 3)
    radii : ndarray of float64, shape (n,)

    Examples
    --------
    >>> import broadphase as bp
    >>> from broadphase import scenarios
    >>> c, r = scenarios.make_spheres("spheres", 10_000)
    >>> c.shape, r.shape, 2.0 < len(bp.find_circle_pairs(c, r)) / 10_000 < 2.5
    ((10000, 3), (10000,), True)
    """
    _check(name, n, SPHERE_NAMES)
    c, r = _SPHERE_MAKERS[name](np.random.default_rng(seed), int(n))
    return np.ascontiguousarray(c), r


class Bouncing:
    """Seed 000's update loop: boxes of 10 x 10 moving and bouncing off the walls.

    1000 boxes per 500 x 500 of world (the world grows with ``n``), velocities
    uniform in [-5, 5) per axis, reflected at the walls.

    Parameters
    ----------
    n : int
        Number of boxes.
    seed : int
        Seed of the generator of positions and velocities.

    Examples
    --------
    >>> from broadphase import scenarios
    >>> scene = scenarios.Bouncing(1000)
    >>> b0 = scene.boxes(); scene.step(); b1 = scene.boxes()
    >>> scene.world, b0.shape, bool((abs(b1 - b0) <= 5).all())
    (500.0, (1000, 4), True)
    """

    SIZE = 10.0

    def __init__(self, n: int, seed: int = 0) -> None:
        rng = np.random.default_rng(seed)
        self.world = float(500.0 * np.sqrt(n / 1000))
        self.xy = rng.uniform(0, self.world - self.SIZE, (n, 2))
        self.v = rng.uniform(-5, 5, (n, 2))

    def boxes(self) -> NDArray[np.float64]:
        """The boxes now, ``(n, 4)``: ``minx, miny, maxx, maxy``.

        Examples
        --------
        >>> import numpy as np
        >>> from broadphase import scenarios
        >>> b = scenarios.Bouncing(10).boxes()
        >>> b.shape, bool(np.allclose(b[:, 2:] - b[:, :2], 10))
        ((10, 4), True)
        """
        return np.hstack([self.xy, self.xy + self.SIZE])

    def step(self, rows=slice(None)) -> None:
        """Move the boxes ``rows`` (all by default) by their velocity, bouncing at the walls.

        Parameters
        ----------
        rows : slice or array_like of int
            The boxes to move; the others stay where they are.

        Examples
        --------
        >>> from broadphase import scenarios
        >>> scene = scenarios.Bouncing(10)
        >>> before = scene.boxes(); scene.step([0, 1]); after = scene.boxes()
        >>> bool((after[2:] == before[2:]).all()), bool((after[:2] != before[:2]).any())
        (True, True)
        """
        xy = self.xy[rows] + self.v[rows]
        out = (xy < 0) | (xy > self.world - self.SIZE)
        self.v[rows] = np.where(out, -self.v[rows], self.v[rows])
        self.xy[rows] = np.clip(xy, 0, self.world - self.SIZE)
