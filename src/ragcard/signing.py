"""Sign a run's result against the configuration it tested, and verify it later (SPEC §4.7).

An Ed25519 signature over one canonical JSON payload (sorted keys, no whitespace, UTF-8): the
scorecard without its ``signed``/``signature`` fields (so the header can show the signature
afterwards), the configuration hashes from its ``config``, the sha256 of ``results.jsonl`` and
of the thresholds file as it is now, the signer, the decision, the time and the key's
fingerprint. ``signature.json`` is that payload (with a digest per component and a copy of
the scorecard, so :func:`verify_run` can *name* what changed), the public key and the
signature. A valid signature proves only that *some* key signed: pass ``trusted_keys``.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ragcard._writing import write_atomic
from ragcard.errors import ConfigError, InputError, MissingExtraError, Problem

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )
except ImportError:  # pragma: no cover - the tests monkeypatch _CRYPTO instead
    _CRYPTO = False
else:
    _CRYPTO = True

__all__ = ["Signature", "Verification", "new_keypair", "sign_run", "signature_line", "verify_run"]

SCHEMA = "ragcard.signature/1"
SIGNATURE_FILE = "signature.json"
PASSPHRASE_ENV = "RAGCARD_KEY_PASSPHRASE"
#: signature.json's fields; all but the public key and the signature are signed.
_FIELDS = tuple(
    "schema algorithm scorecard config thresholds_path digests "
    "signer decision signed_at key_fingerprint public_key signature".split()
)
#: Values signature.json keeps beside their digests; a mismatch names the edited one.
_STORED = {
    "signer": "signer changed",
    "decision": "decision changed",
    "scorecard": "scorecard copy in signature.json changed",
    "config": "configuration in signature.json changed",
}
_MAX_NAMED = 20


@dataclass(frozen=True, slots=True)
class Signature:
    """What :func:`sign_run` wrote to ``signature.json``."""

    path: Path
    signer: str
    decision: str
    signed_at: str
    key_fingerprint: str
    digests: dict[str, str]


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of :func:`verify_run`: ``changed`` names each component that differs;
    signer, decision and time are what signature.json claims; ``trusted`` is None when no
    trusted keys were given, else whether the signing key is one of them."""

    ok: bool
    changed: list[str]
    signer: str
    decision: str
    signed_at: str
    key_fingerprint: str
    trusted: bool | None


