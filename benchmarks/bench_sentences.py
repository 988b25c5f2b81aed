"""ragcard's one sentence splitter against the splitters it replaced, pysbd and syntok.

* **Agreement** on the fixture of hard cases (``tests/fixtures/sentences/hard_cases.jsonl``:
  abbreviations, decimals, currency, initials, quotes, lists, citation markers, punctuation):
  cases split exactly as expected (whitespace inside a sentence normalised for every
  splitter, since pysbd and syntok rewrite line breaks), and cases split as ragcard splits.
* **Speed**: answers a second over ``--answers`` synthetic answers (``bench_score``'s generator:
  2–4 sentences, one quoting a passage, amounts and percentages), best of ``--repeat``, in
  process CPU time; each peer's ratio to ragcard.
* **Bundled corpora**: passages of ``examples/*/corpus.jsonl`` that the answer splitter of
  ``--before-rev`` split differently, with the first few.

"Before" is ``ragcard.responses.split_sentences`` (answers; ``ragcard.inputs.responses`` now) and
``ragcard.judges.lexical.split_sentences`` (passages, the judges) as they were at
``--before-rev`` (git; the commit before issue 16 by default). pysbd 0.3.4 and syntok 1.4.4 are
in the ``bench`` extra only (``pip install -e '.[bench]'``); a peer that is not installed is
skipped, saying so.

    nice -n 10 .venv/bin/python benchmarks/bench_sentences.py

Writes ``benchmarks/results/sentences.json``. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_score  # noqa: E402  (the synthetic generator shared with the score benchmark)
from _before import load_before  # noqa: E402  (benchmarks/_before.py)

RESULTS = HERE / "results" / "sentences.json"
FIXTURE = ROOT / "tests" / "fixtures" / "sentences" / "hard_cases.jsonl"
BEFORE_REV = "89cca6f"  # main before issue 16: three splitters
Splitter = Callable[[str], list[str]]


def old_module(rev: str, path: str, name: str) -> Any:
    """A ragcard module as it was at git revision ``rev`` (its imports are today's)."""
    return load_before(rev, path, name)


def splitters(rev: str) -> tuple[dict[str, Splitter], list[str]]:
    from ragcard._sentences import split_sentences

    answers = old_module(rev, "src/ragcard/responses.py", "responses_before").split_sentences
    lexical = old_module(rev, "src/ragcard/judges/lexical.py", "lexical_before").split_sentences
    found: dict[str, Splitter] = {
        "ragcard": split_sentences,
        "ragcard before (answers)": answers,
        "ragcard before (lexical judge)": lambda t: [t[a:b] for a, b in lexical(t)],
    }
    skipped = []
    try:
        import pysbd  # type: ignore[import-untyped]

        segmenter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd 0.3.4"] = lambda t: [s.strip() for s in segmenter.segment(t) if s.strip()]
    except ImportError:
        skipped.append("pysbd (pip install -e '.[bench]')")
    try:
        from syntok import segmenter as syntok  # type: ignore[import-untyped]

        def split_syntok(text: str) -> list[str]:
            return [
                "".join(token.spacing + token.value for token in sentence).strip()
                for paragraph in syntok.process(text)
                for sentence in paragraph
            ]

        found["syntok 1.4.4"] = split_syntok
    except ImportError:
        skipped.append("syntok (pip install -e '.[bench]')")
    return found, skipped


def normalised(sentences: list[str]) -> list[str]:
    return [" ".join(s.split()) for s in sentences if s.strip()]


def agreement(found: dict[str, Splitter]) -> dict[str, Any]:
    cases = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    ours = found["ragcard"]
    table: dict[str, Any] = {}
    for name, split in found.items():
        right, same, misses = 0, 0, []
        for case in cases:
            got = normalised(split(case["text"]))
            right += got == normalised(case["sentences"])
            same += got == normalised(ours(case["text"]))
            if got != normalised(case["sentences"]):
                misses.append({"kind": case["kind"], "text": case["text"], "got": got})
        table[name] = {"right": right, "cases": len(cases), "same_as_ragcard": same,
                       "misses": misses}  # fmt: skip
    return table


def answers(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    words = bench_score.Words(rng)
    project = bench_score.Project(bench_score.make_corpus(rng, words, 500))
    texts: list[str] = []
    number = 0
    while len(texts) < count:
        number += 1
        question = bench_score.make_question(rng, words, project, number)
        response = bench_score.make_response(rng, words, project, question, 1)
        texts.append(response["answer"])
    return texts


def speed(found: dict[str, Splitter], texts: list[str], repeat: int) -> dict[str, Any]:
    table: dict[str, Any] = {}
    for name, split in found.items():
        best = float("inf")
        for _ in range(repeat):
            start = time.process_time()
            for text in texts:
                split(text)
            best = min(best, time.process_time() - start)
        table[name] = {"answers_per_s": round(len(texts) / best), "cpu_s": round(best, 4)}
    ours = table["ragcard"]["answers_per_s"]
    for row in table.values():
        row["ratio_to_ragcard"] = round(row["answers_per_s"] / ours, 4)
    return table


def corpora(found: dict[str, Splitter]) -> dict[str, Any]:
    before, now = found["ragcard before (answers)"], found["ragcard"]
    changed, total = [], 0
    for path in sorted((ROOT / "examples").glob("*/corpus.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            passage = json.loads(line)
            total += 1
            if before(passage["text"]) != now(passage["text"]):
                changed.append({"corpus": path.parent.name, "id": passage["id"],
                                "before": before(passage["text"]),
                                "now": now(passage["text"])})  # fmt: skip
    return {"passages": total, "split_differently": len(changed), "examples": changed[:6]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--before-rev", default=BEFORE_REV)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args()
    found, skipped = splitters(args.before_rev)
    for name in skipped:
        print(f"skipped {name}: not installed")
    report: dict[str, Any] = {"agreement": agreement(found)}
    for name, row in report["agreement"].items():
        print(f"{name:32} {row['right']:>2}/{row['cases']} cases right, "
              f"{row['same_as_ragcard']:>2} split as ragcard splits")  # fmt: skip
    texts = answers(args.answers, args.seed)
    report["speed"] = speed(found, texts, args.repeat)
    for name, row in report["speed"].items():
        print(f"{name:32} {row['answers_per_s']:>9,} answers/s  "
              f"({row['ratio_to_ragcard']:.3f}x ragcard)")  # fmt: skip
    report["corpora"] = corpora(found)
    print(f"bundled corpora: {report['corpora']['split_differently']} of "
          f"{report['corpora']['passages']} passages split differently than before")  # fmt: skip
    report.update(
        skipped=skipped,
        command=" ".join([Path(sys.executable).name, *sys.argv]),
        options=vars(args),
        machine={"cores": os.cpu_count(), "platform": platform.platform(),
                 "python": sys.version.split()[0], "load": os.getloadavg()},
        commit=bench_score.provenance(),
    )  # fmt: skip
    Path(args.out).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
