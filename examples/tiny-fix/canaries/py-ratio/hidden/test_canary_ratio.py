from ratio import ratio


def test_half():
    assert ratio(1, 2) == 0.5


def test_empty_whole_is_zero():
    assert ratio(3, 0) == 0.0