def new_keypair(private_path: Path, *, owner: str) -> Path:
    """Write a new Ed25519 private key (PEM, PKCS8, mode 0600) and its public key beside it.

    The private key is encrypted with ``$RAGCARD_KEY_PASSPHRASE`` when that is set. Existing
    files are never overwritten. Returns the public key's path (``<private>.pub``).
    """
    _require_crypto()
    owner = _check_name(owner, "owner")
    private_path = Path(private_path)
    public_path = private_path.with_name(private_path.name + ".pub")
    passphrase = os.environ.get(PASSPHRASE_ENV)
    encryption: serialization.KeySerializationEncryption = serialization.NoEncryption()
    if passphrase:
        encryption = serialization.BestAvailableEncryption(passphrase.encode())
    key = Ed25519PrivateKey.generate()
    pem = serialization.Encoding.PEM
    private_pem = key.private_bytes(pem, serialization.PrivateFormat.PKCS8, encryption)
    public = key.public_key()
    header = f"# ragcard signing key of {owner}; fingerprint {_fingerprint(public)}\n"
    private_path.parent.mkdir(parents=True, exist_ok=True)
    _write_new(private_path, private_pem, 0o600)
    try:
        _write_new(public_path, header.encode() + _public_pem(public).encode(), 0o644)
    except BaseException:  # no private key without its public half
        private_path.unlink()
        raise
    return public_path


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Create ``path`` exclusively (no race with another writer), whole or not at all, with
    exactly ``mode``."""
    try:
        write_atomic(path, data, exclusive=True, mode=mode)
    except FileExistsError:
        raise ConfigError(f"{path} exists: refusing to overwrite it; choose another path") from None


def _load_private_key(path: Path) -> Ed25519PrivateKey:
    data = _read_bytes(path, "private key")
    passphrase = os.environ.get(PASSPHRASE_ENV, "")
    encrypted = b"-----BEGIN ENCRYPTED PRIVATE KEY-----" in data
    if encrypted and not passphrase:
        raise ConfigError(f"{path}: the key is encrypted; set {PASSPHRASE_ENV} to its passphrase")
    try:
        key = serialization.load_pem_private_key(data, passphrase.encode() if encrypted else None)
    except (TypeError, ValueError) as error:  # wrong passphrase, not a PEM key…
        raise ConfigError(f"{path}: cannot read the private key ({error})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConfigError(f"{path}: not an Ed25519 key; make one with `ragcard keys new`")
    return key


def _load_public_key(data: bytes, source: str) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as error:
        raise ConfigError(f"{source}: not a PEM public key ({error})") from None
    if not isinstance(key, Ed25519PublicKey):
        raise ConfigError(f"{source}: not an Ed25519 public key")
    return key


def _public_pem(key: Ed25519PublicKey) -> str:
    spki = serialization.PublicFormat.SubjectPublicKeyInfo
    return key.public_bytes(serialization.Encoding.PEM, spki).decode()


def _fingerprint(key: Ed25519PublicKey) -> str:
    """sha256 of the raw 32-byte public key, in hex."""
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()


def sign_run(
    run_dir: Path,
    key_path: Path,
    *,
    by: str,
    decision: Literal["ship", "hold"],
    now: dt.datetime | None = None,
) -> Signature:
    """Sign the run in ``run_dir`` as ``by``, deciding ``decision``; writes ``signature.json``.

    A person may ``hold`` a run whose scorecard says ship, never ``ship`` one that says hold.
    The thresholds file named in the scorecard's config must still be the one the run was
    scored with. An existing signature is never replaced. ``now`` defaults to the clock (UTC).
    """
    _require_crypto()
    run_dir, by = Path(run_dir), _check_name(by, "signer")
    if decision not in ("ship", "hold"):
        raise ConfigError(f"decision must be 'ship' or 'hold', got {decision!r}")
    out = run_dir / SIGNATURE_FILE
    if out.exists():
        raise ConfigError(f"{out} exists: this run is signed already; delete it to sign again")
    key = _load_private_key(Path(key_path))
    scorecard = _parse_scorecard(_read_bytes(run_dir / "scorecard.json", "scorecard"), run_dir)
    own = scorecard.get("decision")
    if own not in ("ship", "hold"):
        raise _bad_scorecard(run_dir, "decision", "must be 'ship' or 'hold'", own)
    if decision == "ship" and own != "ship":
        reasons = "; ".join(map(str, scorecard.get("decision_reasons") or [])) or "no reasons given"
        raise ConfigError(
            f"refusing to sign 'ship': the scorecard of {run_dir} decided '{own}' ({reasons}); "
            "a person may hold a passing run, never ship a held one"
        )
    config = _config_hashes(scorecard, run_dir)
    thresholds_path = str(scorecard["config"]["thresholds"].get("path") or "")
    thresholds_file = _locate(thresholds_path, run_dir)
    current = _digest(_read_bytes(thresholds_file, "thresholds"))
    if current != config["thresholds"]:
        raise ConfigError(
            f"{thresholds_file} changed since the run was scored (sha256 {current[:12]}…, the "
            f"run used {config['thresholds'][:12]}…): restore it, or score the run again"
        )
    results = _digest(_read_bytes(run_dir / "results.jsonl", "results"))
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)  # naive: local time
    public = key.public_key()
    payload: dict[str, Any] = {
        "schema": SCHEMA,
        "algorithm": "ed25519",
        "scorecard": scorecard,
        "config": config,
        "thresholds_path": thresholds_path,
        "signer": by,
        "decision": decision,
        "signed_at": moment.replace(microsecond=0).isoformat(),
        "key_fingerprint": _fingerprint(public),
    }
    stored = {name: _digest(payload[name]) for name in _STORED}
    payload["digests"] = {**stored, "results": results, "thresholds": current}
    signature = base64.b64encode(key.sign(_canonical(payload))).decode()
    document = {**payload, "public_key": _public_pem(public), "signature": signature}
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    try:
        write_atomic(out, text, exclusive=True)
    except FileExistsError:  # signed meanwhile by someone else
        raise ConfigError(f"{out} exists: this run is signed already") from None
    signed = (payload["signed_at"], payload["key_fingerprint"], payload["digests"])
    return Signature(out, by, decision, *signed)


def verify_run(run_dir: Path, *, trusted_keys: Sequence[Path] = ()) -> Verification:
    """Recompute every signed component of the run and check the signature.

    Missing files raise :class:`ConfigError`/:class:`InputError` (bad usage); anything that
    no longer matches is listed in ``Verification.changed`` and makes ``ok`` false.
    """
    _require_crypto()
    run_dir = Path(run_dir)
    doc = _read_signature(run_dir)
    changed: list[str] = []
    fingerprint = doc["key_fingerprint"]
    public = _load_public_key(doc["public_key"].encode(), str(run_dir / SIGNATURE_FILE))
    if _fingerprint(public) != fingerprint:
        changed.append("public key changed (it does not match the signed key fingerprint)")
    digests = doc["digests"]
    changed += [text for name, text in _STORED.items() if digests.get(name) != _digest(doc[name])]
    if doc["decision"] == "ship" and doc["scorecard"].get("decision") != "ship":
        changed.append("decision changed: 'ship' signed on a scorecard that decided hold")
    changed += _file_changes(run_dir, doc)
    payload = {name: doc[name] for name in _FIELDS[:-2]}
    try:
        public.verify(base64.b64decode(doc["signature"], validate=True), _canonical(payload))
    except (InvalidSignature, ValueError):  # ValueError: not base64
        changed.append("signature.json changed: the signature does not match its contents")
    trusted = None
    if trusted_keys:
        keys = [_load_public_key(_read_bytes(Path(p), "public key"), str(p)) for p in trusted_keys]
        trusted = fingerprint in {_fingerprint(key) for key in keys}
        if not trusted:
            changed.append(f"key {fingerprint[:12]}… is not one of the trusted keys")
    claimed = (doc["signer"], doc["decision"], doc["signed_at"])
    return Verification(not changed, changed, *claimed, fingerprint, trusted)


def _file_changes(run_dir: Path, doc: dict[str, Any]) -> list[str]:
    """Compare the run's files as they are now with what signature.json recorded."""
    changed: list[str] = []
    try:
        current = _parse_scorecard(_read_bytes(run_dir / "scorecard.json", "scorecard"), run_dir)
        changed += [f"scorecard value {p} changed" for p in _diff(doc["scorecard"], current)]
        config = _config_hashes(current, run_dir)
        changed += [f"configuration value {p} changed" for p in _diff(doc["config"], config)]
    except InputError as error:
        problem = error.problems[0]
        changed.append(f"scorecard.json changed: {problem.field or 'file'} {problem.message}")
    if _digest(_read_bytes(run_dir / "results.jsonl", "results")) != doc["digests"].get("results"):
        changed.append("results.jsonl changed")
    path = _locate(doc["thresholds_path"], run_dir)
    if _digest(_read_bytes(path, "thresholds")) != doc["digests"].get("thresholds"):
        changed.append(f"thresholds file {path} changed")
    return changed


