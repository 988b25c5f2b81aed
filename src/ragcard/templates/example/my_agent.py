"""A minimal knowledge agent for ragcard's sample project: keyword retrieval over corpus.jsonl.

ragcard calls ``answer(request)`` once per question and attempt (``[agent]`` in
ragcard.toml: ``type = "callable"``, ``function = "my_agent:answer"``). The request holds
``question``, ``asker``, ``program`` and ``cutoff``; the reply holds ``answer``, the passages
``retrieved`` (ids, best first), and says when the agent ``abstained``. Inline markers such as
``[leave@2025#1]`` in the answer are its citations. Replace the body with a call to your agent.
"""

import json
import re
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
CORPUS = [json.loads(line) for line in (HERE / "corpus.jsonl").read_text().splitlines()]
STOPWORDS = set("a an and the of to for do i is in at my can what when how which get".split())


def words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    asked = words(request["question"])
    visible = [
        p for p in CORPUS
        if p.get("status", "in_force") == "in_force"
        and (not p.get("access") or request["asker"] in p["access"])
    ]
    ranked = sorted(visible, key=lambda p: -len(asked & words(p["text"])))[:3]
    best = ranked[0] if ranked else None
    if best is None or len(asked & words(best["text"])) < 2:
        return {"answer": "I can't find that in the handbook.", "abstained": True,
                "retrieved": [p["id"] for p in ranked]}
    return {"answer": f"{best['text']} [{best['id']}]", "retrieved": [p["id"] for p in ranked]}
