"""Runs ``ragcard`` commands in forked children, each killed (SIGKILL) at its n-th write point.

The kill-and-resume harness starts this once: importing ragcard costs seconds on a busy
machine, forking a child that has it imported costs milliseconds. Requests are JSON lines on
stdin: ``{"args": [...], "kill_at": n, "log": path, "output": path, "env": {...}}``. For each,
a child installs ``ragcard.outputs._writing.write_hook``, which appends every write point it passes
to ``log`` (``n point path``) and, at the ``kill_at``-th (``-1``: never), SIGKILLs the child: no
``finally`` runs, no buffer is flushed, exactly as ``kill -9`` leaves a process. The answer
line is ``{"exit": code}`` (``-9`` when killed). The zygote itself never writes a file.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

from ragcard._cli.main import app
from ragcard.outputs import _writing


def _child(request: dict) -> None:
    output = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(output, 1)  # the child's terminal output, apart from the zygote's answers
    os.dup2(output, 2)
    os.environ.update(request.get("env", {}))
    log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    kill_at, seen = int(request.get("kill_at", -1)), [0]

    def hook(point: str, path: Path) -> None:
        os.write(log, f"{seen[0]} {point} {path}\n".encode())
        if seen[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        seen[0] += 1

    _writing.write_hook = hook
    try:
        app(request["args"], prog_name="ragcard")  # exits with the command's code
        code = 0
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException as error:
        os.write(2, f"zygote child: {type(error).__name__}: {error}\n".encode())
        code = 3
    os._exit(code)


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        sys.stdout.write(json.dumps({"exit": code}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
