"""hub.store.journal: a write's entries go in few multi-row INSERTs of fixed sizes."""

from __future__ import annotations

import pytest

from hub.store.journal import INSERT_ROWS, chunk_sizes, entries_insert


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 63, 64, 65, 127, 128, 200, 1000, 4097])
def test_the_chunks_cover_the_rows_with_few_statements(count):
    sizes = chunk_sizes(count)
    assert sum(sizes) == count
    assert all(size == INSERT_ROWS or size & (size - 1) == 0 for size in sizes)
    assert len(set(sizes)) <= 7 and sizes == sorted(sizes, reverse=True)
    assert len(sizes) <= count // INSERT_ROWS + 6


def test_a_statement_has_six_parameters_a_row_under_sqlites_oldest_limit():
    assert entries_insert(3).count("?") == 18
    assert entries_insert(INSERT_ROWS).count("?") == 6 * INSERT_ROWS <= 999
