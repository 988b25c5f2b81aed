"""Judge benchmarks: quality against human labels, and cost against Ragas's faithfulness.

Quality: every ``--judge`` backend (any registered name: built-in or plugin) on WiCE (the
authors' 100-claim subset, oracle chunks), BEGIN and FaithBench, through the library's own
meta-evaluation (:func:`ragcard.judges.metaeval.evaluate.evaluate_judge`, the code behind
``ragcard judges evaluate``), with the published figures beside ours. Model-backed judges run
on a sample (``--llm-limit`` examples of each reported part); the ``lexical`` judge on
everything. The judge's own labels are used (``threshold="judge"``, what a scorecard uses);
only a dataset's reported part is judged (BEGIN's test file, WiCE's published 100).

Cost: the same answers (``--answers``, default 20, from the bundled handbook example: the
question, its expected answer as the answer, its gold passages as the passages) through

* each ``--judge`` backend: one faithfulness call per answer (all sentences in one call), its
  ledger's calls and tokens, seconds per claim;
* ragcard's ``llm`` judge against a real OpenAI-compatible server (``python -m
  llama_cpp.server`` with SmolLM2-135M on loopback) behind a counting proxy: HTTP calls and
  prompt/completion tokens per answer, then the same answers again with the same cache (calls
  on the rerun, and its time);
* Ragas's ``Faithfulness`` (in ``.venv-ragas``, a subprocess) against the same server through
  the same proxy: a statement-extraction call and a verdict call per answer, plus whatever
  retries its parser makes.

SmolLM2-135M cannot judge entailment: it is there for transport and cost, and its verdicts
(and Ragas's scores from it) mean nothing; it also cannot follow Ragas's output format, which
inflates Ragas's calls. ``--server-model qwen2.5-coder-1.5b`` serves Qwen2.5-Coder-1.5B instead
(slower, but it follows both tools' formats). Results: ``benchmarks/results/judges.json``.

Run (see benchmarks/README.md)::

    nice -n 10 .venv/bin/python benchmarks/bench_judges.py                  # lexical + local
    .venv/bin/python benchmarks/bench_judges.py --judge lexical --skip-cost  # seconds
    .venv/bin/python benchmarks/bench_judges.py --judge lexical --judge embedding
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import http.server
import importlib.metadata
import importlib.util
import json
import os
import platform
import shlex
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "judges.json"
HANDBOOK = ROOT / "examples" / "handbook"
RAGAS_HINT = (
    "python3 -m venv .venv-ragas && .venv-ragas/bin/pip install -r "
    "benchmarks/requirements-ragas.txt"
)
DATASETS = ("wice-100", "begin", "faithbench")
#: Options given to a backend unless --option overrides them.
DEFAULT_OPTIONS: dict[str, dict[str, Any]] = {
    "local": {"cache": False},
    "llm": {"cache": False},
}
#: Ragas's completion cap (ChatOpenAI's default is none: SmolLM2 can run to the context end).
RAGAS_MAX_TOKENS = 1024
NOT_A_JUDGE = "SmolLM2-135M: transport and cost only, its verdicts mean nothing"
#: The name the server gives its model (``--model_alias``), whichever GGUF it serves.
SERVER_ALIAS = "bench-model"


# --- machine and versions -------------------------------------------------------------------


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.stdout.strip()


def machine_info() -> dict[str, Any]:
    """Where and with what the figures were measured."""
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()),
        "commit": _git("rev-parse", "--short", "HEAD"),
        "src_uncommitted_changes": bool(_git("status", "--porcelain", "--", "src")),
        "versions": {name: _version(name) for name in ("ragcard", "llama_cpp_python")},
        "command": " ".join(shlex.quote(a) for a in sys.argv),
    }


# --- judges by name ---------------------------------------------------------------------------


def parse_options(pairs: Sequence[str]) -> dict[str, dict[str, Any]]:
    """``NAME.key=value`` (value read as JSON when it parses, else a string) → per-backend."""
    options: dict[str, dict[str, Any]] = {k: dict(v) for k, v in DEFAULT_OPTIONS.items()}
    for pair in pairs:
        target, sep, raw = pair.partition("=")
        name, dot, key = target.partition(".")
        if not (sep and dot and name and key):
            raise SystemExit(f"--option {pair!r}: expected NAME.key=value, e.g. local.n_threads=2")
        try:
            value: Any = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        options.setdefault(name, {})[key] = value
    return options


def build(name: str, options: dict[str, dict[str, Any]]) -> Any:
    """The judge registered as ``name`` (built-in or plugin), with its --option values."""
    from ragcard.judges.registry import build_judge

    return build_judge({"backend": name, **options.get(name, {})})


def close(judge: Any) -> None:
    closer = getattr(judge, "close", None)
    if callable(closer):
        closer()


def stats_of(judge: Any) -> dict[str, Any] | None:
    """A model-backed judge's ledger (calls, tokens, cache hits…), when it keeps one."""
    stats = getattr(judge, "stats", None)
    return stats().to_json() if callable(stats) else None


