"""Write a signature's line into a run's scorecard files after signing.

The ``signed`` field is outside what a signature covers, so stamping it does not invalidate
the signature it describes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["stamp_signed"]


def stamp_signed(run_dir: Path, line: str) -> None:
    """Set ``signed`` in scorecard.json and the Signed row of scorecard.md to ``line``."""
    card_path = run_dir / "scorecard.json"
    card = json.loads(card_path.read_text(encoding="utf-8"))
    card["signed"] = line
    card_path.write_text(json.dumps(card, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    md_path = run_dir / "scorecard.md"
    if md_path.exists():
        cell = line.replace("|", "\\|")
        text = re.sub(
            r"^\| Signed \| .* \|$",
            lambda _: f"| Signed | {cell} |",
            md_path.read_text(encoding="utf-8"),
            count=1,
            flags=re.MULTILINE,
        )
        md_path.write_text(text, encoding="utf-8")
