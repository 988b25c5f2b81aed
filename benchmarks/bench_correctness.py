"""Issue-15 targets for the offline judges: right answers kept, wrong values caught, readers agreed
with, and speed.

1. **Grounded human answers** — CLAPNQ dev's 300 answerable questions, each first human answer
   (written from its own gold passage) split into sentences as ragcard splits answers and
   judged against that passage, as faithfulness judges an answer: the share of sentences
   called unsupported (target: at most 3%).
2. **One figure changed** — the same answers that state a number, date or amount, with one of
   them changed (seeded: a digit value +1..+3, a number word to the next one, a year +1..+3):
   the share of answers whose changed sentence is called unsupported (target: at least 95%).
3. **A careful reader** — the judge's correctness grades on ``demo-correctness`` (the bundled
   demo's answers, read one by one; ``judges/metaeval/data/README.md``): grade and pass/fail
   agreement, and the wrong answers it would pass (target: 90%, none).
4. **Speed** — answers judged a second on CLAPNQ (each answer's sentences against its passage,
   one judge instance for the run), and the seconds of the whole demo.

Reads ``../shared/data/clapnq`` and skips parts 1, 2 and 4 with a message when it is absent::

    nice -n 10 .venv/bin/python benchmarks/bench_correctness.py --judge lexical --judge ensemble
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ragcard.inputs.responses import AgentResponse
from ragcard.judges import build_judge
from ragcard.judges.base import Evidence, Judge, JudgeContext
from ragcard.judges.metaeval.correctness import evaluate_correctness, load_correctness

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "clapnq" / "clapnq_dev_answerable.jsonl"
RESULTS = ROOT / "benchmarks" / "results" / "correctness.json"

_NUMBER_WORDS = "one two three four five six seven eight nine ten eleven twelve".split()
_FIGURE = re.compile(
    r"\b(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)\b|\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I
)


def load_answers() -> list[tuple[str, str, str]]:
    """(question, passage text, first human answer) per answerable CLAPNQ dev question."""
    rows = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        answer = record["output"][0]["answer"].strip()
        if answer:
            rows.append((record["input"], record["passages"][0]["text"], answer))
    return rows


def change_one_figure(answer: str, rng: random.Random) -> tuple[str, int] | None:
    """``answer`` with one figure changed, and the index of its sentence; None without one."""
    sentences = AgentResponse(answer=answer).sentences()
    candidates = [(i, m) for i, s in enumerate(sentences) for m in _FIGURE.finditer(s)]
    if not candidates:
        return None
    index, match = rng.choice(candidates)
    sentence = sentences[index]
    if match.group(1):
        raw = match.group(1).replace(",", "")
        number = float(raw)
        step = rng.randint(1, 3)
        new = str(int(number) + step) if raw.isdigit() else f"{number + step:g}"
    else:
        word = match.group(2).lower()
        new = _NUMBER_WORDS[(_NUMBER_WORDS.index(word) + 1) % len(_NUMBER_WORDS)]
    changed = sentence[: match.start()] + new + sentence[match.end() :]
    return " ".join([*sentences[:index], changed, *sentences[index + 1 :]]), index


async def judge_sentences(judge: Judge, question: str, passage: str, answer: str) -> list[bool]:
    """Each sentence's support by the passage, as faithfulness asks it."""
    sentences = tuple(AgentResponse(answer=answer).sentences())
    verdicts = await judge.judge(JudgeContext(sentences, (Evidence("gold", passage),), question))
    return [v.supported for v in verdicts]


def grounded(judge: Judge, rows: list[tuple[str, str, str]]) -> dict[str, Any]:
    async def run() -> list[list[bool]]:
        return [await judge_sentences(judge, q, p, a) for q, p, a in rows]

    started, cpu = time.perf_counter(), time.process_time()
    results = asyncio.run(run())
    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu
    sentences = sum(len(r) for r in results)
    unsupported = sum(r.count(False) for r in results)
    return {
        "answers": len(rows),
        "sentences": sentences,
        "unsupported_sentences": unsupported,
        "unsupported_share": unsupported / sentences,
        "answers_with_an_unsupported_sentence": sum(1 for r in results if not all(r)),
        "seconds": round(seconds, 2),
        "cpu_seconds": round(cpu_seconds, 2),
        "answers_per_second": round(len(rows) / seconds, 2),
    }


