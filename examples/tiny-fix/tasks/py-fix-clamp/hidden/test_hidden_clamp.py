from bounds import clamp

def test_below():
    assert clamp(-5, 0, 10) == 0

def test_above():
    assert clamp(50, 0, 10) == 10

def test_inside():
    assert clamp(4, 0, 10) == 4
