import pytest
from flags import parse_bool

def test_upper_case():
    assert parse_bool(" YES ") is True
    assert parse_bool("Off") is False

def test_digits():
    assert parse_bool("1") is True

def test_rejects_other_words():
    with pytest.raises(ValueError):
        parse_bool("maybe")
