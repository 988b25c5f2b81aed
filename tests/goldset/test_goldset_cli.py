"""``ragcard questions …``: exit codes 0 fine / 1 blocked or open / 2 bad input."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ragcard._cli.questions import questions_app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HANDBOOK = EXAMPLES / "handbook"

app = typer.Typer()
app.add_typer(questions_app, name="questions")
runner = CliRunner()


def test_check_handbook_exits_0_with_json() -> None:
    result = runner.invoke(
        app,
        [
            "questions",
            "check",
            str(HANDBOOK / "questions.jsonl"),
            "--corpus",
            str(HANDBOOK / "corpus.jsonl"),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ok"] is True and data["total"] == 185
    assert all(f["severity"] != "blocking" for f in data["findings"])


def test_a_project_folder_stands_for_its_question_set_corpus_and_kit(tmp_path: Path) -> None:
    args = ["questions", "check", "--json"]
    by_files = runner.invoke(
        app, [*args, str(HANDBOOK / "questions.jsonl"), "--corpus", str(HANDBOOK / "corpus.jsonl")]
    )
    by_project = runner.invoke(app, [*args, str(HANDBOOK)])
    assert by_project.exit_code == by_files.exit_code == 0, by_project.output
    assert json.loads(by_project.stdout) == json.loads(by_files.stdout)
    assert "gold wording not checked" not in by_project.stdout  # the corpus was read
    persona = runner.invoke(app, ["questions", "check", str(EXAMPLES / "persona")])
    assert "kit persona" in persona.stdout
    agreement = runner.invoke(app, ["questions", "agreement", str(HANDBOOK)])
    assert agreement.exit_code == 0, agreement.output
    (tmp_path / "plain").mkdir()  # a folder with no ragcard.toml is not a project
    result = runner.invoke(app, ["questions", "check", str(tmp_path / "plain")])
    assert result.exit_code == 2 and "is a folder, not a file" in " ".join(result.output.split())


def test_check_persona_exits_1() -> None:
    result = runner.invoke(
        app, ["questions", "check", str(EXAMPLES / "persona" / "questions.jsonl")]
    )
    assert result.exit_code == 1, result.output
    assert "BLOCKED" in result.stdout and "gold wording not checked" in result.stdout


def test_check_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "Q1"}\n')
    result = runner.invoke(app, ["questions", "check", str(bad)])
    assert result.exit_code == 2
    assert "question" in result.output
    result = runner.invoke(
        app, ["questions", "check", str(HANDBOOK / "questions.jsonl"), "--kit", "museum"]
    )
    assert result.exit_code == 2 and "knowledge-base" in result.output


def test_split_out_and_in_place(tmp_path: Path) -> None:
    source = tmp_path / "q.jsonl"
    source.write_text(
        "".join(
            json.dumps({"id": f"Q{i}", "question": "q", "category": "c"}) + "\n" for i in range(40)
        )
    )
    out = tmp_path / "out.jsonl"
    result = runner.invoke(
        app, ["questions", "split", str(source), "--out", str(out), "--share", "0.5", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["categories"][0]["target"] == 0.5 and data["total"] == 40
    assert all("split" in json.loads(line) for line in out.read_text().splitlines())
    assert "split" not in source.read_text()
    result = runner.invoke(app, ["questions", "split", str(source), "--in-place", "--share", "0.5"])
    assert result.exit_code == 0, result.output
    assert source.read_text() == out.read_text()  # the same draw, whoever runs it


def test_split_needs_exactly_one_destination(tmp_path: Path) -> None:
    source = HANDBOOK / "questions.jsonl"
    assert runner.invoke(app, ["questions", "split", str(source)]).exit_code == 2
    both = ["questions", "split", str(source), "--in-place", "--out", str(tmp_path / "x")]
    assert runner.invoke(app, both).exit_code == 2


def test_agreement_exit_codes(tmp_path: Path) -> None:
    labels = [
        {"by": "ann", "answerable": True, "gold": ["p1"]},
        {"by": "bob", "answerable": False, "gold": []},
    ]
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"id": "Q1", "question": "q", "labels": labels}) + "\n")
    result = runner.invoke(app, ["questions", "agreement", str(path)])
    assert result.exit_code == 1 and "Q1" in result.stdout
    resolution: dict[str, object] = {"by": "owner", "answerable": True, "reason": "p1 answers it"}
    resolved = {
        "id": "Q1",
        "question": "q",
        "labels": labels,
        "resolution": resolution,
    }
    path.write_text(json.dumps(resolved) + "\n")
    result = runner.invoke(app, ["questions", "agreement", str(path), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["resolved"][0]["item"] == "Q1"
    del resolution["reason"]
    path.write_text(json.dumps(resolved) + "\n")
    result = runner.invoke(app, ["questions", "agreement", str(path)])
    assert result.exit_code == 2 and "resolution.reason" in result.output


def test_import_writes_skeleton_and_summary(tmp_path: Path) -> None:
    logs = tmp_path / "logs.csv"
    logs.write_text(
        'msg,category\n"I\'m Ana, how much sick pay?",typical\nwhat is HR-17,exact_term\n'
    )
    out, summary = tmp_path / "skeleton.jsonl", tmp_path / "summary.json"
    result = runner.invoke(
        app,
        [
            "questions",
            "import",
            str(logs),
            "--out",
            str(out),
            "--field",
            "msg",
            "--summary",
            str(summary),
        ],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records[0] == {
        "id": "LOG-0001",
        "question": "I'm [NAME], how much sick pay?",
        "source": "logs.csv:2",
        "category": "typical",
    }
    assert json.loads(summary.read_text())["personal_data_removed"] == {"name": 1}
    assert "not detected" in result.stdout


def test_import_bad_input_exits_2(tmp_path: Path) -> None:
    logs = tmp_path / "logs.csv"
    logs.write_text("msg\nhello\n")
    out = tmp_path / "o.jsonl"
    assert runner.invoke(app, ["questions", "import", str(logs), "--out", str(out)]).exit_code == 2
    bad_format = ["questions", "import", str(logs), "--out", str(out), "--format", "xml"]
    assert runner.invoke(app, bad_format).exit_code == 2
    assert (
        runner.invoke(
            app,
            ["questions", "import", str(logs), "--out", str(out), "--column", "msg", "--n", "0"],
        ).exit_code
        == 2
    )
