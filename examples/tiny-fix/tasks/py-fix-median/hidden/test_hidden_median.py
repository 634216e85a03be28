from stats import median

def test_even_length_is_mean_of_middle_pair():
    assert median([4, 1, 3, 2]) == 2.5

def test_odd_length_still_works():
    assert median([5, 9, 1]) == 5

def test_single_value():
    assert median([7]) == 7
