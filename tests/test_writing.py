"""Crash-consistent writes (ragcard.outputs._writing): old or new, never a mix; never replace
when told."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from ragcard.outputs import _writing
from ragcard.outputs._writing import copy_atomic, write_atomic
from ragcard.outputs.results import ResultsLog


class Killed(BaseException):
    """Stands in for SIGKILL: nothing after the hook point runs (not even ``except``s that
    catch Exception)."""


@pytest.fixture
def kill_at() -> Iterator[list[str]]:
    """Set the hook to 'kill' at the points listed (consumed in order)."""
    points: list[str] = []

    def hook(point: str, path: Path) -> None:
        if points and points[0] == point:
            points.pop(0)
            raise Killed(point)

    _writing.write_hook = hook
    try:
        yield points
    finally:
        _writing.write_hook = None


def test_write_atomic_writes_text_and_bytes_with_the_usual_mode(tmp_path: Path) -> None:
    target = write_atomic(tmp_path / "a.json", "é\n")
    assert target.read_bytes() == "é\n".encode()
    write_atomic(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~umask
    assert write_atomic(tmp_path / "k", b"x", mode=0o600).stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


@pytest.mark.parametrize("point", ["partial", "synced"])
def test_a_kill_before_the_rename_leaves_the_old_file_whole(
    tmp_path: Path, kill_at: list[str], point: str
) -> None:
    target = tmp_path / "scorecard.json"
    target.write_text("old complete\n")
    kill_at.append(point)
    with pytest.raises(Killed):
        write_atomic(target, "new complete, and much longer than the old one\n")
    assert target.read_text() == "old complete\n"


def test_a_kill_after_the_rename_leaves_the_new_file_whole(
    tmp_path: Path, kill_at: list[str]
) -> None:
    target = tmp_path / "scorecard.json"
    target.write_text("old\n")
    kill_at.append("renamed")
    with pytest.raises(Killed):
        write_atomic(target, "new\n")
    assert target.read_text() == "new\n"


def test_exclusive_never_replaces_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = write_atomic(tmp_path / "signature.json", "first\n", exclusive=True)
    with pytest.raises(FileExistsError):
        write_atomic(target, "second\n", exclusive=True)
    with pytest.raises(FileExistsError):
        copy_atomic(target, target, exclusive=True)
    assert target.read_text() == "first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["signature.json"]


def test_copy_atomic_copies_large_files_whole(tmp_path: Path, kill_at: list[str]) -> None:
    source = tmp_path / "results.jsonl"
    source.write_bytes(b"x" * (3 << 20))
    copy = copy_atomic(source, tmp_path / "copy.jsonl")
    assert copy.read_bytes() == source.read_bytes()
    kill_at.append("partial")
    with pytest.raises(Killed):
        copy_atomic(source, tmp_path / "second.jsonl")
    assert not (tmp_path / "second.jsonl").exists()


def test_a_kill_mid_append_leaves_a_torn_line_the_next_log_cuts(
    tmp_path: Path, kill_at: list[str]
) -> None:
    path = tmp_path / "results.jsonl"
    log = ResultsLog(path)
    log.append({"item": "a", "attempt": 1})
    kill_at.append("append")
    with pytest.raises(Killed):
        log.append({"item": "b", "attempt": 1})
    log.close()
    assert path.read_text().startswith('{"item":"a","attempt":1}\n{"item"')
    ResultsLog(path).close()  # the next run opens it
    assert path.read_text() == '{"item":"a","attempt":1}\n'


def test_a_torn_tail_is_found_without_reading_the_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    complete = b'{"n":1}\n' * 20_000
    path.write_bytes(complete + b"x" * 70_000)  # a torn line longer than one block
    ResultsLog(path).close()
    assert path.read_bytes() == complete
    path.write_bytes(b"torn, no newline at all")
    ResultsLog(path).close()
    assert path.read_bytes() == b""
