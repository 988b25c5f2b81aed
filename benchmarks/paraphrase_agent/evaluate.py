"""The offline judges against a careful reader's blind labels of a paraphrasing agent's answers.

Reads ``responses.jsonl`` (written by ``generate.py``) and ``reader_labels.jsonl`` (one line
per answer, written while reading ``packets.py``'s packets, before any grade was seen), scores
the labelled answers with ``ragcard score``'s code under each offline judge, and prints, on
the handbook's held-out questions (``split = "heldout"``) and on the rest:

* pass/fail agreement with the reader (an item passes at rubric level 2 or above; the reader's
  ``reader_pass`` says whether a careful reader would pass it);
* wrong answers passed (the reader graded ``wrong``, the judge passed it) and false fails
  (the reader passes it, the judge fails it), by id;
* faithfulness: the mean share of supported claim sentences, the judge's beside the reader's;
* reworded supported sentences the judge calls unsupported (its false alarms).

A label is kept with the sha256 of the answer it labels: a label whose answer has changed is
stale, left out of every figure and listed.

    .venv/bin/python benchmarks/paraphrase_agent/evaluate.py [--judge ensemble] [--json OUT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
HANDBOOK = ROOT / "examples" / "handbook"
RUN_DATE = dt.date(2026, 6, 1)
THRESHOLDS = """
[[threshold]]
measure = "faithfulness"
comparison = ">="
value = 0.9
type = "graded"
reason = "calibration run"

[evidence]
min_items = 1
reason = "a calibration subset, not a release decision"
"""


def load_labels(
    labels: Path, responses: Sequence[dict[str, Any]]
) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Labels by item whose answer is unchanged, and the ids of the stale ones."""
    answers = {line["item"]: line["answer"] for line in responses}
    kept: dict[str, dict[str, Any]] = {}
    stale = []
    for raw in labels.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        label = json.loads(raw)
        answer = answers.get(label["item"])
        digest = hashlib.sha256(answer.encode()).hexdigest() if answer is not None else None
        if digest != label["answer_sha256"]:
            stale.append(label["item"])
        else:
            kept[label["item"]] = label
    return kept, stale


def _score(judge_name: str, items: list[str], responses: list[dict[str, Any]], tmp: Path
           ) -> dict[str, dict[str, Any]]:  # fmt: skip
    from ragcard.judges import build_judge
    from ragcard.pipeline.evaluation import load_inputs, score_responses

    wanted = set(items)
    questions = [json.loads(x) for x in (HANDBOOK / "questions.jsonl").read_text().splitlines()]
    (tmp / "questions.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in questions if q["id"] in wanted)
    )
    (tmp / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in responses if r["item"] in wanted)
    )
    (tmp / "thresholds.toml").write_text(THRESHOLDS)
    corpus = HANDBOOK / "corpus.jsonl"
    inputs = load_inputs(tmp / "questions.jsonl", corpus, tmp / "thresholds.toml")
    judge = build_judge({"backend": judge_name})
    try:
        result = score_responses(inputs, tmp / "responses.jsonl", tmp / judge_name,
                                 run_date=RUN_DATE, judge=judge)  # fmt: skip
    finally:
        close = getattr(judge, "close", None)
        if callable(close):
            close()
    lines = [json.loads(x) for x in result.results_path.read_text().splitlines()]
    return {line["item"]: line for line in lines}


def figures(labels: dict[str, dict[str, Any]], scored: dict[str, dict[str, Any]],
            items: list[str]) -> dict[str, Any]:  # fmt: skip
    """The agreement figures over ``items``."""
    agree, wrong_passed, false_fails = 0, [], []
    judge_faith, reader_faith = [], []
    reworded, alarms = 0, []
    for item in items:
        label, line = labels[item], scored[item]
        judge_pass, reader_pass = bool(line["passed"]), bool(label["reader_pass"])
        agree += judge_pass == reader_pass
        if judge_pass and label["grade"] == "wrong":
            wrong_passed.append(item)
        if reader_pass and not judge_pass:
            false_fails.append(item)
        said = label.get("sentences") or []
        if said:
            reader_faith.append(sum(said) / len(said))
            if "faithfulness" in line["scores"]:
                judge_faith.append(line["scores"]["faithfulness"])
            unsupported = set(line["evidence"].get("unsupported_sentences", []))
            claims = _claim_indices(line)
            for number, supported in enumerate(said):
                if supported and number < len(claims):
                    reworded += 1
                    if claims[number] in unsupported:
                        alarms.append(f"{item}#{number}")
    n = len(items)
    return {
        "n": n,
        "pass_agreement": round(agree / n, 4) if n else None,
        "wrong_passed": wrong_passed,
        "false_fails": false_fails,
        "reader_passes": sum(bool(labels[i]["reader_pass"]) for i in items),
        "faithfulness_judge": _mean(judge_faith),
        "faithfulness_reader": _mean(reader_faith),
        "supported_sentences": reworded,
        "supported_called_unsupported": alarms,
    }  # fmt: skip


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _claim_indices(line: dict[str, Any]) -> list[int]:
    """Indices (in the judge's sentence list) of the sentences that state something: the
    reader labels those only, in the same order."""
    from ragcard.inputs.responses import AgentResponse
    from ragcard.metrics._text import states_something

    sentences = AgentResponse.model_validate(line["response"]).sentences()
    return [i for i, text in enumerate(sentences) if states_something(text)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--judge", action="append", help="offline judge(s); default all three")
    parser.add_argument("--responses", type=Path, default=HERE / "responses.jsonl")
    parser.add_argument("--labels", type=Path, default=HERE / "reader_labels.jsonl")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if not args.labels.exists():
        print(f"no labels at {args.labels}: label with packets.py first", file=sys.stderr)
        return 2
    responses = [json.loads(x) for x in args.responses.read_text().splitlines() if x]
    labels, stale = load_labels(args.labels, responses)
    from ragcard.inputs.questions import load_questions

    split = {q.id: q.split for q in load_questions(HANDBOOK / "questions.jsonl").questions}
    items = sorted(labels)
    parts = {"heldout": [i for i in items if split.get(i) == "heldout"],
             "dev": [i for i in items if split.get(i) != "heldout"]}  # fmt: skip
    report: dict[str, Any] = {"labels": len(labels), "stale_left_out": stale, "judges": {}}
    with tempfile.TemporaryDirectory() as folder:
        for name in args.judge or ["ensemble", "lexical", "embedding"]:
            scored = _score(name, items, responses, Path(folder))
            report["judges"][name] = {part: figures(labels, scored, ids)
                                      for part, ids in parts.items()}  # fmt: skip
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
