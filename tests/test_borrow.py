"""Borrowed views (uno_env.compiler.borrow): the same memory as the argument, usable like it."""

from __future__ import annotations

import numpy as np
from numba import njit

from uno_env.compiler.borrow import borrow


@njit(cache=False)
def _fill_rows(values: np.ndarray, start: float) -> float:
    """Write through borrowed row views of a borrowed 2-D argument; sum what was written."""
    view = borrow(values)
    total = 0.0
    for i in range(view.shape[0]):
        row = view[i]
        for j in range(row.shape[0]):
            row[j] = start + i * 10 + j
            total += row[j]
    return total


def test_writes_through_a_borrowed_view_reach_the_callers_array() -> None:
    values = np.zeros((3, 4))
    total = _fill_rows(values, 1.0)
    expected = np.array([[1.0 + i * 10 + j for j in range(4)] for i in range(3)])
    np.testing.assert_array_equal(values, expected)
    assert total == expected.sum()


def test_borrowed_views_keep_shape_and_strides_of_non_contiguous_arrays() -> None:
    base = np.zeros((6, 8))
    every_other = base[::2, 1::3]  # strided view
    _fill_rows(every_other, 0.0)
    assert every_other.tolist() == [[float(i * 10 + j) for j in range(3)] for i in range(3)]
    assert np.count_nonzero(base) == 8  # only the strided cells changed (one of them is 0.0)
