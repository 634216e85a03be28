TRUE = {"true", "yes", "on", "1"}
FALSE = {"false", "no", "off", "0"}

def parse_bool(text):
    word = text.strip()
    if word in TRUE:
        return True
    if word in FALSE:
        return False
    raise ValueError(f"not a boolean: {text!r}")
