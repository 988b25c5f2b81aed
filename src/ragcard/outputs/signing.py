"""Sign a run's result against the configuration it tested, and verify it later
(docs/signatures.md).

A signature (``signature.json``, format ``ragcard.signature/2``) is an Ed25519 signature over
the RFC 8785 (JCS) canonical JSON of a small *manifest* that holds only text:

* ``schema``, ``algorithm``, ``signer``, ``decision``, ``signed_at``, ``key_fingerprint``;
* ``digests``: the sha256 of the bytes of ``scorecard.json`` and ``scorecard.md`` — as stamped
  with the signature line, so the signature covers the files exactly as people read them,
  ``signed`` field and Decision line included — of ``results.jsonl`` and of the thresholds
  file (``thresholds_path``), and of the ``signer`` and ``decision`` texts;
* ``config``: the hashes of what the run tested (question set, corpus, thresholds, agent,
  judge, ragcard version), for readers.

``scorecard.json`` itself names the sha256 of the ``results.jsonl`` it was computed from, so a
folder holding another run's results cannot be signed, and fails verification. The rest of
``signature.json`` is not signed: the public key, the signature, and ``copies`` (the signed
text of both scorecard files, authenticated by their digests, so that :func:`verify_run` can
*name* what changed: a value, a line of scorecard.md). docs/signatures.md shows how to verify a
signature without ragcard (sha256sum, jq, openssl).

A valid signature proves integrity — these are the files some key signed — not identity:
only ``trusted_keys`` (``--trusted``, or ``[signing] trusted_keys`` in ragcard.toml) say whose
key it is. Format-1 signatures still verify (:mod:`ragcard.outputs._signing_v1`), with a note.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ragcard.errors import ConfigError, MissingExtraError
from ragcard.outputs._runfolder import begin, check_complete, finish, incomplete
from ragcard.outputs._writing import write_atomic

try:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

    from ragcard.outputs import _signing_v1
    from ragcard.outputs._signing_files import (
        canonical,
        config_hashes,
        fingerprint,
        load_public_key,
        locate,
        parse_scorecard,
        public_pem,
        read_bytes,
        sha256,
    )
    from ragcard.outputs._signing_v2 import (
        CANONICALIZATION,
        CARD,
        MARKDOWN,
        RESULTS,
        SCHEMA,
        SIGNED,
        verify_v2,
    )
except ImportError:  # pragma: no cover - the tests monkeypatch _CRYPTO instead
    _CRYPTO = False
else:
    _CRYPTO = True

__all__ = ["Signature", "Verification", "new_keypair", "sign_run", "signature_line", "verify_run"]

SIGNATURE_FILE = "signature.json"
PASSPHRASE_ENV = "RAGCARD_KEY_PASSPHRASE"


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
    trusted keys were given, else whether the signing key is one of them; ``notes`` say what
    the verification did not prove (an old format's limits)."""

    ok: bool
    changed: list[str]
    signer: str
    decision: str
    signed_at: str
    key_fingerprint: str
    trusted: bool | None
    notes: list[str] = field(default_factory=list)


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
    header = f"# ragcard signing key of {owner}; fingerprint {fingerprint(public)}\n"
    private_path.parent.mkdir(parents=True, exist_ok=True)
    _write_new(private_path, private_pem, 0o600)
    try:
        _write_new(public_path, header.encode() + public_pem(public).encode(), 0o644)
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
    data = read_bytes(path, "private key")
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


