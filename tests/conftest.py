from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def mini() -> Path:
    """A hand-checked six-item project: see tests/fixtures/mini and test_scoring_fixture.py."""
    return FIXTURES / "mini"


@pytest.fixture(autouse=True)
def _no_secrets_across_tests() -> Iterator[None]:
    """The secrets a test expands (ragcard._secrets) do not scrub the next test's outputs."""
    yield
    from ragcard._secrets import forget_all

    forget_all()


@pytest.fixture(autouse=True)
def _history_in_tmp(tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs made by tests record into a throwaway history, never beside the examples."""
    path = tmp_path_factory.mktemp("history") / "ragcard-history.sqlite"
    monkeypatch.setenv("RAGCARD_HISTORY_URL", f"sqlite:///{path}")
