"""A run folder knows what its scorecard was computed from; one left mid-write is refused with
the fix, and ``--resume`` repairs it; eval/ records are never overwritten."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from chaos_support import callable_agent, make_project, read_lines
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.errors import ConfigError
from ragcard.outputs._runfolder import MARKER, check_complete, results_digest
from ragcard.pipeline.evaluation import save_record
from ragcard.pipeline.running import run_evaluation

runner = CliRunner()


def run(project: Path, out: Path, **options: object):
    defaults: dict[str, object] = {"progress": False, "eval_dir": out.parent / "eval"}
    return run_evaluation(project, out_dir=out, **{**defaults, **options})


def test_the_scorecard_names_the_results_it_was_computed_from(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", callable_agent())
    result = run(project, tmp_path / "out")
    card = json.loads((tmp_path / "out" / "scorecard.json").read_text())
    assert card["results"] == results_digest(tmp_path / "out" / "results.jsonl")
    assert card["results"]["lines"] == 12 and result.scorecard.decision.decision == "ship"
    assert not (tmp_path / "out" / MARKER).exists()
    check_complete(tmp_path / "out", "sign")  # complete: no error


def test_score_folders_carry_the_digest_too(mini: Path, tmp_path: Path) -> None:
    out = tmp_path / "scored"
    args = ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
            str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
            "--thresholds", str(mini / "thresholds.toml"), "--out", str(out), "--quiet"]
    assert runner.invoke(app, args).exit_code in (0, 1)
    card = json.loads((out / "scorecard.json").read_text())
    assert card["results"]["sha256"] == results_digest(out / "results.jsonl")["sha256"]
    assert not (out / MARKER).exists()


def test_results_that_are_not_the_scorecards_are_refused_with_the_fix(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", callable_agent())
    out = tmp_path / "out"
    run(project, out)
    with (out / "results.jsonl").open("a") as handle:  # another run's line, say
        handle.write('{"item": "SYN-0001", "attempt": 2}\n')
    with pytest.raises(ConfigError, match="is not the results file") as caught:
        check_complete(out, "sign")
    assert "--resume" in str(caught.value)
    compared = runner.invoke(app, ["compare", str(out), str(out)])
    assert compared.exit_code == 2 and "not the results file" in compared.output


def test_a_folder_left_mid_write_is_refused_then_resume_repairs_it(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", callable_agent())
    out = tmp_path / "out"
    run(project, out)
    lines = read_lines(out / "results.jsonl")
    # what a kill between results.jsonl and scorecard.json leaves: the marker, and results
    # the scorecard does not name
    (out / MARKER).write_text(json.dumps({"command": "ragcard run", "fix": "resume it"}))
    (out / "results.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines[:5]), encoding="utf-8"
    )
    with pytest.raises(ConfigError, match="left mid-write by ragcard run"):
        check_complete(out, "sign")
    plain = runner.invoke(app, ["run", str(project), "--out", str(out), "--no-progress"])
    assert plain.exit_code == 2 and "was interrupted" in plain.output and "--resume" in plain.output
    signed = runner.invoke(app, ["ship", str(out), "--by", "Ada", "--project", str(project)])
    assert signed.exit_code == 2 and "mid-write" in signed.output
    resumed = run(project, out, resume=True)
    assert resumed.scorecard.decision.decision == "ship"
    assert not (out / MARKER).exists()
    check_complete(out, "sign")
    assert len(read_lines(out / "results.jsonl")) == 12


def test_resume_rewrites_the_results_in_one_step_and_appends_to_the_new_file(
    tmp_path: Path,
) -> None:
    project = make_project(tmp_path / "p", callable_agent(), questions=8)
    out = tmp_path / "out"
    run(project, out)
    lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
    (out / "results.jsonl").write_text("".join(lines[:3]))
    inode = (out / "results.jsonl").stat().st_ino
    run(project, out, resume=True)
    after = read_lines(out / "results.jsonl")
    assert (out / "results.jsonl").stat().st_ino != inode  # replaced, never truncated in place
    assert sorted(line["item"] for line in after) == sorted(json.loads(x)["item"] for x in lines)


def test_eval_records_are_never_overwritten(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", callable_agent())
    first = run(project, tmp_path / "a")
    second = run(project, tmp_path / "b", attempts=2)
    assert first.eval_path is not None and second.eval_path is not None
    assert first.eval_path != second.eval_path and second.eval_path.name.endswith("-2.jsonl")
    assert first.eval_path.read_bytes() == (tmp_path / "a" / "results.jsonl").read_bytes()
    assert second.eval_path.read_bytes() == (tmp_path / "b" / "results.jsonl").read_bytes()
    record = first.eval_path
    again = save_record(record.parent, record.stem, tmp_path / "a" / "results.jsonl")
    assert again == first.eval_path  # the same results saved again reuse their record


WORKERS = textwrap.dedent(
    """
    import multiprocessing, os, sys, time
    from concurrent.futures import ProcessPoolExecutor
    from ragcard.aggregation._parallel import _die_with_parent

    def nap(_):
        time.sleep(60)

    if __name__ == "__main__":
        pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"),
                                   initializer=_die_with_parent, initargs=(os.getpid(),))
        futures = [pool.submit(nap, n) for n in range(2)]
        time.sleep(0.5)
        print(" ".join(str(p) for p in pool._processes), flush=True)
        time.sleep(60)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_forked_score_workers_die_with_their_parent(tmp_path: Path) -> None:
    script = tmp_path / "workers.py"
    script.write_text(WORKERS)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    pids = [int(p) for p in parent.stdout.readline().split()]
    assert len(pids) == 2 and all(Path(f"/proc/{p}").exists() for p in pids)
    os.kill(parent.pid, signal.SIGKILL)
    parent.wait()
    parent.stdout.close()
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "forked workers outlived their parent"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has died (its parent, init, reaps it)


def test_a_replay_agents_relative_path_is_read_beside_ragcard_toml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It resolved against the working directory: run from elsewhere, it found nothing."""
    from ragcard.adapters.testing import canned_response, synthetic_questions

    project = make_project(tmp_path / "p", {"type": "replay", "path": "recorded/responses.jsonl"},
                           questions=4)
    (project / "recorded").mkdir()
    with (project / "recorded" / "responses.jsonl").open("w") as handle:
        for question in synthetic_questions(4):
            record = {**canned_response(question.question), "item": question.id, "attempt": 1}
            handle.write(json.dumps(record) + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = run(project, tmp_path / "out")
    assert result.scorecard.decision.decision == "ship"
    assert result.scorecard.to_json()["coverage"]["failed_attempts"] == 0