def changed(judge: Judge, rows: list[tuple[str, str, str]], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    cases = []
    for question, passage, answer in rows:
        made = change_one_figure(answer, rng)
        if made is not None:
            cases.append((question, passage, *made))

    async def run() -> list[bool]:
        caught = []
        for question, passage, text, index in cases:
            verdicts = await judge_sentences(judge, question, passage, text)
            caught.append(index < len(verdicts) and not verdicts[index])
        return caught

    caught = asyncio.run(run())
    return {"answers": len(cases), "caught": sum(caught), "caught_share": sum(caught) / len(cases)}


def reader(judge: Judge) -> dict[str, Any]:
    title, examples = load_correctness("demo-correctness")
    evaluation = evaluate_correctness(judge, title, examples)
    out = {}
    for report in evaluation.reports:
        accuracy, passing = report.accuracy(), report.pass_accuracy()
        if accuracy is None or passing is None:
            continue
        out[report.name] = {
            "n": report.n,
            "grade_agreement": round(accuracy[0], 4),
            "grade_ci": [round(x, 4) for x in accuracy[1]],
            "kappa": None if report.kappa is None else round(report.kappa, 4),
            "pass_agreement": round(passing[0], 4),
            "pass_ci": [round(x, 4) for x in passing[1]],
            "wrong_passing": list(report.wrong_passing),
        }
    return out


def demo_seconds() -> dict[str, Any]:
    """The whole handbook demo (agent, judge, scorecard) in a fresh process, twice: on an empty
    vector cache (a first run on a new machine), then on the cache that run filled."""
    root = Path(os.environ.get("TMPDIR", "/tmp")) / "bench-correctness-demo"
    shutil.rmtree(root, ignore_errors=True)
    timings: dict[str, Any] = {}
    for run in ("cold", "warm"):
        out = root / run
        out.mkdir(parents=True)
        command = [sys.executable, "-m", "ragcard", "run", "examples/handbook", "--fresh",
                   "--out", str(out), "--eval-dir", str(out / "eval"), "--db",
                   f"sqlite:///{out}/history.sqlite"]  # fmt: skip
        env = {**os.environ, "RAGCARD_VECTOR_CACHE": str(root / "vectors.sqlite3")}
        started = time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=env)
        seconds = round(time.perf_counter() - started, 1)
        if done.returncode not in (0, 1) or not (out / "scorecard.json").is_file():
            tail = done.stderr[-2000:]
            raise SystemExit(f"the demo did not run (exit {done.returncode}):\n{tail}")
        timings[f"{run}_seconds"] = seconds
        timings["exit_code"] = done.returncode
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--judge", action="append", help="backend (repeatable); default lexical, ensemble"
    )
    parser.add_argument("--limit", type=int, default=None, help="first N CLAPNQ answers")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--demo", action="store_true", help="also time the whole handbook demo")
    args = parser.parse_args()
    names = args.judge or ["lexical", "ensemble"]
    rows = load_answers() if DATA.is_file() else []
    if not rows:
        print(f"skipped parts 1, 2 and 4: {DATA} not found (see ../shared/data)", file=sys.stderr)
    rows = rows[: args.limit] if args.limit else rows
    results: dict[str, Any] = {"load_average": os.getloadavg(), "judges": {}}
    for name in names:
        judge = build_judge({"backend": name})
        entry: dict[str, Any] = {"reader": reader(judge)}
        if rows:
            entry["grounded"] = grounded(judge, rows)
            entry["grounded_warm"] = grounded(judge, rows)  # the same judge again: caches warm
            entry["changed"] = changed(judge, rows, args.seed)
        results["judges"][name] = entry
        print(name, json.dumps(entry, indent=1))
    if args.demo:
        results["demo"] = demo_seconds()
        print("demo", results["demo"])
    results["command"] = " ".join(["benchmarks/bench_correctness.py", *sys.argv[1:]])
    RESULTS.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
