"""Signing a run binds its scorecard, results, thresholds and configuration to a person."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ragcard import signing
from ragcard.errors import ConfigError, InputError, MissingExtraError
from ragcard.signing import new_keypair, sign_run, signature_line, verify_run

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
        "scorecard",
        "results",
        "thresholds",
        "config",
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
    assert "signed" not in doc["scorecard"]
    assert doc["scorecard"]["metrics"]["recall@5"]["value"] == 0.75


def test_signature_line(run_dir: Path, keys: Keys) -> None:
    assert signature_line(run_dir) is None
    sign(run_dir, keys)
    line = signature_line(run_dir)
    assert line is not None
    assert line.startswith("signed by Ada Lovelace (ship) at 2026-01-02T03:04:05+00:00, key ")
    assert line.endswith("…")


def test_header_may_show_the_signature_after_signing(run_dir: Path, keys: Keys) -> None:
    """The ``signed`` field and the JSON layout are not part of what is signed."""
    sign(run_dir, keys)
    edit_json(run_dir / "scorecard.json", lambda d: d.update(signed=signature_line(run_dir)))
    assert verify_run(run_dir).ok


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


def test_no_single_byte_of_the_scorecard_leaves_its_canonical_form_intact(run_dir: Path) -> None:
    """Every byte flip either breaks the JSON or changes a signed value (the files' other
    bytes are covered by sha256); checked in memory, as writing 3,000 files is slow."""
    original = (run_dir / "scorecard.json").read_bytes()
    signed = signing._canonical(signing._parse_scorecard(original, run_dir))
    unnoticed = []
    for position in range(len(original)):
        data = bytearray(original)
        data[position] ^= 0x01
        try:
            parsed = signing._parse_scorecard(bytes(data), run_dir)
        except InputError:
            continue
        if signing._canonical(parsed) == signed:
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
        (lambda d: d["digests"].update(results="0" * 64), "results.jsonl changed"),
        (lambda d: d.update(key_fingerprint="ab" * 32), "public key changed"),
        (lambda d: d["scorecard"].update(decision="hold"), "scorecard copy in signature.json"),
    ],
    ids=["config", "signer", "decision", "time", "digest", "fingerprint", "scorecard-copy"],
)
def test_editing_signature_json_fails(run_dir: Path, keys: Keys, edit: Any, expected: str) -> None:
    sign(run_dir, keys)
    edit_json(run_dir / "signature.json", edit)
    verified = verify_run(run_dir)
    assert not verified.ok
    assert any(expected in change for change in verified.changed), verified.changed
    assert "signature.json changed: the signature does not match its contents" in (verified.changed)


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


def test_truncated_signature_json_is_bad_input(run_dir: Path, keys: Keys) -> None:
    sign(run_dir, keys)
    edit_json(run_dir / "signature.json", lambda d: d.pop("digests"))
    with pytest.raises(InputError, match="digests"):
        verify_run(run_dir)


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
