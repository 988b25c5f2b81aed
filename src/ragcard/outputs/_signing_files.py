"""What :mod:`ragcard.outputs.signing` reads and compares: keys, the run's files, canonical JSON,
and the recursive diff that names a changed value."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import rfc8785
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ragcard.errors import ConfigError, InputError, Problem

__all__ = [
    "canonical",
    "config_hashes",
    "diff",
    "fingerprint",
    "legacy_canonical",
    "load_public_key",
    "locate",
    "parse_scorecard",
    "public_pem",
    "read_bytes",
    "sha256",
]

_MAX_NAMED = 20

_FIXES = {
    "private key": "create one with `ragcard keys new KEY --owner NAME`",
    "public key": "pass the .pub file written by `ragcard keys new`",
    "scorecard": "pass the output folder of `ragcard run` or `ragcard score`",
    "results": "pass the output folder of `ragcard run` or `ragcard score`",
}


def canonical(value: Any) -> bytes:
    """RFC 8785 (JCS) canonical JSON: the bytes a signature covers, reproducible by any JCS
    implementation (and, for ragcard's all-string payloads, by ``jq -cjS``)."""
    return bytes(rfc8785.dumps(value))


def legacy_canonical(value: Any) -> bytes:
    """The canonical form of signature format 1 (Python's ``json.dumps`` with sorted keys):
    kept only to verify signatures made before RFC 8785."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_bytes(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        fix = f"; {_FIXES[what]}" if what in _FIXES else ""
        raise ConfigError(f"{path}: cannot read the {what} file ({error.strerror}){fix}") from None


def load_public_key(data: bytes, source: str) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as error:
        raise ConfigError(f"{source}: not a PEM public key ({error})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"{source}: not an Ed25519 public key")
    return key


def public_pem(key: Ed25519PublicKey) -> str:
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    return key.public_bytes(serialization.Encoding.PEM, spki).decode()


def fingerprint(key: Ed25519PublicKey) -> str:
    """sha256 of the raw 32-byte public key, in hex."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def locate(recorded: str, run_dir: Path) -> Path:
    """The thresholds file the scorecard names; relative: from here, else from the run."""
    if not recorded:
        raise bad_scorecard(run_dir, "config.thresholds.path", "missing", None)
    path = Path(recorded)
    return run_dir / path if not path.exists() and (run_dir / path).exists() else path


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Refuse duplicate keys: a reader keeping the first one would see another scorecard."""
    if len(value := dict(pairs)) != len(pairs):
        raise ValueError("duplicate keys in one object")
    return value


def parse_scorecard(data: bytes, run_dir: Path, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """The scorecard, parsed strictly (duplicate keys refused), without the fields ``drop``."""
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise bad_scorecard(run_dir, None, f"not valid JSON ({error})", None) from None
    if not isinstance(value, dict):
        raise bad_scorecard(run_dir, None, "not a JSON object", None)
    return {key: item for key, item in value.items() if key not in drop}


def config_hashes(scorecard: dict[str, Any], run_dir: Path) -> dict[str, str]:
    """The configuration the run tested, as hashes, from the scorecard's ``config``."""
    config = scorecard.get("config")
    config = config if isinstance(config, dict) else {}
    files = ("questions", "corpus", "thresholds")
    try:
        hashes = {name: str(config[name]["sha256"]) for name in files}
        hashes |= {name: sha256(legacy_canonical(config[name])) for name in ("agent", "judge")}
    except (KeyError, TypeError) as error:
        raise bad_scorecard(run_dir, "config", f"incomplete ({error})", None) from None
    return {**hashes, "ragcard_version": str(config.get("ragcard_version"))}


def diff(old: Any, new: Any, path: str = "") -> list[str]:
    """Dotted paths of the leaves that differ between two JSON values (at most a screenful)."""
    found: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            where = f"{path}.{key}" if path else str(key)
            both = key in old and key in new
            found += diff(old[key], new[key], where) if both else [where]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            found += diff(a, b, f"{path}[{index}]")
    # Leaves compare as canonical text: NaN equals NaN; 1, 1.0 and true all differ.
    elif legacy_canonical(old) != legacy_canonical(new):
        found.append(path or "(the whole scorecard)")
    return found[:_MAX_NAMED]


def bad_scorecard(run_dir: Path, field: str | None, message: str, value: object) -> InputError:
    return InputError(Problem(str(run_dir / "scorecard.json"), None, field, message, value))
