"""The input fuzzer: seeded, bounded mutations of the bundled example's input files, each run
through the ``ragcard`` command in a forked child with a time limit.

The base project is ``examples/handbook``: its questions, corpus, thresholds and ragcard.toml,
plus recorded responses made from its questions (every item answered, 3 attempts) and, for
``ragcard run``, a replay agent over them and no judge (so that a case takes a second, not
minutes). Each case mutates one file, or two files of one command ("one round": both must be
named), in a copy of that project:

* JSON Lines (questions, corpus, responses): deep nesting (65 … 100,000 levels), integers of
  101 … 50,000 digits, ``NaN``/``Infinity``/``1e999`` in known and unknown fields, every typed
  field given values of the wrong type (``"yes"`` for a boolean, ``"2"`` for an integer …),
  required fields removed, truncated lines, bytes that are not UTF-8, a 17 MB line, repeated
  ids, unknown items, answer-less responses, the file replaced by a symlink to ``/dev/zero``
  or ``/dev/urandom``, a FIFO, a folder, a sparse 5 GiB file, an empty file;
* thresholds.toml: ``value = inf``/``nan``/``true``/``"0.9"``/a 5,000-digit integer/a share
  of 90, misspelt measures, comparisons, types and keys, 3,000-level nesting, a 2 MB file,
  devices, syntax errors;
* ragcard.toml: every ``[run]`` setting out of bounds or of the wrong type
  (``attempts = 1000000000``, ``attempts = "2"``, ``timeout_s = nan`` …), ``eval_dir =
  "/dev/null"``, ``[history] url = "::::"`` or pointing at a file that is not a database, a
  10 MB project name, declared inputs that are devices or missing, deep nesting, unknown keys
  and tables, a broken replay ``[agent]``;
* and mutations that must be accepted (unknown fields, blank lines, a byte-order mark, CRLF
  line ends, reordered lines, legal values), so that the fuzzer also catches refusals of good
  input.

Each case states what it expects: ``refuse`` (exit 2, naming the mutated file(s), writing
nothing), ``accept`` (exit 0 or 1 with a scorecard.json that is strict JSON), or ``either``.
The counts: tracebacks (exit 3, or a traceback anywhere in the output), hangs (the time limit
hit), garbage accepted (a ``refuse`` case that exited 0/1), good input refused, refusals that
do not name the file, refusals that wrote output, scorecards that are not strict JSON.

    .venv/bin/python tests/chaos/fuzz_inputs.py                   # the full mix (>= 441 cases)
    .venv/bin/python tests/chaos/fuzz_inputs.py --quick           # the issue's cases + a sample
    .venv/bin/python tests/chaos/fuzz_inputs.py --seed 7 --report fuzz.json

Exit 0 when every count is 0, else 1 (the failing cases are listed with their output).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "handbook"
FILES = {
    "questions": "questions.jsonl",
    "corpus": "corpus.jsonl",
    "responses": "responses.jsonl",
    "thresholds": "thresholds.toml",
    "config": "ragcard.toml",
}
TIMEOUT_S = 60.0
MEMORY_LIMIT = 4 << 30

Mutation = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    """One mutated project and what ragcard must do with it."""

    name: str
    files: tuple[str, ...]  # the mutated files (keys of FILES)
    expect: str  # "refuse" | "accept" | "either"
    mutate: Mutation
    history_env: bool = True  # False: the case sets [history] url itself

    @property
    def command(self) -> str:
        return "run" if "config" in self.files else "score"


@dataclass
class Outcome:
    case: str
    expect: str
    code: int | None
    seconds: float
    verdicts: list[str] = field(default_factory=list)
    output: str = ""


# ------------------------------------------------------------------------- the base project


def _response(rng: random.Random, question: dict[str, Any], attempt: int,
              passages: list[str]) -> dict[str, Any]:  # fmt: skip
    gold = [g if isinstance(g, str) else g["id"] for g in question.get("gold", [])]
    others = rng.sample(passages, 3)
    line: dict[str, Any] = {"item": question["id"], "attempt": attempt,
                            "retrieved": gold + [p for p in others if p not in gold],
                            "latency_ms": round(rng.uniform(50, 900), 1)}  # fmt: skip
    if question.get("answerable", True) and question.get("expected_answer"):
        cite = f" [{gold[0]}]" if gold else ""
        line["answer"] = question["expected_answer"].rstrip(".") + "." + cite
        line["abstained"] = False
    else:
        line["answer"] = "I can't find that in the handbook."
        line["abstained"] = True
        if question.get("expected_flag"):
            line["flag"] = question["expected_flag"]
    return line


def base_project(folder: Path, seed: int = 0) -> None:
    """The handbook example as a project scored from recorded responses."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("questions.jsonl", "corpus.jsonl", "thresholds.toml"):
        shutil.copyfile(EXAMPLE / name, folder / name)
    rng = random.Random(seed)
    questions = [json.loads(line) for line in _lines(folder / "questions.jsonl")]
    passages = [json.loads(line)["id"] for line in _lines(folder / "corpus.jsonl")]
    with (folder / "responses.jsonl").open("w") as handle:
        for question in questions:
            for attempt in (1, 2, 3):
                handle.write(json.dumps(_response(rng, question, attempt, passages)) + "\n")
    config = (EXAMPLE / "ragcard.toml").read_text()
    head = config[: config.index("[agent]")]
    run = config[config.index("[run]") :]
    (folder / "ragcard.toml").write_text(
        head + '[agent]\ntype = "replay"\npath = "responses.jsonl"\n\n' + run
        + "run_date = 2026-06-01\n"
    )


