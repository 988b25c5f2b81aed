"""The README's quick start works as written right after `make demo`, which installs ragcard
into .venv (not on PATH): its commands call .venv/bin/ragcard, and the page says how to
activate the environment for the plain `ragcard` used further down."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _quick_start() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("## Quick start")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def test_quick_start_commands_run_from_the_demo_venv() -> None:
    section = _quick_start()
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    lines = [line for block in blocks for line in block.splitlines() if line.strip()]
    bare = [line for line in lines if line.lstrip().startswith("ragcard ")]
    assert not bare, f"not on PATH after `make demo`: {bare} (use .venv/bin/ragcard)"
    assert any(line.startswith(".venv/bin/ragcard init") for line in lines)


def test_quick_start_says_how_to_activate_the_venv() -> None:
    assert ". .venv/bin/activate" in _quick_start()


def test_makefile_installs_into_the_venv_the_readme_names() -> None:
    assert re.search(r"^VENV \?= \.venv$", (ROOT / "Makefile").read_text(), flags=re.M)
