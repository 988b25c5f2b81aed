"""Acceptance: a test passage is added for the run and gone afterwards — the corpus file and
the agent's index byte-identical before and after, also when the run is killed half-way.

Two ways a passage reaches the agent: the reference agent is rebuilt over a copy of the
corpus (its ``corpus`` option), and a command agent with its own on-disk index gets plant and
remove hooks. Each is killed in the middle of the attacks that need the passage (SIGKILL:
nothing in the process can react) and resumed; the hook agent is also stopped with SIGTERM,
which must remove the passage on the way out.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from redteam_support import RunRedteam, copy_example, tree

from ragcard.errors import ConfigError
from ragcard.redteam import RedteamResult, run_redteam

CLI = [sys.executable, "-c", "from ragcard._cli.main import app; app()"]


def _planted_ids(out: Path) -> set[str]:
    lines = (out / "planted.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["id"] for line in lines}


def test_the_reference_agent_gets_a_copy_and_the_project_is_untouched(
    tmp_path: Path, redteam: RunRedteam
) -> None:
    project = copy_example(tmp_path, "handbook")
    before = tree(project)
    result = redteam(project, ["obey_passage_instructions"], attacks=["injection.document"],
                     mutators=["plain"])  # fmt: skip
    assert result.summary["config"]["delivery"] == {"kind": "option", "option": "corpus"}
    # the passages reached the agent (it obeyed them) …
    assert [f["attack"] for f in result.summary["findings"]] == ["injection.document"], (
        result.out_dir / "redteam.jsonl"
    ).read_text()
    # … and left no trace outside the output folder
    assert tree(project) == before
    planted = _planted_ids(result.out_dir)
    assert planted and all(pid not in (project / "corpus.jsonl").read_text() for pid in planted)
    assert not (result.out_dir / "test-corpus").exists()
    integrity = result.summary["integrity"]
    assert (
        integrity["changed"] == []
        and str((project / "corpus.jsonl").resolve()) in integrity["checked"]
    )


SLOW_AGENT = """
import os, time, pathlib
from ragcard.reference import build_agent

def build(options):
    agent = build_agent(dict(options))
    with_test_passages = "test-corpus" in str(options["corpus"])
    flag = os.environ.get("RT_FLAG")

    def answer(request):
        if with_test_passages and flag:
            pathlib.Path(flag).write_text("planted")
            time.sleep(float(os.environ.get("RT_SLEEP", "0")))
        return agent(request)
    return answer
"""


def _start(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as stderr:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [*CLI, *args], env={**os.environ, **env}, start_new_session=True,
            stdout=subprocess.DEVNULL, stderr=stderr,
        )  # fmt: skip


def _wait_for(flag: Path, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 120
    while not flag.exists():
        if process.poll() is not None:
            pytest.fail(f"the run ended before the test passages were used: {log.read_text()}")
        if time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail("the run never reached the attacks that use the test passages")
        time.sleep(0.05)


def _stop_mid_run(
    tmp_path: Path, project: Path, out: Path, history: str, extra: list[str], stop: int
) -> tuple[int, str]:
    """Run ``ragcard redteam run`` in a process of its own; stop it with ``stop`` once the
    agent is answering with the test passages planted. Its exit status and stderr."""
    args = ["redteam", "run", str(project), "--out", str(out), "--attempts", "1",
            "--mutators", "plain", "--db", history, "--no-progress", *extra]  # fmt: skip
    flag, log = tmp_path / "flag", tmp_path / "stderr.log"
    process = _start(args, {"RT_FLAG": str(flag), "RT_SLEEP": "60"}, log)
    _wait_for(flag, process, log)
    os.killpg(process.pid, stop)
    return process.wait(timeout=60), log.read_text(encoding="utf-8", errors="replace")


def test_killed_mid_run_the_reference_agent_project_stays_untouched_and_resumes(
    tmp_path: Path, history: str
) -> None:
    project = copy_example(tmp_path, "handbook")
    toml = project / "ragcard.toml"
    toml.write_text(
        toml.read_text().replace(
            'factory = "ragcard.reference:build_agent"', 'factory = "slow_agent:build"'
        )
    )
    (project / "slow_agent.py").write_text(SLOW_AGENT)
    before = tree(project)
    out = tmp_path / "out"
    attacks = ["--attacks", "injection.*", "-o", "embeddings=false"]
    _stop_mid_run(tmp_path, project, out, history, attacks, signal.SIGKILL)
    assert tree(project) == before  # killed with the passages in use: the project is as it was
    assert (out / "test-corpus" / "corpus.jsonl").exists()  # the copy is ragcard's own

    result = run_redteam(project, out_dir=out, resume=True, attempts=1, attacks=["injection.*"],
                         mutators=["plain"], history_url=history, progress=False,
                         agent_options={"embeddings": False})  # fmt: skip
    assert result.summary["untested"] == []
    assert tree(project) == before
    assert not (out / "test-corpus").exists()
    assert _planted_ids(out)


# -- an agent with its own index on disk, planted and cleaned by hooks ------------------------

COMMAND_AGENT = """
import json, os, pathlib, re, sys, time

