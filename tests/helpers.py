"""Small assertions shared by the test modules (no library code involved)."""

import numpy as np


def assert_canonical(pairs, *, between=False):
    """(k, 2) intp, i < j per row (unless ``between``), rows sorted and unique."""
    assert isinstance(pairs, np.ndarray)
    assert pairs.dtype == np.intp
    assert pairs.ndim == 2 and pairs.shape[1] == 2
    if pairs.shape[0] == 0:
        return
    if not between:
        assert np.all(pairs[:, 0] < pairs[:, 1])
    # strictly increasing in lexicographic order: sorted and no duplicates
    a, b = pairs[:-1], pairs[1:]
    assert np.all((a[:, 0] < b[:, 0]) | ((a[:, 0] == b[:, 0]) & (a[:, 1] < b[:, 1])))


def assert_same(got, expected, *, between=False):
    assert_canonical(got, between=between)
    expected = np.asarray(expected, np.intp).reshape(-1, 2)
    assert got.shape == expected.shape, (got.tolist(), expected.tolist())
    np.testing.assert_array_equal(got, expected)
