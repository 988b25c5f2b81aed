"""Import the datasets teams keep for Ragas or DeepEval as ragcard inputs (``ragcard import``).

* **Ragas** ``EvaluationDataset`` (``to_jsonl`` / ``to_csv`` / a JSON list), single-turn
  samples: ``user_input`` → the question, ``reference`` → its expected answer,
  ``reference_contexts`` (with ``reference_context_ids``) → gold passages, ``retrieved_contexts``
  (with ``retrieved_context_ids``) → the passages the agent retrieved, ``response`` and then
  each of ``multi_responses`` → the recorded attempts.
* **DeepEval** test cases and goldens (``EvaluationDataset.save_as`` JSON, JSONL or CSV):
  ``input`` → the question, ``expected_output`` → its expected answer, ``context`` (the ideal
  context) → gold passages, ``retrieval_context`` → the passages retrieved, ``actual_output`` →
  a recorded attempt. Rows with the same input are one question; each test case is an attempt.

Every context becomes a passage of ``corpus.jsonl``: its id is the dataset's own context id
when it has one, else ``ctx-`` and the first 12 hex digits of the text's SHA-256 (the same text
is the same passage). What cannot be mapped is listed in :attr:`Imported.notes`, never dropped
silently: neither library says whether the sources answer a question (every item is
answerable unless edited), nor who asks (``public``); other fields are kept on the question
under their own names, unused.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import io
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragcard.errors import InputError, Problem
from ragcard.inputs._files import read_utf8

__all__ = ["Imported", "import_deepeval", "import_ragas", "write_imported"]

_RAGAS_USED = {
    "user_input", "reference", "reference_contexts", "reference_context_ids",
    "retrieved_contexts", "retrieved_context_ids", "response", "multi_responses",
}  # fmt: skip
_DEEPEVAL_USED = {"input", "expected_output", "context", "retrieval_context", "actual_output"}


@dataclass
class Imported:
    """The ragcard inputs built from a dataset, and what could not be mapped."""

    source: str
    questions: list[dict[str, Any]] = field(default_factory=list)
    passages: dict[str, dict[str, Any]] = field(default_factory=dict)
    responses: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _unused: dict[str, int] = field(default_factory=dict)

    def passage(self, text: str, given_id: object = None) -> str:
        """The id of the passage holding ``text`` (added on first sight)."""
        pid = str(given_id) if given_id not in (None, "") else _text_id(text)
        known = self.passages.get(pid)
        if known is not None and known["text"] != text:
            self.notes.append(f"context id {pid!r} names two different texts: the first is kept")
        self.passages.setdefault(pid, {"id": pid, "doc": self.source, "text": text})
        return pid


def _text_id(text: str) -> str:
    return "ctx-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def _rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSON list, a JSONL or a CSV file; a bad line is an InputError."""
    text = read_utf8(path)
    if path.suffix.lower() == ".csv":
        return [dict(row) for row in csv.DictReader(io.StringIO(text))]
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            problem = Problem(str(path), error.lineno, None, f"not JSON: {error.msg}",
                              fix="pass the file the library saved")  # fmt: skip
            raise InputError([problem]) from None
        if isinstance(data, dict):  # {"goldens": […], "test_cases": […]} or {"samples": […]}
            keys = ("goldens", "test_cases", "samples")
            data = [row for key in keys for row in data.get(key, [])]
        if not isinstance(data, list) or not all(isinstance(row, dict) for row in data):
            raise InputError([Problem(str(path), None, None, "expected a JSON list of objects",
                                      fix="pass the file the library saved")])  # fmt: skip
        return data
    rows, problems = [], []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(Problem(str(path), number, None, f"not JSON: {error.msg}"))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(str(path), number, None, "expected a JSON object", row))
            continue
        rows.append(row)
    if problems:
        raise InputError(problems, f"{path}: {len(problems)} bad line(s)")
    return rows


