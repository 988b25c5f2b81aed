"""Kill ``ragcard`` (SIGKILL) at the write points of every output file, then repair.

Five scenarios: a fresh run into a new folder, a fresh run over a finished one (its old files
must survive whole until replaced whole), a resume of an interrupted run (the results rewrite),
``ragcard sign`` and ``ragcard score``. After each kill: every file old or new, never a mix;
the folder consistent or marked mid-write. After the repair (``--resume``, or signing or
scoring again): no finished attempt asked again, the results of an uninterrupted run, a
complete folder. The quick suite kills once a file; ``RAGCARD_CHAOS=full pytest
tests/chaos/test_kill_resume.py`` kills at every point (CI runs it, see .ci/run).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from chaos_support import NO_FAILURES, SHIP_THRESHOLDS, http_agent, make_project
from harness import (
    MD_END,
    Scenario,
    Zygote,
    choose,
    copy_folder,
    points_of,
    results_keys,
    summary,
    sweep,
    verdicts,
)

from ragcard.adapters.testing import FaultPlan, FaultServer, synthetic_questions
from ragcard.outputs._runfolder import MARKER, check_complete
from ragcard.outputs.signing import new_keypair, verify_run

#: RAGCARD_CHAOS=full kills at every write point (CI does, .ci/run); else one point a file
FULL = os.environ.get("RAGCARD_CHAOS") == "full"
PLAN = FaultPlan(seed=5, error_rate=0.1, refused_rate=0.05, wrong_body_rate=0.08, cut_rate=0.05)
QUESTIONS, ATTEMPTS = 6, 2
PLANNED = {(q.id, a) for q in synthetic_questions(QUESTIONS) for a in range(1, ATTEMPTS + 1)}


class World:
    """One fault server, one project, one zygote, and an uninterrupted reference run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.server = FaultServer(PLAN).start()
        agent = http_agent(self.server.url + "/sse", stream="sse")
        self.project = make_project(root / "project", agent, questions=QUESTIONS,
                                    thresholds=SHIP_THRESHOLDS + NO_FAILURES,
                                    run={"attempts": ATTEMPTS, "concurrency": 2, "retries": 1})
        self.env = {"RAGCARD_HISTORY_URL": f"sqlite:///{root / 'history.sqlite'}", "CI": ""}
        self.zygote = Zygote(root / "zygote")
        self.by_text = {q.question: q.id for q in synthetic_questions(QUESTIONS)}
        self.reference = root / "reference"
        code, _, output = self.zygote.run(self.run_args(self.reference, root / "ref-eval",
                                                        "--fresh"), env=self.env)
        assert code in (0, 1), output
        self.expected = verdicts(self.reference / "results.jsonl")
        assert set(self.expected) == PLANNED
        private = root / "keys" / "ada.pem"
        self.public = new_keypair(private, owner="Ada")
        self.key = private

    def run_args(self, out: Path, eval_dir: Path, *flags: str) -> list[str]:
        return ["run", str(self.project), "--out", str(out), "--no-progress",
                "--eval-dir", str(eval_dir), *flags]

    def requests(self) -> list[tuple[str, int]]:
        return [(self.by_text[q], a) for q, a, _t, _f, _w in self.server.log]

    def close(self) -> None:
        self.zygote.close()
        self.server.stop()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    made = World(tmp_path_factory.mktemp("chaos"))
    try:
        yield made
    finally:
        made.close()


def final_run_checks(world: World, out: Path, eval_dir: Path) -> list[str]:
    problems = []
    if (out / MARKER).exists():
        problems.append("still marked mid-write after the repair")
    keys = results_keys(out / "results.jsonl")
    if sorted(keys) != sorted(PLANNED):
        problems.append(f"results hold {len(keys)} lines for {len(set(keys))} item-attempts")
    elif verdicts(out / "results.jsonl") != world.expected:
        problems.append("the results differ from an uninterrupted run's")
    try:
        check_complete(out, "check")
    except Exception as error:
        problems.append(str(error))
    if not (out / "scorecard.md").read_text().endswith(MD_END):
        problems.append("scorecard.md incomplete")
    for record in eval_dir.glob("*.jsonl"):
        if sorted(json.loads(x)["item"] for x in record.read_text().splitlines()) != sorted(
            item for item, _ in PLANNED
        ):
            problems.append(f"{record.name} is not a whole run")
    return problems


