def chunks(items, size):
    """Split items into consecutive lists of at most `size` elements."""
    out = []
    for start in range(0, len(items) - size + 1, size):
        out.append(items[start:start + size])
    return out