# ----------------------------------------------------------------------------- mutations

PLACEHOLDER = "__RAGCARD_FUZZ__"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def set_raw(name: str, index: int, dotted: str, raw: str) -> Mutation:
    """Set field ``dotted`` (``gold.0.grade``) of line ``index`` to the JSON text ``raw``."""

    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        lines = _lines(path)
        record = json.loads(lines[index])
        target, parts = record, dotted.split(".")
        for part in parts[:-1]:
            target = target[int(part)] if isinstance(target, list) else target.setdefault(part, {})
        last = parts[-1]
        if isinstance(target, list):
            target[int(last)] = PLACEHOLDER
        else:
            target[last] = PLACEHOLDER
        lines[index] = json.dumps(record).replace(json.dumps(PLACEHOLDER), raw, 1)
        _write_lines(path, lines)

    return mutate


def drop_field(name: str, index: int, key: str) -> Mutation:
    """Remove ``key`` from line ``index`` (a response's answer: from the first line at or after
    ``index`` that does not abstain, since an abstaining response needs none)."""

    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        lines = _lines(path)
        line = index
        if name == "responses" and key == "answer":
            line = next((i for i in [*range(index, len(lines)), *range(index)]
                         if not json.loads(lines[i]).get("abstained")), index)  # fmt: skip
        record = json.loads(lines[line])
        record.pop(key, None)
        lines[line] = json.dumps(record)
        _write_lines(path, lines)

    return mutate


def edit_lines(name: str, edit: Callable[[list[str]], list[str]]) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        _write_lines(path, edit(_lines(path)))

    return mutate


def edit_text(name: str, edit: Callable[[str], str]) -> Mutation:
    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")

    return mutate


def write_bytes(name: str, data: bytes) -> Mutation:
    def mutate(folder: Path) -> None:
        (folder / FILES[name]).write_bytes(data)

    return mutate


def replace_with(name: str, kind: str) -> Mutation:
    """Replace the file by a symlink to a device, a FIFO, a folder, a sparse huge file …"""

    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        path.unlink()
        if kind.startswith("/dev/"):
            path.symlink_to(kind)
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "folder":
            path.mkdir()
        elif kind == "sparse":
            with path.open("wb") as handle:
                handle.truncate(5 << 30)
        elif kind == "missing":
            pass
        elif kind == "loop":
            path.symlink_to(path.name)

    return mutate


def both(first: Mutation, second: Mutation) -> Mutation:
    def mutate(folder: Path) -> None:
        first(folder)
        second(folder)

    return mutate


def set_threshold(measure: str, key: str, raw: str) -> Mutation:
    """Set ``key = raw`` in the threshold on ``measure`` (the first threshold if none is)."""

    def mutate(folder: Path) -> None:
        text = (folder / FILES["thresholds"]).read_text(encoding="utf-8")
        blocks = text.split("[[threshold]]")[1:]
        index = next((i for i, block in enumerate(blocks) if f'"{measure}"' in block), 0)
        set_toml("thresholds", "threshold", key, raw, index)(folder)

    return mutate


def set_toml(name: str, table: str | None, key: str, raw: str, index: int = 0) -> Mutation:
    """Set ``key = raw`` in ``[table]`` (the ``index``-th ``[[table]]`` for thresholds), adding
    the key or the table when it is missing."""

    def mutate(folder: Path) -> None:
        path = folder / FILES[name]
        lines = _lines(path)
        start = 0
        if table is not None:
            headers = [i for i, line in enumerate(lines)
                       if line.strip() in (f"[{table}]", f"[[{table}]]")]  # fmt: skip
            if index >= len(headers):
                lines += ["", f"[{table}]"]
                headers.append(len(lines) - 1)
            start = headers[index] + 1
        end = next((i for i in range(start, len(lines)) if lines[i].lstrip().startswith("[")),
                   len(lines))  # fmt: skip
        for i in range(start, end):
            if lines[i].split("=")[0].strip() == key:
                lines[i] = f"{key} = {raw}"
                break
        else:
            lines.insert(end, f"{key} = {raw}")
        _write_lines(path, lines)

    return mutate


# ------------------------------------------------------------------------- the value pools

