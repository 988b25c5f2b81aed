"""``scorecard.md``: the scorecard as a document to read, share and attach to a release.

Restricted text never appears here: leak evidence is passage ids, channels and hashes only.
"""

from __future__ import annotations

import json
from typing import Any

from ragcard.metrics.base import MetricValue, Unscored
from ragcard.metrics.redteam import summary_line
from ragcard.report.kappa import KAPPA_SCALE, KAPPA_SOURCE
from ragcard.report.plain import measure_rows, plain_settings
from ragcard.report.scorecard import Scorecard
from ragcard.report.sections import header_sections

__all__ = ["format_value", "judge_summary", "render_markdown", "status_text"]


def _share_cell(value: dict[str, Any] | None) -> str:
    """A per-category rate: share, count of items; a dash when not scored there."""
    if not value:
        return "–"
    ci = value.get("ci")
    interval = f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else ""
    return f"{value['value']:.2f}{interval} (n={value['n']})"


def _cell(value: object) -> str:
    """A table cell: None as a dash, mappings as compact JSON, pipes escaped."""
    if value is None or value == "":
        return "—"
    text = json.dumps(value, sort_keys=True) if isinstance(value, dict | list) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


_STATUS = {
    "met": "✅ met",
    "missed": "❌ missed",
    "unscored": "⚠️ not scored",
    "not_distinguishable": "⚠️ not distinguishable",
}


def status_text(status: str, note: str | None) -> str:
    """'met — not distinguishable at this sample size: …': the status, then its note."""
    return f"{status} — {note}" if note else status


def format_value(result: MetricValue | Unscored | None) -> str:
    """'0.912 [0.85, 0.95] (n=120)'; counts without an interval; unscored says so."""
    if result is None:
        return "—"
    if isinstance(result, Unscored):
        return f"not scored: {result.reason}"
    partial = ""
    if result.coverage is not None:  # (ragcard.aggregation.coverage: some members never answered)
        n, of = result.coverage
        unit = "attempts" if result.spec.kind == "quantile" else "items"
        partial = f", on {n} of {of} {unit}: {of - n} never answered"
    if result.spec.kind == "count":
        return f"{result.shown()} of {result.n}" + (f" ({partial[2:]})" if partial else "")
    text = result.shown()
    if result.ci is not None:
        text += " " + _interval(result, result.ci)
    return f"{text} (n={result.n}{partial})"


def _interval(result: MetricValue, ci: tuple[float, float]) -> str:
    """'[0.850, 0.950]'; a quantile's in whole ms, an end the data cannot give shown as
    '< smallest' / '> largest' value ('[812, > 1930]': nothing bounds p95 from above)."""
    shown = "{:.0f}" if result.spec.kind == "quantile" else "{:.3f}"
    has_low, has_high = result.bounded
    smallest, largest = result.observed or ci
    low = shown.format(ci[0]) if has_low else "< " + shown.format(smallest)
    high = shown.format(ci[1]) if has_high else "> " + shown.format(largest)
    return f"[{low}, {high}]"