def _diff(old: Any, new: Any, path: str = "") -> list[str]:
    """Dotted paths of the leaves that differ between two JSON values (at most a screenful)."""
    found: list[str] = []
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new)):
            where = f"{path}.{key}" if path else str(key)
            both = key in old and key in new
            found += _diff(old[key], new[key], where) if both else [where]
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            found += _diff(a, b, f"{path}[{index}]")
    # Leaves compare as canonical text: NaN equals NaN; 1, 1.0 and true all differ.
    elif _canonical(old) != _canonical(new):
        found.append(path or "(the whole scorecard)")
    return found[:_MAX_NAMED]


def signature_line(run_dir: Path) -> str | None:
    """'signed by NAME (ship) at TIME, key ab12cd34ef56…' for the scorecard header, or None.

    This repeats what signature.json claims without checking it; :func:`verify_run` checks.
    """
    try:
        doc = json.loads((Path(run_dir) / SIGNATURE_FILE).read_text(encoding="utf-8"))
        key = str(doc["key_fingerprint"])[:12]
        return f"signed by {doc['signer']} ({doc['decision']}) at {doc['signed_at']}, key {key}…"
    except (OSError, ValueError, KeyError, TypeError):  # unsigned, or not a signature file
        return None


def _require_crypto() -> None:
    if not _CRYPTO:
        raise MissingExtraError("cryptography", "sign", "Signing and verifying runs")


