"""Library swaps of issue 16 item 7, measured: each shipped version against the hand-written
code it replaced, on the same inputs in the same run, with the outputs checked identical.

    .venv/bin/python benchmarks/bench_swaps.py [--pairs 5000] [--file-mib 256]

* ``goldset._text.longest_common_run``: ``difflib.SequenceMatcher.find_longest_match``
  (``autojunk=False``) against the dynamic-programming loop it replaced (read from git at
  ``--before-rev``);
* ``_files.sha256_file``: ``hashlib.file_digest`` against a 1 MiB ``read``/``update`` loop;
* ``judges.lexical.stem``: the ``lru_cache``'d stemmer against its uncached rules, on the
  bundled handbook's words.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ragcard.goldset._text import longest_common_run
from ragcard.inputs._files import sha256_file
from ragcard.judges.lexical import stem

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from _before import load_before  # noqa: E402  (benchmarks/_before.py)

#: The commit before the swaps: the hand-written longest common run is read from it.
BEFORE_REV = "0b418e3~1"


def _chunked_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _timed(function: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def _row(name: str, before: float, after: float, same: str) -> None:
    print(f"{name:<34} before {before * 1e3:9.1f} ms   after {after * 1e3:9.1f} ms   "
          f"{before / after:5.1f}x   {same}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=5000)
    parser.add_argument("--file-mib", type=int, default=256)
    parser.add_argument("--before-rev", default=BEFORE_REV, help="git revision before the swaps")
    args = parser.parse_args()
    dynamic = load_before(args.before_rev, "src/ragcard/goldset/_text.py", "text_before")
    rng = random.Random(16)
    corpus = ROOT / "examples" / "handbook" / "corpus.jsonl"
    texts = [json.loads(line)["text"] for line in corpus.read_text("utf-8").splitlines()]
    words = re.findall(r"[A-Za-z']+", " ".join(texts))
    for length in (60, 300):
        pairs = [
            ([rng.choice(words) for _ in range(rng.randint(0, length))],
             [rng.choice(words) for _ in range(rng.randint(0, length))])
            for _ in range(args.pairs if length == 60 else args.pairs // 10)
        ]  # fmt: skip
        old, before = _timed(lambda p=pairs: [dynamic.longest_common_run(a, b) for a, b in p])
        new, after = _timed(lambda p=pairs: [longest_common_run(a, b) for a, b in p])
        same = sum(x == y for x, y in zip(old, new, strict=True))
        _row(f"longest_common_run (<= {length} tokens)", before, after,
             f"same on {same} of {len(pairs)}")  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "blob"
        with path.open("wb") as handle:
            for _ in range(args.file_mib):
                handle.write(os.urandom(1 << 20))
        _chunked_sha256(path)  # the page cache warm for both
        old, before = _timed(lambda: _chunked_sha256(path))
        new, after = _timed(lambda: sha256_file(path))
        _row(f"sha256 of a {args.file_mib} MiB file", before, after, f"same: {old == new}")
    repeated = words * 20
    raw = stem.__wrapped__
    stem.cache_clear()
    old, before = _timed(lambda: [raw(w) for w in repeated])
    new, after = _timed(lambda: [stem(w) for w in repeated])
    _row(f"stem ({len(repeated):,} handbook words)", before, after, f"same: {old == new}")


if __name__ == "__main__":
    main()
