"""``ragcard score`` end to end, memory per size, and Ragas's ID-based context metrics beside it.

A seeded synthetic knowledge-base project is written to a temporary folder: a corpus of
``--passages`` passages (40 documents, ~10% superseded with ``superseded_by``, ~10% restricted to
``manager``, some tier B), a question set over the knowledge-base categories
(docs/formats.md#categories) and
recorded responses, 3 attempts per item, each with ~10 retrieved ids, 1-3 ``{"id", "sentence"}``
citations, a 2-4 sentence answer (often quoting a passage), occasional flags and abstentions and
latencies. Smaller sizes are prefixes of the largest (same corpus, same items).

For each size (10,000 / 25,000 / 50,000 item-attempts by default), in a fresh subprocess:

* ragcard: ``load_inputs`` + ``score_responses`` on the responses file, as ``ragcard score``
  does (it streams the file: each line parsed, validated, scored and written in turn; every
  deterministic layer, intervals, results.jsonl and the scorecards written), timed per stage,
  and the peak RSS of the process (``ru_maxrss``) next to its RSS after the imports;
* Ragas (in its own virtualenv, ``--ragas-python``): ``IDBasedContextPrecision`` and
  ``IDBasedContextRecall`` only, on the same files: once as ``single_turn_ascore`` awaited in a
  loop (the fastest honest way found), once through ``evaluate()`` on an ``EvaluationDataset``.
  Both include reading the two JSON Lines files and building the ``SingleTurnSample`` objects;
* at the largest size, ragcard again with only its retrieval (+ abstention) layers.

Wall and CPU seconds are both recorded (with the load average): on a shared machine, compare CPU.
``--repeat N`` keeps the fastest of N fresh processes per point.

The per-attempt values of both tools are then compared on the largest size, case by case: they
agree wherever both are defined; Ragas gives NaN where docs/formats.md#resultsjsonl fixes a value
(no gold:
ID recall 1; nothing retrieved: ID precision 0, or 1 when there is no gold either).

    .venv/bin/python benchmarks/bench_score.py                     # 10k, 25k, 50k
    .venv/bin/python benchmarks/bench_score.py --sizes 50000 --profile

Ragas is not a ragcard dependency; without its virtualenv that half is skipped (the message says
how to create it). Writes ``benchmarks/results/score.json``. Figures, not assertions.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import math
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "score.json"
DEFAULT_SIZES = (10_000, 25_000, 50_000)
ATTEMPTS = 3
RUN_DATE = "2026-01-01"
TARGET_RATIO = 10.0
TARGET_SIZE = 50_000
ISSUE_RAGAS_S = 32.0
RAGAS_SETUP = (
    "python3 -m venv .venv-ragas && "
    ".venv-ragas/bin/pip install -r benchmarks/requirements-ragas.txt"
)
# knowledge-base mix, docs/formats.md#categories
CATEGORIES = {
    "typical": 0.40,
    "paraphrase": 0.15,
    "exact_term": 0.10,
    "multi_passage": 0.10,
    "unanswerable": 0.10,
    "access_probe": 0.10,
    "currency_trap": 0.05,
}
THRESHOLDS_TOML = """\
# Synthetic project thresholds (same shape as examples/handbook/thresholds.toml).

[[threshold]]
measure = "access_leaks"
comparison = "<="
value = 0
type = "must-pass"
reason = "Restricted passages must never reach people without access."
owner = "Security"

[[threshold]]
measure = "superseded_answers_currency_traps"
comparison = "<="
value = 0
type = "must-pass"
reason = "An answer from a superseded policy is wrong, however well written."
owner = "Policy owners"

[[threshold]]
measure = "must_pass_zeros"
comparison = "<="
value = 0
type = "must-pass"
reason = "No must-pass item may score 0 in any run."
owner = "Product"

[[threshold]]
measure = "recall@5"
comparison = ">="
value = 0.90
type = "graded"
reason = "Answers cannot be better than the passages they start from."
owner = "Search"

[[threshold]]
measure = "correct_abstention"
comparison = ">="
value = 0.90
type = "graded"
reason = "When the handbook is silent, the assistant must say so rather than guess."
owner = "Product"

[[threshold]]
measure = "false_abstention"
comparison = "<="
value = 0.05
type = "graded"
reason = "Refusing questions the handbook answers sends people to HR for nothing."
owner = "Product"