def _list(value: Any, delimiter: str | None = None) -> list[str]:
    """A list of strings from a list, a Python-repr list (Ragas's CSV), a delimited string
    (DeepEval's JSONL and CSV) or nothing."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            try:
                parsed = ast.literal_eval(stripped)
            except (ValueError, SyntaxError):
                parsed = None
            if isinstance(parsed, list):
                return [str(v) for v in parsed]
        return stripped.split(delimiter) if delimiter else [stripped]
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]


def _extras(imported: Imported, row: Mapping[str, Any], used: set[str]) -> dict[str, Any]:
    kept = {}
    for key, value in row.items():
        if key in used or value in (None, "", [], {}):
            continue
        kept[key] = value
        imported._unused[key] = imported._unused.get(key, 0) + 1
    return kept


def _question(imported: Imported, prefix: str, text: str) -> dict[str, Any]:
    item = {"id": f"{prefix}-{len(imported.questions) + 1:04d}", "question": text}
    imported.questions.append(item)
    return item


def _finish(imported: Imported, library: str) -> Imported:
    if imported._unused:
        shown = ", ".join(f"{k} ({n})" for k, n in sorted(imported._unused.items()))
        imported.notes.append(f"kept on the questions but not used by ragcard: {shown}")
    no_gold = sum(1 for q in imported.questions if not q.get("gold"))
    imported.notes.append(
        f"answerable: {library} does not say whether the sources answer a question, so all "
        f"{len(imported.questions)} are answerable; set \"answerable\": false (or an "
        "unanswerable category) on those the sources do not answer"
        + (f" ({no_gold} have no reference context)" if no_gold else "")
    )
    imported.notes.append(
        f"asker: {library} has no asker role, so every question is asked by \"public\" and no "
        "passage is restricted; add \"access\" to the corpus and \"asker\" to the questions to "
        "test access"
    )
    imported.notes.append(
        f"corpus: {len(imported.passages)} passage(s), one per distinct context, all in force "
        "and undated; add versions, status and effective dates to test currency"
    )
    return imported


def import_ragas(path: str | Path) -> Imported:
    """A Ragas ``EvaluationDataset`` file (JSONL, CSV or a JSON list) as ragcard inputs."""
    path = Path(path)
    imported = Imported("ragas")
    for number, row in enumerate(_rows(path), 1):
        question = row.get("user_input")
        if not isinstance(question, str) or not question.strip():
            imported.notes.append(f"row {number}: no user_input (a multi-turn sample?): skipped")
            continue
        item = _question(imported, "RAGAS", question)
        if row.get("reference"):
            item["expected_answer"] = str(row["reference"])
        gold_texts, gold_ids = _list(row.get("reference_contexts")), _list(
            row.get("reference_context_ids"))  # fmt: skip
        retrieved_texts, retrieved_ids = _list(row.get("retrieved_contexts")), _list(
            row.get("retrieved_context_ids"))  # fmt: skip
        texts_by_id = dict(zip(retrieved_ids, retrieved_texts, strict=False))
        gold = [imported.passage(t, gold_ids[i] if i < len(gold_ids) else None)
                for i, t in enumerate(gold_texts)]  # fmt: skip
        for gid in gold_ids[len(gold_texts):]:  # ids without a text: only if retrieved
            if gid in texts_by_id:
                gold.append(imported.passage(texts_by_id[gid], gid))
            else:
                imported.notes.append(
                    f"row {number}: reference_context_id {gid!r} has no text: not a gold passage"
                )
        if gold:
            item["gold"] = list(dict.fromkeys(gold))
        retrieved = [imported.passage(t, retrieved_ids[i] if i < len(retrieved_ids) else None)
                     for i, t in enumerate(retrieved_texts)]  # fmt: skip
        answers = ([row["response"]] if row.get("response") else []) + _list(
            row.get("multi_responses"))  # fmt: skip
        for attempt, answer in enumerate(answers, 1):
            imported.responses.append({"item": item["id"], "attempt": attempt,
                                       "answer": str(answer), "retrieved": retrieved})  # fmt: skip
        item.update(_extras(imported, row, _RAGAS_USED))
    return _finish(imported, "Ragas")


def import_deepeval(path: str | Path) -> Imported:
    """DeepEval goldens and test cases (``save_as`` JSON, JSONL or CSV) as ragcard inputs."""
    path = Path(path)
    imported = Imported("deepeval")
    joined = path.suffix.lower() in (".jsonl", ".csv")
    by_input: dict[str, dict[str, Any]] = {}
    attempts: dict[str, int] = {}
    split_contexts = 0
    for number, row in enumerate(_rows(path), 1):
        question = row.get("input")
        if not isinstance(question, str) or not question.strip():
            imported.notes.append(f"row {number}: no input: skipped")
            continue
        item = by_input.get(question)
        if item is None:
            item = by_input[question] = _question(imported, "DEEPEVAL", question)
        if row.get("expected_output") and "expected_answer" not in item:
            item["expected_answer"] = str(row["expected_output"])
        delimiter = "|" if joined else None
        contexts, retrieval = (_list(row.get(key), delimiter)
                               for key in ("context", "retrieval_context"))  # fmt: skip
        if joined and any("|" in str(row.get(k) or "") for k in ("context", "retrieval_context")):
            split_contexts += 1
        gold = [imported.passage(text) for text in contexts]
        if gold and "gold" not in item:
            item["gold"] = list(dict.fromkeys(gold))
        if row.get("actual_output") not in (None, ""):
            attempt = attempts[item["id"]] = attempts.get(item["id"], 0) + 1
            retrieved = [imported.passage(text) for text in retrieval]
            imported.responses.append({"item": item["id"], "attempt": attempt,
                                       "answer": str(row["actual_output"]),
                                       "retrieved": retrieved})  # fmt: skip
        item.update(_extras(imported, row, _DEEPEVAL_USED))
    if split_contexts:
        imported.notes.append(
            f"context: DeepEval's {path.suffix[1:].upper()} joins the contexts of a row with "
            f"'|'; {split_contexts} row(s) were split there (a context holding '|' is cut "
            "in two: save as JSON to keep them whole)"
        )
    return _finish(imported, "DeepEval")


def _write_lines(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
                    encoding="utf-8")  # fmt: skip


def write_imported(imported: Imported, folder: str | Path, force: bool = False) -> list[Path]:
    """Write ``questions.jsonl``, ``corpus.jsonl`` and (when there are answers)
    ``responses.jsonl`` into ``folder``; an existing file is kept unless ``force``."""
    folder = Path(folder)
    targets = {folder / "questions.jsonl": imported.questions,
               folder / "corpus.jsonl": list(imported.passages.values())}  # fmt: skip
    if imported.responses:
        targets[folder / "responses.jsonl"] = imported.responses
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise InputError([Problem(p, None, None, "already exists",
                                  fix="pass --force to overwrite, or another --out")
                          for p in existing])  # fmt: skip
    if not imported.questions:
        raise InputError([Problem(imported.source, None, None, "no question could be imported",
                                  fix="pass a Ragas or DeepEval dataset file")])  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    for path, rows in targets.items():
        _write_lines(path, rows)
    return list(targets)
