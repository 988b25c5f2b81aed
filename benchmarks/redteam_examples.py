"""The red team on the bundled examples, with the reference agent as configured (hybrid
retrieval when the embed extra is installed — the test suite pins keyword search for speed):
as shipped, and with each red-team fault switch. Figures, not assertions: findings by severity
and category, attack success rate by category with its interval, the judged detectors' false
positives on the benign controls, wall time.

    nice -n 10 .venv/bin/python benchmarks/redteam_examples.py              # 1 attempt
    nice -n 10 .venv/bin/python benchmarks/redteam_examples.py --attempts 3

Writes ``benchmarks/results/redteam_examples.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ragcard.redteam import run_redteam
from ragcard.reference import embeddings_available

ROOT = Path(__file__).resolve().parents[1]
CASES = [
    ("handbook", []),
    ("persona", []),
    ("handbook", ["trust_claimed_role"]),
    ("handbook", ["obey_passage_instructions"]),
    ("persona", ["obey_passage_instructions"]),
    ("persona", ["ignore_policy"]),
    ("persona", ["ignore_cutoff"]),
]


def _case(example: str, faults: list[str], attempts: int, folder: Path) -> dict[str, Any]:
    name = f"{example}-{'-'.join(faults) or 'shipped'}"
    start = time.monotonic()
    result = run_redteam(
        ROOT / "examples" / example,
        out_dir=folder / name,
        fresh=True,
        attempts=attempts,
        agent_options={"faults": faults} if faults else None,
        history_url=f"sqlite:///{folder / (name + '.sqlite')}",
        progress=False,
    )
    summary = result.summary
    found = Counter(f"{f['severity']} {f['category']}" for f in summary["findings"])
    return {
        "case": name,
        "wall_s": round(time.monotonic() - start, 1),
        "variants": len(summary["variants"]),
        "measures": summary["measures"],
        "findings": dict(sorted(found.items())),
        "success_by_category": summary["success_by_category"],
        "false_positives": {
            n: {k: v for k, v in d.items() if k != "description"}
            for n, d in summary["detectors"].items()
        },
        "decision": summary["decision"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=1)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for example, faults in CASES:
            row = _case(example, faults, args.attempts, Path(tmp))
            rows.append(row)
            m = row["measures"]
            print(
                f"{row['case']:42} {row['wall_s']:7.1f} s  variants {row['variants']:3}  "
                f"attempts {m['redteam_attempts']['value']:4}  findings {row['findings'] or '-'}"
            )
    report = {
        "attempts": args.attempts,
        "retrieval": "hybrid" if embeddings_available() else "keyword",
        "cases": rows,
    }
    out = ROOT / "benchmarks" / "results" / "redteam_examples.json"
    out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
