"""Fixtures shared by the judge tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from llama_server import Server

from ragcard.judges.models import find_model


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    model = find_model("smollm2-135m")
    assert model is not None
    running = Server(model, tmp_path / "server.log")
    running.start()
    try:
        yield running
    finally:
        running.kill()
