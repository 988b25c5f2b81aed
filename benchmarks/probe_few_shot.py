"""An experiment, not a judge: do worked examples in the prompt help the local model?

The ``local`` judge's prompt (``support-v2``) describes the three verdicts but shows none. This
script puts two worked exchanges between the system prompt and the real claims (a user turn in
the judge's own format, then the JSON reply a careful judge would give), in a domain the
acceptance fixture does not use: a number that differs, roles swapped between two people, an
opposite rule, a paraphrase that holds, and a detail the passages never mention. Then it runs
``accept_local_judge.py`` with that prompt, so the output is the same table (pass rate, by
kind, seconds per claim). llama.cpp keeps the evaluated prefix from call to call, so the
examples are read once, not per claim.

Needs the ``local`` extra and the model (``ragcard judges install-local``). Run::

    .venv/bin/python benchmarks/probe_few_shot.py --json out.json

The figures are in benchmarks/README.md ("worked examples in the prompt").
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import accept_local_judge

from ragcard.judges import prompts

#: (user turn, reply): the judge's own format, a domain the fixture does not use.
EXAMPLES = (
    (
        "Passages:\n[d1] The Northgate library lends up to 12 books at a time for three weeks."
        " Overdue books cost 20 pence a day.\n[d2] The café on the ground floor opens at 8:30."
        "\n\nClaims:\n0: Members may borrow up to 15 books at once.\n1: Books are lent for"
        " three weeks.\n2: The library has a photocopier.\n\n" + prompts._INSTRUCTIONS.format(n=3),
        '{"verdicts": [{"verdict": "contradicted", "claim": 0, "passage": "d1", "score": 0.02},'
        ' {"verdict": "supported", "claim": 1, "passage": "d1", "score": 0.97},'
        ' {"verdict": "not_supported", "claim": 2, "passage": null, "score": 0.05}]}',
    ),
    (
        "Passages:\n[d1] The bridge was designed by the engineer Ana Ruiz for the city council"
        " and opened in 1998. Cyclists must dismount on the bridge.\n[d2] Parking near the"
        " river is free on Sundays.\n\nClaims:\n0: The city council designed the bridge for the"
        " engineer Ana Ruiz.\n1: Cyclists may ride across the bridge.\n2: The bridge opened in"
        " 1998.\n\n" + prompts._INSTRUCTIONS.format(n=3),
        '{"verdicts": [{"verdict": "contradicted", "claim": 0, "passage": "d1", "score": 0.03},'
        ' {"verdict": "contradicted", "claim": 1, "passage": "d1", "score": 0.02},'
        ' {"verdict": "supported", "claim": 2, "passage": "d1", "score": 0.96}]}',
    ),
)

_plain = prompts.build_messages


def with_examples(ctx: Any) -> list[dict[str, str]]:
    """The judge's messages with :data:`EXAMPLES` between the system prompt and the claims."""
    system, *rest = _plain(ctx)
    shown: list[dict[str, str]] = []
    for user, reply in EXAMPLES:
        shown += [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]
    return [system, *shown, *rest]


def main(argv: Sequence[str] | None = None) -> int:
    prompts.build_messages = with_examples  # the judge looks it up at each call
    print(f"prompt: the judge's, with {len(EXAMPLES)} worked examples before the claims (the"
          " judge's identity printed below does not show them)")  # fmt: skip
    return accept_local_judge.main(argv)  # its judge runs without a cache: nothing is reused


if __name__ == "__main__":
    raise SystemExit(main())
