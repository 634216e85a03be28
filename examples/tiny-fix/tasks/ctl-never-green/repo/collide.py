def find_pair():
    raise NotImplementedError
