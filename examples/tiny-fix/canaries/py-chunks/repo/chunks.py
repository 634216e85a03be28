def chunks(items, size):
    out = []
    for start in range(0, len(items) - size + 1, size):
        out.append(items[start:start + size])
    return out
