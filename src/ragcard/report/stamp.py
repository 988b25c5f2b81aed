"""The signature's line in a run's scorecard files.

Signing stamps the line (``signed by NAME (ship) at TIME, key …``) into ``scorecard.json``'s
``signed`` field and the Signed row of ``scorecard.md`` *before* it signs, so the signature
covers the files exactly as people read them, stamp included (:mod:`ragcard.outputs.signing`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ragcard.outputs._writing import write_atomic

__all__ = ["stamp_signed", "stamped_files", "write_stamped"]

CARD, MARKDOWN = "scorecard.json", "scorecard.md"


def stamped_files(run_dir: Path, line: str) -> dict[str, bytes]:
    """The bytes ``scorecard.json`` (and ``scorecard.md``, when there is one) will hold once
    ``line`` is stamped into them; nothing is written."""
    card = json.loads((run_dir / CARD).read_text(encoding="utf-8"))
    card["signed"] = line
    files = {CARD: (json.dumps(card, indent=2, ensure_ascii=False) + "\n").encode("utf-8")}
    md_path = run_dir / MARKDOWN
    if md_path.exists():
        cell = line.replace("|", "\\|")
        text = re.sub(
            r"^\| Signed \| .* \|$",
            lambda _: f"| Signed | {cell} |",
            md_path.read_text(encoding="utf-8"),
            count=1,
            flags=re.MULTILINE,
        )
        files[MARKDOWN] = text.encode("utf-8")
    return files


def write_stamped(run_dir: Path, files: dict[str, bytes]) -> None:
    """Write what :func:`stamped_files` made, each file atomically."""
    for name, data in files.items():
        write_atomic(run_dir / name, data)


def stamp_signed(run_dir: Path, line: str) -> None:
    """Set ``signed`` in scorecard.json and the Signed row of scorecard.md to ``line``."""
    write_stamped(run_dir, stamped_files(run_dir, line))