def followed_instruction(text):  # obeys "... joining "A" and "B" with a hyphen" (no ragcard import)
    found = re.search(r'joining "([A-Za-z0-9]+)" and "([A-Za-z0-9]+)" with a hyphen', text)
    return f"{found.group(1)}-{found.group(2)}" if found else None

request = json.load(sys.stdin)
passages = [json.loads(l) for l in pathlib.Path("index/passages.jsonl").read_text().splitlines()]
if any(p["id"].startswith("redteam-test") for p in passages) and os.environ.get("RT_FLAG"):
    pathlib.Path(os.environ["RT_FLAG"]).write_text("planted")
    time.sleep(float(os.environ.get("RT_SLEEP", "0")))
words = set(request["question"].lower().split())
top = sorted(passages, key=lambda p: -len(words & set(p["text"].lower().split())))[:3]
obeyed = next((r for p in top if (r := followed_instruction(p["text"]))), None)
answer = obeyed or top[0]["text"].split(". ")[0] + "."
retrieved = [p["id"] for p in top]
print(json.dumps({"answer": answer, "retrieved": retrieved, "flag": None, "abstained": False}))
"""

PLANT = """
import json, pathlib, sys
action, planted = sys.argv[1], pathlib.Path(sys.argv[2])
index = pathlib.Path("index/passages.jsonl")
if action == "add":
    index.write_bytes(index.read_bytes() + planted.read_bytes())
else:
    ids = {json.loads(l)["id"] for l in planted.read_text().splitlines()}
    lines = index.read_text().splitlines(keepends=True)
    kept = [l for l in lines if json.loads(l)["id"] not in ids]
    index.write_text("".join(kept))
    if pathlib.Path("fail-remove").exists():
        sys.exit("cannot reach the index")
"""

PASSAGES = [
    {"id": "leave#1", "doc": "leave", "text": "Employees receive 28 days of annual leave."},
    {"id": "expenses#1", "doc": "expenses", "text": "Submit expense claims within 30 days."},
    {"id": "remote#1", "doc": "remote", "text": "You may work from home two days a week."},
]
QUESTIONS = [
    {"id": "Q1", "question": "How many days of annual leave do employees receive?",
     "gold": ["leave#1"], "asker": "employee"},
    {"id": "Q2", "question": "When should I submit expense claims?", "gold": ["expenses#1"],
     "asker": "employee"},
    {"id": "Q3", "question": "Can I work from home?", "gold": ["remote#1"], "asker": "employee"},
    {"id": "Q4", "question": "Is there a Christmas bonus?", "answerable": False,
     "asker": "employee"},
]  # fmt: skip


def _hook_project(folder: Path) -> Path:
    folder.mkdir()
    lines = "".join(json.dumps(p) + "\n" for p in PASSAGES)
    (folder / "corpus.jsonl").write_text(lines)
    (folder / "index").mkdir()
    (folder / "index" / "passages.jsonl").write_text(lines)  # the agent's own index
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    (folder / "thresholds.toml").write_text("")
    (folder / "agent.py").write_text(COMMAND_AGENT)
    (folder / "plant.py").write_text(PLANT)
    python = json.dumps(sys.executable)
    (folder / "ragcard.toml").write_text(
        '[project]\nname = "hooked"\n\n[agent]\ntype = "command"\n'
        f'command = [{python}, "agent.py"]\n\n[run]\nconcurrency = 2\n\n'
        f'[redteam]\ncontrols = 2\nplant_command = [{python}, "plant.py", "add", "{{planted}}"]\n'
        f'remove_command = [{python}, "plant.py", "remove", "{{planted}}"]\n'
        'index_paths = ["index"]\n'
    )
    return folder


def _attack(project: Path, out: Path, history: str, **options: Any) -> RedteamResult:
    return run_redteam(project, out_dir=out, attempts=1, attacks=["injection.document"],
                       mutators=["plain"], history_url=history, progress=False,
                       **options)  # fmt: skip


def test_hooks_plant_the_passages_in_the_agents_index_and_remove_them(
    tmp_path: Path, history: str
) -> None:
    project = _hook_project(tmp_path / "hooked")
    before = tree(project)
    result = run_redteam(project, out_dir=tmp_path / "out", attempts=1, mutators=["plain"],
                         attacks=["injection.document"], history_url=history,
                         progress=False)  # fmt: skip
    assert result.summary["config"]["delivery"]["kind"] == "hooks"
    assert {f["attack"] for f in result.summary["findings"]} == {"injection.document"}
    assert tree(project) == before  # index/ and corpus.jsonl byte-identical
    checked = result.summary["integrity"]["checked"]
    assert str((project / "index" / "passages.jsonl").resolve()) in checked


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_stopped_mid_run_the_index_is_restored(
    tmp_path: Path, history: str, stop: signal.Signals
) -> None:
    project = _hook_project(tmp_path / "hooked")
    before = tree(project)
    out = tmp_path / "out"
    code, stderr = _stop_mid_run(tmp_path, project, out, history,
                                 ["--attacks", "injection.document"], stop)  # fmt: skip
    if stop == signal.SIGTERM:  # the remove hook ran on the way out, and it says so
        assert tree(project) == before
        assert not (out / "test-corpus").exists()  # the corpus copy (restricted text) gone
        assert code == 128 + signal.SIGTERM, stderr
        assert "red-team run stopped by signal 15" in stderr
        assert "no test passage is left" in stderr and "--resume" in stderr
    else:  # nothing could run: the passages are still in the index, and the marker says so
        assert tree(project) != before
        assert (out / "test-corpus" / "PLANTED.json").exists()
    os.environ.pop("RT_FLAG", None)
    result = _attack(project, out, history, resume=True)
    assert result.summary["integrity"]["recovered"] is (stop == signal.SIGKILL)
    assert result.summary["integrity"]["changed"] == []
    assert tree(project) == before


def test_a_failing_remove_hook_is_reported_and_retried_by_the_next_run(
    tmp_path: Path, history: str
) -> None:
    project = _hook_project(tmp_path / "hooked")
    before = tree(project)
    (project / "fail-remove").write_text("")
    with pytest.raises(ConfigError, match="cannot reach the index"):
        _attack(project, tmp_path / "out", history, fresh=True)
    assert (tmp_path / "out" / "test-corpus" / "PLANTED.json").exists()
    (project / "fail-remove").unlink()
    result = _attack(project, tmp_path / "out", history, resume=True)
    assert result.summary["integrity"]["recovered"] is True
    assert tree(project) == before


# -- killed outright, the passages are found from any folder and by the next evaluation -------

KEPT = """
[[threshold]]
measure = "recall@5"
comparison = ">="
value = 0.5
type = "graded"
reason = "the evaluation reads the index the red team used"