def _canonical(value: Any) -> bytes:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def _digest(value: Any) -> str:
    """sha256 in hex of bytes as they are, of text as UTF-8, of anything else as canonical JSON."""
    if isinstance(value, str):
        value = value.encode("utf-8")
    return hashlib.sha256(value if isinstance(value, bytes) else _canonical(value)).hexdigest()


_FIXES = {
    "private key": "create one with `ragcard keys new KEY --owner NAME`",
    "public key": "pass the .pub file written by `ragcard keys new`",
    "scorecard": "pass the output folder of `ragcard run` or `ragcard score`",
    "results": "pass the output folder of `ragcard run` or `ragcard score`",
}


def _read_bytes(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        fix = f"; {_FIXES[what]}" if what in _FIXES else ""
        raise ConfigError(f"{path}: cannot read the {what} file ({error.strerror}){fix}") from None


def _locate(recorded: str, run_dir: Path) -> Path:
    """The thresholds file the scorecard names; relative: from here, else from the run."""
    if not recorded:
        raise _bad_scorecard(run_dir, "config.thresholds.path", "missing", None)
    path = Path(recorded)
    return run_dir / path if not path.exists() and (run_dir / path).exists() else path


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Refuse duplicate keys: a reader keeping the first one would see another scorecard."""
    if len(value := dict(pairs)) != len(pairs):
        raise ValueError("duplicate keys in one object")
    return value


def _parse_scorecard(data: bytes, run_dir: Path) -> dict[str, Any]:
    """The canonical scorecard: parsed strictly, without the fields signing may add."""
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise _bad_scorecard(run_dir, None, f"not valid JSON ({error})", None) from None
    if not isinstance(value, dict):
        raise _bad_scorecard(run_dir, None, "not a JSON object", None)
    return {key: item for key, item in value.items() if key not in ("signed", "signature")}


def _config_hashes(scorecard: dict[str, Any], run_dir: Path) -> dict[str, str]:
    """The configuration the run tested, as hashes, from the scorecard's ``config``."""
    config = scorecard.get("config")
    config = config if isinstance(config, dict) else {}
    files = ("questions", "corpus", "thresholds")
    try:
        hashes = {name: str(config[name]["sha256"]) for name in files}
        hashes |= {name: _digest(config[name]) for name in ("agent", "judge")}
    except (KeyError, TypeError) as error:
        raise _bad_scorecard(run_dir, "config", f"incomplete ({error})", None) from None
    return {**hashes, "ragcard_version": str(config.get("ragcard_version"))}


def _bad_scorecard(run_dir: Path, field: str | None, message: str, value: object) -> InputError:
    return InputError(Problem(str(run_dir / "scorecard.json"), None, field, message, value))


def _read_signature(run_dir: Path) -> dict[str, Any]:
    """signature.json, with every field present and of its type (objects or text)."""
    path = run_dir / SIGNATURE_FILE
    if not path.exists():
        raise ConfigError(f"{path}: no such file; is the run signed? (`ragcard sign`)")
    try:
        doc = json.loads(_read_bytes(path, "signature").decode("utf-8"))
    except ValueError as error:
        raise InputError(Problem(str(path), None, None, f"not valid JSON ({error})")) from None
    doc = doc if isinstance(doc, dict) else {}
    kinds = {name: dict if name in ("scorecard", "config", "digests") else str for name in _FIELDS}
    bad = [name for name, kind in kinds.items() if not isinstance(doc.get(name), kind)]
    if bad:
        fix = "sign the run again"
        raise InputError([Problem(str(path), None, n, "missing or mistyped", fix=fix) for n in bad])
    return doc


def _check_name(name: str, what: str) -> str:
    """One line of printable text: it goes into a key file and the scorecard's header."""
    name = name.strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise ConfigError(f"{what} name {name!r}: give one line of text (a person's name)")
    return name
