"""A run scores the same on every machine and worker, byte for byte (issue 16 item 3).

The bundled handbook's shipped answers are scored by ``ragcard score`` in two interpreters with
different ``PYTHONHASHSEED`` values, with every offline judge: ``results.jsonl`` must be
byte-identical and ``scorecard.json`` identical but for the run's id and creation time. Set
iteration order changes with the seed, so any score summed over a set in iteration order
shows up here (the lexical judge's ``best_match`` did: 9–11 of 8,358 WiCE claim scores).

Each interpreter gets its own sentence-vector cache, so the embedding judges compute their
vectors twice instead of reading the first run's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "examples" / "handbook"
SHIPPED = HANDBOOK / "shipped" / "results.jsonl"
RESPONSE_FIELDS = ("answer", "retrieved", "citations", "flag", "abstained", "first_token_ms")


def _responses(path: Path, limit: int | None) -> Path:
    """The shipped run's recorded answers as a responses file (its first ``limit`` lines)."""
    lines = []
    for text in SHIPPED.read_text(encoding="utf-8").splitlines():
        record = json.loads(text)
        if record.get("error") or record.get("response") is None:
            continue
        response = record["response"]
        lines.append({"item": record["item"], "attempt": record["attempt"],
                      **{k: response[k] for k in RESPONSE_FIELDS if response.get(k) is not None},
                      "latency_ms": record["latency_ms"]})  # fmt: skip
        if limit is not None and len(lines) == limit:
            break
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _score(responses: Path, judge: str, seed: int, out: Path) -> tuple[bytes, dict[str, Any]]:
    env = {**os.environ, "PYTHONHASHSEED": str(seed),
           "RAGCARD_VECTOR_CACHE": str(out.with_name(f"{out.name}-vectors.sqlite3"))}  # fmt: skip
    command = [sys.executable, "-m", "ragcard", "score",
               "-q", str(HANDBOOK / "questions.jsonl"), "-c", str(HANDBOOK / "corpus.jsonl"),
               "-r", str(responses), "-t", str(HANDBOOK / "thresholds.toml"),
               "--judge", judge, "--run-date", "2026-12-01", "--out", str(out),
               "--no-progress"]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    card = json.loads((out / "scorecard.json").read_text(encoding="utf-8"))
    for key in ("run_id", "created_at"):  # unique per run by design
        card.pop(key)
    return (out / "results.jsonl").read_bytes(), card


@pytest.mark.parametrize(
    ("judge", "limit"),
    [("lexical", None), ("fake", None), ("embedding", 60), ("ensemble", 60)],
)
def test_two_hash_seeds_score_byte_for_byte_alike(
    judge: str, limit: int | None, tmp_path: Path
) -> None:
    if not SHIPPED.exists():
        pytest.skip(f"{SHIPPED} is absent: `make shipped` writes it")
    responses = _responses(tmp_path / "responses.jsonl", limit)
    first_results, first_card = _score(responses, judge, 1, tmp_path / "seed-1")
    second_results, second_card = _score(responses, judge, 2, tmp_path / "seed-2")
    assert first_card["config"]["judge"]["name"] == judge
    assert first_results == second_results, f"{judge}: results.jsonl differs between seeds"
    assert first_card == second_card, f"{judge}: scorecard.json differs between seeds"
