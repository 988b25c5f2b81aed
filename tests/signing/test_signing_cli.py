"""``keys new``, ``sign`` and ``verify`` on a small app: exit 0 valid, 1 invalid, 2 bad usage."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragcard._cli.signing import keys_new_command, sign_command, verify_command

runner = CliRunner()


def build_app() -> typer.Typer:
    """Registered the way the lead wires them into ``ragcard``."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    keys = typer.Typer(add_completion=False)
    keys.command("new")(keys_new_command)
    app.add_typer(keys, name="keys")
    app.command("sign")(sign_command)
    app.command("verify")(verify_command)
    return app


app = build_app()


def invoke(*args: str | Path, ci: str = "") -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args], env={"CI": ci})
    return result.exit_code, result.output


def flat(output: str) -> str:
    """The output with runs of whitespace as one space: a message is compared by its words,
    never by where a line happens to end."""
    return " ".join(output.split())


@pytest.fixture
def key(tmp_path: Path) -> Path:
    path = tmp_path / "keys" / "ada.pem"
    code, output = invoke("keys", "new", path, "--owner", "Ada Lovelace")
    assert code == 0, output
    return path


def sign(run: Path, key: Path, decision: str = "ship") -> tuple[int, str]:
    return invoke("sign", run, "--key", key, "--by", "Ada Lovelace", "--decision", decision)


def test_keys_new(key: Path) -> None:
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert Path(f"{key}.pub").is_file()


def test_keys_new_refuses_to_overwrite_with_exit_2(key: Path) -> None:
    code, output = invoke("keys", "new", key, "--owner", "Ada Lovelace")
    assert code == 2
    assert "refusing to overwrite" in flat(output)


def test_sign_and_verify_exit_0(run_dir: Path, key: Path) -> None:
    code, output = sign(run_dir, key)
    assert code == 0, output
    assert "signed by Ada Lovelace (ship) at" in output
    code, output = invoke("verify", run_dir, "--trusted", f"{key}.pub")
    assert code == 0, output
    assert output.startswith("valid: signed by Ada Lovelace (ship)")
    assert "(trusted)" in output


def test_verify_tampered_exits_1_naming_each_change(run_dir: Path, key: Path) -> None:
    sign(run_dir, key)
    with (run_dir / "results.jsonl").open("a", encoding="utf-8") as handle:
        handle.write('{"item": "Q9"}\n')
    card = run_dir / "scorecard.json"
    card.write_text(card.read_text().replace('"value": 0.75', '"value": 0.95', 1))
    code, output = invoke("verify", run_dir)
    assert code == 1, output
    assert "INVALID" in output
    assert "  - results.jsonl changed" in output
    assert "  - scorecard value metrics.recall@5.value changed" in output


def test_verify_untrusted_key_exits_1(run_dir: Path, key: Path, tmp_path: Path) -> None:
    sign(run_dir, key)
    other = tmp_path / "other.pem"
    invoke("keys", "new", other, "--owner", "Mallory")
    code, output = invoke("verify", run_dir, "--trusted", f"{other}.pub")
    assert code == 1
    assert "is not one of the trusted keys" in output


def test_sign_ship_on_hold_exits_2(make_run: Callable[..., Path], key: Path) -> None:
    run = make_run(decision="hold")
    code, output = sign(run, key)
    assert code == 2
    assert "refusing to sign 'ship'" in flat(output)
    assert sign(run, key, decision="hold")[0] == 0


@pytest.mark.parametrize(
    "args",
    [
        ["--decision", "maybe"],
        ["--key", "missing.pem"],
    ],
    ids=["bad-decision", "missing-key"],
)
def test_sign_bad_usage_exits_2(run_dir: Path, key: Path, args: list[str]) -> None:
    options = {"--key": str(key), "--by": "Ada", "--decision": "ship"}
    options.update(dict(zip(args[::2], args[1::2], strict=True)))
    code, output = invoke("sign", run_dir, *[x for pair in options.items() for x in pair])
    assert code == 2, output
    assert "error" in output.lower()