def sign_run(
    run_dir: Path,
    key_path: Path,
    *,
    by: str,
    decision: Literal["ship", "hold"],
    now: dt.datetime | None = None,
) -> Signature:
    """Sign the run in ``run_dir`` as ``by``, deciding ``decision``: stamps the signature line
    into scorecard.json and scorecard.md and writes ``signature.json`` over the stamped files.

    A person may ``hold`` a run whose scorecard says ship, never ``ship`` one that says hold.
    The folder must be complete (not left mid-write) and its results the ones its scorecard
    names; the thresholds file named in the scorecard's config must still be the one the run
    was scored with. An existing signature is never replaced. ``now`` defaults to the clock.
    """
    from ragcard.report.stamp import stamped_files, write_stamped  # (report imports signing)

    _require_crypto()
    run_dir, by = Path(run_dir), _check_name(by, "signer")
    if decision not in ("ship", "hold"):
        raise ConfigError(f"decision must be 'ship' or 'hold', got {decision!r}")
    out = run_dir / SIGNATURE_FILE
    if out.exists():
        raise ConfigError(f"{out} exists: this run is signed already; delete it to sign again")
    key = _load_private_key(Path(key_path))
    interrupted = incomplete(run_dir)
    if interrupted is not None and interrupted.get("command") == "ragcard sign":
        finish(run_dir)  # a signing cut short, its signature.json deleted: this one redoes it
    scorecard = parse_scorecard(read_bytes(run_dir / CARD, "scorecard"), run_dir)
    _check_signable(run_dir, scorecard, decision)
    config = config_hashes(scorecard, run_dir)
    thresholds_path = str(scorecard["config"]["thresholds"].get("path") or "")
    thresholds_file = locate(thresholds_path, run_dir)
    current = sha256(read_bytes(thresholds_file, "thresholds"))
    if current != config["thresholds"]:
        raise ConfigError(
            f"{thresholds_file} changed since the run was scored (sha256 {current[:12]}…, the "
            f"run used {config['thresholds'][:12]}…): restore it, or score the run again"
        )
    moment = (now or dt.datetime.now(dt.UTC)).astimezone(dt.UTC)  # naive: local time
    public = key.public_key()
    manifest: dict[str, Any] = {
        "schema": SCHEMA,
        "algorithm": "ed25519",
        "canonicalization": CANONICALIZATION,
        "signer": by,
        "decision": decision,
        "signed_at": moment.replace(microsecond=0).isoformat(),
        "key_fingerprint": fingerprint(public),
        "thresholds_path": thresholds_path,
        "config": config,
    }
    line = _line(manifest)
    files = stamped_files(run_dir, line)
    if MARKDOWN not in files:
        raise ConfigError(f"{run_dir / MARKDOWN}: missing; score the run again to write it")
    manifest["digests"] = {
        CARD: sha256(files[CARD]),
        MARKDOWN: sha256(files[MARKDOWN]),
        RESULTS: sha256(read_bytes(run_dir / RESULTS, "results")),
        "thresholds": current,
        "signer": sha256(by.encode("utf-8")),
        "decision": sha256(decision.encode("utf-8")),
    }
    signature = base64.b64encode(key.sign(canonical(manifest))).decode()
    document = {
        **manifest,
        "signed": SIGNED,
        "copies": {name: data.decode("utf-8") for name, data in files.items()},
        "public_key": public_pem(public),
        "signature": signature,
    }
    text = json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    # three files change: a kill between them leaves the folder marked, with the fix
    begin(run_dir, "ragcard sign", f"delete {out} and sign the run again")
    try:
        write_atomic(out, text, exclusive=True)  # then the files it covers, each atomically
    except FileExistsError:  # signed meanwhile by someone else
        finish(run_dir)
        raise ConfigError(f"{out} exists: this run is signed already") from None
    write_stamped(run_dir, files)
    finish(run_dir)
    return Signature(
        out, by, decision, manifest["signed_at"], manifest["key_fingerprint"], manifest["digests"]
    )


def _check_signable(run_dir: Path, scorecard: dict[str, Any], decision: str) -> None:
    from ragcard.outputs._signing_files import bad_scorecard

    check_complete(run_dir, "sign")  # mid-write, or results that are not the scorecard's
    own = scorecard.get("decision")
    if own not in ("ship", "hold"):
        raise bad_scorecard(run_dir, "decision", "must be 'ship' or 'hold'", own)
    if decision == "ship" and own != "ship":
        reasons = "; ".join(map(str, scorecard.get("decision_reasons") or [])) or "no reasons given"
        raise ConfigError(
            f"refusing to sign 'ship': the scorecard of {run_dir} decided '{own}' ({reasons}); "
            "a person may hold a passing run, never ship a held one"
        )
    named = scorecard.get("results")
    if not isinstance(named, dict) or not isinstance(named.get("sha256"), str):
        raise ConfigError(
            f"{run_dir / CARD} does not name the results it was computed from (written by a "
            "ragcard before results were bound to their scorecard): score the run again, "
            "then sign it"
        )


def _line(manifest: dict[str, Any]) -> str:
    key = str(manifest["key_fingerprint"])[:12]
    return (
        f"signed by {manifest['signer']} ({manifest['decision']}) at {manifest['signed_at']}, "
        f"key {key}…"
    )


