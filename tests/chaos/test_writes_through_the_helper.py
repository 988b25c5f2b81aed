"""Under strace, a whole ``ragcard run`` and ``ragcard sign`` open no output file for writing in
place: every file of the run folder and eval/ is written as a temporary file and renamed,
except results.jsonl, which is appended to (and cut back to its last whole line)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from chaos_support import callable_agent, make_project

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or shutil.which("strace") is None,
    reason="needs strace on Linux",
)
OPEN = re.compile(r'open(?:at)?\((?:[^,]+, )?"(?P<path>[^"]+)", (?P<flags>[A-Z_|]+)')
WRITING = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC")


def writes(log: Path, folders: list[Path]) -> list[tuple[str, str]]:
    """(file name, open flags) of every open for writing under ``folders``."""
    found = []
    roots = [str(folder.resolve()) for folder in folders]
    for line in log.read_text(errors="replace").splitlines():
        match = OPEN.search(line)
        if not match or "= -1" in line:
            continue
        path, flags = match.group("path"), match.group("flags")
        if any(flag in flags for flag in WRITING) and any(path.startswith(r) for r in roots):
            found.append((Path(path).name, flags))
    return found


def traced(args: list[str], log: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    ragcard = Path(sys.executable).with_name("ragcard")
    command = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(log), str(ragcard),
               *args]
    return subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env},
                          timeout=300, check=False)


def test_every_output_file_is_written_beside_and_renamed(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", callable_agent(seed=2, error_rate=0.2), questions=5)
    out, eval_dir, log = tmp_path / "out", tmp_path / "eval", tmp_path / "strace.log"
    env = {"RAGCARD_HISTORY_URL": f"sqlite:///{tmp_path / 'h.sqlite'}", "CI": ""}
    done = traced(["run", str(project), "--out", str(out), "--no-progress", "--eval-dir",
                   str(eval_dir)], log, env)
    if "ptrace" in done.stderr or "Operation not permitted" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr[:200]}")
    assert done.returncode in (0, 1), done.stderr
    key = tmp_path / "ada.pem"
    subprocess.run([str(Path(sys.executable).with_name("ragcard")), "keys", "new", str(key),
                    "--owner", "Ada"], check=True, capture_output=True)
    signed = traced(["sign", str(out), "--key", str(key), "--by", "Ada", "--decision", "hold"],
                    tmp_path / "sign.log", env)
    assert signed.returncode == 0, signed.stderr
    opened = writes(log, [out, eval_dir]) + writes(tmp_path / "sign.log", [out])
    in_place = [
        (name, flags) for name, flags in opened
        if not re.fullmatch(r"\..+\.tmp", name)  # the helper's temporary files
        and not (name == "results.jsonl" and "O_TRUNC" not in flags)  # appends, the tail cut
    ]  # fmt: skip
    assert opened and in_place == []
    names = {name for name, _ in opened}
    assert any(n.startswith(".scorecard.json.") for n in names)
    assert any(n.startswith(".signature.json.") for n in names)
    assert any(n.startswith(".run.incomplete.") for n in names)
