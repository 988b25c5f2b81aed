"""Command-agent processes never outlive ragcard, however it ends.

Each command runs in its own process group (so that a timeout kills what it started too).
A group still running when ragcard dies — ``kill -9``, SIGTERM's default action, a crash —
would be orphaned: no ``finally`` runs then. So the first command call starts one small
watcher process per ragcard process, holding the read end of a pipe whose write end only
ragcard holds. ragcard writes ``+PGID`` when it starts a command and ``-PGID`` once that
process has been reaped; when the pipe reaches end-of-file — ragcard exited, in any way —
the watcher kills every group still registered (SIGKILL, as a timeout does) and exits.
POSIX only; where the watcher cannot start, commands run as before (a timeout still kills
their group).
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading

__all__ = ["forget_group", "watch_group"]

#: The watcher: reads +PGID / -PGID lines until end-of-file, then kills what is left.
WATCHER = r"""
import os, signal, sys
for name in ("SIGINT", "SIGHUP", "SIGTERM"):  # it ends when ragcard does, not before
    signal.signal(getattr(signal, name), signal.SIG_IGN)
live = set()
for line in sys.stdin.buffer:
    try:
        pgid = int(line[1:])
    except ValueError:
        continue
    (live.add if line[:1] == b"+" else live.discard)(pgid)
for pgid in live:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""

_lock = threading.Lock()
_watcher: subprocess.Popen[bytes] | None = None
_owner: int | None = None  # the pid that started it (a forked child must not share it)
_failed = False


def _started() -> subprocess.Popen[bytes] | None:
    global _watcher, _owner, _failed
    if os.name != "posix" or _failed:
        return None
    if _watcher is not None and _owner == os.getpid() and _watcher.poll() is None:
        return _watcher
    try:
        _watcher = subprocess.Popen(
            [sys.executable, "-c", WATCHER],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C or a group kill of ragcard does not stop it
            close_fds=True,
        )
    except OSError:
        _failed = True
        return None
    _owner = os.getpid()
    atexit.register(_close, _watcher)
    return _watcher


def _close(watcher: subprocess.Popen[bytes]) -> None:
    """A normal exit: end-of-file tells the watcher to finish (nothing is left to kill)."""
    if watcher.stdin is not None and _owner == os.getpid():
        try:
            watcher.stdin.close()
            watcher.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            pass


def _send(line: str) -> None:
    with _lock:
        watcher = _started()
        if watcher is None or watcher.stdin is None:
            return
        try:
            watcher.stdin.write(line.encode("ascii"))
            watcher.stdin.flush()
        except (BrokenPipeError, OSError):
            pass


def watch_group(pgid: int) -> None:
    """Register a command's process group: it is killed if ragcard dies before
    :func:`forget_group`."""
    _send(f"+{pgid}\n")


def forget_group(pgid: int) -> None:
    """The group's leader was reaped: nothing of it is killed when ragcard exits."""
    _send(f"-{pgid}\n")
