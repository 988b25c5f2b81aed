"""`make test` runs every check even when one fails, and still fails overall."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(bin_dir: Path, name: str, rc: int, log: Path) -> None:
    script = bin_dir / name
    script.write_text(f"#!/bin/sh\necho {name} >> '{log}'\nexit {rc}\n", encoding="utf-8")
    script.chmod(0o755)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
def test_make_test_runs_lint_and_types_when_pytest_fails(tmp_path: Path) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "ran.log"
    bin_dir.mkdir()
    _tool(bin_dir, "pytest", 1, log)
    _tool(bin_dir, "ruff", 0, log)
    _tool(bin_dir, "mypy", 0, log)
    # -o dev: take the install step as done; BIN points the recipe at the stand-in tools
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-o", "dev", "test", f"BIN={bin_dir}"],
        capture_output=True, text=True, timeout=60,
    )
    assert log.read_text(encoding="utf-8").split() == ["pytest", "ruff", "mypy"]
    assert done.returncode != 0, "a failing pytest must still fail `make test`"


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
def test_make_test_fails_when_only_types_fail(tmp_path: Path) -> None:
    bin_dir, log = tmp_path / "bin", tmp_path / "ran.log"
    bin_dir.mkdir()
    _tool(bin_dir, "pytest", 0, log)
    _tool(bin_dir, "ruff", 0, log)
    _tool(bin_dir, "mypy", 1, log)
    done = subprocess.run(
        ["make", "-s", "-C", str(ROOT), "-o", "dev", "test", f"BIN={bin_dir}"],
        capture_output=True, text=True, timeout=60,
    )
    assert done.returncode != 0


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
@pytest.mark.parametrize("target", ["demo", "demo-persona"])
def test_the_demos_keep_their_eval_records_under_out(target: str) -> None:
    """A demo run adds ~1.7 MB of eval record: under out/, never into examples/*/eval/."""
    done = subprocess.run(["make", "-n", "-C", str(ROOT), "-o", "install", target],
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    runs = [line for line in done.stdout.splitlines() if "ragcard run examples/" in line]
    assert runs and all("--eval-dir out/" in line for line in runs), done.stdout


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed here")
def test_make_shipped_is_as_it_was() -> None:
    done = subprocess.run(["make", "-n", "-C", str(ROOT), "-o", "install", "shipped"],
                          capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    assert "--out examples/handbook/shipped" in done.stdout
    assert "--eval-dir out/shipped-eval" in done.stdout