# --- quality ----------------------------------------------------------------------------------


def reported_part(dataset: Any, limit: int | None) -> Any:
    """Only what the meta-evaluation reports: a fixed split's test part; ``limit`` of it."""
    from ragcard.judges.metaeval.examples import limit_examples

    examples = dataset.examples
    if dataset.fixed_split:
        examples = tuple(e for e in examples if e.part == "test")
    if limit is not None:
        examples = limit_examples(examples, limit)
    note = f"benchmark sample: first {limit} examples of each part" if limit else None
    notes = (*dataset.notes, note) if note else dataset.notes
    return dataclasses.replace(dataset, examples=examples, notes=notes)


def judge_quality(name: str, judge: Any, dataset: Any, limit: int | None) -> dict[str, Any]:
    """One backend on one dataset: the calibration record, seconds and claims judged."""
    from ragcard.judges.metaeval.calibration import to_calibration
    from ragcard.judges.metaeval.evaluate import evaluate_judge

    sample = reported_part(dataset, limit)
    claims = sum(len(e.claims) * max(1, len(e.evidence_sets)) for e in sample.examples)
    before = stats_of(judge)
    started, cpu = time.monotonic(), time.process_time()
    evaluation = evaluate_judge(judge, [sample], threshold="judge", concurrency=1)
    seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu
    record = to_calibration(evaluation)["datasets"][0]
    after = stats_of(judge)
    return {
        "judge": name,
        "dataset": dataset.name,
        "examples": len(sample.examples),
        "claim_passage_pairs": claims,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "seconds_per_claim": round(seconds / claims, 4) if claims else None,
        "ledger_delta": _delta(before, after),
        "report": record,
    }


def _delta(before: dict[str, Any] | None, after: dict[str, Any] | None) -> dict[str, Any] | None:
    if before is None or after is None:
        return None
    return {
        k: round(after[k] - before[k], 3)
        for k in after
        if isinstance(after[k], int | float) and not isinstance(after[k], bool)
    }


def run_quality(args: argparse.Namespace, options: dict[str, dict[str, Any]]) -> list[Any]:
    from ragcard.judges.metaeval.datasets import load_dataset

    rows: list[dict[str, Any]] = []
    datasets = []
    for name in args.datasets:
        try:
            datasets.append(load_dataset(name, args.data_dir))
        except Exception as error:  # absent data: say so and go on
            print(f"  skip {name}: {error}", flush=True)
            rows.append({"dataset": name, "skipped": str(error)})
    for judge_name in args.judge:
        try:
            judge = build(judge_name, options)
        except Exception as error:  # missing extra or model: said, not fatal
            print(f"  skip judge {judge_name}: {error}", flush=True)
            rows.append({"judge": judge_name, "skipped": str(error)})
            continue
        limit = None if judge_name in args.full else args.llm_limit
        try:
            for dataset in datasets:
                row = judge_quality(judge_name, judge, dataset, limit)
                row["identity"] = judge.identity.to_json()
                rows.append(row)
                print("  " + quality_line(row), flush=True)
        finally:
            close(judge)
    return rows


def _metric(report: dict[str, Any], name: str) -> str:
    value = report["metrics"].get(name, {}).get("value")
    return "–" if value is None else f"{value:.3f}"


def quality_line(row: dict[str, Any]) -> str:
    report = row["report"]
    return (
        f"{row['judge']:<10} {row['dataset']:<11} n={report['n']:<5} "
        f"fail={report['judge_failures']:<3} bal.acc {_metric(report, 'balanced_accuracy')} "
        f"F1(sup) {_metric(report, 'f1_supported')} acc {_metric(report, 'accuracy')} "
        f"AUROC {_metric(report, 'auroc')} κ {_metric(report, 'kappa')} "
        f"{row['seconds_per_claim']:.4f} s/claim"
    )


