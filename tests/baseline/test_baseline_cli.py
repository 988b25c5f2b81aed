"""``ragcard compare``: the table, the markdown file and the exit codes 0 / 1 / 2."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ragcard._cli.compare import compare_command, parse_tolerances
from ragcard.errors import ConfigError

Line = Callable[..., dict[str, Any]]
MakeRun = Callable[..., Path]

app = typer.Typer()
app.command()(compare_command)  # the lead registers it as `ragcard compare`
runner = CliRunner()


@pytest.fixture
def runs(make_run: MakeRun, line: Line) -> tuple[Path, Path, Path]:
    good = [line(f"Q{i}", True, recall_at_5=1.0) for i in range(30)]
    good.append(line("MP", True, must_pass=True, category="access_probe", access_leaks=0.0))
    bad = [line(f"Q{i}", True, recall_at_5=1.0) for i in range(30)]
    bad.append(line("MP", False, must_pass=True, category="access_probe", access_leaks=1.0,
                    symptoms=["restricted passage retrieved"]))  # fmt: skip
    return make_run("good", good), make_run("again", good), make_run("bad", bad)


def test_a_passing_gate_exits_0(runs: tuple[Path, Path, Path]) -> None:
    result = runner.invoke(app, [str(runs[0]), str(runs[1])])
    assert result.exit_code == 0, result.output
    assert "Gate: PASS" in result.output and "recall@5" in result.output


def test_a_failing_gate_exits_1_and_writes_markdown(
    runs: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    summary = tmp_path / "pr" / "gate.md"
    args = [str(runs[0]), str(runs[2]), "--tolerance", "recall@5=0.02", "--markdown", str(summary)]
    result = runner.invoke(app, args)
    assert result.exit_code == 1, result.output
    assert "Gate: FAIL" in result.output and "MP" in result.output
    assert "restricted passage retrieved" in result.output
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## ragcard regression gate: ❌ fail")
    assert "| `MP` | access_probe | **yes** | pass→fail | restricted passage retrieved |" in text


def test_tolerance_lets_a_count_through_but_not_the_must_pass_item(
    runs: tuple[Path, Path, Path],
) -> None:
    result = runner.invoke(app, [str(runs[0]), str(runs[2]), "--tolerance", "access_leaks=1"])
    assert result.exit_code == 1  # the must-pass item still regressed
    assert "access_leaks regressed" not in result.output


@pytest.mark.parametrize(
    ("extra", "expected"),
    [(["--tolerance", "recall@5"], "MEASURE=VALUE"), (["--tolerance", "recall@5=-1"], ">= 0"),
     (["--tolerance", "recal@5=0.1"], "unknown measure")],
)  # fmt: skip
def test_bad_input_exits_2_without_a_traceback(
    runs: tuple[Path, Path, Path], extra: list[str], expected: str
) -> None:
    result = runner.invoke(app, [str(runs[0]), str(runs[1]), *extra])
    assert result.exit_code == 2, result.output
    assert expected in result.output and "Traceback" not in result.output


def test_a_missing_run_exits_2(runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    result = runner.invoke(app, [str(runs[0]), str(tmp_path / "nowhere")])
    assert result.exit_code == 2
    assert f"{tmp_path}/nowhere/scorecard.json: file not found" in result.output


def test_parse_tolerances() -> None:
    assert parse_tolerances(["recall@5=0.02", "0.01", "access_leaks = 1"]) == (
        {"recall@5": 0.02, "access_leaks": 1.0},
        0.01,
    )
    with pytest.raises(ConfigError):
        parse_tolerances(["=0.1"])
    with pytest.raises(ConfigError):
        parse_tolerances(["recall@5=nan"])


def test_bracketed_ids_and_symptoms_print_verbatim(make_run: MakeRun, line: Line) -> None:
    # rich would read "[/x]" as a closing tag (and crash) and "[probe]" as a style (and drop it)
    base = [line(f"Q{i}", True, recall_at_5=1.0) for i in range(30)]
    good = [*base, line("MP[1]", True, must_pass=True, category="[probe]", access_leaks=0.0)]
    bad = [*base, line("MP[1]", False, must_pass=True, category="[probe]", access_leaks=1.0,
                       symptoms=["leaked [/x] text"])]  # fmt: skip
    args = [str(make_run("good", good)), str(make_run("bad", bad))]
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code == 1, result.output
    assert "MP[1]" in result.output and "[probe]" in result.output
    assert "leaked [/x] text" in result.output