def verify_run(run_dir: Path, *, trusted_keys: Sequence[Path] = ()) -> Verification:
    """Recompute every signed component of the run and check the signature.

    A missing signature.json or a missing file it covers raise :class:`ConfigError` (bad
    usage); anything that no longer matches — a tampered signature.json included — is listed
    in ``Verification.changed`` and makes ``ok`` false.
    """
    _require_crypto()
    run_dir = Path(run_dir)
    doc, problems = _read_signature(run_dir)
    claims = ("signer", "decision", "signed_at")
    signer, decision, signed_at = (str(doc.get(name, "?")) for name in claims)
    key_id = str(doc.get("key_fingerprint", "?"))
    if problems:
        return Verification(False, problems, signer, decision, signed_at, key_id, None)
    changed: list[str] = []
    note = incomplete(run_dir)
    if note is not None:
        changed.append(
            f"the folder was left mid-write by {note.get('command') or 'a ragcard command'}: "
            f"{note.get('fix') or 'run it again'}"
        )
    try:
        public: Ed25519PublicKey | None = load_public_key(
            doc["public_key"].encode(), str(run_dir / SIGNATURE_FILE)
        )
    except ConfigError as error:
        public = None
        changed.append(f"signature.json changed: {error}")
    if public is not None and fingerprint(public) != key_id:
        changed.append("public key changed (it does not match the signed key fingerprint)")
    notes: list[str] = []
    if doc["schema"] == _signing_v1.SCHEMA:
        notes.append(_signing_v1.LEGACY_NOTE)
        changed += _signing_v1.verify_v1(run_dir, doc, public) if public is not None else []
    else:
        changed += verify_v2(run_dir, doc, public)
    trusted = None
    if trusted_keys:
        keys = [load_public_key(read_bytes(Path(p), "public key"), str(p)) for p in trusted_keys]
        trusted = key_id in {fingerprint(key) for key in keys}
        if not trusted:
            changed.append(f"key {key_id[:12]}… is not one of the trusted keys")
    return Verification(
        not changed, changed, signer, decision, signed_at, key_id, trusted, notes
    )


def signature_line(run_dir: Path) -> str | None:
    """'signed by NAME (ship) at TIME, key ab12cd34ef56…' for the scorecard header, or None.

    This repeats what signature.json claims without checking it; :func:`verify_run` checks.
    """
    try:
        doc = json.loads((Path(run_dir) / SIGNATURE_FILE).read_text(encoding="utf-8"))
        return _line(doc)
    except (OSError, ValueError, KeyError, TypeError):  # unsigned, or not a signature file
        return None


def _require_crypto() -> None:
    if not _CRYPTO:
        raise MissingExtraError("cryptography", "sign", "Signing and verifying runs")


def _read_signature(run_dir: Path) -> tuple[dict[str, Any], list[str]]:
    """signature.json and what is wrong with it (a tampered file is a verification failure,
    exit 1, not bad input); only a missing file is a ConfigError."""
    path = run_dir / SIGNATURE_FILE
    if not path.exists():
        raise ConfigError(f"{path}: no such file; is the run signed? (`ragcard sign`)")
    try:
        doc = json.loads(read_bytes(path, "signature").decode("utf-8"))
    except ValueError as error:
        return {}, [f"signature.json changed: not valid JSON ({error})"]
    if not isinstance(doc, dict):
        return {}, ["signature.json changed: not a JSON object"]
    schema = doc.get("schema")
    if schema == _signing_v1.SCHEMA:
        objects, fields = ("scorecard", "config", "digests"), _signing_v1.FIELDS
    elif schema == SCHEMA:
        objects = ("config", "digests", "copies")
        fields = (*SIGNED, "copies", "public_key", "signature")
    else:
        return doc, [f"signature.json changed: unknown schema {str(schema)[:40]!r} (this "
                     f"ragcard reads {_signing_v1.SCHEMA} and {SCHEMA})"]
    bad = [
        name for name in fields
        if not isinstance(doc.get(name), dict if name in objects else str)
    ]  # fmt: skip
    if bad:
        return doc, [f"signature.json changed: {', '.join(bad)} missing or mistyped"]
    return doc, []


def _check_name(name: str, what: str) -> str:
    """One line of printable text: it goes into a key file and the scorecard's header."""
    name = name.strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise ConfigError(f"{what} name {name!r}: give one line of text (a person's name)")
    return name
