"""A command agent's processes — the command and what it started — die with `ragcard run`,
however it ends: `kill -9` (no cleanup can run) and SIGTERM (Python's default: none either)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")

AGENT = '''
import os, subprocess, sys, time
from pathlib import Path

sys.stdin.read()
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
marks = Path(__file__).with_name("marks")
(marks / f"{os.getpid()}-{child.pid}").write_text("")
time.sleep(600)
'''


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return state not in ("Z", "X")  # a zombie is dead, waiting to be reaped


def _wait_for(test: Callable[[], bool], limit: float = 120.0) -> bool:
    end = time.monotonic() + limit  # a bound for a hung machine, not a timing assertion
    while time.monotonic() < end:
        if test():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_command_processes_die_with_ragcard_run(
    how: signal.Signals, mini: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    for name in ("questions.jsonl", "corpus.jsonl", "thresholds.toml"):
        shutil.copy(mini / name, project / name)
    (project / "marks").mkdir()
    (project / "agent.py").write_text(AGENT)
    (project / "ragcard.toml").write_text(
        '[project]\nname = "tree"\n\n[agent]\ntype = "command"\n'
        f'command = [{sys.executable!r}, "agent.py"]\ntimeout = 600\n\n'
        '[run]\nattempts = 1\nconcurrency = 2\ntimeout_s = 600\nrun_date = 2026-01-01\n'
    )
    run = subprocess.Popen(
        [sys.executable, "-m", "ragcard", "run", str(project), "--out", str(tmp_path / "out"),
         "--no-progress", "--eval-dir", str(tmp_path / "eval"),
         "--db", f"sqlite:///{tmp_path / 'history.sqlite'}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    try:
        assert _wait_for(lambda: len(list((project / "marks").iterdir())) >= 2), (
            run.poll(), run.stderr.read() if run.poll() is not None and run.stderr else "")
        pids = [int(p) for mark in (project / "marks").iterdir() for p in mark.name.split("-")]
        assert all(_alive(pid) for pid in pids)
        run.send_signal(how)
        run.wait(timeout=120)
        assert _wait_for(lambda: not any(_alive(pid) for pid in pids), 60), [
            pid for pid in pids if _alive(pid)]
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stderr:
            run.stderr.close()
        for mark in (project / "marks").iterdir():
            for pid in map(int, mark.name.split("-")):
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
