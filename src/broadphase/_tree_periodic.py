"""A moving tree's objects in a periodic domain: their pairs by the exact static search.

A tree made with ``period=`` keeps its objects in the core's tree as any
other (insert, move and remove unchanged, the handles the core's), and a
copy of them here, by handle: each live object's box or ball, its filters
and a serial number that tells the objects one handle named apart.  Its
pair questions are answered by the static periodic search
(:func:`._core.find_pairs` with ``period``, ``rust/core/src/periodic``) over
the live objects in handle order, so row ``k`` of the search is the
``k``-th live handle and the search's canonical pairs map to canonical
pairs of handles.

* :meth:`PeriodicObjects.pairs`: the search, kept until an object changes.
* :meth:`PeriodicObjects.update`: the pairs of objects (by serial) now
  against those of the last ``update()``; :meth:`~PeriodicObjects.pairs`
  calls between change nothing.
* :meth:`PeriodicObjects.query_many`: regions against boxes, the regions
  one more set of the search kept apart by groups (as
  :func:`broadphase.find_pairs_between`), and a point against balls as a
  ball of radius 0 (strictly inside: nearer the centre than the radius).

An object wider than half the period on a periodic axis (a box's width, a
ball's diameter) is refused before it reaches the core's tree, by the
core's own rule (:func:`wide_rows`), naming the argument and the row as the
caller gave them.  One periodic tree holds boxes or balls at a time: the
search takes one kind.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from . import _core, _periodic

__all__: list[str] = []

BOX, BALL = _core.KIND_BOX, _core.KIND_CIRCLE
_DEAD = -1
_AXES = "xyz"
#: the core's code for an object too wide on each axis
_WIDE_CODE = {axis: code for code, axis in _periodic.WIDE.items()}
_ALL_BITS = np.uint64(2**64 - 1)


def _empty() -> NDArray[np.intp]:
    return np.empty((0, 2), np.intp)


def shown(per: np.ndarray) -> tuple[float | None, ...]:
    """A period as the user reads it back: a length per axis, ``None`` where open."""
    return tuple(float(v) if np.isfinite(v) else None for v in per.tolist())


def _too_wide(lo: np.ndarray, hi: np.ndarray, length: float) -> np.ndarray:
    """Whether ``hi - lo > length / 2``, exactly, per row (the core's ``too_wide``).

    The rounded ``2 (hi - lo)`` is within ``2**-53`` of the true value, so a
    relative margin of ``1e-15`` decides almost every row; the others are
    decided in fractions.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        t = 2.0 * (hi - lo)
    wide = ~np.isfinite(t) | (t > length * (1.0 + 1e-15))
    for k in np.flatnonzero(~wide & ~(t < length * (1.0 - 1e-15))).tolist():
        wide[k] = 2 * (Fraction(float(hi[k])) - Fraction(float(lo[k]))) > Fraction(length)
    return wide


def wide_rows(rows: np.ndarray, per: np.ndarray, balls: bool) -> tuple[int, int] | None:
    """The first row (and its first axis) wider than half the period, or ``None``.

    ``rows`` are valid boxes (``lo..., hi...``) or balls (``centre..., r``):
    a box's width, a ball's diameter (``4 r > L``, exact) at most half the
    period on each periodic axis.
    """
    d = per.shape[0]
    first: tuple[int, int] | None = None
    for a in np.flatnonzero(np.isfinite(per)).tolist():
        length = float(per[a])
        if balls:
            wide = 4.0 * rows[:, d] > length
        else:
            wide = _too_wide(rows[:, a], rows[:, d + a], length)
        hit = np.flatnonzero(wide)
        if hit.size and (first is None or int(hit[0]) < first[0]):
            first = (int(hit[0]), a)
    return first


def refuse_wide_objects(rows: np.ndarray, per: np.ndarray, name: str, balls: bool = False,
                        radii=None) -> None:
    """Raise the static calls' ``ValueError`` for the first object wider than half the period.

    ``name`` is the argument holding boxes; with ``balls``, ``rows`` are
    balls and ``radii`` the radii argument as given (``None``: a table's,
    or the kept radii).
    """
    found = wide_rows(rows, per, balls=balls)
    if found is None:
        return
    row, axis = found
    if balls:
        raise ValueError(_periodic.wide_ball(rows, radii, row, _WIDE_CODE[axis], per))
    raise ValueError(_periodic.wide_box(rows, name, row, _WIDE_CODE[axis], per))


def refuse_wide_regions(q: np.ndarray, per: np.ndarray, name: str, one: bool) -> None:
    """Refuse a query region wider than half the period (the search's limit), naming it."""
    found = wide_rows(q, per, balls=False)
    if found is None:
        return
    row, axis = found
    d = q.shape[1] // 2
    where = name if one else f"{name}[{row}]"
    width = float(q[row, d + axis]) - float(q[row, axis])
    raise ValueError(f"{where}: spans {width!r} on the periodic {_AXES[axis]} axis, more "
                     f"than half the period {float(per[axis])!r}; a periodic tree's query "
                     f"regions span at most half the period")


def _rows_not_in(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Positions of the rows of ``a`` that are not rows of ``b`` (each without repeats)."""
    if a.shape[0] == 0 or b.shape[0] == 0:
        return np.arange(a.shape[0])
    both = np.concatenate([a, b])
    tag = np.concatenate([np.zeros(a.shape[0], np.int8), np.ones(b.shape[0], np.int8)])
    order = np.lexsort((tag, both[:, 1], both[:, 0]))
    s = both[order]
    same = (s[1:] == s[:-1]).all(axis=1)
    paired = np.zeros(order.shape[0], bool)
    paired[1:] |= same
    paired[:-1] |= same
    keep = order[~paired & (tag[order] == 0)]
    return np.sort(keep)


def _canonical(h: np.ndarray) -> NDArray[np.intp]:
    """Rows of handles ``i < j``, sorted."""
    out = np.asarray(h, np.intp).reshape(-1, 2)
    return out[np.lexsort((out[:, 1], out[:, 0]))]


class PeriodicObjects:
    """The live objects of a periodic tree, by handle, and its pair questions.

    Parameters
    ----------
    per : ndarray of float64, shape (d,)
        The period, ``inf`` on open axes (:func:`._periodic.period`).
    ball : str
        What a ball object is called: ``"circle"`` or ``"sphere"``.
    """

    def __init__(self, per: np.ndarray, ball: str) -> None:
        self.per = per
        self.ball = ball
        d = per.shape[0]
        self.kind = np.full(0, _DEAD, np.int8)
        self.boxes = np.empty((0, 2 * d), np.float64)
        self.balls = np.empty((0, d + 1), np.float64)
        self.serial = np.zeros(0, np.int64)
        self.groups = np.zeros(0, np.int64)
        self.categories = np.zeros(0, np.uint64)
        self.masks = np.zeros(0, np.uint64)
        self.next_serial = 0
        self.counts = {BOX: 0, BALL: 0}
        self._pairs: NDArray[np.intp] | None = None  # the search, until an object changes
        # the last update()'s pairs: handles and the serials of their objects
        self._seen = (_empty(), np.empty((0, 2), np.int64))

    def copy(self) -> PeriodicObjects:
        """An independent copy (the arrays copied; the period is never changed)."""
        new = object.__new__(PeriodicObjects)
        new.__dict__.update(self.__dict__)
        for name in ("kind", "boxes", "balls", "serial", "groups", "categories", "masks"):
            setattr(new, name, getattr(self, name).copy())
        new.counts = dict(self.counts)
        return new

    # ------------------------------------------------------------------
    # the objects

    def holds(self) -> int | None:
        """The kind of the live objects (``BOX`` or ``BALL``), ``None`` when there are none."""
        if self.counts[BOX]:
            return BOX
        return BALL if self.counts[BALL] else None

    def admit(self, kind: int, call: str) -> None:
        """Refuse objects of ``kind`` while the tree holds the other kind."""
        other = BALL if kind == BOX else BOX
        if self.counts[other]:
            held = f"{self.ball}s" if other == BALL else "boxes"
            raise ValueError(f"{call}: a periodic tree holds boxes or {self.ball}s, not both; "
                             f"this one holds {held} (the periodic search takes one kind)")

    def _room(self, top: int) -> None:
        """Grow the arrays to hold handles up to ``top``."""
        n = self.kind.shape[0]
        if top < n:
            return
        m = max(top + 1, 2 * n, 16)

        def grown(a, fill):
            out = np.full((m,) + a.shape[1:], fill, a.dtype)
            out[:n] = a
            return out

        self.kind = grown(self.kind, _DEAD)
        self.boxes = grown(self.boxes, 0.0)
        self.balls = grown(self.balls, 0.0)
        self.serial = grown(self.serial, 0)
        self.groups = grown(self.groups, 0)
        self.categories = grown(self.categories, _ALL_BITS)
        self.masks = grown(self.masks, _ALL_BITS)

    def inserted(self, h: np.ndarray, kind: int, rows: np.ndarray, filters: dict) -> None:
        """Objects the core's tree took under handles ``h``: boxes or balls ``rows``."""
        if h.shape[0] == 0:
            return
        self._room(int(h.max()))
        self.kind[h] = kind
        (self.boxes if kind == BOX else self.balls)[h] = rows
        self.serial[h] = np.arange(self.next_serial, self.next_serial + h.shape[0])
        self.next_serial += h.shape[0]
        for name, default in (("groups", 0), ("categories", _ALL_BITS), ("masks", _ALL_BITS)):
            value = filters.get(name)
            getattr(self, name)[h] = default if value is None else value
        self.counts[kind] += h.shape[0]
        self._pairs = None

    def moved(self, h: np.ndarray, kind: int, rows: np.ndarray) -> None:
        """Objects ``h`` (of ``kind``, checked by the core) given new boxes or balls."""
        (self.boxes if kind == BOX else self.balls)[h] = rows
        self._pairs = None

    def removed(self, h: np.ndarray) -> None:
        """Objects ``h`` taken out of the core's tree."""
        for kind in (BOX, BALL):
            self.counts[kind] -= int(np.count_nonzero(self.kind[h] == kind))
        self.kind[h] = _DEAD
        self._pairs = None

    def live(self) -> NDArray[np.intp]:
        """The live handles, ascending."""
        return np.flatnonzero(self.kind != _DEAD)

    # ------------------------------------------------------------------
    # the questions

    def _filters(self, idx: np.ndarray) -> dict:
        """The filters of the objects ``idx`` as the core reads them (``None``: the default)."""
        out = {}
        for name, default in (("groups", 0), ("categories", _ALL_BITS), ("masks", _ALL_BITS)):
            v = getattr(self, name)[idx]
            out[name] = None if bool((v == default).all()) else np.ascontiguousarray(v)
        return out

    def _search(self, idx: np.ndarray, workers, groups=None, extra=None, max_pairs=None,
                filters=True):
        """The core's periodic search over the objects ``idx`` (and ``extra`` rows after them)."""
        kind = self.holds()
        rows = self.boxes[idx] if kind == BOX else self.balls[idx]
        if extra is not None:
            rows = np.concatenate([rows, extra])
        rows = np.ascontiguousarray(rows, np.float64)
        kw = self._filters(idx) if filters else {}
        if groups is not None:
            kw["groups"] = groups
        if kind == BOX:
            out = _core.find_pairs(rows, "auto", workers=workers, period=self.per,
                                   max_pairs=max_pairs, **kw)
        else:
            out = _core.find_pairs(None, "auto", circles=rows, workers=workers,
                                   period=self.per, max_pairs=max_pairs, **kw)
        if type(out) is _core.BadRow:  # every row was checked as it came in
            raise AssertionError(f"periodic tree: the search refused its row {out.row} "
                                 f"(code {out.code})")
        return out.reshape(-1, 2)

    def pairs(self, workers) -> NDArray[np.intp]:
        """Every colliding pair of live handles, canonical (a copy: the caller's to change)."""
        if self._pairs is None:
            idx = self.live()
            self._pairs = _empty() if idx.shape[0] < 2 else idx[self._search(idx, workers)]
        return self._pairs.copy()

    def update(self, workers) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """``(began, ended)``: the pairs of objects now against those of the last call."""
        now = self.pairs(workers)
        serials = self.serial[now].reshape(-1, 2)
        before, before_serials = self._seen
        began = now[_rows_not_in(serials, before_serials)]
        ended = before[_rows_not_in(before_serials, serials)]
        self._seen = (now, serials)
        return _canonical(began), _canonical(ended)

    def touching(self, h: int, workers) -> NDArray[np.intp]:
        """Sorted handles colliding with the live object ``h``."""
        p = self.pairs(workers)
        return np.sort(np.concatenate([p[p[:, 0] == h, 1], p[p[:, 1] == h, 0]]))

    def query_many(self, q: np.ndarray, workers, max_rows=None) -> NDArray[np.intp]:
        """Rows ``(region, handle)`` of the live boxes overlapping each valid region ``q``.

        The regions are checked against the period by the caller; a tree of
        balls is the caller's to refuse.
        """
        idx = self.live()
        m = q.shape[0]
        if idx.shape[0] == 0 or m == 0:
            return _empty()
        groups = np.concatenate([np.full(idx.shape[0], -2, np.int64), np.full(m, -1, np.int64)])
        try:
            found = self._search(idx, workers, groups, q, max_rows, filters=False)
        except MemoryError:
            if max_rows is None:
                raise
            found = np.empty((max_rows + 1, 2), np.intp)  # only counted: more than max_rows
        if max_rows is not None and found.shape[0] > max_rows:
            raise MemoryError(f"more than max_rows={max_rows} region rows (query, handle) "
                              f"found; query fewer or smaller boxes at a time, or raise "
                              f"max_rows")
        # the objects come first: column 0 an object, column 1 a region
        out = np.empty_like(found)
        out[:, 0] = found[:, 1] - idx.shape[0]
        out[:, 1] = idx[found[:, 0]]
        return _canonical(out)

    def point(self, point: tuple[float, ...], workers) -> NDArray[np.intp]:
        """Sorted handles of the live objects strictly containing ``point``."""
        idx = self.live()
        if idx.shape[0] == 0:
            return np.empty(0, np.intp)
        p = np.array([point], np.float64)
        if self.holds() == BOX:
            return self.query_many(np.concatenate([p, p], axis=1), workers)[:, 1].copy()
        # a ball of radius 0 at the point meets a ball when it is nearer than its radius
        ball = np.concatenate([p, [[0.0]]], axis=1)
        groups = np.concatenate([np.full(idx.shape[0], -2, np.int64), [-1]])
        found = self._search(idx, workers, groups, ball, filters=False)
        return np.sort(idx[found[:, 0]])

    def agrees(self, tree) -> str | None:
        """Whether the copy here agrees with the core's tree ``tree``: the first difference."""
        idx = self.live()
        if idx.shape[0] != len(tree):
            return f"periodic objects: {idx.shape[0]} kept, the tree holds {len(tree)}"
        for h in idx.tolist():
            if not tree.contains(h):
                return f"periodic objects: handle {h} kept, not live in the tree"
            kind = int(self.kind[h])
            ball = tree.circle_of(h) if hasattr(tree, "circle_of") else tree.sphere_of(h)
            if (ball is not None) != (kind == BALL):
                return f"periodic objects: handle {h} kept as the other kind"
            want = self.balls[h] if kind == BALL else self.boxes[h]
            got = ball if kind == BALL else tree.box_of(h)
            if not np.array_equal(np.asarray(got, np.float64), want):
                return f"periodic objects: handle {h} kept as {want.tolist()}, stored {got}"
        for kind in (BOX, BALL):
            if self.counts[kind] != int(np.count_nonzero(self.kind == kind)):
                return "periodic objects: the counts of boxes and balls disagree"
        return None