# --- the answers the cost part judges ---------------------------------------------------------


def handbook_answers(n: int) -> list[dict[str, Any]]:
    """``n`` answers: the handbook's answerable questions with an expected answer, their gold
    passages as the passages (what a perfect retriever would hand the judge)."""
    from ragcard.inputs.responses import split_sentences

    corpus = {}
    for line in (HANDBOOK / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        corpus[record["id"]] = record["text"]
    answers = []
    for line in (HANDBOOK / "questions.jsonl").read_text(encoding="utf-8").splitlines():
        q = json.loads(line)
        gold = [g["id"] if isinstance(g, dict) else g for g in q.get("gold") or []]
        passages = [{"id": pid, "text": corpus[pid]} for pid in gold if pid in corpus]
        if not (q.get("answerable") and q.get("expected_answer") and passages):
            continue
        answer = q["expected_answer"]
        answers.append(
            {
                "id": q["id"],
                "question": q["question"],
                "answer": answer,
                "sentences": split_sentences(answer),
                "passages": passages,
            }
        )
        if len(answers) == n:
            break
    return answers


def contexts(answers: Sequence[dict[str, Any]]) -> list[Any]:
    from ragcard.judges.base import Evidence, JudgeContext

    return [
        JudgeContext(
            tuple(a["sentences"]),
            tuple(Evidence(p["id"], p["text"]) for p in a["passages"]),
            a["question"],
        )
        for a in answers
    ]


async def _judge_all(judge: Any, ctxs: Sequence[Any]) -> tuple[int, int]:
    """Judge each answer in turn; (answers judged, answers failed)."""
    from ragcard.judges.base import JudgeError

    done = failed = 0
    for ctx in ctxs:
        try:
            await judge.judge(ctx)
            done += 1
        except JudgeError:
            failed += 1
    return done, failed


def backend_cost(name: str, judge: Any, answers: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One backend's faithfulness calls on the answers: time, and its ledger when it has one."""
    ctxs = contexts(answers)
    claims = sum(len(c.claims) for c in ctxs)
    started, cpu = time.monotonic(), time.process_time()
    done, failed = asyncio.run(_judge_all(judge, ctxs))
    seconds, cpu_seconds = time.monotonic() - started, time.process_time() - cpu
    ledger = stats_of(judge)
    per_answer = None
    if ledger is not None:
        per_answer = {
            k: round(ledger[k] / len(ctxs), 2)
            for k in ("calls", "prompt_tokens", "completion_tokens")
        }
    return {
        "judge": name,
        "answers": len(ctxs),
        "claims": claims,
        "answers_failed": failed,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu_seconds, 3),
        "seconds_per_claim": round(seconds / claims, 4),
        "ledger": ledger,
        "per_answer": per_answer,
        "answers_judged": done,
    }


# --- a counting proxy in front of the server --------------------------------------------------


class Counter:
    """HTTP calls and token usage per tag (the tag is set before each answer)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tag = "untagged"
        self.by_tag: dict[str, dict[str, int]] = {}

    def add(self, status: int, usage: dict[str, Any] | None) -> None:
        with self.lock:
            row = self.by_tag.setdefault(
                self.tag,
                {"calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0},
            )
            row["calls"] += 1
            row["errors"] += status >= 400
            for key in ("prompt_tokens", "completion_tokens"):
                value = (usage or {}).get(key)
                row[key] += value if isinstance(value, int) else 0

    def totals(self, prefix: str) -> dict[str, int]:
        rows = [v for k, v in self.by_tag.items() if k.startswith(prefix)]
        keys = ("calls", "errors", "prompt_tokens", "completion_tokens")
        return {key: sum(r[key] for r in rows) for key in keys}


def _handler(upstream: str, counter: Counter) -> type[http.server.BaseHTTPRequestHandler]:
    import httpx

    client = httpx.Client(timeout=600)

    class Proxy(http.server.BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _reply(self, status: int, body: bytes, ctype: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            if self.path.startswith("/__tag/"):
                counter.tag = self.path.removeprefix("/__tag/")
                self._reply(200, b"{}")
                return
            response = client.get(upstream + self.path)
            self._reply(response.status_code, response.content)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {"Content-Type": "application/json"}
            response = client.post(upstream + self.path, content=body, headers=headers)
            usage = None
            if self.path.endswith("/chat/completions") or self.path.endswith("/completions"):
                try:
                    usage = response.json().get("usage")
                except ValueError:
                    usage = None
                counter.add(response.status_code, usage)
            ctype = response.headers.get("content-type", "application/json")
            self._reply(response.status_code, response.content, ctype)

    return Proxy


@contextmanager
def counting_proxy(upstream: str) -> Iterator[tuple[str, Counter]]:
    """A loopback HTTP proxy to ``upstream`` that counts chat calls and their usage."""
    counter = Counter()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(upstream, counter))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", counter
    finally:
        server.shutdown()
        server.server_close()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cpu_seconds_of(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used so far (Linux ``/proc``), else None.

    The server's CPU time per answer is the cost figure that survives a busy machine."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def llama_server(model: Path, log: Path, n_ctx: int) -> Iterator[tuple[str, int]]:
    """``python -m llama_cpp.server`` on a free loopback port; yields its URL and pid."""
    import httpx

    port = _free_port()
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--model_alias",
        SERVER_ALIAS,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(n_ctx),
        "--n_threads",
        "-1",
        "--n_threads_batch",
        "-1",
    ]
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{url}/v1/models", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("llama_cpp.server did not start within 180 s")
            time.sleep(0.5)
        yield url, process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _why_no_server(model: str) -> str | None:
    from ragcard.judges.models import find_model

    for module in ("llama_cpp", "uvicorn", "fastapi", "sse_starlette", "starlette_context"):
        if importlib.util.find_spec(module) is None:
            return f"needs llama-cpp-python[server] ({module} missing); see tests/judges/README.md"
    if find_model(model) is None:
        return f"needs the {model} model: ragcard judges install-local --model {model}"
    return None


def _tag(proxy: str, tag: str) -> None:
    import httpx

    httpx.get(f"{proxy}/__tag/{tag}", timeout=5)


def llm_pass(
    proxy: str, counter: Counter, answers: Sequence[dict[str, Any]], cache: Path, tag: str
) -> dict[str, Any]:
    """ragcard's ``llm`` judge over the answers, one at a time, counted per answer."""
    from ragcard.judges.base import JudgeError
    from ragcard.judges.llm import LlmJudge

    judge = LlmJudge(base_url=f"{proxy}/v1", model=SERVER_ALIAS, cache=str(cache), timeout_s=300)
    failed = 0
    started = time.monotonic()
    try:
        for index, ctx in enumerate(contexts(answers)):
            _tag(proxy, f"{tag}/{index}")
            try:
                asyncio.run(judge.judge(ctx))
            except JudgeError:
                failed += 1
        seconds = time.monotonic() - started
        ledger = judge.stats().to_json()
        mode = judge.identity.settings.get("response_format")
    finally:
        judge.close()
    return _cost_row(f"ragcard llm ({tag})", counter, tag, answers, seconds, failed) | {
        "ledger": ledger,
        "response_format": mode,
    }


def _cost_row(
    name: str,
    counter: Counter,
    tag: str,
    answers: Sequence[dict[str, Any]],
    seconds: float,
    failed: int,
) -> dict[str, Any]:
    totals = counter.totals(tag + "/")
    per = [counter.by_tag.get(f"{tag}/{i}", {}).get("calls", 0) for i in range(len(answers))]
    claims = sum(len(a["sentences"]) for a in answers)
    n = len(answers)
    return {
        "system": name,
        "answers": n,
        "claims": claims,
        "answers_failed": failed,
        "http_calls": totals["calls"],
        "http_errors": totals["errors"],
        "calls_per_answer": round(totals["calls"] / n, 2),
        "calls_per_answer_min_max": [min(per), max(per)] if per else None,
        "prompt_tokens_per_answer": round(totals["prompt_tokens"] / n, 1),
        "completion_tokens_per_answer": round(totals["completion_tokens"] / n, 1),
        "seconds": round(seconds, 2),
        "seconds_per_answer": round(seconds / n, 3),
        "seconds_per_claim": round(seconds / claims, 3),
    }


def ragas_pass(
    python: str, proxy: str, counter: Counter, answers: Sequence[dict[str, Any]], folder: Path
) -> dict[str, Any]:
    """Ragas ``Faithfulness`` over the answers in its own virtualenv, counted per answer."""
    answers_file = folder / "answers.json"
    answers_file.write_text(json.dumps(list(answers)), encoding="utf-8")
    command = [python, __file__, "--child-ragas", str(answers_file), "--proxy", proxy]
    started = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if done.returncode != 0:
        return {"system": "ragas Faithfulness", "error": done.stderr[-3000:]}
    child = json.loads(done.stdout.strip().splitlines()[-1])
    row = _cost_row(
        "ragas Faithfulness", counter, "ragas", answers, child["seconds"], child["failed"]
    )
    return row | {
        "ragas_version": child["ragas_version"],
        "scores": child["scores"],
        "errors_seen": child["errors"],
        "process_seconds_with_imports": round(seconds, 2),
    }


def child_ragas(answers_file: Path, proxy: str) -> None:
    """In .venv-ragas: Faithfulness on each answer, one at a time; prints one JSON line."""
    import logging
    import warnings

    warnings.filterwarnings("ignore")
    logging.getLogger("ragas").setLevel(logging.CRITICAL)
    import httpx
    import ragas
    from langchain_openai import ChatOpenAI
    from ragas import SingleTurnSample
    from ragas.llms import LangchainLLMWrapper
    from ragas.metrics import Faithfulness

    answers = json.loads(answers_file.read_text(encoding="utf-8"))
    chat = ChatOpenAI(
        base_url=f"{proxy}/v1",
        api_key="not-used",
        model=SERVER_ALIAS,
        temperature=0,
        max_retries=0,
        timeout=300,
        max_tokens=RAGAS_MAX_TOKENS,
    )
    metric = Faithfulness(llm=LangchainLLMWrapper(chat))
    scores: list[float | None] = []
    errors: list[str] = []
    started = time.monotonic()
    for index, answer in enumerate(answers):
        httpx.get(f"{proxy}/__tag/ragas/{index}", timeout=5)
        sample = SingleTurnSample(
            user_input=answer["question"],
            response=answer["answer"],
            retrieved_contexts=[p["text"] for p in answer["passages"]],
        )
        try:
            score = asyncio.run(metric.single_turn_ascore(sample))
            scores.append(None if score != score else float(score))  # NaN → None
        except Exception as error:  # Ragas raises assorted parse errors on small models
            scores.append(None)
            errors.append(f"{type(error).__name__}: {str(error)[:200]}")
    seconds = time.monotonic() - started
    failed = sum(score is None for score in scores)
    print(
        json.dumps(
            {
                "seconds": seconds,
                "failed": failed,
                "scores": scores,
                "errors": errors,
                "ragas_version": ragas.__version__,
            }
        )
    )


def run_cost(args: argparse.Namespace, options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    answers = handbook_answers(args.answers)
    result: dict[str, Any] = {
        "answers_source": f"examples/handbook: first {len(answers)} answerable questions; "
        "answer = expected_answer, passages = gold passages",
        "claims": sum(len(a["sentences"]) for a in answers),
        "backends": [],
    }
    for name in args.judge:
        try:
            judge = build(name, options)
        except Exception as error:
            result["backends"].append({"judge": name, "skipped": str(error)})
            continue
        try:
            row = backend_cost(name, judge, answers[: args.backend_answers])
        finally:
            close(judge)
        result["backends"].append(row)
        print(
            f"  {name:<10} {row['seconds_per_claim']:.4f} s/claim on {row['claims']} claims, "
            f"per answer: {row['per_answer']}",
            flush=True,
        )
    why = _why_no_server(args.server_model)
    if why:
        result["server"] = {"skipped": why}
        print(f"  server part skipped: {why}", flush=True)
        return result
    from ragcard.judges.models import find_model

    model = find_model(args.server_model)
    assert model is not None
    with tempfile.TemporaryDirectory(prefix="bench-judges-") as tmp:
        folder = Path(tmp)
        with llama_server(model, folder / "server.log", args.n_ctx) as (upstream, pid):
            with counting_proxy(upstream) as (proxy, counter):
                rows = []
                cache = folder / "cache.sqlite3"
                for tag in ("first", "rerun", "ragas"):
                    cpu = cpu_seconds_of(pid)
                    if tag != "ragas":
                        row = llm_pass(proxy, counter, answers, cache, tag)
                    elif (ragas_python := _ragas_python(args.ragas_python)) is None:
                        row = {"system": "ragas Faithfulness", "skipped": RAGAS_HINT}
                    else:
                        row = ragas_pass(ragas_python, proxy, counter, answers, folder)
                    after = cpu_seconds_of(pid)
                    if cpu is not None and after is not None and "calls_per_answer" in row:
                        row["server_cpu_seconds_per_answer"] = round(
                            (after - cpu) / len(answers), 3
                        )
                    rows.append(row)
                    print("  " + cost_line(row), flush=True)
    note = f" ({NOT_A_JUDGE})" if args.server_model == "smollm2-135m" else ""
    result["server"] = {"model": model.name + note, "n_ctx": args.n_ctx, "rows": rows}
    return result


def _ragas_python(path: str) -> str | None:
    candidate = Path(path)
    return str(candidate) if candidate.is_file() else None


def cost_line(row: dict[str, Any]) -> str:
    if "calls_per_answer" not in row:
        return f"{row['system']}: {row.get('skipped') or row.get('error', '')[-300:]}"
    return (
        f"{row['system']:<22} {row['calls_per_answer']:>5} calls/answer "
        f"{row['prompt_tokens_per_answer']:>7} prompt + "
        f"{row['completion_tokens_per_answer']:>6} completion tokens/answer "
        f"{row['seconds_per_claim']:>7} s/claim, server CPU "
        f"{row.get('server_cpu_seconds_per_answer', '?')} s/answer ({row['http_calls']} calls, "
        f"{row['answers_failed']} answers failed)"
    )


# --- main -------------------------------------------------------------------------------------


def print_tables(result: dict[str, Any]) -> None:
    print("\nQuality (judge's own labels; reported parts; published figures below)")
    for row in result.get("quality", []):
        if "report" in row:
            print("  " + quality_line(row))
        else:
            print(f"  skipped: {row}")
    shown: set[str] = set()
    for row in result.get("quality", []):
        report = row.get("report")
        if report and report["name"] not in shown:
            shown.add(report["name"])
            for ref in report.get("references", []):
                figures = ", ".join(f"{k} {v:.3f}" for k, v in ref["metrics"].items())
                print(f"    published {report['name']}: {ref['system']}: {figures}")
    cost = result.get("cost")
    if cost:
        print(f"\nCost on {cost['claims']} claims ({cost['answers_source']})")
        for row in cost["backends"]:
            if "skipped" in row:
                print(f"  {row['judge']}: skipped: {row['skipped']}")
            else:
                print(
                    f"  {row['judge']:<10} {row['seconds_per_claim']:.4f} s/claim, "
                    f"per answer {row['per_answer']}"
                )
        for row in cost.get("server", {}).get("rows", []):
            print("  " + cost_line(row))


def write(path: Path, result: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--judge", action="append", help="backend name (repeatable); default: lexical and local"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        help="NAME.key=value given to that backend, e.g. local.n_threads=2",
    )
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument(
        "--llm-limit",
        type=int,
        default=10,
        help="examples of each reported part for model-backed judges",
    )
    parser.add_argument(
        "--full",
        action="append",
        default=["lexical"],
        help="backends run on every example (default: lexical)",
    )
    parser.add_argument("--answers", type=int, default=20, help="answers for the cost part")
    parser.add_argument(
        "--backend-answers", type=int, default=10, help="of those, judged by each --judge"
    )
    parser.add_argument("--n-ctx", type=int, default=8192, help="the server's context")
    parser.add_argument(
        "--server-model",
        default="smollm2-135m",
        help="installed model the server runs for the cost part (smollm2-135m: fast, cannot "
        "judge; qwen2.5-coder-1.5b: can follow Ragas's format)",
    )
    parser.add_argument("--ragas-python", default=str(ROOT / ".venv-ragas" / "bin" / "python"))
    parser.add_argument("--skip-quality", action="store_true")
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--child-ragas", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--proxy", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_ragas:
        child_ragas(args.child_ragas, args.proxy)
        return 0
    args.judge = args.judge or ["lexical", "local"]
    options = parse_options(args.option)
    result: dict[str, Any] = {"machine": machine_info(), "judges": args.judge, "options": options}
    if not args.skip_quality:
        print("Quality", flush=True)
        result["quality"] = run_quality(args, options)
        write(args.out, result)  # what is done survives a stopped run
    if not args.skip_cost:
        print("Cost", flush=True)
        result["cost"] = run_cost(args, options)
    result["machine"]["load_average_at_end"] = list(os.getloadavg())
    write(args.out, result)
    print_tables(result)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