NEST = {n: "[" * n + "]" * n for n in (65, 3000, 100_000)}
BIGINT = {d: "9" * d for d in (101, 4301, 50_000)}
NON_FINITE = ("NaN", "Infinity", "-Infinity", "1e999", "-1E+400")
WRONG: dict[str, tuple[str, ...]] = {
    "bool": ('"yes"', '"true"', "1", "0", '"false"', "[]"),
    "int": ('"2"', "2.0", "true", "1.5", "-1", "1000000000", '"1"'),
    "number": ('"0.9"', "true", '"812"', "-5", "[1]", "false"),
    "str": ("5", "true", "[]", "{}", "1.5"),
    "req_str": ("null", '""', "5", "false"),
    "date": ("20250101", '"2025-13-45"', "true", '"yesterday"', "1735689600", '"2025-01-01T10:00"'),
    "enum": ('"In_force"', "5", '"heldout "', "true"),
    "list_str": ('"hr"', "5", "[1, 2]", '{"a": 1}', "true"),
    "refs": ("5", "[5]", '[{"id": 5}]', '{"id": "x"}', '[{"id": "p", "score": "0.9"}]',
             '[{"id": "p", "score": 1e99}]'),
    "cites": ("5", "[5]", '[{"id": 5}]', '{"id": "x"}', '[{"id": "p", "sentence": "0"}]',
              '[{"id": "p", "sentence": -1}]', '[{"id": "p", "sentence": 1.0}]'),
    "gold": ("5", '[{"id": "x", "grade": "2"}]', '[{"id": "x", "grade": 7}]', "[true]", '"x"'),
}
FIELDS: dict[str, dict[str, str]] = {
    "questions": {"id": "req_str", "question": "req_str", "asker": "str", "answerable": "bool",
                  "must_pass": "bool", "expected_answer": "str", "category": "str",
                  "split": "enum", "cutoff": "date", "tags": "list_str", "gold": "gold",
                  "expected_corpus": "list_str"},
    "corpus": {"id": "req_str", "doc": "req_str", "text": "str", "status": "enum",
               "effective_from": "date", "effective_to": "date", "access": "list_str",
               "tier": "enum", "date": "date", "version": "str"},
    "responses": {"item": "req_str", "attempt": "int", "answer": "str", "retrieved": "refs",
                  "citations": "cites", "flag": "str", "abstained": "bool",
                  "latency_ms": "number", "first_token_ms": "number"},
}  # fmt: skip
RUN_BAD: dict[str, tuple[str, ...]] = {
    "attempts": ("1000000000", '"2"', "0", "-1", "true", "2.5", "inf", "nan", "9" * 5000),
    "concurrency": ("0", "100000", '"4"', "true", "-inf"),
    "timeout_s": ("0", "-1", "inf", "nan", '"30"', "true", "1e9", "+inf"),
    "retries": ("-1", "1000", '"3"', "false"),
    "k": ("0", "1000000000", '"5"', "5.5"),
    "run_date": ("20260101", '"2026-13-01"', "true", '"soon"'),
    "seed": ("-1", '"x"', "1.5"),
    "eval_dir": ('"/dev/null"', '"/dev/zero"', '""', '"/dev/null/x"', "5"),
    "out": ('"/dev/null"', '"/dev/null/x"', '""', "[]"),
    "attemps": ("3",),
    "non_abstaining_flags": ('"x"', "[5]"),
}
RUN_GOOD: dict[str, tuple[str, ...]] = {
    "attempts": ("1", "2"), "concurrency": ("1", "16"), "timeout_s": ("5", "5.5"),
    "retries": ("0", "5"), "k": ("5",), "seed": ("7",),
}  # fmt: skip


def _history_cases(folder_name: str) -> Iterator[tuple[str, str, str]]:
    yield "colons", '"::::"', "refuse"
    yield "not-a-db", '"sqlite:///questions.jsonl"', "refuse"
    yield "relative-not-a-db", '"corpus.jsonl"', "refuse"
    yield "device", '"sqlite:////dev/zero"', "refuse"
    yield "mysql", '"mysql://u@h/db"', "refuse"
    yield "no-folder", '"sqlite:///no/such/folder/h.sqlite"', "refuse"
    yield "empty", '""', "refuse"
    yield "number", "5", "refuse"
    yield "good", '"sqlite:///history-here.sqlite"', "accept"


# ----------------------------------------------------------------------------- the cases