def _threshold_rows(card: Scorecard) -> list[str]:
    rows = [
        "| Measure | Threshold (set before the run) | Result | Must-pass | Status | Reason "
        "| Owner |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in card.decision.results:
        t = r.threshold
        status = status_text(_STATUS[r.status], r.note)
        rows.append(
            f"| `{t.measure}` | {t.comparison} {t.value:g} | {format_value(r.result)} | "
            f"{'yes' if t.type == 'must-pass' else 'no'} | {status} | {_cell(t.reason)} | "
            f"{_cell(t.owner)} |"
        )
    return rows


def _metric_rows(card: Scorecard) -> list[str]:
    rows = ["| Layer | Measure | Result | Better | Evidence |", "|---|---|---|---|---|"]
    layers = {name: spec.layer for name, spec in card.specs.items()}
    for row in measure_rows(card.metrics, layers, card.same_as):
        spec = card.specs[row.name]
        better = "higher" if spec.higher_is_better else "lower"
        names = " = ".join(f"`{name}`" for name in (row.name, *row.same))
        evidence = _cell(spec.description)
        if row.same:
            evidence += " (" + ", ".join(
                f"`{twin}`: {_cell(card.specs[twin].description)}" for twin in row.same
            ) + "; the same items with the same verdicts, so one row)"
        cells = [spec.layer, names, format_value(row.result), better, evidence]
        rows.append("| " + " | ".join(cells) + " |")
    return rows


def _split_rows(card: Scorecard) -> list[str]:
    layers = {name: spec.layer for name, spec in card.specs.items()}
    splits = list(card.splits)
    rows = ["| Measure | " + " | ".join(splits) + " |", "|---|" + "---|" * len(splits)]
    for row in measure_rows(card.metrics, layers, card.same_as):
        if not isinstance(row.result, MetricValue):
            continue
        cells = [format_value(card.splits[s].get(row.name)) for s in splits]
        names = " = ".join(f"`{name}`" for name in (row.name, *row.same))
        rows.append(f"| {names} | " + " | ".join(cells) + " |")
    return rows


def _header(card: Scorecard) -> list[str]:
    h = card.header
    cfg = card.config
    lines = [
        f"# ragcard scorecard — {h.get('project', '')}",
        "",
        f"**Decision: {card.decision.decision.upper()}**"
        + ("" if card.decision.decision == "ship" else " — " + "; ".join(card.decision.reasons)),
        "",
        *_override_lines(h.get("override")),
        "| | |",
        "|---|---|",
        f"| Date | {h.get('created_at', '')} (run date {cfg.get('run', {}).get('run_date', '')}) |",
        f"| Kit | {h.get('kit', '')} |",
    ]
    corpus = cfg.get("corpus", {})
    questions = cfg.get("questions", {})
    agent = cfg.get("agent", {})
    lines += [
        f"| Corpus version | {corpus.get('version')} ({corpus.get('passages')} passages, "
        f"sha256 {str(corpus.get('sha256', ''))[:12]}) |",
        f"| Question set | n={questions.get('n')}, version {questions.get('version')} "
        f"(sha256 {str(questions.get('sha256', ''))[:12]}) |",
        f"| Agent | {_cell(agent.get('name'))} · model {_cell(agent.get('model'))} · prompt "
        f"{_cell(agent.get('prompt_version'))} |",
        *_setting_rows(agent),
        f"| Judge | {_cell(judge_summary(cfg.get('judge', {})))} |",
        f"| Thresholds | {cfg.get('thresholds', {}).get('path')} (sha256 "
        f"{str(cfg.get('thresholds', {}).get('sha256', ''))[:12]}) |",
        f"| Attempts per item | {cfg.get('run', {}).get('attempts')} (must-pass: worst attempt; "
        "graded: mean) |",
        *_redteam_row(card),
        f"| ragcard | {h.get('ragcard_version')} |",
        f"| Signed | {h.get('signed') or 'not signed'} |",
    ]
    if "κ" in judge_summary(cfg.get("judge", {})):
        scale = ", ".join(f"≤ {upper:.2f} {word}" for upper, word in KAPPA_SCALE)
        lines += ["", f"κ in words ({KAPPA_SOURCE}): below 0 poor, {scale}."]
    return lines


def _setting_rows(agent: dict[str, Any]) -> list[str]:
    """The agent's options (faults…), embeddings and index, each as one plain line."""
    rows = []
    for label, key in (("Agent options", "options"), ("Embeddings", "embeddings"),
                       ("Index", "index")):  # fmt: skip
        value = agent.get(key)
        if key == "options" and isinstance(value, dict):  # the corpus path is shown above
            value = {k: v for k, v in value.items() if k != "corpus"}
        if value not in (None, "", {}, []):
            rows.append(f"| {label} | {_cell(plain_settings(value))} |")
    return rows


def _redteam_row(card: Scorecard) -> list[str]:
    """"Red team: attempts · findings (critical open)", when the run has red-team measures."""
    line = summary_line({n: m.to_json() for n, m in card.metrics.items()
                         if isinstance(m, MetricValue)})  # fmt: skip
    if line is None:
        return []
    block = card.config.get("redteam", {})
    run, extraction = block.get("run"), block.get("extraction")
    text = line.split(": ", 1)[1] + (f" — run {run}" if run else "")
    if extraction:  # a verbatim system prompt is caught only when it reads like one
        text += f"; instruction extraction {extraction}"
    return [f"| Red team | {_cell(text)} |"]


def judge_summary(judge: dict[str, Any]) -> str:
    """The judge, its settings and how it agrees with people — on every scorecard using it."""
    name = judge.get("name", "none")
    if name == "none":
        return f"none — {judge.get('note', '')}"
    parts = [name]
    if judge.get("model"):
        parts.append(f"model {judge['model']}")
    if judge.get("prompt_version"):
        parts.append(f"prompt {judge['prompt_version']}")
    if judge.get("threshold") is not None:
        parts.append(f"threshold {judge['threshold']:g}")
    calibration = judge.get("calibration")
    parts.append(
        calibration["per_dataset"].split(" · ", 1)[-1]
        if calibration
        else "UNCALIBRATED: no measurement against human labels"
    )
    correctness = judge.get("correctness_calibration")
    if correctness:  # its correctness verdicts against a careful reader's
        parts.append(str(correctness.get("line")))
    own = judge.get("own_labels")
    if own:  # against the team's own labels (ragcard review queue → import)
        parts.append(str(own.get("line")))
    tasks = judge.get("tasks")
    if tasks:  # the yes/no questions it also answers, and how (not covered by the calibration)
        parts.append("also judges " + "; ".join(f"{t}: {how}" for t, how in tasks.items()))
    if judge.get("failures"):
        parts.append(f"{judge['failures']} judge failure(s)")
    return " · ".join(parts)


def _override_lines(override: dict[str, Any] | None) -> list[str]:
    """A loosening of locked thresholds, shown in red wherever the scorecard goes."""
    if not override:
        return []
    lines = [
        f"🔴 **THRESHOLDS LOOSENED AFTER THEY WERE LOCKED** — by {_cell(override['by'])}: "
        f"“{_cell(override['reason'])}”",
        "",
    ]
    lines += [f"- 🔴 `{f['measure']}`: {f['change']}" for f in override["loosened"]]
    return [*lines, ""]


_SOURCES = {
    "field": "the agent's `abstained` field",
    "flag": "a raised flag",
    "judge": "the judge, from the answer text",
    "phrases": "refusal phrases in the answer text",
}


def _abstention_source_line(card: Scorecard) -> list[str]:
    """Which source decided, attempt by attempt, whether the agent abstained."""
    if not card.abstention_sources:
        return []
    judge = card.config.get("judge", {}).get("name")
    parts = [
        f"{_SOURCES.get(source, source)}"
        + (f" ({judge})" if source == "judge" and judge else "")
        + f": {n}"
        for source, n in card.abstention_sources.items()
    ]
    return ["", "Abstention decided by — " + " · ".join(parts) + " (attempts)."]


def _diagnosis_rows(causes: list[dict[str, Any]]) -> list[str]:
    if not causes:
        return ["No failing item."]
    rows = [
        "| Layer | Likely cause | Items | Attempts | Symptoms | Try | Examples |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in causes:
        symptoms = "; ".join(f"{s} ({n})" for s, n in c["symptoms"].items())
        rows.append(
            f"| {c['layer']} | {c['cause']} | {c['items']} | {c['attempts']} | "
            f"{symptoms} | {c['try']} | {', '.join(c['examples'])} |"
        )
    return rows


def _failing_count(card: Scorecard) -> list[str]:
    """How many items fail, how many of them are must-pass, and why that is not
    ``must_pass_zeros``: the two count different things (docs/metrics.md)."""
    must = sum(1 for f in card.failures if f["must_pass"])
    line = f"{len(card.failures)} failing item(s), {must} of them must-pass."
    zeros = card.metrics.get("must_pass_zeros")
    if isinstance(zeros, MetricValue) and zeros.value != must:
        line += (f" `must_pass_zeros` is {zeros.value:g}: it counts only the must-pass items "
                 "with an attempt at rubric level 0 (or a failed attempt), while an item fails "
                 "here when an attempt is below level 2 — a level-1 answer fails its item "
                 "without being a zero.")
    return [line]


def _failure_rows(failures: list[dict[str, Any]], limit: int = 200) -> list[str]:
    if not failures:
        return []
    rows = ["| Item | Category | Must-pass | Failed attempts | Symptoms |", "|---|---|---|---|---|"]
    for f in failures[:limit]:
        rows.append(
            f"| {f['item']} | {f['category']} | {'yes' if f['must_pass'] else ''} | "
            f"{', '.join(map(str, f['failed_attempts']))} | {'; '.join(f['symptoms'])} |"
        )
    if len(failures) > limit:
        rows.append(f"| … {len(failures) - limit} more in results.jsonl | | | | |")
    return rows


def _flaky_rows(flaky: list[dict[str, Any]]) -> list[str]:
    attempts = sorted({n for row in flaky for n in row["attempts"]}, key=int)
    rows = [
        "| Item | Category | Must-pass | " + " | ".join(f"Attempt {n}" for n in attempts) + " |",
        "|---|---|---|" + "---|" * len(attempts),
    ]
    for row in flaky:
        cells = [_cell(row["attempts"].get(n)) for n in attempts]
        rows.append(
            f"| {row['item']} | {row['category']} | {'yes' if row['must_pass'] else ''} | "
            + " | ".join(cells)
            + " |"
        )
    return rows


def _leak_table(leaks: list[dict[str, Any]]) -> list[str]:
    """Each leak with its evidence (docs/metrics.md#measures): passage ids, channels, who may see
    the passage,
    and for reproduced content the counts and a hash of what matched — never its text."""
    rows = [
        "| Item | Attempts | Passage | Channels | Access | Content match |",
        "|---|---|---|---|---|---|",
    ]
    for leak in leaks:
        for passage in leak["passages"]:
            match = ""
            if "match_sha256" in passage:
                match = (f"{passage.get('shared_ngrams', 0)} shared 8-word runs, "
                         f"{passage.get('restricted_figures', 0)} figures, "
                         f"sha256 {passage['match_sha256']}")
            cells = [leak["item"], ", ".join(map(str, leak["attempts"])), passage["id"],
                     ", ".join(passage.get("channels", [])),
                     ", ".join(passage.get("access") or []), match]
            rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return rows


def render_markdown(card: Scorecard) -> str:
    """The whole scorecard as Markdown."""
    out = _header(card)
    out += ["", "## Thresholds", "", *_threshold_rows(card)]
    out += [
        "",
        "## All measures",
        "",
        "Rates carry a 95% Wilson interval, means a 95% "
        "bootstrap interval over items, latencies an order-statistic interval. A measure "
        "that could not be computed says why; it is never shown as 0.",
        "",
        *_metric_rows(card),
        *_abstention_source_line(card),
    ]
    for name, by_label in card.breakdowns.items():
        if len(by_label) > 1:  # one label only: the measure itself, already a row above
            out += ["", f"### `{name}` by label", "", "| Label | Result |", "|---|---|"]
            out += [f"| {label} | {format_value(r)} |" for label, r in by_label.items()]
    if len(card.splits) > 1:
        out += ["", "## Dev and held-out, separately", "", *_split_rows(card)]
    out += [
        "",
        "## Categories",
        "",
        "| Category | Items | Failing items | Answers correct | Answers wrong | Note |",
        "|---|---|---|---|---|---|",
    ]
    small = "fewer than 20 items: one failure moves the rate by more than 5 points"
    out += [
        f"| {c['category']} | {c['items']} | {c['failing_items']} | "
        f"{_share_cell(c.get('answer_correctness'))} | {_share_cell(c.get('answer_wrong'))} | "
        f"{small if c['below_20'] else ''} |"
        for c in card.categories
    ]
    out += ["", "## Failures by likely cause", "", *_diagnosis_rows(card.causes)]
    errors = card.errors
    if errors["attempts"]:
        kinds = ", ".join(f"{k}: {n}" for k, n in errors["by_kind"].items())
        out += [
            "",
            f"**Agent errors:** {errors['attempts']} of {errors['total_attempts']} "
            f"item-attempts failed ({kinds}); they are excluded from the measures above and "
            "count as failures of their items.",
            *([""] if errors.get("messages") else []),
            *(f"- {n} × {_cell(message)}" for message, n in errors.get("messages", [])),
        ]
    if card.flaky:
        out += [
            "",
            "## Flaky items",
            "",
            "The verdict differs across attempts; must-pass checks use the worst attempt.",
            "",
            *_flaky_rows(card.flaky),
        ]
    if card.leaks:
        out += ["", "## Access leaks", "", *_leak_table(card.leaks)]
    if card.failures:
        out += ["", "## Failing items", "", *_failing_count(card), ""]
        out += _failure_rows(card.failures)
    out += header_sections(card.header)  # label amendments, blind review
    out += [
        "",
        "Leak evidence lists passage ids, channels and hashes only; restricted text is "
        "redacted from this report.",
        "",
    ]
    return "\n".join(out)
