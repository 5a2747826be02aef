"""A vendored, minimal JSON-ish parser (third-party code)."""


def parse_config(text):
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
