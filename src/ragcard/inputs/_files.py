"""Reading a small text file (TOML configuration, thresholds, targets) as UTF-8, with errors
that name the file and the fix instead of a traceback."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ragcard.errors import ConfigFileError, Problem
from ragcard.inputs._limits import MAX_TOML_BYTES, not_a_regular_file

__all__ = ["read_file", "read_utf8", "sha256_file"]


def read_utf8(path: Path) -> str:
    """The text of ``path`` (a leading byte-order mark dropped). A missing file raises
    :class:`FileNotFoundError` (the caller says what was expected there); a folder, an
    unreadable file or bytes that are not UTF-8 raise :class:`ConfigFileError` (a
    :class:`~ragcard.errors.ConfigError` holding the problem, with its line)."""
    return read_file(path)[1]


def read_file(path: Path, limit: int = MAX_TOML_BYTES) -> tuple[bytes, str]:
    """:func:`read_utf8`, with the bytes it decoded (read once: a hash of them is a hash of
    what was parsed). Only a regular file of at most ``limit`` bytes is read: a device (a
    symlink to ``/dev/zero``), a pipe or a file over the limit is a :class:`ConfigFileError`
    before anything is read, and the read itself stops at the limit."""
    try:
        why = not_a_regular_file(path, limit)
        if why is not None and why.startswith("is a folder"):
            raise IsADirectoryError(path)
        if why is not None:
            fix = "give the path of a regular file" if why.startswith("is a") else "shorten it"
            raise _refused(path, why, fix)
        with path.open("rb") as handle:
            raw = handle.read(limit + 1)
    except IsADirectoryError:
        raise _refused(path, "is a folder, not a file", "give the file's path") from None
    except PermissionError:
        raise _refused(path, "cannot be read (permission denied)", "check its mode") from None
    except FileNotFoundError:
        raise
    except OSError as error:  # a symlink loop, a name too long …
        why = f"cannot be read ({error.strerror or error})"
        raise _refused(path, why, "check the path") from None
    if len(raw) > limit:
        raise _refused(path, f"over the limit of {limit:,} bytes", "shorten it")
    try:
        return raw, raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        column = error.start - (raw.rfind(b"\n", 0, error.start) + 1) + 1
        message = f"not UTF-8 text (byte 0x{raw[error.start]:02x} at column {column})"
        raise ConfigFileError(Problem(str(path), line, None, message,
                                      fix="save the file as UTF-8")) from None  # fmt: skip


def _refused(path: Path, message: str, fix: str) -> ConfigFileError:
    return ConfigFileError(Problem(str(path), None, None, message, fix=fix))


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file's bytes (``hashlib.file_digest``: read in the C library's
    chunks, never whole into memory)."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
