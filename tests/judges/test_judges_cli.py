"""``ragcard judges evaluate``: figures to stdout, calibration to a file, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from ragcard._cli._common import parse_options
from ragcard._cli.judges import judges_app, parse_threshold
from ragcard.errors import ConfigError

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
FIXTURE = Path(__file__).parent / "fixtures" / "lexical_claims.jsonl"
runner = CliRunner()

# As the lead registers it: `ragcard judges …`.
app = typer.Typer()
app.add_typer(judges_app, name="judges")


def invoke(*args: str) -> Result:
    return runner.invoke(app, ["judges", "evaluate", *args])


def test_evaluates_own_labels_and_saves_a_calibration(tmp_path: Path) -> None:
    saved = tmp_path / "calibration.json"
    result = invoke("--judge", "lexical", "--dataset", str(FIXTURE), "--threshold", "judge",
                    "--save", str(saved))  # fmt: skip
    assert result.exit_code == 0, result.output
    output = result.stdout
    assert "judge: lexical" in output and "n = 22 reported" in output
    assert "balanced accuracy" in output and "AUROC" in output and "Cohen's kappa" in output
    assert "by support position:" in output
    record = json.loads(saved.read_text())
    assert record["datasets"][0]["n"] == 22 and record["judge"]["threshold"] == 0.74
    assert "calibration written to" in result.stderr
    assert "κ" in result.stderr


def test_fake_judge_with_options() -> None:
    options = ["--option", "marker=telecommute", "--option", "default=supported"]
    result = invoke("--judge", "fake", *options, "--dataset", str(FIXTURE), "--threshold", "judge")
    assert result.exit_code == 0, result.output
    assert "judge: fake" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--judge", "gpt"], "unknown backend 'gpt'; choose one of: auto, lexical"),
        (["--judge", "lexical", "--option", "treshold=0.5"], "unknown option 'treshold'"),
        (["--judge", "lexical", "--option", "oops"], "--option 'oops': expected KEY=VALUE"),
        (["--judge", "lexical", "--dataset", "nope"], "unknown dataset 'nope'"),
        (["--judge", "lexical", "--threshold", "high"], "--threshold must be"),
        (["--judge", "lexical", "--dataset", "begin", "--data-dir", "/nonexistent"],
         "BEGIN file not found"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_without_a_traceback(args: list[str], message: str) -> None:
    result = invoke(*args, *([] if "--dataset" in args else ["--dataset", str(FIXTURE)]))
    assert result.exit_code == 2, result.output
    assert message in result.stderr.replace("\n", " ")
    assert "Traceback" not in result.output


def test_option_values_are_read_as_toml() -> None:
    assert parse_options(["threshold=0.5", "check_numbers=false", "model=gpt", 'm="x y"']) == {
        "threshold": 0.5, "check_numbers": False, "model": "gpt", "m": "x y",
    }  # fmt: skip
    assert parse_threshold("tune") == "tune" and parse_threshold("0.3") == 0.3
    with pytest.raises(ConfigError):
        parse_threshold("1.5")


@pytest.mark.skipif(
    not (DATA / "wice" / "oracle_chunks_claim_test.jsonl").is_file(),
    reason=f"WiCE/BEGIN not found under {DATA} (shared data is read at run time)",
)
def test_builtin_datasets_with_references_and_limit() -> None:
    result = invoke("--judge", "lexical", "--dataset", "wice-100", "--dataset", "begin",
                    "--data-dir", str(DATA), "--limit", "30", "--no-breakdowns")  # fmt: skip
    assert result.exit_code == 0, result.output
    output = result.stdout
    assert "GPT-4 (authors' outputs)" in output and "AUROC 0.802" in output
    assert "tuned on the dev part (30 examples" in output
    assert "all datasets pooled  [overall]" in output
    assert "limited to the first 30 examples of each part" in output


def test_a_judge_that_scores_nothing_exits_1_saving_nothing(tmp_path: Path) -> None:
    saved = tmp_path / "calibration.json"
    result = invoke("--judge", "llm", "--option", "base_url=http://127.0.0.1:9/v1",
                    "--option", "model=x", "--option", "max_retries=0", "--option", "cache=false",
                    "--dataset", str(FIXTURE), "--threshold", "judge", "--save", str(saved))
    assert result.exit_code == 1, result.output  # (port 9 on loopback: refused at once)
    assert "judge failures: 22" in result.stdout and "× llm judge (127.0.0.1:9" in result.stdout
    assert "scored no example" in result.stderr and not saved.exists()


def test_an_empty_reported_part_is_not_a_judge_failure(tmp_path: Path) -> None:
    labels = tmp_path / "dev-only.jsonl"
    lines = [
        {"claim": "A.", "evidence": "A.", "label": "supported", "split": "dev"},
        {"claim": "B.", "evidence": "A.", "label": "not_supported", "split": "dev"},
    ]
    labels.write_text("".join(json.dumps(line) + "\n" for line in lines))
    result = invoke("--judge", "lexical", "--dataset", str(labels))
    assert result.exit_code == 0, result.output
    assert "n = 0 reported   judge failures: 0" in result.stdout
