"""Signing a run binds its scorecard, results, thresholds and configuration to a person."""

from __future__ import annotations

import base64
import datetime as dt
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragcard.errors import ConfigError, InputError, MissingExtraError
from ragcard.outputs import signing
from ragcard.outputs.signing import new_keypair, sign_run, signature_line, verify_run

Keys = tuple[Path, Path]
MakeRun = Callable[..., Path]
NOW = dt.datetime(2026, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
FILES = ["scorecard.json", "results.jsonl", "thresholds"]
POSITIONS = [0.0, 0.01, 0.1, 0.25, 0.33, 0.5, 0.61, 0.75, 0.9, 1.0]


def sign(run: Path, keys: Keys, decision: str = "ship", by: str = "Ada Lovelace") -> None:
    sign_run(run, keys[0], by=by, decision=decision, now=NOW)  # type: ignore[arg-type]


def thresholds_of(run: Path) -> Path:
    card = json.loads((run / "scorecard.json").read_text(encoding="utf-8"))
    return Path(card["config"]["thresholds"]["path"])


def target(run: Path, which: str) -> Path:
    return thresholds_of(run) if which == "thresholds" else run / which


def flip(path: Path, position: int) -> None:
    data = bytearray(path.read_bytes())
    data[position] ^= 0x01
    path.write_bytes(bytes(data))


def edit_json(path: Path, change: Any) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")


def expected_change(run: Path, which: str) -> str:
    return {
        "scorecard.json": "scorecard",
        "results.jsonl": "results.jsonl changed",
        "thresholds": f"thresholds file {thresholds_of(run)} changed",
    }[which]


# --- sign, then verify ------------------------------------------------------------------------


def test_sign_then_verify_ok(run_dir: Path, keys: Keys) -> None:
    result = sign_run(run_dir, keys[0], by="Ada Lovelace", decision="ship", now=NOW)
    assert result.path == run_dir / "signature.json"
    assert set(result.digests) == {
        "scorecard.json",
        "scorecard.md",
        "results.jsonl",
        "thresholds",
        "signer",
        "decision",
    }
    verified = verify_run(run_dir)
    assert verified.ok, verified.changed
    assert verified.changed == []
    assert (verified.signer, verified.decision) == ("Ada Lovelace", "ship")
    assert verified.signed_at == "2026-01-02T03:04:05+00:00"
    assert verified.key_fingerprint == result.key_fingerprint
    assert verified.trusted is None
    assert verify_run(run_dir, trusted_keys=[keys[1]]).trusted is True


def test_signature_file_holds_what_the_brief_lists(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    doc = json.loads((run_dir / "signature.json").read_text(encoding="utf-8"))
    assert doc["schema"] == "ragcard.signature/2" and doc["algorithm"] == "ed25519"
    assert doc["canonicalization"].startswith("RFC 8785")
    assert doc["public_key"].startswith("-----BEGIN PUBLIC KEY-----")
    assert len(doc["key_fingerprint"]) == 64
    assert doc["config"]["corpus"] == "ad" * 32
    assert set(doc["config"]) == {
        "questions",
        "corpus",
        "thresholds",
        "agent",
        "judge",
        "ragcard_version",
    }
    assert doc["signed"] == signing.SIGNED  # every signed field is text or text by name
    assert all(isinstance(doc[name], str | dict) for name in doc["signed"])
    copy = json.loads(doc["copies"]["scorecard.json"])
    assert copy["metrics"]["recall@5"]["value"] == 0.75
    assert copy["signed"] == signature_line(run_dir)  # the stamp is part of what was signed


def test_signature_line(run_dir: Path, keys: Keys) -> None:
    assert signature_line(run_dir) is None
    sign(run_dir, keys)
    line = signature_line(run_dir)
    assert line is not None
    assert line.startswith("signed by Ada Lovelace (ship) at 2026-01-02T03:04:05+00:00, key ")
    assert line.endswith("…")


def test_the_signature_line_is_stamped_before_signing_and_covered(
    run_dir: Path, keys: Keys
) -> None:
    """Signing stamps scorecard.json's signed field and scorecard.md's Signed row, then signs
    the stamped files: editing either afterwards is named."""
    sign(run_dir, keys)
    line = signature_line(run_dir)
    assert json.loads((run_dir / "scorecard.json").read_text())["signed"] == line
    assert f"| Signed | {line} |" in (run_dir / "scorecard.md").read_text()
    assert verify_run(run_dir).ok
    edit_json(run_dir / "scorecard.json", lambda d: d.update(signed="signed by the board"))
    assert verify_run(run_dir).changed == ["scorecard value signed changed"]


def test_editing_the_decision_line_of_scorecard_md_is_named(run_dir: Path, keys: Keys) -> None:
    """The issue's attack: **Decision: HOLD** → SHIP in scorecard.md still verified."""
    path = run_dir / "scorecard.md"
    sign(run_dir, keys)
    path.write_text(path.read_text().replace("**Decision: SHIP**", "**Decision: SHIP** (CEO)"))
    changed = verify_run(run_dir).changed
    assert len(changed) == 1 and changed[0].startswith("scorecard.md line 3 changed: ")
    assert "(CEO)" in changed[0] and "signed: '**Decision: SHIP**'" in changed[0]


def test_another_runs_results_cannot_be_signed_or_slipped_in(
    make_run: MakeRun, keys: Keys
) -> None:
    """The issue's attack: run B's results.jsonl beside run A's scorecard signed and verified
    "valid (trusted)"; the scorecard now names its results."""
    a, b = make_run(name="a"), make_run(name="b")
    with (b / "results.jsonl").open("a") as handle:
        handle.write('{"item": "Q4", "attempt": 1}\n')
    mixed = make_run(name="mixed")
    (mixed / "results.jsonl").write_bytes((b / "results.jsonl").read_bytes())
    with pytest.raises(ConfigError, match="is not the results file"):
        sign(mixed, keys)
    sign(a, keys)
    (a / "results.jsonl").write_bytes((b / "results.jsonl").read_bytes())
    verified = verify_run(a, trusted_keys=[keys[1]])
    assert verified.changed == [
        "results.jsonl changed",
        "results.jsonl is not the results file the scorecard was computed from",
    ]


def test_a_scorecard_that_names_no_results_is_not_signed(run_dir: Path, keys: Keys) -> None:
    edit_json(run_dir / "scorecard.json", lambda d: d.pop("results"))
    with pytest.raises(ConfigError, match="does not name the results"):
        sign(run_dir, keys)


def test_a_folder_left_mid_write_is_neither_signed_nor_verified(
    run_dir: Path, keys: Keys
) -> None:
    from ragcard.outputs._runfolder import MARKER

    (run_dir / MARKER).write_text('{"command": "ragcard run", "fix": "resume it"}')
    with pytest.raises(ConfigError, match="left mid-write"):
        sign(run_dir, keys)
    (run_dir / MARKER).unlink()
    sign(run_dir, keys)
    (run_dir / MARKER).write_text('{"command": "ragcard run", "fix": "resume it"}')
    assert verify_run(run_dir).changed == [
        "the folder was left mid-write by ragcard run: resume it"
    ]


def test_a_person_may_hold_a_passing_run(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys, decision="hold")
    assert verify_run(run_dir).decision == "hold"
    assert verify_run(run_dir).ok


def test_relative_thresholds_path_is_found_beside_the_run(make_run: MakeRun, keys: Keys) -> None:
    run = make_run(relative=True)
    sign(run, keys)
    assert verify_run(run).ok
    (run / "run-thresholds.toml").write_text("# lowered\n", encoding="utf-8")
    assert verify_run(run).changed == [f"thresholds file {run / 'run-thresholds.toml'} changed"]


# --- tampering --------------------------------------------------------------------------------


@pytest.mark.parametrize("fraction", POSITIONS)
@pytest.mark.parametrize("which", FILES)
def test_tampering_with_one_byte_fails_and_names_the_file(
    run_dir: Path, keys: Keys, which: str, fraction: float
) -> None:
    sign(run_dir, keys)
    path, expected = target(run_dir, which), expected_change(run_dir, which)
    size = path.stat().st_size
    flip(path, min(int(size * fraction), size - 1))
    verified = verify_run(run_dir)
    assert not verified.ok
    assert any(expected in change for change in verified.changed), verified.changed


def test_no_single_byte_of_the_signed_manifest_goes_unnoticed(run_dir: Path, keys: Keys) -> None:
    """Every byte flip of the canonical manifest breaks the signature (the files themselves
    are covered byte for byte by their sha256 in it); checked in memory."""
    from cryptography.exceptions import InvalidSignature

    from ragcard.outputs._signing_files import canonical, load_public_key

    sign(run_dir, keys)
    doc = json.loads((run_dir / "signature.json").read_text(encoding="utf-8"))
    message = canonical({name: doc[name] for name in doc["signed"]})
    public = load_public_key(doc["public_key"].encode(), "signature.json")
    signature = base64.b64decode(doc["signature"])
    public.verify(signature, message)
    unnoticed = []
    for position in range(len(message)):
        data = bytearray(message)
        data[position] ^= 0x01
        try:
            public.verify(signature, bytes(data))
        except InvalidSignature:
            continue
        unnoticed.append(position)
    assert unnoticed == []


def test_a_changed_metric_is_named(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)

    def raise_recall(card: dict[str, Any]) -> None:
        card["metrics"]["recall@5"]["value"] = 0.95

    edit_json(run_dir / "scorecard.json", raise_recall)
    assert verify_run(run_dir).changed == ["scorecard value metrics.recall@5.value changed"]


def test_a_changed_configuration_in_the_scorecard_is_named(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    edit_json(run_dir / "scorecard.json", lambda d: d["config"]["agent"].update(model="big-llm"))
    assert verify_run(run_dir).changed == [
        "scorecard value config.agent.model changed",
        "configuration value agent changed",
    ]


def test_an_added_scorecard_field_is_named(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    edit_json(run_dir / "scorecard.json", lambda d: d.update(waiver="approved by nobody"))
    assert verify_run(run_dir).changed == ["scorecard value waiver changed"]


def test_duplicate_keys_in_the_scorecard_fail(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    path = run_dir / "scorecard.json"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"decision": "ship",', '"decision": "hold", "decision": "ship",'))
    changed = verify_run(run_dir).changed
    assert any("scorecard.json changed" in c and "duplicate" in c for c in changed)


def _set_corpus(doc: dict[str, Any]) -> None:
    doc["config"]["corpus"] = "00" * 32


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (_set_corpus, "configuration value corpus changed"),
        (lambda d: d.update(signer="Grace Hopper"), "signer changed"),
        (lambda d: d.update(decision="hold"), "decision changed"),
        (lambda d: d.update(signed_at="2020-01-01T00:00:00+00:00"), "signature.json changed"),
        (lambda d: d["digests"].update({"results.jsonl": "0" * 64}), "results.jsonl changed"),
        (lambda d: d.update(key_fingerprint="ab" * 32), "public key changed"),
        (lambda d: d["copies"].update({"scorecard.json": "{}"}), "scorecard copy in signature"),
    ],
    ids=["config", "signer", "decision", "time", "digest", "fingerprint", "scorecard-copy"],
)
def test_editing_signature_json_fails(run_dir: Path, keys: Keys, edit: Any, expected: str) -> None:
    sign(run_dir, keys)
    edit_json(run_dir / "signature.json", edit)
    verified = verify_run(run_dir)
    assert not verified.ok
    assert any(expected in change for change in verified.changed), verified.changed
    if "copy" not in expected:  # the copies are authenticated by their signed digests
        assert "signature.json changed: the signature does not match its contents" in (
            verified.changed
        )


def test_a_resigned_run_fails_against_trusted_keys(
    run_dir: Path, keys: Keys, other_keys: Keys
) -> None:
    """Someone edits the run and signs it again with their own key."""
    sign(run_dir, keys)
    edit_json(run_dir / "scorecard.json", lambda d: d["metrics"]["mrr@10"].update(value=0.99))
    (run_dir / "signature.json").unlink()
    sign(run_dir, other_keys, by="Ada Lovelace")
    assert verify_run(run_dir).ok  # valid, but by whom?
    verified = verify_run(run_dir, trusted_keys=[keys[1]])
    assert not verified.ok
    assert verified.trusted is False
    fingerprint = verified.key_fingerprint[:12]
    assert verified.changed == [f"key {fingerprint}… is not one of the trusted keys"]
    assert verify_run(run_dir, trusted_keys=[keys[1], other_keys[1]]).ok


def test_a_public_key_swapped_into_signature_json_fails(
    run_dir: Path, keys: Keys, other_keys: Keys
) -> None:
    sign(run_dir, keys)
    other = other_keys[1].read_text(encoding="utf-8").split("\n", 1)[1]
    edit_json(run_dir / "signature.json", lambda d: d.update(public_key=other))
    changed = verify_run(run_dir).changed
    assert "public key changed (it does not match the signed key fingerprint)" in changed


# --- refusals ---------------------------------------------------------------------------------


def test_refuses_to_sign_ship_on_a_hold_scorecard(make_run: MakeRun, keys: Keys) -> None:
    run = make_run(decision="hold")
    with pytest.raises(ConfigError, match="refusing to sign 'ship'.*decided 'hold'.*access_leaks"):
        sign(run, keys, decision="ship")
    assert not (run / "signature.json").exists()
    sign(run, keys, decision="hold")
    assert verify_run(run).ok


def test_refuses_an_unknown_decision(run_dir: Path, keys: Keys) -> None:
    with pytest.raises(ConfigError, match="'ship' or 'hold'"):
        sign(run_dir, keys, decision="maybe")


def test_refuses_to_sign_twice(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    with pytest.raises(ConfigError, match="signed already"):
        sign(run_dir, keys, decision="hold")


def test_refuses_when_the_thresholds_file_is_missing(run_dir: Path, keys: Keys) -> None:
    thresholds_of(run_dir).unlink()
    with pytest.raises(ConfigError, match="thresholds file"):
        sign(run_dir, keys)


def test_refuses_when_the_thresholds_changed_since_the_run(run_dir: Path, keys: Keys) -> None:
    path = thresholds_of(run_dir)
    path.write_text(path.read_text().replace("value = 0.7", "value = 0.5"))
    with pytest.raises(ConfigError, match="changed since the run was scored"):
        sign(run_dir, keys)


@pytest.mark.parametrize("name", ["", "   ", "Ada\nsigned by Grace", "x" * 201])
def test_refuses_a_signer_name_that_is_not_one_line(run_dir: Path, keys: Keys, name: str) -> None:
    with pytest.raises(ConfigError, match="signer name"):
        sign(run_dir, keys, by=name)


def test_a_scorecard_without_config_is_bad_input(run_dir: Path, keys: Keys) -> None:
    edit_json(run_dir / "scorecard.json", lambda d: d.pop("config"))
    with pytest.raises(InputError, match="config"):
        sign(run_dir, keys)


def test_verify_without_signature_is_bad_input(run_dir: Path) -> None:
    with pytest.raises(ConfigError, match="signature.json"):
        verify_run(run_dir)


def test_verify_with_missing_results_is_bad_input(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    (run_dir / "results.jsonl").unlink()
    with pytest.raises(ConfigError, match="results.jsonl"):
        verify_run(run_dir)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d.pop("digests"), "digests missing or mistyped"),
        (lambda d: d.update(signer=["Ada"]), "signer missing or mistyped"),
        (lambda d: d.update(schema="ragcard.signature/9"), "unknown schema"),
        (lambda d: d.update(public_key="not a key"), "not a PEM public key"),
        (lambda d: d.update(signature="***"), "the signature does not match"),
        (lambda d: d["digests"].update(signer=float("nan")), "signer changed"),
    ],
    ids=["missing", "mistyped", "schema", "key", "signature", "nan"],
)
def test_a_tampered_signature_file_is_invalid_not_bad_input(
    run_dir: Path, keys: Keys, edit: Any, expected: str
) -> None:
    """25 of 40 tampered signature.json files used to exit 2 (bad input): a tampered signature
    is a failed verification, exit 1, naming what is wrong."""
    sign(run_dir, keys)
    edit_json(run_dir / "signature.json", edit)
    verified = verify_run(run_dir)
    assert not verified.ok and any(expected in c for c in verified.changed), verified.changed


@pytest.mark.parametrize("text", ["", "{", "[]", '"signed"', "\x00\xff"])
def test_a_signature_file_that_is_not_json_is_invalid(run_dir: Path, keys: Keys, text: str) -> None:
    sign(run_dir, keys)
    (run_dir / "signature.json").write_text(text, encoding="latin-1")
    verified = verify_run(run_dir)
    assert not verified.ok and verified.changed[0].startswith("signature.json changed: not")


def test_without_cryptography_the_extra_is_named(
    run_dir: Path, keys: Keys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(signing, "_CRYPTO", False)
    with pytest.raises(MissingExtraError, match=r"ragcard\[sign\]"):
        sign(run_dir, keys)


# --- keys -------------------------------------------------------------------------------------


def test_new_keypair_writes_a_0600_private_key(tmp_path: Path) -> None:
    old = os.umask(0)  # even a permissive umask must not widen the private key's mode
    try:
        public = new_keypair(tmp_path / "k" / "ada.pem", owner="Ada Lovelace")
    finally:
        os.umask(old)
    private = tmp_path / "k" / "ada.pem"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert public == tmp_path / "k" / "ada.pem.pub"
    assert private.read_text().startswith("-----BEGIN PRIVATE KEY-----")
    text = public.read_text()
    assert text.startswith("# ragcard signing key of Ada Lovelace; fingerprint ")
    assert "-----BEGIN PUBLIC KEY-----" in text


def test_new_keypair_refuses_to_overwrite(tmp_path: Path) -> None:
    private = tmp_path / "ada.pem"
    new_keypair(private, owner="Ada")
    before = private.read_bytes()
    with pytest.raises(ConfigError, match="refusing to overwrite"):
        new_keypair(private, owner="Ada")
    assert private.read_bytes() == before


def test_new_keypair_leaves_no_private_key_when_the_public_exists(tmp_path: Path) -> None:
    (tmp_path / "ada.pem.pub").write_text("someone else's key\n")
    with pytest.raises(ConfigError, match="refusing to overwrite"):
        new_keypair(tmp_path / "ada.pem", owner="Ada")
    assert not (tmp_path / "ada.pem").exists()


def test_passphrase_encrypts_the_key(
    tmp_path: Path, make_run: MakeRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAGCARD_KEY_PASSPHRASE", "correct horse")
    private = tmp_path / "enc.pem"
    public = new_keypair(private, owner="Ada")
    assert "ENCRYPTED PRIVATE KEY" in private.read_text()
    run = make_run()
    monkeypatch.setenv("RAGCARD_KEY_PASSPHRASE", "wrong")
    with pytest.raises(ConfigError, match="cannot read the private key"):
        sign(run, (private, public))
    monkeypatch.delenv("RAGCARD_KEY_PASSPHRASE")
    with pytest.raises(ConfigError, match="RAGCARD_KEY_PASSPHRASE"):
        sign(run, (private, public))
    monkeypatch.setenv("RAGCARD_KEY_PASSPHRASE", "correct horse")
    sign(run, (private, public))
    assert verify_run(run, trusted_keys=[public]).ok


def test_a_public_key_is_not_a_signing_key(run_dir: Path, keys: Keys) -> None:
    with pytest.raises(ConfigError, match="cannot read the private key"):
        sign(run_dir, (keys[1], keys[1]))


def test_a_private_key_is_not_a_trusted_key(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    with pytest.raises(ConfigError, match="not a PEM public key"):
        verify_run(run_dir, trusted_keys=[keys[0]])


def test_a_missing_key_file_says_how_to_make_one(run_dir: Path, keys: Keys, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the private key file .*ragcard keys new"):
        sign(run_dir, (tmp_path / "missing.pem", keys[1]))
