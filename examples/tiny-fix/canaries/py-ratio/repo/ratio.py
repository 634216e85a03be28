def ratio(part, whole):
    return part / whole
