from text import slugify

def test_simple():
    assert slugify("Hello World") == "hello-world"

def test_collapses_runs():
    assert slugify("Hello,   World!!") == "hello-world"

def test_strips_ends():
    assert slugify("  --Tiny Fix--  ") == "tiny-fix"