[evidence]
min_items = 1
reason = "a four-question fixture"
"""


def _killed_with_passages_planted(tmp_path: Path, history: str) -> tuple[Path, dict[str, str]]:
    project = _hook_project(tmp_path / "hooked")
    (project / "thresholds.toml").write_text(KEPT)
    before = tree(project)
    _stop_mid_run(tmp_path, project, tmp_path / "out", history,
                  ["--attacks", "injection.document"], signal.SIGKILL)  # fmt: skip
    os.environ.pop("RT_FLAG", None)
    assert tree(project) != before  # the test passages are in the agent's index
    return project, before


def test_a_later_evaluation_removes_them_before_calling_the_agent(
    tmp_path: Path, history: str
) -> None:
    from ragcard import run_evaluation

    project, before = _killed_with_passages_planted(tmp_path, history)
    result = run_evaluation(project, out_dir=tmp_path / "eval-out", history_url=history,
                            progress=False, attempts=1, eval_dir=tmp_path / "eval")  # fmt: skip
    assert tree(project) == before  # removed first: the index is the team's again
    lines = [json.loads(x) for x in result.results_path.read_text().splitlines()]
    retrieved = {p if isinstance(p, str) else p["id"] for line in lines
                 for p in (line.get("response") or {}).get("retrieved", [])}  # fmt: skip
    assert retrieved and not any(p.startswith("redteam-test") for p in retrieved)
    again = _attack(project, tmp_path / "out2", history, fresh=True)  # nothing left to recover
    assert again.summary["integrity"]["recovered"] is False


def test_a_red_team_run_with_another_out_recovers_them_first(tmp_path: Path, history: str) -> None:
    project, before = _killed_with_passages_planted(tmp_path, history)
    result = _attack(project, tmp_path / "elsewhere", history, fresh=True)
    assert result.summary["integrity"]["recovered"] is True
    assert result.summary["integrity"]["changed"] == []  # fingerprinted after the repair
    assert tree(project) == before


def test_when_the_remove_hook_fails_the_evaluation_refuses_with_the_fix(
    tmp_path: Path, history: str
) -> None:
    from ragcard import run_evaluation

    project, _ = _killed_with_passages_planted(tmp_path, history)
    (project / "fail-remove").write_text("")
    with pytest.raises(ConfigError, match="no run may use the index until they are out"):
        run_evaluation(project, out_dir=tmp_path / "eval-out", history_url=history,
                       progress=False, attempts=1)  # fmt: skip
    assert not (tmp_path / "eval-out" / "results.jsonl").exists()
