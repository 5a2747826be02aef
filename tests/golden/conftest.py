"""Fixtures of the golden ranking tests."""

from __future__ import annotations

import pytest
from ranking_snapshot import Golden


@pytest.fixture
def golden(update_golden: bool) -> Golden:
    return Golden(update_golden)