def run_scenario(world: World, name: str, full: bool) -> dict:
    out, eval_dir = world.root / name / "out", world.root / name / "eval"
    resume = world.run_args(out, eval_dir, "--resume")
    if name == "fresh":
        def prepare() -> None:
            shutil.rmtree(world.root / name, ignore_errors=True)
        command = world.run_args(out, eval_dir, "--fresh")
    elif name == "over-old":
        def prepare() -> None:
            copy_folder(world.reference, out)
            copy_folder(world.root / "ref-eval", eval_dir)
        command = world.run_args(out, eval_dir, "--fresh")
    else:  # "resume": an interrupted run whose first five attempts are recorded
        def prepare() -> None:
            copy_folder(world.reference, out)
            shutil.rmtree(eval_dir, ignore_errors=True)
            lines = (out / "results.jsonl").read_text().splitlines(keepends=True)
            (out / "results.jsonl").write_text("".join(lines[:5]))
            (out / "scorecard.json").unlink()
            (out / MARKER).write_text('{"command": "ragcard run"}')
        command = resume
    scenario = Scenario(name, prepare, command, lambda: resume, out, eval_dir, world.env)
    points = points_of(world.zygote, scenario)
    findings = sweep(
        world.zygote, scenario, choose(points, full), requests=world.requests,
        reset=world.server.reset_tries,
        check_final=lambda: final_run_checks(world, out, eval_dir),
    )
    return {"points": len(points), **summary(findings)}


@pytest.mark.parametrize("name", ["fresh", "over-old", "resume"])
def test_a_killed_run_leaves_old_or_new_and_resumes_redoing_nothing(
    world: World, name: str
) -> None:
    full = FULL
    found = run_scenario(world, name, full)
    print(json.dumps({name: found}))  # the figures, with -s
    assert found["kills"] >= (found["points"] if full else 3)
    assert found["mixed"] == [] and found["redone"] == [] and found["bad_repairs"] == []
    assert {"results.jsonl", "scorecard.json", "scorecard.md"} <= set(found["files"])


def test_a_killed_sign_leaves_an_unsigned_or_a_marked_folder(world: World) -> None:
    full = FULL
    out = world.root / "sign" / "out"

    def prepare() -> None:
        copy_folder(world.reference, out)

    def repair() -> list[str]:
        if (out / MARKER).exists():  # the fix the marker names
            (out / "signature.json").unlink(missing_ok=True)
        if (out / "signature.json").exists():
            return ["verify", str(out), "--trusted", str(world.public)]
        return ["sign", str(out), "--key", str(world.key), "--by", "Ada", "--decision", "hold"]

    def final() -> list[str]:
        if not (out / "signature.json").exists():
            return ["no signature after the repair"]
        verified = verify_run(out, trusted_keys=[world.public])
        return [] if verified.ok else verified.changed

    command = ["sign", str(out), "--key", str(world.key), "--by", "Ada", "--decision", "hold"]
    scenario = Scenario("sign", prepare, command, repair, out, world.root / "sign" / "eval",
                        world.env)
    points = points_of(world.zygote, scenario)
    findings = sweep(world.zygote, scenario, choose(points, full), check_final=final)
    found = summary(findings)
    print(json.dumps({"sign": {"points": len(points), **found}}))
    assert {"signature.json", "scorecard.json", "scorecard.md"} <= set(found["files"])
    assert found["mixed"] == [] and found["bad_repairs"] == []


def test_a_killed_score_leaves_the_old_results_or_the_new(world: World, mini: Path) -> None:
    full = FULL
    out = world.root / "score" / "out"
    command = ["score", "--questions", str(mini / "questions.jsonl"), "--corpus",
               str(mini / "corpus.jsonl"), "--responses", str(mini / "responses.jsonl"),
               "--thresholds", str(mini / "thresholds.toml"), "--out", str(out), "--quiet"]

    def prepare() -> None:
        shutil.rmtree(out, ignore_errors=True)

    def final() -> list[str]:
        try:
            check_complete(out, "check")
        except Exception as error:
            return [str(error)]
        return [] if not (out / MARKER).exists() else ["still marked"]

    scenario = Scenario("score", prepare, command, lambda: command, out,
                        world.root / "score" / "eval", world.env)
    points = points_of(world.zygote, scenario)
    findings = sweep(world.zygote, scenario, choose(points, full), check_final=final)
    found = summary(findings)
    print(json.dumps({"score": {"points": len(points), **found}}))
    assert found["mixed"] == [] and found["bad_repairs"] == []
