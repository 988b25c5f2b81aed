"""Plain helpers for the red-team tests (a module of its own: ``conftest`` is not importable
by name once several test folders have one)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from ragcard.redteam import RedteamResult

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

RunRedteam = Callable[..., RedteamResult]


def copy_example(folder: Path, name: str) -> Path:
    """A copy of ``examples/<name>`` (its outputs left out) that a test may change."""
    target = folder / name
    ignore = shutil.ignore_patterns("out", "eval", "*.sqlite")
    shutil.copytree(EXAMPLES / name, target, ignore=ignore)
    return target


def tree(folder: Path, skip: tuple[str, ...] = ("out",)) -> dict[str, bytes]:
    """Every file under ``folder`` (but ``skip``'s folders and the history) with its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and path.relative_to(folder).parts[0] not in skip
        and not path.name.startswith("ragcard-history.sqlite")
    }
