"""Settings for the shop: read from a JSON file, validated, with defaults."""

import json
from dataclasses import dataclass

DEFAULT_CURRENCY = "EUR"


class ConfigError(Exception):
    """Raised when the settings file is missing a field or has a bad value."""


@dataclass
class ShopConfig:
    database_url: str
    currency: str = DEFAULT_CURRENCY
    tax_rate: float = 0.2


def parse_config(text: str) -> ShopConfig:
    """Parse the JSON settings document into a ShopConfig."""
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise ConfigError(f"settings are not valid JSON: {exc}") from exc
    if "database_url" not in raw:
        raise ConfigError("database_url is required")
    return ShopConfig(raw["database_url"], raw.get("currency", DEFAULT_CURRENCY), raw.get("tax_rate", 0.2))


def load_config(path: str) -> ShopConfig:
    """Read and parse the settings file at `path`."""
    with open(path, encoding="utf-8") as handle:
        return parse_config(handle.read())
