def greet(name):
    """A greeting for `name`."""
    return f"Hello, {name}!"