def jsonl_cases(rng: random.Random, name: str, size: int) -> Iterator[Case]:
    """Every field of ``name`` with every wrong value, every unbounded value in known and
    unknown fields, and the file-level mutations; lines drawn with ``rng``."""
    files = (name,)
    for key, kind in FIELDS[name].items():
        for raw in WRONG[kind]:
            line = rng.randrange(size)
            yield Case(f"{name}/{key}={raw[:20]}@{line + 1}", files, "refuse",
                       set_raw(name, line, key, raw))  # fmt: skip
        for raw in (*NON_FINITE[:2], NEST[65], BIGINT[101]):
            if kind in ("number", "int"):
                line = rng.randrange(size)
                yield Case(f"{name}/{key}=unbounded:{raw[:8]}@{line + 1}", files, "refuse",
                           set_raw(name, line, key, raw))  # fmt: skip
    for label, raw in [*((f"nest{n}", v) for n, v in NEST.items()),
                       *((f"int{d}", v) for d, v in BIGINT.items()),
                       *((f"nonfinite:{v}", v) for v in NON_FINITE)]:  # fmt: skip
        line = rng.randrange(size)
        yield Case(f"{name}/extra.{label}@{line + 1}", files, "refuse",
                   set_raw(name, line, "x_fuzz", raw))  # fmt: skip
        line = rng.randrange(size)
        yield Case(f"{name}/deep-extra.{label}@{line + 1}", files, "refuse",
                   set_raw(name, line, "x_fuzz", '{"a": [1, {"b": ' + raw + "}]}"))  # fmt: skip
    required = {"questions": ("id", "question"), "corpus": ("id", "doc", "text"),
                "responses": ("item", "answer")}[name]  # fmt: skip
    for key in required:
        line = rng.randrange(size)
        yield Case(f"{name}/drop-{key}@{line + 1}", files, "refuse", drop_field(name, line, key))
    line = rng.randrange(size)
    yield Case(f"{name}/truncated@{line + 1}", files, "refuse",
               edit_lines(name, lambda ls, i=line: [*ls[:i], ls[i][: len(ls[i]) // 2],
                                                    *ls[i + 1 :]]))  # fmt: skip
    yield Case(f"{name}/array-line", files, "refuse", edit_lines(name, lambda ls: [*ls, "[1, 2]"]))
    yield Case(f"{name}/number-line", files, "refuse", edit_lines(name, lambda ls: [*ls, "42"]))
    yield Case(f"{name}/duplicate-line", files, "refuse", edit_lines(name, lambda ls: [*ls, ls[0]]))
    yield Case(f"{name}/not-utf8", files, "refuse", lambda f: (f / FILES[name]).write_bytes(
        (f / FILES[name]).read_bytes() + b'{"id": "caf\xe9"}\n'))  # fmt: skip
    yield Case(f"{name}/17MB-line", files, "refuse",
               edit_lines(name, lambda ls: [*ls, '{"x": "' + "y" * (17 << 20) + '"}']))  # fmt: skip
    for kind in ("/dev/zero", "/dev/urandom", "fifo", "folder", "sparse", "missing", "loop"):
        yield Case(f"{name}/file={kind}", files, "refuse", replace_with(name, kind))
    yield Case(f"{name}/empty", files, "accept" if name == "responses" else "refuse",
               write_bytes(name, b""))  # fmt: skip
    # good input that must be accepted
    yield Case(f"{name}/unknown-field", files, "accept",
               set_raw(name, rng.randrange(size), "x_note", '"a note"'))  # fmt: skip
    yield Case(f"{name}/nested-ok", files, "accept",
               set_raw(name, rng.randrange(size), "x_meta",
                       '{"a": [[1, 2], {"b": 1e300}]}'))  # fmt: skip
    yield Case(f"{name}/blank-lines", files, "accept",
               edit_lines(name, lambda ls: [x for one in ls for x in (one, "", "  ")]))  # fmt: skip
    yield Case(f"{name}/bom-crlf", files, "accept", lambda f: (f / FILES[name]).write_bytes(
        b"\xef\xbb\xbf" + (f / FILES[name]).read_bytes().replace(b"\n", b"\r\n")))  # fmt: skip
    yield Case(f"{name}/reversed", files, "accept", edit_lines(name, lambda ls: ls[::-1]))
    yield Case(f"{name}/surrogate", files, "either",
               set_raw(name, rng.randrange(size), "x_text", '"\\ud800"'))  # fmt: skip


def response_cases(rng: random.Random, size: int) -> Iterator[Case]:
    files = ("responses",)
    line = rng.randrange(size)
    yield Case(f"responses/unknown-item@{line + 1}", files, "refuse",
               set_raw("responses", line, "item", '"NOT-AN-ITEM"'))  # fmt: skip
    line = rng.randrange(size)
    yield Case(f"responses/answer-renamed@{line + 1}", files, "refuse",
               edit_lines("responses", lambda ls, i=line: ls[:i] + [json.dumps(
                   {("output" if k == "answer" else k): v for k, v in json.loads(ls[i]).items()
                    if k != "abstained"})] + ls[i + 1:]))  # fmt: skip
    yield Case("responses/attempt-repeated", files, "refuse",
               set_raw("responses", 1, "attempt", "1"))  # fmt: skip
    yield Case("responses/abstains-without-answer", files, "accept",
               both(drop_field("responses", 0, "answer"),
                    set_raw("responses", 0, "abstained", "true")))  # fmt: skip
    yield Case("responses/results-jsonl", files, "accept", _results_as_responses)
    yield Case("responses/latency-0", files, "accept", set_raw("responses", 3, "latency_ms", "0"))


RESULTS = "recorded-results.jsonl"


def _results_as_responses(folder: Path) -> None:
    """ragcard's own results.jsonl given as the responses: scored again (must be accepted)."""
    shutil.copyfile(folder / RESULTS, folder / "responses.jsonl")


def record_results(folder: Path) -> None:
    """``recorded-results.jsonl``: the results of scoring the base project's responses."""
    from ragcard.pipeline.evaluation import load_inputs, score_responses

    inputs = load_inputs(folder / "questions.jsonl", folder / "corpus.jsonl",
                         folder / "thresholds.toml")  # fmt: skip
    first = folder / "first-run"
    score_responses(inputs, folder / "responses.jsonl", first, progress=False, workers=1)
    shutil.move(first / "results.jsonl", folder / RESULTS)
    shutil.rmtree(first)


def threshold_cases(rng: random.Random, count: int) -> Iterator[Case]:
    files = ("thresholds",)
    bad_values = ("inf", "-inf", "+inf", "nan", "-nan", "true", '"0.9"', "[0.9]", "{a = 1}",
                  "1e400", "9" * 5000, NEST[3000].replace("[", "[").replace("]", "]"))  # fmt: skip
    for raw in bad_values:
        index = rng.randrange(count)
        yield Case(f"thresholds/value={raw[:12]}#{index + 1}", files, "refuse",
                   set_toml("thresholds", "threshold", "value", raw, index))  # fmt: skip
    yield Case("thresholds/value=inf-on-access_leaks", files, "refuse",
               set_threshold("access_leaks", "value", "inf"))  # fmt: skip
    yield Case("thresholds/share=90", files, "refuse", set_threshold("recall@5", "value", "90"))
    yield Case("thresholds/share=-0.1", files, "refuse",
               set_threshold("recall@5", "value", "-0.1"))  # fmt: skip
    for key, raw in (("measure", '"recal@5"'), ("measure", '"access_leak"'),
                     ("measure", '"flag_accuracy[nope]"'), ("measure", '""'),
                     ("measure", '"recall@5)"'), ("measure", "5"), ("comparison", '"=>"'),
                     ("comparison", '"≥"'), ("type", '"must_pass"'), ("reason", '""'),
                     ("owner", "5"), ("ownr", '"me"'), ("valeu", "1"),
                     ("measure", '"' + "m" * 300 + '"')):  # fmt: skip
        index = rng.randrange(count)
        yield Case(f"thresholds/{key}={raw[:16]}#{index + 1}", files, "refuse",
                   set_toml("thresholds", "threshold", key, raw, index))  # fmt: skip
    yield Case("thresholds/unknown-table", files, "refuse",
               edit_text("thresholds",
                         lambda t: t.replace("[[threshold]]", "[[treshold]]", 1)))  # fmt: skip
    yield Case("thresholds/deep-inline", files, "refuse",
               edit_text("thresholds",
                         lambda t: t + "x = " + "{a = " * 70 + "1" + "}" * 70 + "\n"))  # fmt: skip
    yield Case("thresholds/2MB-comment", files, "refuse",
               edit_text("thresholds", lambda t: t + "# " + "x" * (2 << 20) + "\n"))  # fmt: skip
    yield Case("thresholds/syntax", files, "refuse", edit_text("thresholds", lambda t: t[:-40]))
    yield Case("thresholds/not-utf8", files, "refuse", lambda f: (f / FILES["thresholds"])
               .write_bytes((f / FILES["thresholds"]).read_bytes() + b"# caf\xe9\n"))  # fmt: skip
    for kind in ("/dev/zero", "/dev/urandom", "fifo", "folder", "sparse", "missing", "loop"):
        yield Case(f"thresholds/file={kind}", files, "refuse", replace_with("thresholds", kind))
    yield Case("thresholds/empty", files, "accept", write_bytes("thresholds", b""))
    yield Case("thresholds/comment", files, "accept",
               edit_text("thresholds", lambda t: "# reviewed\n" + t))  # fmt: skip
    yield Case("thresholds/lower-graded", files, "accept",
               set_threshold("recall@5", "value", "0.5"))  # fmt: skip
    yield Case("thresholds/count-as-float", files, "accept",
               set_threshold("access_leaks", "value", "0.0"))  # fmt: skip


def config_cases(rng: random.Random) -> Iterator[Case]:
    files = ("config",)
    for key, values in RUN_BAD.items():
        for raw in values:
            yield Case(f"config/run.{key}={raw[:16]}", files, "refuse",
                       set_toml("config", "run", key, raw))  # fmt: skip
    for key, values in RUN_GOOD.items():
        for raw in values:
            yield Case(f"config/run.{key}={raw}", files, "accept",
                       set_toml("config", "run", key, raw))  # fmt: skip
    for label, raw, expect in _history_cases("history"):
        yield Case(f"config/history.url={label}", files, expect,
                   set_toml("config", "history", "url", raw), history_env=False)  # fmt: skip
    for key, raw in (("name", '"' + "n" * (10 << 20) + '"'), ("name", '"' + "n" * 300 + '"'),
                     ("name", '""'), ("name", "5"), ("questions", '"/dev/zero"'),
                     ("questions", '"missing.jsonl"'), ("corpus", '"/dev/urandom"'),
                     ("corpus", '""'), ("thresholds", '"/dev/zero"'), ("kit", '"knowledge"'),
                     ("inputs", '["/dev/zero"]'), ("inputs", '["missing.txt"]'),
                     ("inputs", '"prompt.txt"'), ("inputs", "[5]"), ("corpus_version", "2025"),
                     ("projct", "1")):  # fmt: skip
        yield Case(f"config/project.{key}={raw[:16]}", files, "refuse",
                   set_toml("config", "project", key, raw))  # fmt: skip
    for key, raw in (("type", '"replya"'), ("type", "5"), ("path", '"/dev/zero"'),
                     ("path", '"missing.jsonl"'), ("path", '"corpus.jsonl"'), ("pth", '"x"'),
                     ("path", "[]")):  # fmt: skip
        yield Case(f"config/agent.{key}={raw[:16]}", files, "refuse",
                   set_toml("config", "agent", key, raw))  # fmt: skip
    for key, raw in (("tolerance", '{"recall@5" = inf}'), ("tolerance", '{"recall@5" = "0.1"}'),
                     ("default_tolerance", "-1"), ("default_tolerance", "nan")):  # fmt: skip
        yield Case(f"config/baseline.{key}={raw[:16]}", files, "refuse",
                   set_toml("config", "baseline", key, raw))  # fmt: skip
    yield Case("config/unknown-table", files, "refuse",
               edit_text("config", lambda t: t + "\n[histroy]\nurl = 'x'\n"))  # fmt: skip
    yield Case("config/top-level-key", files, "refuse",
               edit_text("config", lambda t: "x = 1\n" + t))  # fmt: skip
    for depth in (70, 3000):
        yield Case(f"config/agent.nested{depth}", files, "refuse",
                   set_toml("config", "agent", "x", "[" * depth + "]" * depth))  # fmt: skip
    yield Case("config/deep-inline-table", files, "refuse",
               set_toml("config", "agent", "x", "{a = " * 100 + "1" + "}" * 100))  # fmt: skip
    yield Case("config/syntax", files, "refuse", edit_text("config", lambda t: t + "[run\n"))
    yield Case("config/not-utf8", files, "refuse", lambda f: (f / FILES["config"]).write_bytes(
        (f / FILES["config"]).read_bytes() + b"# caf\xe9\n"))  # fmt: skip
    for kind in ("/dev/zero", "/dev/urandom", "fifo", "folder", "sparse", "loop"):
        yield Case(f"config/file={kind}", files, "refuse", replace_with("config", kind))
    yield Case("config/comment", files, "accept", edit_text("config", lambda t: "# ok\n" + t))
    yield Case("config/declared-input", files, "accept",
               both(lambda f: (f / "prompt.txt").write_text("You answer from the handbook."),
                    set_toml("config", "project", "inputs", '["prompt.txt"]')))  # fmt: skip


def issue_cases() -> list[Case]:
    """The cases of issue 12's report, each by name."""
    return [
        Case("issue/json-nested-3000", ("responses",), "refuse",
             set_raw("responses", 0, "meta", NEST[3000])),
        Case("issue/integer-4301-digits", ("questions",), "refuse",
             set_raw("questions", 0, "x", BIGINT[4301])),
        Case("issue/dev-zero-questions", ("questions",), "refuse",
             replace_with("questions", "/dev/zero")),
        Case("issue/dev-zero-responses", ("responses",), "refuse",
             replace_with("responses", "/dev/zero")),
        Case("issue/dev-zero-thresholds", ("thresholds",), "refuse",
             replace_with("thresholds", "/dev/zero")),
        Case("issue/dev-zero-config", ("config",), "refuse", replace_with("config", "/dev/zero")),
        Case("issue/toml-nested-3000", ("config",), "refuse",
             set_toml("config", "agent", "x", NEST[3000])),
        Case("issue/history-not-a-database", ("config",), "refuse",
             set_toml("config", "history", "url", '"sqlite:///corpus.jsonl"'), history_env=False),
        Case("issue/attempts-1e9", ("config",), "refuse",
             set_toml("config", "run", "attempts", "1000000000")),
        Case("issue/project-name-10MB", ("config",), "refuse",
             set_toml("config", "project", "name", '"' + "n" * (10 << 20) + '"')),
        Case("issue/value-inf-access-leaks", ("thresholds",), "refuse",
             set_threshold("access_leaks", "value", "inf")),
        Case("issue/value-true", ("thresholds",), "refuse",
             set_toml("thresholds", "threshold", "value", "true", 1)),
        Case("issue/value-nan", ("thresholds",), "refuse",
             set_toml("thresholds", "threshold", "value", "nan", 2)),
        Case("issue/value-minus-inf", ("thresholds",), "refuse",
             set_toml("thresholds", "threshold", "value", "-inf", 3)),
        Case("issue/attempts-string", ("config",), "refuse",
             set_toml("config", "run", "attempts", '"2"')),
        Case("issue/history-colons", ("config",), "refuse",
             set_toml("config", "history", "url", '"::::"'), history_env=False),
        Case("issue/eval-dir-dev-null", ("config",), "refuse",
             set_toml("config", "run", "eval_dir", '"/dev/null"')),
        Case("issue/answerable-yes", ("questions",), "refuse",
             set_raw("questions", 0, "answerable", '"yes"')),
        Case("issue/value-string", ("thresholds",), "refuse",
             set_toml("thresholds", "threshold", "value", '"0.9"', 0)),
        Case("issue/no-answer", ("responses",), "refuse", drop_field("responses", 0, "answer")),
        Case("issue/unknown-item", ("responses",), "refuse",
             set_raw("responses", 0, "item", '"HB-9999"')),
        Case("issue/results-jsonl-as-responses", ("responses",), "accept", _results_as_responses),
    ]  # fmt: skip


def double_cases(rng: random.Random, singles: list[Case], count: int) -> Iterator[Case]:
    """Two refused mutations in two files of one command: both files must be named."""
    # (a breakdown's label is checked against a question set that loads: not paired)
    refused = [c for c in singles if c.expect == "refuse" and "file=" not in c.name
               and "MB" not in c.name and c.history_env
               and "flag_accuracy[" not in c.name]  # fmt: skip
    score_files = ("questions", "corpus", "responses", "thresholds")
    for _ in range(count):
        first = rng.choice([c for c in refused if c.files[0] in score_files])
        others = [c for c in refused if c.files[0] != first.files[0] and
                  (c.files[0] in score_files or first.files[0] != "responses")]  # fmt: skip
        second = rng.choice(others)
        if second.files[0] == "config" and first.files[0] == "responses":
            continue
        yield Case(f"double/{first.name}+{second.name}", (*first.files, *second.files),
                   "refuse", both(first.mutate, second.mutate))  # fmt: skip


def self_test_cases() -> list[Case]:
    """Cases whose expectation is planted wrong: the harness must flag each one."""
    return [
        Case("self-test/good-input-declared-bad", ("questions",), "refuse",
             set_raw("questions", 0, "x_note", '"fine"')),
        Case("self-test/bad-input-declared-good", ("questions",), "accept",
             set_raw("questions", 0, "answerable", '"yes"')),
        Case("self-test/refusal-not-naming-the-file", ("corpus",), "refuse",
             set_raw("questions", 0, "must_pass", '"no"')),
    ]  # fmt: skip


def all_cases(seed: int, quick: bool = False) -> list[Case]:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        base_project(Path(tmp))
        sizes = {name: len(_lines(Path(tmp) / FILES[name]))
                 for name in ("questions", "corpus", "responses")}  # fmt: skip
        thresholds = (Path(tmp) / FILES["thresholds"]).read_text().count("[[threshold]]")
    singles: list[Case] = []
    for name in ("questions", "corpus", "responses"):
        singles += jsonl_cases(rng, name, sizes[name])
    singles += response_cases(rng, sizes["responses"])
    singles += threshold_cases(rng, thresholds)
    singles += config_cases(rng)
    cases = issue_cases() + singles + list(double_cases(rng, singles, 40))
    if quick:
        sample = random.Random(seed).sample(singles, 25)
        cases = issue_cases() + sample + list(double_cases(random.Random(seed), singles, 5))
    return cases


# ------------------------------------------------------------------------------- running


def _args(case: Case, folder: Path) -> list[str]:
    if case.command == "run":  # [run] out and eval_dir: "out" and "eval" beside ragcard.toml
        return ["run", str(folder), "--no-progress"]
    return ["score", "--questions", str(folder / FILES["questions"]), "--corpus",
            str(folder / FILES["corpus"]), "--responses", str(folder / FILES["responses"]),
            "--thresholds", str(folder / FILES["thresholds"]), "--out", str(folder / "out"),
            "--run-date", "2026-06-01", "--quiet"]  # fmt: skip


def _child(case: Case, folder: Path) -> None:
    """In the forked child: run the command on the mutated project, exit with its code."""
    code = 99
    try:
        os.setpgid(0, 0)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        os.chdir(folder)
        out = os.open(folder / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(out, 2)
        os.environ["RAGCARD_CRASH_DIR"] = str(folder / "crashes")
        os.environ["COLUMNS"] = "200"
        if case.history_env:
            os.environ["RAGCARD_HISTORY_URL"] = f"sqlite:///{folder / 'history.sqlite'}"
        else:
            os.environ.pop("RAGCARD_HISTORY_URL", None)
        from ragcard._cli.main import app

        try:
            app(_args(case, folder), prog_name="ragcard")
            code = 0
        except SystemExit as exited:
            given = exited.code
            code = given if isinstance(given, int) else (0 if given is None else 1)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 99
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _strict_json(path: Path) -> bool:
    def refuse(token: str) -> Any:
        raise ValueError(token)

    try:
        json.loads(path.read_text(encoding="utf-8"), parse_constant=refuse)
        return True
    except (OSError, ValueError):
        return False


def judge(case: Case, folder: Path, code: int | None, seconds: float) -> Outcome:
    """The verdicts on one finished (or killed) case; an empty list means it passed."""
    output = (folder / "output.txt").read_text(encoding="utf-8", errors="replace") if (
        folder / "output.txt").exists() else ""  # fmt: skip
    outcome = Outcome(case.name, case.expect, code, round(seconds, 2), output=output[-3000:])
    verdicts = outcome.verdicts
    if code is None:
        verdicts.append("hang")
        return outcome
    if code not in (0, 1, 2) or "Traceback (most recent call last)" in output:
        verdicts.append("traceback")
        return outcome
    if code == 2:
        if case.expect == "accept":
            verdicts.append("good input refused")
        if (folder / "out").exists() or (folder / "::::").exists():
            verdicts.append("wrote output on a refusal")
        flat = " ".join(output.split())
        for name in case.files:
            if FILES[name] not in flat and not (name == "config" and "ragcard.toml" in flat):
                verdicts.append(f"refusal does not name {FILES[name]}")
        if "error" not in flat:
            verdicts.append("refusal without an error message")
    else:
        if case.expect == "refuse":
            verdicts.append("garbage accepted")
        card = folder / "out" / "scorecard.json"
        if not card.exists() or not _strict_json(card):
            verdicts.append("scorecard.json missing or not strict JSON")
    return outcome


def run_cases(cases: list[Case], workers: int, timeout: float, seed: int,
              keep: Path | None = None) -> list[Outcome]:  # fmt: skip
    """Run every case (``workers`` at a time), each in a fresh copy of the base project."""
    from ragcard._cli import main  # noqa: F401  (imported once, before forking)

    root = Path(tempfile.mkdtemp(prefix="ragcard-fuzz-"))
    base = root / "base"
    base_project(base, seed)
    record_results(base)
    outcomes: list[Outcome] = []
    pending = list(enumerate(cases))
    running: dict[int, tuple[Case, Path, float]] = {}
    try:
        while pending or running:
            while pending and len(running) < workers:
                number, case = pending.pop(0)
                folder = root / f"case-{number:04d}"
                shutil.copytree(base, folder, symlinks=True)
                case.mutate(folder)
                pid = os.fork()
                if pid == 0:
                    _child(case, folder)
                running[pid] = (case, folder, time.monotonic())
            _reap(running, outcomes, timeout, keep)
    finally:
        for pid in running:
            _kill(pid)
        shutil.rmtree(root, ignore_errors=True)
    return outcomes


def _kill(pid: int) -> None:
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _reap(running: dict[int, tuple[Case, Path, float]], outcomes: list[Outcome],
          timeout: float, keep: Path | None) -> None:  # fmt: skip
    time.sleep(0.01)
    for pid, (case, folder, started) in list(running.items()):
        done, status = os.waitpid(pid, os.WNOHANG)
        elapsed = time.monotonic() - started
        if done == 0 and elapsed < timeout:
            continue
        if done == 0:
            _kill(pid)
            code = None
        else:
            code = os.waitstatus_to_exitcode(status)
            try:  # the case's own workers, if any were left behind
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        outcome = judge(case, folder, code, elapsed)
        outcomes.append(outcome)
        if outcome.verdicts and keep is not None:
            shutil.copytree(folder, keep / folder.name, symlinks=True,
                            ignore_dangling_symlinks=True, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.jsonl"))  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
        del running[pid]


def summarise(outcomes: list[Outcome]) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for outcome in outcomes:
        for verdict in outcome.verdicts:
            key = "refusal does not name the file" if verdict.startswith("refusal does not name") \
                else verdict  # fmt: skip
            counts[key] = counts.get(key, 0) + 1
    expected = {kind: sum(o.expect == kind for o in outcomes)
                for kind in ("refuse", "accept", "either")}  # fmt: skip
    exits = {str(code): sum(o.code == code for o in outcomes)
             for code in sorted({o.code for o in outcomes},
                                key=lambda c: (c is None, c or 0))}  # fmt: skip
    slowest = max(outcomes, key=lambda o: o.seconds) if outcomes else None
    return {
        "cases": len(outcomes),
        "expected": expected,
        "exit_codes": exits,
        "tracebacks": counts.get("traceback", 0),
        "hangs": counts.get("hang", 0),
        "garbage_accepted": counts.get("garbage accepted", 0),
        "good_input_refused": counts.get("good input refused", 0),
        "refusals_not_naming_the_file": counts.get("refusal does not name the file", 0),
        "refusals_that_wrote_output": counts.get("wrote output on a refusal", 0),
        "bad_scorecards": counts.get("scorecard.json missing or not strict JSON", 0),
        "refusals_without_message": counts.get("refusal without an error message", 0),
        "slowest": {"case": slowest.case, "seconds": slowest.seconds} if slowest else None,
        "failed": [dataclasses.asdict(o) for o in outcomes if o.verdicts],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--quick", action="store_true", help="the issue's cases and a sample")
    parser.add_argument("--workers", type=int, default=max(1, min(4, os.cpu_count() or 1)))
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S, help="seconds per case")
    parser.add_argument("--match", help="only the cases whose name contains this")
    parser.add_argument("--report", type=Path, help="write the summary as JSON here")
    parser.add_argument("--keep", type=Path, help="copy the folders of failing cases here")
    parser.add_argument("--self-test", action="store_true",
                        help="run planted failures only: exit 0 when the harness flags them all")
    args = parser.parse_args(argv)
    if args.self_test:
        outcomes = run_cases(self_test_cases(), args.workers, args.timeout, args.seed)
        flagged = {o.case: o.verdicts for o in outcomes}
        print(json.dumps(flagged, indent=2))
        return 0 if len(flagged) == 3 and all(flagged.values()) else 1
    cases = all_cases(args.seed, args.quick)
    if args.match:
        cases = [c for c in cases if args.match in c.name]
    start = time.monotonic()
    outcomes = run_cases(cases, args.workers, args.timeout, args.seed, args.keep)
    summary = summarise(outcomes)
    summary["seconds"] = round(time.monotonic() - start, 1)
    summary["seed"] = args.seed
    summary["command"] = " ".join(["tests/chaos/fuzz_inputs.py", *(argv or sys.argv[1:])])
    if args.report:
        args.report.write_text(json.dumps(summary, indent=2) + "\n")
    for failed in summary["failed"]:
        print(f"FAILED {failed['case']} (expected {failed['expect']}, exit {failed['code']}, "
              f"{failed['seconds']} s): {', '.join(failed['verdicts'])}")  # fmt: skip
        print("  " + failed["output"][-600:].replace("\n", "\n  "))
    shown = {k: v for k, v in summary.items() if k != "failed"}
    print(json.dumps(shown, indent=2))
    bad = ("tracebacks", "hangs", "garbage_accepted", "good_input_refused",
           "refusals_not_naming_the_file", "refusals_that_wrote_output", "bad_scorecards",
           "refusals_without_message")  # fmt: skip
    return 1 if any(summary[key] for key in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
