"""``Contacts``: which pairs began and which ended colliding since the last frame."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import _core

__all__ = ["Contacts"]


class Contacts:
    """Begin and end events from successive pair arrays.

    Feed it the pairs of every frame (``tree.pairs()`` or
    :func:`broadphase.find_pairs`); it returns the pairs that started and
    the pairs that stopped colliding since the previous call.

    Examples
    --------
    >>> import broadphase as bp
    >>> contacts = bp.Contacts()
    >>> began, ended = contacts.update([[0, 1], [2, 3]])
    >>> began.tolist(), ended.tolist()
    ([[0, 1], [2, 3]], [])
    >>> began, ended = contacts.update([[0, 1], [1, 2]])
    >>> began.tolist(), ended.tolist()
    ([[1, 2]], [[2, 3]])
    >>> contacts.current.tolist()
    [[0, 1], [1, 2]]
    """

    def __init__(self) -> None:
        self._current = _NONE

    @property
    def current(self) -> NDArray[np.intp]:
        """The pairs of the last :meth:`update`, canonical (sorted, ``i < j``)."""
        return self._current.copy()

    def update(self, pairs: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Take this frame's pairs; returns ``(began, ended)``.

        Parameters
        ----------
        pairs : array_like of int, shape (k, 2)
            Colliding pairs of object indices or handles (each in
            ``[0, 2**31)``), in any order; ``(j, i)`` is the pair ``(i, j)``.

        Returns
        -------
        began, ended : ndarray of intp, shape (*, 2)
            Pairs in ``pairs`` but not in the previous call's, and the
            reverse; canonical (``i < j``, rows sorted).

        Examples
        --------
        >>> import broadphase as bp
        >>> contacts = bp.Contacts()
        >>> began, ended = contacts.update([[3, 1]])          # (3, 1) is the pair (1, 3)
        >>> began.tolist(), ended.tolist()
        ([[1, 3]], [])
        >>> began, ended = contacts.update([])
        >>> began.tolist(), ended.tolist()
        ([], [[1, 3]])
        """
        rows = _rows(pairs)
        last = np.ascontiguousarray(self._current, np.int64)
        self._current, began, ended = _core.contact_events(last, rows)
        return began, ended

    def reset(self) -> None:
        """Forget the previous pairs: the next update reports all of its pairs as begun.

        Examples
        --------
        >>> import broadphase as bp
        >>> contacts = bp.Contacts()
        >>> _ = contacts.update([[0, 1]])
        >>> contacts.reset()
        >>> contacts.update([[0, 1]])[0].tolist()              # begun again
        [[0, 1]]
        """
        self._current = _NONE


# The pair key (``i << 32 | j``) and the set difference belong to the core
# (``_core.contact_events``, the moving tree's own event rule): here the
# argument is only checked, naming the row.
_NONE = np.empty((0, 2), np.intp)


def _rows(pairs) -> NDArray[np.int64]:
    arr = np.asarray(pairs)
    if arr.shape in ((0,), (0, 2)):  # [] reads as float64
        return np.empty((0, 2), np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"pairs: expected integers, found dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"pairs: expected shape (k, 2), found shape {arr.shape}")
    bad = (arr < 0) | (arr >= 2**31)
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        raise ValueError(f"pairs[{row}]: expected indices in [0, 2**31), found "
                         f"{arr[row].tolist()}")
    same = arr[:, 0] == arr[:, 1]
    if same.any():
        row = int(np.flatnonzero(same)[0])
        raise ValueError(f"pairs[{row}]: expected two different objects, found "
                         f"{arr[row].tolist()}")
    return np.ascontiguousarray(arr, np.int64)