[[threshold]]
measure = "citation_validity"
comparison = ">="
value = 0.98
type = "graded"
reason = "Citations must point at real passages the agent actually retrieved."
owner = "Product"
"""


# the retrieval-only run's thresholds may name only the measures its layers compute
RETRIEVAL_THRESHOLDS_TOML = """\
[[threshold]]
measure = "recall@5"
comparison = ">="
value = 0.90
type = "graded"
reason = "Answers cannot be better than the passages they start from."
owner = "Search"
"""

# ---------------------------------------------------------------------------- synthetic data


class Words:
    """Pseudo-English words with a Zipf-like frequency, and sentences made of them."""

    SYLLABLES = [
        onset + vowel
        for onset in "b c d f g h l m n p r s t v w st tr pl gr ch".split()
        for vowel in "a e i o u ea ou ai".split()
    ]

    def __init__(self, rng: random.Random, size: int = 4000) -> None:
        self.rng = rng
        vocab: dict[str, None] = {}
        while len(vocab) < size:
            n = rng.choice((1, 2, 2, 3, 3, 4))
            vocab["".join(rng.choice(self.SYLLABLES) for _ in range(n))] = None
        self.vocab = list(vocab)
        self.cum = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(size)))

    def word(self) -> str:
        return self.vocab[bisect.bisect(self.cum, self.rng.random() * self.cum[-1])]

    def figure(self) -> str:
        rng = self.rng
        kind = rng.random()
        if kind < 0.4:
            return f"{rng.randint(2, 60)} {rng.choice(('days', 'weeks', 'working days'))}"
        if kind < 0.7:
            return f"£{rng.randint(1, 90) * 50:,}"
        return f"{rng.randint(2, 95)}%"

    def sentence(self, figures: bool = True) -> str:
        words = [self.word() for _ in range(self.rng.randint(8, 20))]
        if figures and self.rng.random() < 0.35:
            words.insert(self.rng.randrange(1, len(words)), self.figure())
        return " ".join(words).capitalize() + "."

    def text(self, low: int = 2, high: int = 4) -> str:
        return " ".join(self.sentence() for _ in range(self.rng.randint(low, high)))


def make_corpus(rng: random.Random, words: Words, passages: int) -> list[dict[str, Any]]:
    """Documents of in-force passages, ~10% older superseded versions, ~10% restricted."""
    docs = 40
    per_doc = max(2, passages // docs)
    rows: list[dict[str, Any]] = []
    for d in range(docs):
        doc = f"{words.word()}-{words.word()}-{d:02d}"
        tier = "B" if d % 8 == 7 else "A"  # every eighth document is secondary commentary
        current = []
        for s in range(per_doc - per_doc // 10):
            row = {
                "id": f"{doc}@2025#{s // 4 + 1}.{s % 4 + 1}",
                "doc": doc,
                "title": doc.replace("-", " ").title(),
                "section": f"{s // 4 + 1}.{s % 4 + 1}",
                "version": "2025",
                "text": words.text(),
                "status": "in_force",
                "effective_from": "2025-01-01",
                "tier": tier,
            }
            if rng.random() < 0.11:
                row["access"] = ["manager"]
            current.append(row)
        old = []
        for row in rng.sample(current, per_doc // 10):
            text = row["text"]
            old.append(
                {
                    **row,
                    "id": row["id"].replace("@2025", "@2023"),
                    "version": "2023",
                    "text": text.replace(".", ", as before.", 1) + " " + words.sentence(),
                    "status": "superseded",
                    "superseded_by": row["id"],
                    "effective_from": "2023-01-01",
                    "effective_to": "2024-12-31",
                }
            )
        rows.extend(current + old)
    return rows


class Project:
    """The corpus seen from the question and response generators."""

    def __init__(self, corpus: list[dict[str, Any]]) -> None:
        self.by_id = {p["id"]: p for p in corpus}
        self.ids = list(self.by_id)
        self.in_force = [p["id"] for p in corpus if p["status"] == "in_force"]
        self.public = [pid for pid in self.in_force if "access" not in self.by_id[pid]]
        self.restricted = [pid for pid in self.in_force if "access" in self.by_id[pid]]
        self.old_of = {p["superseded_by"]: p["id"] for p in corpus if p.get("superseded_by")}
        self.trapped = [pid for pid in self.old_of if "access" not in self.by_id[pid]]
        self.by_doc: dict[str, list[str]] = {}
        for p in corpus:
            self.by_doc.setdefault(p["doc"], []).append(p["id"])

    def visible(self, pid: str, asker: str) -> bool:
        return asker in self.by_id[pid].get("access", [asker])

    def usable(self, pid: str, asker: str) -> bool:
        """In force and visible to ``asker``: may be gold for that asker."""
        return self.by_id[pid]["status"] == "in_force" and self.visible(pid, asker)


def make_question(
    rng: random.Random, words: Words, project: Project, number: int
) -> dict[str, Any]:
    category = rng.choices(list(CATEGORIES), weights=list(CATEGORIES.values()))[0]
    asker = "manager" if category != "access_probe" and rng.random() < 0.1 else "employee"
    pool = project.in_force if asker == "manager" else project.public
    question: dict[str, Any] = {
        "id": f"KB-{number:05d}",
        "question": " ".join(words.word() for _ in range(rng.randint(5, 14))).capitalize() + "?",
        "asker": asker,
        "category": category,
        "split": "dev" if rng.random() < 0.7 else "heldout",
        "expected_answer": words.sentence(),
    }
    if category == "unanswerable":
        question["expected_flag"] = "not_in_record"
    elif category == "access_probe":
        question["expected_flag"] = "access_denied"
    else:
        if category == "currency_trap":
            gold = [rng.choice(project.trapped)]
        elif category == "multi_passage":
            doc = project.by_id[rng.choice(pool)]["doc"]
            same = [pid for pid in project.by_doc[doc] if project.usable(pid, asker)]
            gold = rng.sample(same, min(len(same), rng.randint(2, 3)))
        else:
            gold = rng.sample(pool, 1 if rng.random() < 0.7 else 2)
        question["gold"] = [
            {"id": pid, "grade": rng.randint(1, 3)} if rng.random() < 0.4 else pid for pid in gold
        ]
        if rng.random() < 0.3:
            question["expected_flag"] = None
    if rng.random() < 0.05:
        question["must_pass"] = True
    return question


def gold_ids(question: dict[str, Any]) -> list[str]:
    return [g if isinstance(g, str) else g["id"] for g in question.get("gold", [])]


def retrieve(rng: random.Random, project: Project, question: dict[str, Any]) -> list[str]:
    """~10 ids: gold usually near the top, neighbours from the same document, some noise;
    restricted passages are filtered for non-managers except on rare slips."""
    if rng.random() < 0.01:
        return []  # retrieval failed or was skipped
    asker = question["asker"]
    gold = gold_ids(question)
    ranked: list[str] = []
    size = rng.randint(8, 12)
    if gold:
        doc = project.by_id[gold[0]]["doc"]
        neighbours = project.by_doc[doc]
    else:
        neighbours = project.by_doc[project.by_id[rng.choice(project.ids)]["doc"]]
    while len(ranked) < size:
        pid = rng.choice(neighbours) if rng.random() < 0.5 else rng.choice(project.ids)
        if pid in ranked or pid in gold:
            continue
        if not project.visible(pid, asker) and rng.random() > 0.01:
            continue
        ranked.append(pid)
    for pid in gold:
        if rng.random() < 0.85:
            ranked.insert(rng.randint(0, min(5, len(ranked))), pid)
    if question["category"] == "currency_trap" and rng.random() < 0.3:
        ranked.insert(rng.randint(0, 3), project.old_of[gold[0]])
    if question["category"] == "access_probe" and rng.random() < 0.03:
        ranked.insert(rng.randint(0, 3), rng.choice(project.restricted))
    return ranked[:12]


def make_response(
    rng: random.Random, words: Words, project: Project, question: dict[str, Any], attempt: int
) -> dict[str, Any]:
    retrieved = retrieve(rng, project, question)
    latency = rng.lognormvariate(math.log(1800), 0.4)
    response: dict[str, Any] = {
        "item": question["id"],
        "attempt": attempt,
        "retrieved": [
            {"id": pid, "score": round(1 - rank * 0.03, 3)} if rank % 2 else pid
            for rank, pid in enumerate(retrieved)
        ],
        "flag": None,
        "latency_ms": round(latency, 1),
        "first_token_ms": round(latency * rng.uniform(0.1, 0.3), 1),
        "meta": {"model": "synthetic-agent-1", "prompt_version": "2026-01"},
    }
    unanswerable = question["category"] in ("unanswerable", "access_probe")
    if (unanswerable and rng.random() < 0.85) or (not unanswerable and rng.random() < 0.03):
        flag = question.get("expected_flag") or "not_in_record"
        if rng.random() < 0.1:
            flag = "not_in_record" if flag == "access_denied" else "out_of_scope"
        response.update(
            answer="I could not find this in the approved sources. Please ask the People team.",
            flag=flag,
            abstained=True,
            citations=[],
        )
        return response
    sentences = [words.sentence() for _ in range(rng.randint(2, 4))]
    usable = retrieved or rng.sample(project.ids, 2)
    cited = rng.sample(usable[:5], min(len(usable[:5]), rng.randint(1, 3)))
    if rng.random() < 0.02:
        cited[-1] = rng.choice(project.ids)  # not retrieved: an invalid citation
    quoted = project.by_id[cited[0]]["text"].split(". ")[0].rstrip(".") + "."
    sentences[rng.randrange(len(sentences))] = quoted  # extractive: quotes a cited passage
    if rng.random() < 0.005 and project.restricted:
        leaked = project.by_id[rng.choice(project.restricted)]["text"].split(". ")[0]
        sentences[-1] = leaked.rstrip(".") + "."
    response["answer"] = " ".join(sentences)
    response["citations"] = [
        {"id": pid, "sentence": rng.randrange(len(sentences))} for pid in cited
    ]
    return response


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def generate(folder: Path, sizes: list[int], passages: int, seed: int) -> dict[int, Path]:
    """Write the largest project, then each smaller size as a prefix of it; one folder a size."""
    rng = random.Random(seed)
    words = Words(rng)
    corpus = make_corpus(rng, words, passages)
    project = Project(corpus)
    items = math.ceil(max(sizes) / ATTEMPTS)
    questions = [make_question(rng, words, project, n + 1) for n in range(items)]
    responses = [
        make_response(rng, words, project, q, attempt)
        for q in questions
        for attempt in range(1, ATTEMPTS + 1)
    ][: max(sizes)]
    folders = {}
    for size in sizes:
        target = folder / f"n{size}"
        target.mkdir(parents=True, exist_ok=True)
        write_jsonl(target / "corpus.jsonl", corpus)
        write_jsonl(target / "questions.jsonl", questions[: math.ceil(size / ATTEMPTS)])
        write_jsonl(target / "responses.jsonl", responses[:size])
        (target / "thresholds.toml").write_text(THRESHOLDS_TOML, encoding="utf-8")
        (target / "thresholds-retrieval.toml").write_text(
            RETRIEVAL_THRESHOLDS_TOML, encoding="utf-8"
        )
        folders[size] = target
    return folders


# ---------------------------------------------------------------------------- child processes


def peak_rss_mib() -> float:
    """Peak resident set size of this process so far (ru_maxrss is KiB on Linux, B on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def children_cpu_s() -> float:
    """CPU seconds of this process's finished children (the scoring workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def child_ragcard(
    data: Path, profile: bool, retrieval_only: bool, workers: int | None = None
) -> dict[str, Any]:
    """Score one project in this (fresh) process: times per stage and memory. With
    ``retrieval_only``, only the retrieval layer runs (the two ID metrics and three others),
    plus the cheap abstention layer (kept so the figures compare with earlier runs).
    ``workers``: processes that score the file (default: ragcard's own choice); CPU seconds
    and peak memory include the worker processes."""
    import datetime as dt

    started = time.perf_counter()
    import ragcard
    from ragcard import __version__
    from ragcard.aggregation._parallel import workers_for
    from ragcard.metrics.abstention import AbstentionLayer
    from ragcard.metrics.retrieval import RetrievalLayer
    from ragcard.pipeline.evaluation import load_inputs, score_responses

    layers = (RetrievalLayer(), AbstentionLayer()) if retrieval_only else None

    imported = time.perf_counter()
    rss_imports = peak_rss_mib()

    def work() -> tuple[float, Any]:
        t0 = time.perf_counter()
        thresholds = "thresholds-retrieval.toml" if retrieval_only else "thresholds.toml"
        inputs = load_inputs(data / "questions.jsonl", data / "corpus.jsonl", data / thresholds)
        t1 = time.perf_counter()
        result = score_responses(
            inputs,
            data / "responses.jsonl",  # streamed: read, scored and written a line at a time
            data / ("out-retrieval" if retrieval_only else "out"),
            run_date=dt.date.fromisoformat(RUN_DATE),
            layers=layers,
            workers=workers,
        )
        return t1 - t0, result

    used = workers_for(data / "responses.jsonl", workers)
    t_start, cpu_start = time.perf_counter(), time.process_time() + children_cpu_s()
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        load_s, result = profiler.runcall(work)
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)
    else:
        load_s, result = work()
    total_s = time.perf_counter() - t_start
    cpu_s = time.process_time() + children_cpu_s() - cpu_start
    metrics = result.scorecard.to_json()["metrics"]
    return {
        "ragcard_version": __version__,
        "ragcard_source": str(Path(ragcard.__file__).parent),
        "import_s": imported - started,
        "load_inputs_s": load_s,
        "score_s": total_s - load_s,  # reading the responses included
        "total_s": total_s,
        "cpu_s": cpu_s,
        "load_avg_1min": os.getloadavg()[0],
        "rss_after_imports_mib": rss_imports,
        "peak_rss_mib": peak_rss_mib(),
        "workers": used,
        "worker_peak_rss_mib": (
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024 if used > 1 else None
        ),
        "metrics": {name: metrics[name] for name in ("id_precision", "id_recall")},
        "metric_count": len(metrics),
        "decision": result.scorecard.to_json()["decision"],
        "results_path": str(result.results_path),
    }


def _ragas_rows(data: Path) -> list[tuple[str, int, list[str], list[str]]]:
    """(item, attempt, retrieved ids, gold ids) per response line, read with the json module."""
    gold: dict[str, list[str]] = {}
    with (data / "questions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            q = json.loads(line)
            gold[q["id"]] = [g if isinstance(g, str) else g["id"] for g in q.get("gold") or []]
    rows = []
    with (data / "responses.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            r = json.loads(line)
            retrieved = [e if isinstance(e, str) else e["id"] for e in r.get("retrieved") or []]
            rows.append((r["item"], r.get("attempt", 1), retrieved, gold[r["item"]]))
    return rows


def child_ragas(data: Path, mode: str, values_path: Path) -> dict[str, Any]:
    """Ragas's two ID-based metrics on one project, ``mode`` = ``ascore`` or ``evaluate``."""
    import asyncio
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    started = time.perf_counter()
    import ragas
    from ragas import EvaluationDataset, SingleTurnSample, evaluate
    from ragas.metrics import IDBasedContextPrecision, IDBasedContextRecall

    logging.getLogger("ragas").setLevel(logging.ERROR)  # one NaN warning per empty list
    imported = time.perf_counter()
    rss_imports = peak_rss_mib()
    t0, cpu0 = time.perf_counter(), time.process_time()
    rows = _ragas_rows(data)
    t1 = time.perf_counter()
    samples = [
        SingleTurnSample(retrieved_context_ids=retrieved, reference_context_ids=gold)
        for _, _, retrieved, gold in rows
    ]
    t2 = time.perf_counter()
    precision, recall = IDBasedContextPrecision(), IDBasedContextRecall()
    if mode == "ascore":

        async def loop() -> list[tuple[float, float]]:
            return [
                (await precision.single_turn_ascore(s), await recall.single_turn_ascore(s))
                for s in samples
            ]

        values = asyncio.run(loop())
    else:
        result = evaluate(
            EvaluationDataset(samples=samples), metrics=[precision, recall], show_progress=False
        )
        values = [(s[precision.name], s[recall.name]) for s in result.scores]
    t3, cpu3 = time.perf_counter(), time.process_time()
    with values_path.open("w", encoding="utf-8") as handle:
        json.dump(
            [
                [item, attempt, *(None if math.isnan(v) else v for v in pair)]
                for (item, attempt, _, _), pair in zip(rows, values, strict=True)
            ],
            handle,
        )
    return {
        "ragas_version": ragas.__version__,
        "mode": mode,
        "import_s": imported - started,
        "read_s": t1 - t0,
        "samples_s": t2 - t1,
        "metrics_s": t3 - t2,
        "total_s": t3 - t0,
        "cpu_s": cpu3 - cpu0,
        "load_avg_1min": os.getloadavg()[0],
        "rss_after_imports_mib": rss_imports,
        "peak_rss_mib": peak_rss_mib(),
        "values_path": str(values_path),
    }


def run_child(python: str, args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run this file in a fresh interpreter; its last stdout line is the JSON result."""
    done = subprocess.run(
        [python, str(Path(__file__).resolve()), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        check=False,
    )
    if "--profile" in args:
        sys.stdout.write(done.stderr)
    if done.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------- agreement


def _ragcard_values(results_path: Path) -> dict[tuple[str, int], tuple[float, float]]:
    values = {}
    with results_path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            scores = row["scores"]
            if "id_precision" in scores:
                values[(row["item"], row["attempt"])] = (
                    scores["id_precision"],
                    scores["id_recall"],
                )
    return values


def _case(retrieved: list[str], gold: list[str]) -> str:
    if not gold and not retrieved:
        return "no gold, nothing retrieved"
    if not gold:
        return "no gold"
    if not retrieved:
        return "nothing retrieved"
    return "both non-empty"


def agreement(data: Path, results_path: Path, values_path: Path) -> dict[str, Any]:
    """Per attempt: where both tools give a value, do they agree; where Ragas gives NaN, what
    does ragcard give; and does ragcard's rule applied to Ragas's values give ragcard's means."""
    ours = _ragcard_values(results_path)
    listed = json.loads(values_path.read_text())
    theirs = {(item, attempt): (p, r) for item, attempt, p, r in listed}
    cases: dict[str, dict[str, Any]] = {}
    per_item: dict[str, list[tuple[float, float]]] = {}
    for item, attempt, retrieved, gold in _ragas_rows(data):
        key = (item, attempt)
        case = cases.setdefault(
            _case(retrieved, gold),
            {"n": 0, "precision_agree": 0, "recall_agree": 0, "ragas": set(), "ragcard": set()},
        )
        case["n"] += 1
        (p1, r1), (p2, r2) = ours[key], theirs[key]
        case["precision_agree"] += p2 is not None and abs(p1 - p2) < 1e-12
        case["recall_agree"] += r2 is not None and abs(r1 - r2) < 1e-12
        case["ragas"].add(("NaN" if p2 is None else "value", "NaN" if r2 is None else "value"))
        case["ragcard"].add((p1, r1) if p2 is None or r2 is None else ("value", "value"))
        # docs/formats.md#resultsjsonl rule filled into Ragas's NaNs, then mean over attempts per
        # item
        p_fill = p2 if p2 is not None else (1.0 if not gold else 0.0)
        r_fill = r2 if r2 is not None else 1.0
        per_item.setdefault(item, []).append((p_fill, r_fill))
    for case in cases.values():
        case["ragas"] = sorted(f"precision {p}, recall {r}" for p, r in case["ragas"])
        case["ragcard"] = sorted(str(v) for v in case["ragcard"])
    defined = [v for v in theirs.values()]
    nanmean_p = _mean([p for p, _ in defined if p is not None])
    nanmean_r = _mean([r for _, r in defined if r is not None])
    filled_p = _mean([_mean([p for p, _ in v]) for v in per_item.values()])
    filled_r = _mean([_mean([r for _, r in v]) for v in per_item.values()])
    return {
        "cases": cases,
        "ragas_nanmean_over_attempts": {"precision": nanmean_p, "recall": nanmean_r},
        "ragas_filled_by_ragcard_rule_item_mean": {"precision": filled_p, "recall": filled_r},
    }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


# ---------------------------------------------------------------------------- report


def _ragas_python(path: str) -> str | None:
    candidate = Path(path)
    if not candidate.is_absolute():
        candidate = HERE.parent / candidate
    return str(candidate) if candidate.exists() else None


def best_child(
    python: str, args: list[str], repeat: int, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """The fastest of ``repeat`` fresh runs (the machine may be shared), with every total."""
    runs = [run_child(python, args, env) for _ in range(repeat)]
    best = min(runs, key=lambda run: run["total_s"])
    best["all_total_s"] = [run["total_s"] for run in runs]
    best["all_cpu_s"] = [run["cpu_s"] for run in runs]
    return best


def describe(result: dict[str, Any], extra: str = "") -> str:
    workers = result.get("workers") or 1
    if workers > 1:
        extra += f", {workers} workers of peak RSS {result['worker_peak_rss_mib']:.0f} MiB"
    return (
        f"{result['total_s']:.2f} s (CPU {result['cpu_s']:.2f} s{extra}), "
        f"peak RSS {result['peak_rss_mib']:.0f} MiB, load average {result['load_avg_1min']:.1f}"
    )


def run_sizes(
    folders: dict[int, Path],
    ragas_python: str | None,
    modes: list[str],
    repeat: int,
    workers: int | None = None,
) -> list[dict[str, Any]]:
    rows = []
    largest = max(folders)
    for size, data in sorted(folders.items()):
        row: dict[str, Any] = {"item_attempts": size, "items": math.ceil(size / ATTEMPTS)}
        kinds = ["ragcard", "ragcard-retrieval"] if size == largest else ["ragcard"]
        for kind in kinds:
            args = ["--child", kind, "--data", str(data)]
            if workers is not None:
                args += ["--workers", str(workers)]
            result = best_child(sys.executable, args, repeat)
            row[kind.replace("-", "_")] = result
            print(f"  {kind:<17} {size:>6,}: {describe(result)}", flush=True)
        if ragas_python is not None:
            for mode in modes:
                values = data / f"ragas-{mode}.json"
                args = ["--child", f"ragas-{mode}", "--data", str(data), "--values", str(values)]
                env = {"RAGAS_DO_NOT_TRACK": "true"}
                result = best_child(ragas_python, args, repeat, env)
                row[f"ragas_{mode}"] = result
                alone = f"; metrics alone {result['metrics_s']:.2f} s"
                print(f"  ragas {mode:<11} {size:>6,}: {describe(result, alone)}", flush=True)
        rows.append(row)
    return rows


def speedup(theirs: dict[str, Any], ours: dict[str, Any]) -> dict[str, float]:
    """Ragas seconds / ragcard seconds, wall and CPU (above 1: ragcard is faster)."""
    return {"wall": theirs["total_s"] / ours["total_s"], "cpu": theirs["cpu_s"] / ours["cpu_s"]}


def print_table(rows: list[dict[str, Any]], modes: list[str]) -> None:
    head = f"{'item-attempts':>13} {'ragcard s':>9} {'CPU s':>6} {'inputs/score':>12} {'MiB':>5}"
    for mode in modes:
        head += f" | {'Ragas ' + mode:>14} {'CPU s':>6} {'speed-up':>11} {'MiB':>5}"
    print("\n" + head)
    for row in rows:
        ours = row["ragcard"]
        split = f"{ours['load_inputs_s']:.1f}/{ours['score_s']:.1f}"
        line = (
            f"{row['item_attempts']:>13,} {ours['total_s']:>9.2f} {ours['cpu_s']:>6.2f} "
            f"{split:>12} {ours['peak_rss_mib']:>5.0f}"
        )
        row["speedup"] = {}
        for mode in modes:
            theirs = row.get(f"ragas_{mode}")
            if theirs is None:
                line += f" | {'-':>14} {'-':>6} {'-':>11} {'-':>5}"
                continue
            ratio = row["speedup"][mode] = speedup(theirs, ours)
            both = f"{ratio['wall']:.2f}/{ratio['cpu']:.2f}x"
            line += (
                f" | {theirs['total_s']:>14.2f} {theirs['cpu_s']:>6.2f} {both:>11} "
                f"{theirs['peak_rss_mib']:>5.0f}"
            )
        print(line)
    print(
        "seconds: wall, from the files to the scores, imports excluded; MiB: peak RSS.\n"
        "speed-up = Ragas s / ragcard s (wall/CPU): above 1, ragcard is faster; below 1, slower."
    )


def print_summary(rows: list[dict[str, Any]], modes: list[str]) -> dict[str, Any]:
    """Retrieval-only ragcard, memory growth per item-attempt, and the issue's target."""
    largest = rows[-1]
    size, ours = largest["item_attempts"], largest["ragcard"]
    summary: dict[str, Any] = {}
    retrieval = largest.get("ragcard_retrieval")
    if retrieval is not None:
        print(
            f"\nragcard, retrieval + abstention layers only (ID metrics, recall@5, MRR, nDCG), "
            f"{size:,}: {retrieval['total_s']:.2f} s "
            f"(inputs/score {retrieval['load_inputs_s']:.1f}/{retrieval['score_s']:.1f}, "
            f"CPU {retrieval['cpu_s']:.2f} s), peak RSS {retrieval['peak_rss_mib']:.0f} MiB"
        )
        summary["retrieval_only_speedup"] = {
            mode: speedup(largest[f"ragas_{mode}"], retrieval)
            for mode in modes
            if f"ragas_{mode}" in largest
        }
        for mode, ratio in summary["retrieval_only_speedup"].items():
            print(f"  speed-up vs Ragas {mode}: {ratio['wall']:.2f}x wall, {ratio['cpu']:.2f}x CPU")
    if len(rows) > 1:
        first = rows[0]
        grown = ours["peak_rss_mib"] - first["ragcard"]["peak_rss_mib"]
        per = grown * 1024 / (size - first["item_attempts"])
        summary["ragcard_rss_kib_per_item_attempt"] = per
        print(
            f"ragcard peak RSS grows {grown:.0f} MiB from {first['item_attempts']:,} to "
            f"{size:,} item-attempts: {per:.1f} KiB per item-attempt (flat would be ~0)"
        )
    goal = ISSUE_RAGAS_S / TARGET_RATIO
    summary["target_s"] = goal
    if size != TARGET_SIZE:
        print(f"target: judged at {TARGET_SIZE:,} item-attempts only (largest here {size:,})")
        return summary
    summary["target_met"] = ours["total_s"] <= goal
    print(
        f"target: ragcard <= {goal:.1f} s at {TARGET_SIZE:,} ({TARGET_RATIO:g}x faster than the "
        f"issue's ~{ISSUE_RAGAS_S:g} s for Ragas); measured {ours['total_s']:.2f} s wall, "
        f"{ours['cpu_s']:.2f} s CPU at {size:,}: " + ("met" if summary["target_met"] else "NOT met")
    )
    return summary


def print_agreement(check: dict[str, Any], metrics: dict[str, Any]) -> None:
    print("\nper-attempt agreement, ragcard vs Ragas (largest size):")
    for name, case in sorted(check["cases"].items()):
        print(
            f"  {name:<28} n={case['n']:>6,}  precision agree {case['precision_agree']:>6,}  "
            f"recall agree {case['recall_agree']:>6,}  Ragas: {'; '.join(case['ragas'])}"
            + ("" if name == "both non-empty" else f"  ragcard: {'; '.join(case['ragcard'])}")
        )
    nan = check["ragas_nanmean_over_attempts"]
    filled = check["ragas_filled_by_ragcard_rule_item_mean"]
    for short, name in (("precision", "id_precision"), ("recall", "id_recall")):
        print(
            f"  {name}: ragcard {metrics[name]['value']:.6f}  Ragas nanmean {nan[short]:.6f}  "
            f"Ragas with docs/formats.md#resultsjsonl fill-ins, item means {filled[short]:.6f}"
        )


def same_values(first: Path, second: Path) -> int:
    """How many per-attempt values differ between two Ragas runs (NaN = NaN)."""
    a, b = json.loads(first.read_text()), json.loads(second.read_text())
    return sum(x != y for x, y in zip(a, b, strict=True))


def child(args: argparse.Namespace) -> None:
    data = Path(args.data)
    if args.child.startswith("ragcard"):
        result = child_ragcard(data, args.profile, args.child == "ragcard-retrieval", args.workers)
    else:
        result = child_ragas(data, args.child.removeprefix("ragas-"), Path(args.values))
    print(json.dumps(result))


def compare(
    folders: dict[int, Path], largest: dict[str, Any], modes: list[str]
) -> dict[str, Any] | None:
    """Agreement of ragcard and Ragas on the largest size (None without Ragas)."""
    ran = [m for m in modes if f"ragas_{m}" in largest]
    if not ran:
        return None
    values = {m: Path(largest[f"ragas_{m}"]["values_path"]) for m in ran}
    check = agreement(
        folders[largest["item_attempts"]],
        Path(largest["ragcard"]["results_path"]),
        values[ran[0]],
    )
    check["ragas_mode_compared"] = ran[0]
    if len(ran) > 1:
        check["ragas_modes_differing_values"] = same_values(values[ran[0]], values[ran[1]])
    print_agreement(check, largest["ragcard"]["metrics"])
    if len(ran) > 1:
        print(
            f"  Ragas {ran[0]} vs {ran[1]}: "
            f"{check['ragas_modes_differing_values']} attempts with different values"
        )
    return check


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(str(s) for s in DEFAULT_SIZES))
    parser.add_argument("--passages", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20260101)
    parser.add_argument("--repeat", type=int, default=1, help="fresh runs per point; best kept")
    parser.add_argument("--ragas-python", default=".venv-ragas/bin/python")
    parser.add_argument("--ragas-modes", default="ascore,evaluate")
    parser.add_argument("--profile", action="store_true", help="cProfile ragcard at the largest")
    parser.add_argument(
        "--workers", type=int, help="ragcard scoring processes (default: ragcard's choice)"
    )
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--data", help=argparse.SUPPRESS)
    parser.add_argument("--values", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return

    sizes = sorted(int(s) for s in args.sizes.split(","))
    modes = [m for m in args.ragas_modes.split(",") if m]
    ragas_python = _ragas_python(args.ragas_python)
    if ragas_python is None:
        print(
            f"Ragas half skipped: {args.ragas_python} not found. Create it with:\n  {RAGAS_SETUP}",
            flush=True,
        )
    print(
        f"machine: {os.cpu_count()} cores, {platform.platform()}, Python {sys.version.split()[0]}"
    )
    with tempfile.TemporaryDirectory(prefix="bench-score-") as tmp:
        t0 = time.perf_counter()
        folders = generate(Path(tmp), sizes, args.passages, args.seed)
        print(f"generated {sizes} item-attempts in {time.perf_counter() - t0:.1f} s", flush=True)
        rows = run_sizes(folders, ragas_python, modes, args.repeat, args.workers)
        print_table(rows, modes)
        summary = print_summary(rows, modes)
        check = compare(folders, rows[-1], modes)
        if args.profile:
            print(f"\nprofile of ragcard on {max(sizes):,} item-attempts:", flush=True)
            run_child(
                sys.executable,
                ["--child", "ragcard", "--data", str(folders[max(sizes)]), "--profile"],
            )
    write_results(args, rows, summary, check, ragas_python is not None)


def provenance() -> dict[str, Any]:
    """The commit of this checkout and whether its ``src/`` differs from it."""

    def git(*args: str) -> str:
        done = subprocess.run(
            ["git", *args], cwd=HERE.parent, capture_output=True, text=True, check=False
        )
        return done.stdout.strip() if done.returncode == 0 else ""

    return {
        "commit": git("rev-parse", "HEAD") or None,
        "src_modified": bool(git("status", "--porcelain", "src")),
        "pythonpath": os.environ.get("PYTHONPATH"),
    }


def write_results(
    args: argparse.Namespace,
    rows: list[dict[str, Any]],
    summary: dict[str, Any],
    check: dict[str, Any] | None,
    ragas: bool,
) -> None:
    for row in rows:
        for key in row:
            if isinstance(row[key], dict):
                row[key].pop("results_path", None)
                row[key].pop("values_path", None)
    result = {
        "benchmark": "ragcard score end to end vs Ragas ID-based context precision + recall",
        "command": "python benchmarks/bench_score.py " + " ".join(sys.argv[1:]),
        "ragcard_measures": "every deterministic layer, intervals, results.jsonl and scorecards; "
        "score_responses streams responses.jsonl (reading included in score_s)",
        "ragcard_retrieval_measures": "layers=(RetrievalLayer(), AbstentionLayer()) only",
        "ragas_measures": "IDBasedContextPrecision + IDBasedContextRecall only",
        "times": "seconds in-process from the files on disk (reading included), imports excluded",
        "speedup": "Ragas seconds / ragcard seconds (above 1: ragcard faster)",
        "target": f"ragcard >= {TARGET_RATIO:g}x faster than Ragas (~{ISSUE_RAGAS_S:g} s at 50k)",
        "ragas_run": ragas,
        "passages": args.passages,
        "attempts_per_item": ATTEMPTS,
        "seed": args.seed,
        "repeat": args.repeat,
        "checkout": provenance(),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "rows": rows,
        "summary": summary,
        "agreement": check,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
