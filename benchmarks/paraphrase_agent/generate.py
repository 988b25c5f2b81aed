"""A paraphrasing LLM agent over the bundled handbook, for calibrating the judges on answers
written in an agent's own words (benchmarks/README.md, "A paraphrasing agent").

The agent: the reference agent's retrieval (hybrid BM25 + MiniLM, filtered by the asker's
role and the passages in force) picks the top 3 passages; a local Qwen2.5-Coder-1.5B
(llama-cpp-python, ``ragcard judges install-local --model qwen2.5-coder-1.5b``) answers from
them "in your own words", citing passage ids inline. Greedy decoding, fixed seed: the same
machine gives the same answers.

Writes one responses line per question (``--out``, default
``benchmarks/paraphrase_agent/responses.jsonl``), the form ``ragcard score --responses`` reads;
answers already in the file are kept (an interrupted run resumes).

    .venv/bin/python benchmarks/paraphrase_agent/generate.py --limit 120
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "examples" / "handbook"
OUT = Path(__file__).with_name("responses.jsonl")
RUN_DATE = "2026-06-01"
K = 3

SYSTEM = (
    "You are the Northwind staff handbook assistant. Answer the employee's question using only "
    "the numbered handbook passages given. Answer in your own words: do not copy sentences "
    "from the passages. Write one to three short sentences. End each sentence with the id of "
    "the passage it comes from in square brackets, e.g. [annual-leave@2025#1.1]. If the "
    "passages do not answer the question, say that the handbook does not cover it."
)


def _prompt(question: str, passages: list[dict[str, Any]]) -> list[dict[str, str]]:
    shown = "\n\n".join(f"[{p['id']}] {p['text']}" for p in passages)
    user = f"Passages:\n\n{shown}\n\nQuestion: {question}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=120, help="questions to answer")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    try:
        from llama_cpp import Llama
    except ImportError:
        print("needs llama-cpp-python: pip install 'ragcard[local]'", file=sys.stderr)
        return 2
    from ragcard.inputs.corpus import load_corpus
    from ragcard.inputs.questions import load_questions
    from ragcard.judges.models import find_model
    from ragcard.reference import build_agent

    model = find_model("qwen2.5-coder-1.5b")
    if model is None:
        print("install the model: ragcard judges install-local --model qwen2.5-coder-1.5b",
              file=sys.stderr)  # fmt: skip
        return 2
    corpus = load_corpus(HANDBOOK / "corpus.jsonl")
    by_id = {p.id: p for p in corpus}
    questions = [q for q in load_questions(HANDBOOK / "questions.jsonl").questions
                 if q.is_answerable and q.expected_answer][: args.limit]  # fmt: skip
    agent = build_agent(corpus, today=RUN_DATE)
    done = set()
    if args.out.exists():
        done = {json.loads(line)["item"] for line in args.out.read_text().splitlines() if line}
    llama = Llama(model_path=str(model), n_ctx=4096, n_threads=args.threads,
                  n_threads_batch=args.threads, seed=0, verbose=False)  # fmt: skip
    with args.out.open("a", encoding="utf-8") as out:
        for number, question in enumerate(questions, 1):
            if question.id in done:
                continue
            request = {"question": question.question, "asker": question.asker}
            retrieved = [entry["id"] for entry in agent.retrieve(request)][:K]
            passages = [{"id": pid, "text": by_id[pid].text} for pid in retrieved]
            started = time.monotonic()
            reply = llama.create_chat_completion(
                messages=_prompt(question.question, passages), temperature=0.0, seed=0,
                max_tokens=160,
            )  # fmt: skip
            answer = str(reply["choices"][0]["message"]["content"]).strip()
            line = {
                "item": question.id, "attempt": 1, "answer": answer, "retrieved": retrieved,
                "latency_ms": round((time.monotonic() - started) * 1000),
                "meta": {"agent": "qwen2.5-coder-1.5b paraphrasing, k=3",
                         "answer_sha256": hashlib.sha256(answer.encode()).hexdigest()},
            }  # fmt: skip
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
            out.flush()
            print(f"{number}/{len(questions)} {question.id}: {answer[:90]!r}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
