from settings import parse

def test_strips_padding():
    assert parse("name = tiny\n  size=3  \n") == {"name": "tiny", "size": "3"}

def test_skips_comments_and_blanks():
    assert parse("# note\n\nmode = fast\n") == {"mode": "fast"}

def test_value_may_hold_equals():
    assert parse("expr = a=b\n") == {"expr": "a=b"}
