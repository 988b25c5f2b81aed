from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def mini() -> Path:
    """A hand-checked six-item project: see tests/fixtures/mini and test_scoring_fixture.py."""
    return FIXTURES / "mini"
