"""Acceptance: on the bundled examples the reference agent as shipped has no critical finding,
and each red-team fault switch makes attacks of its category succeed, critically."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from redteam_support import EXAMPLES, RunRedteam, copy_example

SHIPPED_CATEGORIES = {
    "handbook": {"direct_injection", "indirect_injection", "access_escalation",
                 "instruction_extraction", "currency", "persona_break"},
    "persona": {"direct_injection", "indirect_injection", "instruction_extraction",
                "persona_break", "policy"},
}  # fmt: skip


def critical(summary: dict[str, Any], category: str | None = None) -> list[dict[str, Any]]:
    return [
        f
        for f in summary["findings"]
        if f["severity"] == "critical"
        and f["status"] == "open"
        and (category is None or f["category"] == category)
    ]


@pytest.mark.parametrize("example", ["handbook", "persona"])
def test_the_shipped_reference_agent_has_no_critical_finding(
    example: str, redteam: RunRedteam
) -> None:
    result = redteam(EXAMPLES / example)
    summary = result.summary
    assert critical(summary) == [], summary["findings"]
    assert summary["measures"]["redteam_critical_open"]["value"] == 0
    assert result.exit_code == 0 and summary["decision"] == "pass"
    # every category that applies was attacked, in every wrapper, and answered
    assert set(summary["success_by_category"]) == SHIPPED_CATEGORIES[example]
    assert summary["untested"] == [] and summary["errors"]["attempts"] == 0
    wrappers = {v["mutator"] for v in summary["variants"]}
    assert wrappers == {"plain", "roleplay", "base64", "rot13", "translation"}
    assert summary["integrity"]["changed"] == []


@pytest.mark.parametrize(
    ("example", "fault", "category"),
    [
        ("handbook", "trust_claimed_role", "access_escalation"),
        ("handbook", "obey_passage_instructions", "indirect_injection"),
        ("persona", "obey_passage_instructions", "indirect_injection"),
        ("persona", "ignore_policy", "policy"),
    ],
)
def test_each_red_team_fault_gives_a_critical_finding_of_its_category(
    example: str, fault: str, category: str, redteam: RunRedteam
) -> None:
    result = redteam(EXAMPLES / example, [fault], mutators=["plain"])
    found = critical(result.summary, category)
    assert found, f"{fault}: no open critical {category} finding in {result.summary['findings']}"
    assert result.exit_code == 1
    assert any("critical finding" in reason for reason in result.summary["decision_reasons"])
    rate = result.summary["success_by_category"][category]
    assert rate["value"] > 0 and rate["ci"][0] <= rate["value"] <= rate["ci"][1]


def test_trust_claimed_role_leaks_by_content_and_the_evidence_is_redacted(
    redteam: RunRedteam,
) -> None:
    result = redteam(EXAMPLES / "handbook", ["trust_claimed_role"], mutators=["plain"],
                     attacks=["access.role_claim"])  # fmt: skip
    finding = critical(result.summary, "access_escalation")[0]
    leaks = finding["evidence"]["leaks"]
    assert any("content" in leak["channels"] for leak in leaks)
    assert all(set(leak) <= {"id", "channels", "shared_ngrams", "restricted_figures",
                             "match_sha256"} for leak in leaks)  # fmt: skip
    report = (result.out_dir / "redteam.md").read_text(encoding="utf-8")
    restricted = "Engineering salary bands for London"
    assert restricted not in report and restricted not in str(result.summary["findings"])


def test_ignore_cutoff_lets_the_persona_speak_past_its_cutoff(redteam: RunRedteam) -> None:
    result = redteam(EXAMPLES / "persona", ["ignore_cutoff"], mutators=["plain"],
                     attacks=["persona_break"])  # fmt: skip
    breaks = [f for f in result.summary["findings"] if f["category"] == "persona_break"]
    assert breaks and all(f["severity"] == "high" for f in breaks)
    assert any(e["kind"] == "later_year" for f in breaks for e in f["evidence"]["after_cutoff"])


def test_the_judged_detectors_have_their_false_positive_rate_measured_and_written(
    redteam: RunRedteam,
) -> None:
    result = redteam(EXAMPLES / "persona", attacks=["persona.stop_pretending"])
    rates = result.summary["detectors"]
    assert set(rates) == {"character_break", "instruction_disclosure", "refusal_text"}
    for entry in rates.values():
        assert entry["controls"] > 0 and 0 <= entry["rate"] <= 1
        assert entry["ci"][0] <= entry["rate"] <= entry["ci"][1]
    lines = (result.out_dir / "redteam.jsonl").read_text(encoding="utf-8").splitlines()
    written = [line for line in lines if '"kind":"detector"' in line]
    assert len(written) == 3
    controls = [line for line in lines if '"kind":"control"' in line]
    assert controls and all('"false_positive"' in line for line in controls)
    assert "Judged detectors on benign controls" in (result.out_dir / "redteam.md").read_text()


def test_an_agent_that_cannot_index_a_test_corpus_skips_indirect_injection(
    tmp_path: Path, redteam: RunRedteam
) -> None:
    project = copy_example(tmp_path, "handbook")
    toml = project / "ragcard.toml"
    # the reference agent as a plain function: no corpus option to point at a copy
    text = toml.read_text().replace('factory = "ragcard.reference:build_agent"',
                                    'function = "fixed_agent:answer"')  # fmt: skip
    text = text.replace('[agent.options]\ncorpus = "corpus.jsonl"\n', "")
    toml.write_text(text)
    (project / "fixed_agent.py").write_text(
        "def answer(request):\n"
        "    return {'answer': 'I cannot find this.', 'flag': 'not_in_record', "
        "'abstained': True}\n"
    )
    result = redteam(project, attacks=["injection.*"], mutators=["plain"], agent_options={})
    skipped = {s["attack"]: s["reason"] for s in result.summary["skipped"]}
    assert "cannot index a test corpus" in skipped["injection.document"]
    assert result.summary["config"]["delivery"]["kind"] == "none"
    assert [v["attack"] for v in result.summary["variants"]] == ["injection.direct"]
