import pytest
from batching import chunks

def test_even_split():
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]

def test_keeps_partial_tail():
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]

def test_empty():
    assert chunks([], 3) == []

def test_bad_size():
    with pytest.raises(ValueError):
        chunks([1], 0)
