"""Reading packets for the blind labelling of the paraphrasing agent's answers.

Each packet shows what a careful reader needs and nothing a judge said: the question, the
expected answer, the gold passages, the passages the agent retrieved, and the answer split
into the sentences ragcard judges (``AgentResponse.sentences()``, so a sentence label lines up with
the judge's verdict on it). Answers already labelled are skipped.

    .venv/bin/python benchmarks/paraphrase_agent/packets.py --max 20 > /tmp/packet.md

The reader then appends one line per answer to ``reader_labels.jsonl`` (format in
``benchmarks/README.md``, "A paraphrasing agent").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
HANDBOOK = ROOT / "examples" / "handbook"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max", type=int, default=20)
    parser.add_argument("--responses", type=Path, default=HERE / "responses.jsonl")
    parser.add_argument("--labels", type=Path, default=HERE / "reader_labels.jsonl")
    args = parser.parse_args()
    from ragcard.inputs.corpus import load_corpus
    from ragcard.inputs.questions import load_questions
    from ragcard.inputs.responses import AgentResponse
    from ragcard.metrics._text import states_something

    corpus = load_corpus(HANDBOOK / "corpus.jsonl")
    questions = load_questions(HANDBOOK / "questions.jsonl").by_id()
    labelled = set()
    if args.labels.exists():
        labelled = {json.loads(x)["item"] for x in args.labels.read_text().splitlines() if x}
    shown = 0
    for raw in args.responses.read_text(encoding="utf-8").splitlines():
        line = json.loads(raw)
        if line["item"] in labelled or shown >= args.max:
            continue
        shown += 1
        question = questions[line["item"]]
        response = AgentResponse.model_validate(line)
        gold = [g.id for g in question.gold]
        print(f"## {line['item']} (asker: {question.asker})\n")
        print(f"**Question:** {question.question}\n")
        print(f"**Expected answer:** {question.expected_answer}\n")
        for pid in dict.fromkeys([*gold, *line.get("retrieved", [])]):
            passage = corpus.get(str(pid))
            if passage is not None:
                tag = "gold" if pid in gold else "retrieved"
                print(f"- ({tag}) `{pid}`: {passage.text}")
        print(f"\n**Answer:** {line['answer']}\n")
        claims = [s for s in response.sentences() if states_something(s)]
        for number, sentence in enumerate(claims):
            print(f"  {number}. {sentence}")
        print(f"\nanswer_sha256: {line['meta']['answer_sha256']}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