def test_verify_unsigned_run_exits_2(run_dir: Path) -> None:
    code, output = invoke("verify", run_dir)
    assert code == 2
    assert "signature.json: no such file; is the run signed?" in flat(output)


def test_verify_missing_results_exits_2(run_dir: Path, key: Path) -> None:
    sign(run_dir, key)
    (run_dir / "results.jsonl").unlink()
    code, output = invoke("verify", run_dir)
    assert code == 2
    assert "results.jsonl" in flat(output)


def test_missing_option_exits_2(run_dir: Path) -> None:
    assert invoke("sign", run_dir, "--by", "Ada")[0] == 2


def test_verify_without_trusted_keys_says_it_proved_integrity_not_identity(
    run_dir: Path, key: Path
) -> None:
    sign(run_dir, key)
    code, output = invoke("verify", run_dir)
    assert code == 0 and output.startswith("valid: signed by Ada Lovelace (ship)")
    assert "integrity only" in flat(output) and "nothing says whose key it is" in flat(output)
    code, output = invoke("verify", run_dir, "--require-trusted")
    assert code == 1 and output.startswith("NOT TRUSTED: signed by Ada Lovelace")
    assert invoke("verify", run_dir, ci="true")[0] == 1  # the default in CI
    assert invoke("verify", run_dir, "--no-require-trusted", ci="true")[0] == 0
    code, output = invoke("verify", run_dir, "--trusted", f"{key}.pub", "--require-trusted",
                          ci="true")
    assert code == 0 and "integrity and identity" in flat(output)


def test_a_resignature_by_a_key_claiming_the_name_fails_under_project_trusted_keys(
    run_dir: Path, key: Path, tmp_path: Path
) -> None:
    """The issue's attack: without --trusted, verify accepted a re-signature by any key that
    claims to be "Ada"; the project now names the keys it trusts."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "keys").mkdir()
    (project / "keys" / "ada.pub").write_bytes(Path(f"{key}.pub").read_bytes())
    (project / "ragcard.toml").write_text('[signing]\ntrusted_keys = ["keys/ada.pub"]\n')
    mallory = tmp_path / "mallory.pem"
    invoke("keys", "new", mallory, "--owner", "Mallory")
    assert sign(run_dir, mallory)[0] == 0  # signs as "Ada Lovelace"
    code, output = invoke("verify", run_dir, "--project", project)
    assert code == 1 and "is not one of the trusted keys" in output
    (run_dir / "signature.json").unlink()  # the next sign stamps its own line
    assert sign(run_dir, key)[0] == 0
    code, output = invoke("verify", run_dir, "--project", project)
    assert code == 0 and "(trusted)" in output


def test_a_project_without_trusted_keys_is_bad_usage(run_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "ragcard.toml").write_text("[project]\nname = 'x'\n")
    code, output = invoke("verify", run_dir, "--project", tmp_path)
    assert code == 2 and "no trusted keys" in flat(output)


def test_a_tampered_signature_file_exits_1(run_dir: Path, key: Path) -> None:
    sign(run_dir, key)
    signature = run_dir / "signature.json"
    signature.write_text(signature.read_text().replace('"ed25519"', '"rsa"', 1))
    code, output = invoke("verify", run_dir)
    assert code == 1 and "the signature does not match its contents" in output
    signature.write_text("{not json")
    code, output = invoke("verify", run_dir)
    assert code == 1 and "signature.json changed: not valid JSON" in flat(output)


def test_a_format_1_signature_still_verifies_with_a_note(tmp_path: Path) -> None:
    import shutil

    fixtures = Path(__file__).parent / "fixtures"
    run = tmp_path / "v1-run"
    shutil.copytree(fixtures / "v1-run", run)
    code, output = invoke("verify", run, "--trusted", fixtures / "v1-ada.pub")
    assert code == 0 and "(trusted)" in output
    assert "note: signature format 1" in flat(output) and "not scorecard.md" in flat(output)
    card = run / "scorecard.json"
    card.write_text(card.read_text().replace('"value": 0.75', '"value": 0.95', 1))
    code, output = invoke("verify", run)
    assert code == 1 and "scorecard value metrics.recall@5.value changed" in output
