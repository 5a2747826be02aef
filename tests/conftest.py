"""Options and fixtures shared by the whole test suite."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the golden ranking snapshots under tests/golden/snapshots/ instead of comparing with them",
    )


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """True when the run was asked to rewrite golden snapshots (`pytest --update-golden`)."""
    return bool(request.config.getoption("--update-golden"))
