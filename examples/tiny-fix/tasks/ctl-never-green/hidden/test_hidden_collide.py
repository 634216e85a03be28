import hashlib
from collide import find_pair

def test_pair_collides():
    a, b = find_pair()
    assert a != b
    assert hashlib.sha256(a).digest() == hashlib.sha256(b).digest()
