"""Verifying signatures of format 2 (``ragcard.signature/2``, RFC 8785): see
:mod:`ragcard.outputs.signing` for what is signed; here each change is found and named."""

from __future__ import annotations

import base64
import difflib
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from ragcard.errors import InputError
from ragcard.outputs._signing_files import (
    canonical,
    config_hashes,
    diff,
    locate,
    parse_scorecard,
    read_bytes,
    sha256,
)

__all__ = ["CANONICALIZATION", "CARD", "MARKDOWN", "RESULTS", "SCHEMA", "SIGNED", "verify_v2"]

SCHEMA = "ragcard.signature/2"
CARD, MARKDOWN, RESULTS = "scorecard.json", "scorecard.md", "results.jsonl"
#: The manifest's fields: what is signed (all text; ``digests`` and ``config`` map to text).
SIGNED = (
    "schema algorithm canonicalization signer decision signed_at key_fingerprint "
    "thresholds_path digests config"
).split()
CANONICALIZATION = "RFC 8785 (JCS) of the fields listed in 'signed'"


def verify_v2(run_dir: Path, doc: dict[str, Any], public: Ed25519PublicKey | None) -> list[str]:
    changed: list[str] = []
    digests, copies = doc["digests"], doc["copies"]
    for name in ("signer", "decision"):
        if digests.get(name) != sha256(str(doc[name]).encode("utf-8")):
            changed.append(f"{name} changed")
    copied = {name: str(copies.get(name, "")).encode("utf-8") for name in (CARD, MARKDOWN)}
    for name, data in copied.items():
        if sha256(data) != digests.get(name):
            changed.append(f"scorecard copy in signature.json changed ({name})")
            copied[name] = b""  # not what was signed: name nothing from it
    signed_card = _parsed(copied[CARD], run_dir) if copied[CARD] else None
    if doc["decision"] == "ship" and signed_card and signed_card.get("decision") != "ship":
        changed.append("decision changed: 'ship' signed on a scorecard that decided hold")
    changed += _card_changes(run_dir, doc, signed_card)
    changed += _config_changes(run_dir, doc)
    changed += _markdown_changes(read_bytes(run_dir / MARKDOWN, "scorecard"), copied[MARKDOWN],
                                 digests.get(MARKDOWN))
    results = read_bytes(run_dir / RESULTS, "results")
    if sha256(results) != digests.get(RESULTS):
        changed.append("results.jsonl changed")
        changed += _binding_changes(run_dir, results)
    path = locate(str(doc["thresholds_path"]), run_dir)
    if sha256(read_bytes(path, "thresholds")) != digests.get("thresholds"):
        changed.append(f"thresholds file {path} changed")
    manifest = {name: doc[name] for name in SIGNED}
    try:
        if public is None:
            raise ValueError("no usable public key")
        public.verify(base64.b64decode(doc["signature"], validate=True), canonical(manifest))
    except (InvalidSignature, ValueError):  # ValueError: not base64
        changed.append("signature.json changed: the signature does not match its contents")
    return changed


def _parsed(data: bytes, run_dir: Path) -> dict[str, Any] | None:
    try:
        return parse_scorecard(data, run_dir)
    except InputError:
        return None


def _card_changes(
    run_dir: Path, doc: dict[str, Any], signed: dict[str, Any] | None
) -> list[str]:
    """What changed in scorecard.json: each value by its dotted path, the configuration, and
    the results it names."""
    data = read_bytes(run_dir / CARD, "scorecard")
    if sha256(data) == doc["digests"].get(CARD):
        return []
    try:
        current = parse_scorecard(data, run_dir)
    except InputError as error:
        problem = error.problems[0]
        return [f"scorecard.json changed: {problem.field or 'file'} {problem.message}"]
    changed = [f"scorecard value {p} changed" for p in diff(signed or {}, current)]
    return changed or ["scorecard.json changed (layout only: every value is the signed one)"]


def _config_changes(run_dir: Path, doc: dict[str, Any]) -> list[str]:
    """The signed configuration hashes against those of the scorecard on disk."""
    try:
        current = parse_scorecard(read_bytes(run_dir / CARD, "scorecard"), run_dir)
        config = config_hashes(current, run_dir)
    except InputError:
        return []  # reported as a scorecard change
    return [f"configuration value {p} changed" for p in diff(doc["config"], config)]


def _binding_changes(run_dir: Path, results: bytes) -> list[str]:
    """Whether results.jsonl is the file the scorecard on disk names."""
    try:
        card = parse_scorecard(read_bytes(run_dir / CARD, "scorecard"), run_dir)
    except InputError:
        return []  # reported as a scorecard change
    named = card.get("results")
    if isinstance(named, dict) and named.get("sha256") != sha256(results):
        return ["results.jsonl is not the results file the scorecard was computed from"]
    return []


def _markdown_changes(data: bytes, signed: bytes, digest: str | None) -> list[str]:
    """Each changed line of scorecard.md, shown as signed and as it is now (a few)."""
    if sha256(data) == digest:
        return []
    now = data.decode("utf-8", errors="replace").splitlines()
    before = signed.decode("utf-8", errors="replace").splitlines()
    found: list[str] = []
    matcher = difflib.SequenceMatcher(None, before, now, autojunk=False)
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        was = " / ".join(before[a0:a1])[:80] or "(nothing)"
        is_now = " / ".join(now[b0:b1])[:80] or "(removed)"
        found.append(f"scorecard.md line {b0 + 1} changed: {is_now!r} (signed: {was!r})")
        if len(found) >= 5:
            break
    return found or ["scorecard.md changed (line endings or invisible characters)"]
