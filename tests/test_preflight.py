"""``ragcard run`` checks everything before it calls the agent: every problem of every input
file (configuration, questions, corpus, thresholds, a replay recording, paths) in one round,
exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.errors import InputError
from ragcard.pipeline.preflight import check_project, folder_problem, history_problem

runner = CliRunner()

AGENT = '''
from pathlib import Path


def answer(request):
    Path(__file__).with_name("called").touch()
    return {"answer": "You get 25 days of annual leave.", "retrieved": ["leave@2025#1"]}
'''


@pytest.fixture
def project(mini: Path, tmp_path: Path) -> Path:
    """The mini fixture as a project whose callable agent leaves a mark when called."""
    folder = tmp_path / "project"
    folder.mkdir()
    for name in ("questions.jsonl", "corpus.jsonl", "thresholds.toml", "responses.jsonl"):
        shutil.copy(mini / name, folder / name)
    (folder / "agent.py").write_text(AGENT)
    (folder / "ragcard.toml").write_text(
        '[project]\nname = "mini"\n\n[agent]\ntype = "callable"\nfunction = "agent:answer"\n\n'
        '[run]\nattempts = 1\nrun_date = 2026-01-01\n'
    )
    return folder


def run(project: Path, *extra: str) -> tuple[int, str]:
    args = ["run", str(project), "--out", str(project / "out"), "--no-progress", "--eval-dir",
            str(project / "eval"), *extra]  # fmt: skip
    result = runner.invoke(app, args, env={"COLUMNS": "400"})
    return result.exit_code, " ".join(result.output.split())


def not_started(project: Path) -> bool:
    return not (project / "called").exists() and not (project / "out").exists()


def test_the_project_runs_when_nothing_is_wrong(project: Path) -> None:
    code, output = run(project)
    assert code in (0, 1), output
    assert (project / "called").exists()


def test_every_problem_of_every_file_in_one_round(project: Path) -> None:
    toml = (project / "ragcard.toml").read_text().replace("attempts = 1", "attemps = 1")
    (project / "ragcard.toml").write_text(toml)
    questions = (project / "questions.jsonl").read_text().splitlines()
    questions[1] = questions[1].replace('"split": "heldout"', '"must_pass": "yes"')
    (project / "questions.jsonl").write_text("\n".join(questions) + "\n")
    corpus = (project / "corpus.jsonl").read_text().splitlines()
    corpus[0] = corpus[0].replace('"2025-01-01"', "20250101")
    (project / "corpus.jsonl").write_text("\n".join(corpus) + "\n")
    thresholds = (project / "thresholds.toml").read_text().replace("value = 0.7", "value = inf")
    (project / "thresholds.toml").write_text(thresholds)
    code, output = run(project)
    assert code == 2, output
    for expected in ("ragcard.toml:9 field '[run] attemps': unknown key 'attemps' in [run] — "
                     "did you mean 'attempts'?",
                     "questions.jsonl:2 field 'must_pass': Input should be a valid boolean "
                     "(got 'yes') — write true or false, without quotes",
                     "corpus.jsonl:1 field 'effective_from'",
                     "thresholds.toml:11 field '[[threshold]] #2 value': inf is not a finite"):
        assert expected in output  # fmt: skip
    assert not_started(project)


@pytest.mark.parametrize(
    ("setting", "expected"),
    [
        ('eval_dir = "/dev/null"', "ragcard.toml:9 field '[run] eval_dir': /dev/null is a "
                                   "character device, not a folder"),
        ('out = "/dev/null/x"', "cannot be created: /dev/null is not a folder"),
        ("attempts = 1000000000", "Input should be less than or equal to 100"),
        ('attempts = "2"', "field '[run] attempts': Input should be a valid integer (got '2')"),
        ("timeout_s = nan", "field '[run] timeout_s': nan is not a finite number"),
    ],
)  # fmt: skip
def test_run_settings_and_paths_are_checked_before_the_agent_is_called(
    project: Path, setting: str, expected: str
) -> None:
    toml = (project / "ragcard.toml").read_text().replace("attempts = 1", setting)
    (project / "ragcard.toml").write_text(toml)
    args = [] if "out" in setting or "eval_dir" in setting else []
    result = runner.invoke(app, ["run", str(project), "--no-progress", *args],
                           env={"COLUMNS": "400"})  # fmt: skip
    output = " ".join(result.output.split())
    assert result.exit_code == 2, output
    assert expected in output
    assert not (project / "called").exists()


def test_attempts_from_the_command_line_are_bounded(project: Path) -> None:
    code, output = run(project, "--attempts", "1000000000")
    assert code == 2 and "--attempts: Input should be less than or equal to 100" in output
    assert not_started(project)


@pytest.mark.parametrize("url", ["::::", "not-a-url", "mysql://u@h/db",
                                 "sqlite:///{tmp}/no/such/dir/h.sqlite",
                                 "sqlite:///{tmp}/project/questions.jsonl"])  # fmt: skip
def test_a_history_that_cannot_be_a_database_is_refused_before_the_run(
    project: Path, url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAGCARD_HISTORY_URL")
    monkeypatch.chdir(project)
    url = url.format(tmp=project.parent)
    toml = (project / "ragcard.toml").read_text() + f'\n[history]\nurl = "{url}"\n'
    (project / "ragcard.toml").write_text(toml)
    code, output = run(project)
    assert code == 2, output
    assert "ragcard.toml:13 field '[history] url'" in output and "sqlite:///" in output
    assert not_started(project) and not (project / "::::").exists()


def test_a_history_from_the_environment_is_named(project: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGCARD_HISTORY_URL", "::::")
    code, output = run(project)
    assert code == 2 and "$RAGCARD_HISTORY_URL" in output


def test_declared_inputs_must_be_regular_files(project: Path) -> None:
    (project / "prompt.txt").symlink_to("/dev/zero")
    toml = (project / "ragcard.toml").read_text().replace(
        'name = "mini"', 'name = "mini"\ninputs = ["prompt.txt", "missing.txt"]')
    (project / "ragcard.toml").write_text(toml)
    start = time.monotonic()
    code, output = run(project)
    assert time.monotonic() - start < 30
    assert code == 2, output
    assert "ragcard.toml:3 field '[project] inputs[0]': declared input" in output
    assert "is a character device, not a regular file" in output
    assert "missing.txt does not exist" in output
    assert not_started(project)


def test_a_built_in_agent_table_is_checked_strictly_with_lines(project: Path) -> None:
    toml = (project / "ragcard.toml").read_text().replace(
        'function = "agent:answer"', 'function = "agent:answer"\nthreads = "4"\nsend_atempt = 1')
    (project / "ragcard.toml").write_text(toml)
    code, output = run(project)
    assert code == 2, output
    assert "ragcard.toml:7 field '[agent] threads': Input should be a valid integer" in output
    assert "ragcard.toml:8 field '[agent] send_atempt': unknown key" in output
    assert "did you mean 'send_attempt'?" in output


def replay(project: Path, recording: str = "responses.jsonl") -> None:
    (project / "ragcard.toml").write_text(
        f'[project]\nname = "mini"\n\n[agent]\ntype = "replay"\npath = "{recording}"\n\n'
        "[run]\nattempts = 2\nrun_date = 2026-01-01\n"
    )


def test_replay_refuses_items_the_question_set_does_not_hold(project: Path) -> None:
    replay(project)
    with (project / "responses.jsonl").open("a") as handle:
        handle.write('{"item": "Q99", "attempt": 1, "answer": "x"}\n')
    code, output = run(project)
    assert code == 2, output
    assert ("responses.jsonl:8 field 'item': response for an item not in the question set "
            "(got 'Q99')") in output  # fmt: skip
    assert not_started(project)


def test_replay_refuses_a_response_with_no_answer_unless_retrieval_only(project: Path) -> None:
    replay(project)
    lines = (project / "responses.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    del first["answer"]
    lines[0] = json.dumps(first)
    (project / "responses.jsonl").write_text("\n".join(lines) + "\n")
    code, output = run(project)
    assert code == 2, output
    missing = "responses.jsonl:1 field 'answer': no answer, and the response does not abstain"
    assert missing in output
    assert not_started(project)
    thresholds = project / "thresholds.toml"
    thresholds.write_text('[[threshold]]\nmeasure = "recall@5"\ncomparison = ">="\nvalue = 0.5\n'
                          'type = "graded"\nreason = "r"\n')  # fmt: skip
    code, output = run(project, "--retrieval-only")
    assert code in (0, 1), output  # retrieval needs no answer


def test_replay_resolves_its_recording_beside_ragcard_toml(
    project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    replay(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, output = run(project)
    assert code in (0, 1), output


def test_replaying_a_results_file_replays_its_failures(project: Path) -> None:
    replay(project)
    code, output = run(project)
    assert code in (0, 1), output
    results = (project / "out" / "results.jsonl").read_text().splitlines()
    failed = [json.loads(line) for line in results if json.loads(line)["error"]]
    assert failed  # the mini recording lacks some attempts: not_recorded failures
    shutil.move(project / "out" / "results.jsonl", project / "recorded-results.jsonl")
    shutil.rmtree(project / "out")
    replay(project, "recorded-results.jsonl")
    code, output = run(project)
    assert code in (0, 1), output
    lines = (project / "out" / "results.jsonl").read_text().splitlines()
    again = [json.loads(line) for line in lines]
    assert {(r["item"], r["attempt"]): r["scores"] for r in again} == {
        (r["item"], r["attempt"]): r["scores"] for r in map(json.loads, results)}
    kinds = {r["error"]["kind"] for r in again if r["error"]}
    assert kinds == {r["error"]["kind"] for r in failed}


def test_check_project_is_the_library_call(project: Path) -> None:
    checked = check_project(project)
    assert checked.run.attempts == 1 and len(checked.inputs.questions) == 6
    (project / "thresholds.toml").write_text("[[threshold]]\nmeasure = 'recal@5'\n")
    with pytest.raises(InputError) as info:
        check_project(project)
    assert {p.field for p in info.value.problems} >= {"[[threshold]] #1 comparison"}


def test_folder_and_history_problems(tmp_path: Path) -> None:
    assert folder_problem(tmp_path / "new" / "deeper") is None
    assert folder_problem(Path("/dev/null")) == "is a character device, not a folder"
    (tmp_path / "file").write_text("x")
    blocked = folder_problem(tmp_path / "file" / "sub")
    assert blocked == f"cannot be created: {tmp_path / 'file'} is not a folder"
    assert history_problem(f"sqlite:///{tmp_path}/h.sqlite") is None
    assert history_problem("postgresql://u:p@127.0.0.1:5/db") is None
    assert history_problem(str(tmp_path / "h.sqlite")) is None
    assert history_problem("::::") is not None
    not_sqlite = history_problem(f"sqlite:///{tmp_path}/file")
    assert not_sqlite == f"{tmp_path / 'file'} is not a SQLite database"
    assert "character device" in str(history_problem("sqlite:////dev/zero"))


def test_a_bad_key_does_not_hide_the_problems_of_the_rest(project: Path) -> None:
    toml = (project / "ragcard.toml").read_text()
    toml = toml.replace('name = "mini"', 'name = "mini"\ncorpus_version = 2025')
    toml = toml.replace("attempts = 1", 'attempts = "2"\neval_dir = "/dev/null"')
    (project / "ragcard.toml").write_text(toml)
    corpus = project / "corpus.jsonl"
    corpus.write_text(corpus.read_text().replace('"doc": "leave"', '"doc": 5', 1))
    code, output = run(project, "--eval-dir", "/dev/null")
    assert code == 2, output
    for expected in ("field '[project] corpus_version'", "field '[run] attempts'",
                     "--eval-dir", "corpus.jsonl:1 field 'doc'"):
        assert expected in output  # fmt: skip
    assert not_started(project)


def test_a_thresholds_file_without_a_gate_is_refused_before_the_agent_is_called(
    project: Path,
) -> None:
    (project / "thresholds.toml").write_text("# to do\n")
    code, output = run(project)
    assert code == 2, output
    assert "thresholds.toml: has no [[threshold]]" in output
    assert "ragcard init --kit knowledge-base" in output
    assert not_started(project)


@pytest.mark.parametrize(("name", "what"), [("questions.jsonl", "question"),
                                            ("corpus.jsonl", "passage")])
def test_an_empty_input_says_it_is_empty_not_to_fix_the_path(
    project: Path, name: str, what: str
) -> None:
    (project / name).write_text("")
    code, output = run(project)
    assert code == 2, output
    assert f"{name}: the file is empty: it holds no {what}" in output
    assert "fix the path" not in output
    assert not_started(project)
