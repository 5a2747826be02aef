# ruff: noqa
# fmt: off
"""A small module used by the tag tests."""

import os
from typing import Any

MAX_SIZE = 100
DEFAULT_NAME: str = "config"
lower_name = "not a constant"


def parse(text: str,
          strict: bool = False) -> dict[str, Any]:
    """Parse text."""
    def helper(line):
        return line.strip()
    return {"text": helper(text)}


@dataclass
class Config(Base):
    """A configuration."""

    name: str = "x"

    def load(self, path: str) -> "Config":
        return self

    @property
    def size(self) -> int:
        return MAX_SIZE

    class Inner:
        def method(self):
            pass


async def fetch(url):
    return await get(url)


if __name__ == "__main__":
    print(parse(os.environ.get("X", "")))
