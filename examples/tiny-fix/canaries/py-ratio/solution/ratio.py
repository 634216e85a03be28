def ratio(part: float, whole: float) -> float:
    return part / whole
