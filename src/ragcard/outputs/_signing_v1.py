"""Verifying signatures of format 1 (``ragcard.signature/1``, before RFC 8785).

Format 1 signed Python's sorted-keys JSON of a payload holding the scorecard's values (without
its ``signed`` field), the configuration hashes and the digests of ``results.jsonl`` and the
thresholds file. Such signatures still verify for what they covered; they never covered
``scorecard.md`` or the ``signed`` line, which the verification says (see
:data:`LEGACY_NOTE`). New signatures are format 2 (:mod:`ragcard.outputs.signing`).
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ragcard.errors import InputError
from ragcard.outputs._signing_files import (
    bad_scorecard,
    config_hashes,
    diff,
    legacy_canonical,
    locate,
    parse_scorecard,
    read_bytes,
    sha256,
)

__all__ = ["FIELDS", "LEGACY_NOTE", "SCHEMA", "verify_v1"]

SCHEMA = "ragcard.signature/1"
FIELDS = tuple(
    "schema algorithm scorecard config thresholds_path digests "
    "signer decision signed_at key_fingerprint public_key signature".split()
)
LEGACY_NOTE = (
    "signature format 1 (made before ragcard signed RFC 8785 canonical JSON): it covers the "
    "scorecard's values, results.jsonl and the thresholds, but not scorecard.md or the signed "
    "line; sign the run again (delete signature.json, `ragcard sign`) to cover them"
)
_STORED = {
    "signer": "signer changed",
    "decision": "decision changed",
    "scorecard": "scorecard copy in signature.json changed",
    "config": "configuration in signature.json changed",
}


def _digest(value: Any) -> str:
    if isinstance(value, str):
        return sha256(value.encode("utf-8"))
    return sha256(legacy_canonical(value))


def verify_v1(run_dir: Path, doc: dict[str, Any], public: Ed25519PublicKey) -> list[str]:
    """What changed since a format-1 signature was made (empty: valid)."""
    changed: list[str] = []
    digests = doc["digests"]
    changed += [text for name, text in _STORED.items() if digests.get(name) != _digest(doc[name])]
    if doc["decision"] == "ship" and doc["scorecard"].get("decision") != "ship":
        changed.append("decision changed: 'ship' signed on a scorecard that decided hold")
    try:
        current = parse_scorecard(
            read_bytes(run_dir / "scorecard.json", "scorecard"), run_dir, ("signed", "signature")
        )
        changed += [f"scorecard value {p} changed" for p in diff(doc["scorecard"], current)]
        config = config_hashes(current, run_dir)
        changed += [f"configuration value {p} changed" for p in diff(doc["config"], config)]
    except InputError as error:
        problem = error.problems[0]
        changed.append(f"scorecard.json changed: {problem.field or 'file'} {problem.message}")
    if sha256(read_bytes(run_dir / "results.jsonl", "results")) != digests.get("results"):
        changed.append("results.jsonl changed")
    if not isinstance(doc.get("thresholds_path"), str):
        raise bad_scorecard(run_dir, "config.thresholds.path", "missing", None)
    path = locate(doc["thresholds_path"], run_dir)
    if sha256(read_bytes(path, "thresholds")) != digests.get("thresholds"):
        changed.append(f"thresholds file {path} changed")
    payload = {name: doc[name] for name in FIELDS[:-2]}
    try:
        public.verify(base64.b64decode(doc["signature"], validate=True), legacy_canonical(payload))
    except (InvalidSignature, ValueError):
        changed.append("signature.json changed: the signature does not match its contents")
    return changed
