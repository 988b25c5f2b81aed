"""Crash-consistent writes: every file ragcard writes is either its old complete self or its new
complete self, never a mix, whatever kills the process and wherever.

:func:`write_atomic` writes to a temporary file in the target's own folder, flushes and
``fsync``s it, renames it over the target (``os.replace``: atomic on POSIX and Windows) and
``fsync``s the folder so the rename itself survives a power cut. ``exclusive=True`` publishes
with ``os.link`` instead, which fails when the target exists: a file that must never be
replaced (a signature, a key, an ``eval/`` record) is never replaced, even by a concurrent
writer. Appending (``results.jsonl`` during a run) is the one other way ragcard writes; a
torn last line is cut by the reader (:mod:`ragcard.outputs.results`).

``write_hook`` is for crash tests (``tests/chaos``): when set, it is called at each point where
a kill would leave something on disk — ``"partial"`` (half the temporary file written),
``"synced"`` (before the rename), ``"renamed"`` (before the folder's fsync) and
``"append"`` (half a results line written) — with that point and the target path. The
kill-and-resume harness sets it to kill the process at the n-th point.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from ragcard.agent import _secrets

__all__ = ["copy_atomic", "fsync_folder", "hook", "remove", "write_atomic", "write_hook"]

#: Crash-test hook ``(point, path)``; None in normal use (see the module docstring).
write_hook: Callable[[str, Path], None] | None = None

_UMASK = os.umask(0)
os.umask(_UMASK)
_CHUNK = 1 << 20


def hook(point: str, path: Path) -> None:
    """Call :data:`write_hook` at a crash point (writers outside this module use it too)."""
    if write_hook is not None:
        write_hook(point, path)


def write_atomic(
    path: str | Path, data: bytes | str, *, exclusive: bool = False, mode: int | None = None
) -> Path:
    """Write ``data`` (text as UTF-8, newlines as given) to ``path`` atomically and durably.

    ``exclusive``: raise :class:`FileExistsError` instead of replacing an existing file.
    ``mode``: the file's permission bits (default ``0o666`` less the umask, as ``open`` gives).
    The folder must exist. Returns ``path``.
    """
    path = Path(path)
    if _secrets.active():  # the last line of defence: no remembered secret reaches a file
        data = _secrets.scrub_text(data)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    with _temporary(path, mode) as (handle, temporary):
        half = len(payload) // 2
        handle.write(payload[:half])
        if write_hook is not None:
            handle.flush()
            hook("partial", path)
        handle.write(payload[half:])
        _sync(handle)
        _publish(temporary, path, exclusive)
    return path


def copy_atomic(source: str | Path, path: str | Path, *, exclusive: bool = False) -> Path:
    """Copy ``source`` to ``path`` atomically and durably (as :func:`write_atomic`)."""
    path = Path(path)
    with Path(source).open("rb") as reader, _temporary(path, None) as (handle, temporary):
        first = True
        while chunk := reader.read(_CHUNK):
            handle.write(chunk)
            if first and write_hook is not None:
                handle.flush()
                hook("partial", path)
            first = False
        _sync(handle)
        _publish(temporary, path, exclusive)
    return path


@contextlib.contextmanager
def _temporary(path: Path, mode: int | None) -> Iterator[tuple[BinaryIO, Path]]:
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    temporary = Path(name)
    try:
        os.fchmod(descriptor, (0o666 & ~_UMASK) if mode is None else mode)
        with os.fdopen(descriptor, "wb") as handle:
            yield handle, temporary
    finally:
        temporary.unlink(missing_ok=True)  # published: already gone under this name


def _sync(handle: BinaryIO) -> None:
    handle.flush()
    os.fsync(handle.fileno())


def _publish(temporary: Path, path: Path, exclusive: bool) -> None:
    hook("synced", path)
    if exclusive:
        try:
            os.link(temporary, path)  # fails if ``path`` exists: never replaces
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links: check, then rename
            if path.exists():
                raise FileExistsError(17, "File exists", str(path)) from None
            os.replace(temporary, path)
    else:
        os.replace(temporary, path)
    hook("renamed", path)
    fsync_folder(path.parent)


def fsync_folder(folder: str | Path) -> None:
    """Make a rename or a new file in ``folder`` durable (a no-op where folders cannot be
    opened, as on Windows)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(descriptor)
    finally:
        os.close(descriptor)


def remove(path: str | Path) -> None:
    """Delete ``path`` if it exists, durably."""
    path = Path(path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
        fsync_folder(path.parent)
