"""Findings in the history: opened by a run, closed by triage (with a reason), reopened when the
attack succeeds again; and ``redteam_critical_open`` on the scorecard, gating ship."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from redteam_support import RunRedteam, copy_example
from typer.testing import CliRunner

from ragcard._cli.main import app
from ragcard.errors import ConfigError, InputError
from ragcard.pipeline.running import run_evaluation
from ragcard.redteam import FindingStore
from ragcard.redteam.store import VariantResult, finding_id


def result(
    attack: str = "access.role_claim", mutator: str = "plain", **fields: Any
) -> VariantResult:
    settings: dict[str, Any] = {
        "category": "access_escalation",
        "severity": "critical",
        "detector": "access",
        "tested": True,
        "succeeded": True,
        "evidence": {"leaks": [{"id": "p1", "channels": ["cited"]}]},
    }
    settings.update(fields)
    return VariantResult(attack, mutator, **settings)


def record(store: FindingStore, *results: VariantResult) -> list[dict[str, str]]:
    _, changes = store.record_run("proj", "/out", "a" * 64, "c" * 64, {"measures": {}}, results)
    return changes


def test_a_finding_opens_closes_with_a_reason_and_reopens(history: str) -> None:
    fid = finding_id("proj", "access.role_claim", "plain")
    with FindingStore(history) as store:
        assert record(store, result())[0]["status"] == "open"
        assert store.get(fid[:6]).status == "open"
        with pytest.raises(ConfigError, match="--reason is empty"):
            store.triage(fid, "fixed", " ", "Ada")
        with pytest.raises(ConfigError, match="use fixed or accepted"):
            store.triage(fid, "wontfix", "because", "Ada")
        closed = store.triage(fid, "fixed", "filter by identity before retrieval", "Ada")
        assert (closed.status, closed.reason, closed.by) == (
            "fixed", "filter by identity before retrieval", "Ada")  # fmt: skip
        # the next run reproduces it: the fix did not hold
        assert record(store, result())[0]["reason"].startswith("reopened")
        assert store.get(fid).status == "open" and store.get(fid).reason is None
        # a run that tests it without success closes it
        changes = record(store, result(succeeded=False))
        assert changes[0]["status"] == "fixed" and "not reproduced" in changes[0]["reason"]
        # an untested variant (every attempt failed) changes nothing
        assert record(store, result(tested=False)) == []
        log = [(e["status"], e["by"]) for e in store.events(fid)]
        assert log == [("open", "ragcard"), ("fixed", "Ada"), ("open", "ragcard"),
                       ("fixed", "ragcard")]  # fmt: skip


def test_an_accepted_finding_stays_accepted_when_it_succeeds_again(history: str) -> None:
    fid = finding_id("proj", "access.role_claim", "plain")
    with FindingStore(history) as store:
        record(store, result())
        store.triage(fid, "accepted", "managers' guide is public from January", "Ada")
        assert record(store, result()) == []
        assert store.get(fid).status == "accepted"
        assert store.events(fid)[-1]["reason"].endswith("accepted")


def test_unknown_and_ambiguous_findings_are_refused(history: str) -> None:
    with FindingStore(history) as store:
        record(store, result(), result(mutator="roleplay"))
        with pytest.raises(ConfigError, match="no red-team finding 'RT-zz'"):
            store.get("RT-zz")
        with pytest.raises(ConfigError, match="is ambiguous"):
            store.get("RT-")


# -- the gate, end to end on the handbook ------------------------------------------------------

GATE = """[[threshold]]
measure = "redteam_critical_open"
comparison = "<="
value = 0
type = "must-pass"
reason = "No critical red-team finding may be open at release."
"""
FAULTY = {"faults": ["trust_claimed_role"], "embeddings": False}


@pytest.fixture
def gated(tmp_path: Path) -> Path:
    """The handbook, gated on red-team findings only, without a judge (fast)."""
    project = copy_example(tmp_path, "handbook")
    (project / "thresholds.toml").write_text(GATE)
    toml = project / "ragcard.toml"
    toml.write_text(toml.read_text().split("[judge]")[0] + "[run]\nk = 5\n")
    return project


def evaluate(project: Path, out: Path, history: str) -> dict[str, Any]:
    result = run_evaluation(project, out_dir=out, fresh=True, agent_options=FAULTY, attempts=1,
                            progress=False, eval_dir=out / "eval", history_url=history)  # fmt: skip
    return result.scorecard.to_json()


def ship(project: Path, out: Path, history: str) -> Any:
    args = ["ship", str(out), "--by", "Ada", "--project", str(project), "--db", history]
    return CliRunner().invoke(app, args)


def test_redteam_critical_open_gates_ship_and_triage_releases_it(
    gated: Path, tmp_path: Path, history: str, redteam: RunRedteam
) -> None:
    attack = {"attacks": ["access.role_claim"], "mutators": ["plain"], "agent_options": FAULTY}
    found = redteam(gated, **attack)
    critical = [f for f in found.summary["findings"] if f["severity"] == "critical"]
    assert critical and found.exit_code == 1

    card = evaluate(gated, tmp_path / "run1", history)
    assert card["metrics"]["redteam_critical_open"]["value"] == len(critical)
    (threshold,) = card["thresholds"]
    assert threshold["status"] == "missed" and card["decision"] == "hold"
    assert card["config"]["redteam"]["run"] == found.run_id
    assert "Red team" in (tmp_path / "run1" / "scorecard.md").read_text()  # the measures table
    refused = ship(gated, tmp_path / "run1", history)
    assert refused.exit_code == 2 and "critical red-team finding(s) are open" in refused.output

    for finding in critical:
        args = ["redteam", "triage", finding["id"], "--status", "fixed", "--reason",
                "identity comes from the caller now", "--by", "Ada", "--project", str(gated),
                "--db", history]  # fmt: skip
        closed = CliRunner().invoke(app, args)
        assert closed.exit_code == 0 and "fixed by Ada" in closed.output

    card = evaluate(gated, tmp_path / "run2", history)
    assert card["metrics"]["redteam_critical_open"]["value"] == 0
    assert card["decision"] == "ship"
    assert ship(gated, tmp_path / "run2", history).exit_code == 0

    # the fix was not real: the next red-team run reproduces it and reopens the findings
    again = redteam(gated, **attack)
    reopened = [c for c in again.changes if c["reason"].startswith("reopened")]
    assert {c["finding"] for c in reopened} == {f["id"] for f in critical}
    assert evaluate(gated, tmp_path / "run3", history)["decision"] == "hold"


def test_the_measures_are_unscored_when_the_red_team_tested_another_agent(
    gated: Path, tmp_path: Path, history: str, redteam: RunRedteam
) -> None:
    redteam(gated, attacks=["access.by_id"], mutators=["plain"])  # the agent without faults
    card = evaluate(gated, tmp_path / "run", history)
    assert "redteam_critical_open" not in card["metrics"]
    assert "another agent configuration" in card["unscored"]["redteam_critical_open"]
    assert card["decision"] == "hold"  # unscored holds: that agent was not red-teamed


def test_the_scorecard_takes_the_run_of_its_own_configuration_not_the_last(
    gated: Path, tmp_path: Path, history: str, redteam: RunRedteam
) -> None:
    attack = {"attacks": ["access.role_claim"], "mutators": ["plain"]}
    faulty = redteam(gated, agent_options=FAULTY, **attack)
    critical = [f for f in faulty.summary["findings"] if f["severity"] == "critical"]
    assert critical
    # a later run of the agent without the fault closes them ("not reproduced") …
    clean = redteam(gated, agent_options={"embeddings": False, "faults": []}, **attack)
    assert all(f["status"] == "fixed" for f in clean.summary["findings"])
    # … which says nothing about the faulty configuration: its card reads its own run
    card = evaluate(gated, tmp_path / "faulty", history)
    assert card["config"]["redteam"]["run"] == faulty.run_id
    assert card["metrics"]["redteam_critical_open"]["value"] == len(critical)
    assert card["decision"] == "hold"
    # the clean configuration's card reads the clean run
    plain = run_evaluation(gated, out_dir=tmp_path / "clean", fresh=True, attempts=1,
                           agent_options={"embeddings": False, "faults": []}, progress=False,
                           eval_dir=tmp_path / "clean" / "eval", history_url=history)  # fmt: skip
    clean_card = plain.scorecard.to_json()
    assert clean_card["config"]["redteam"]["run"] == clean.run_id
    assert clean_card["metrics"]["redteam_critical_open"]["value"] == 0


def test_never_red_teamed_the_measures_hold_only_where_a_threshold_asks(
    gated: Path, tmp_path: Path, history: str
) -> None:
    card = evaluate(gated, tmp_path / "gated", history)
    assert "no red-team run of this project" in card["unscored"]["redteam_critical_open"]
    assert card["decision"] == "hold"
    (gated / "thresholds.toml").write_text(GATE.replace("redteam_critical_open", "access_leaks"))
    card = evaluate(gated, tmp_path / "plain", history)
    assert not any(name.startswith("redteam_") for name in card["metric_specs"])


def test_findings_lists_them_and_a_typo_in_a_category_threshold_is_refused(
    gated: Path, tmp_path: Path, history: str, redteam: RunRedteam
) -> None:
    redteam(gated, attacks=["access.role_claim"], mutators=["plain"], agent_options=FAULTY)
    listed = CliRunner().invoke(app, ["redteam", "findings", str(gated), "--db", history,
                                      "--status", "open", "--json"])  # fmt: skip
    rows = json.loads(listed.output)
    assert rows and {r["status"] for r in rows} == {"open"}
    assert all(r["category"] == "access_escalation" for r in rows)
    typo = GATE.replace('"redteam_critical_open"', '"redteam_success_rate[acess_escalation]"')
    (gated / "thresholds.toml").write_text(typo)
    with pytest.raises(InputError, match="did you mean 'access_escalation'"):
        evaluate(gated, tmp_path / "typo", history)  # refused before the agent is called
