"""``ragcard init``: write a starting ragcard.toml and thresholds file for a kit."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard._writing import write_atomic
from ragcard.errors import ConfigError
from ragcard.thresholds import TEMPLATES, template_text

_CONFIG = """[project]
name = "{name}"
kit = "{kit}"
questions = "questions.jsonl"
corpus = "corpus.jsonl"
thresholds = "thresholds.toml"

[agent]
# callable: a Python function taking the request dict and returning the response dict;
# "my_agent:answer" is answer() in my_agent.py beside this file (path = ["src"] searches
# other folders first)
type = "callable"
function = "my_agent:answer"

# The judge behind faithfulness, citation accuracy and the rubric. "auto" = the best offline
# judge installed: "ensemble" with pip install 'ragcard[embed]', "lexical" without it. Name a
# backend ("lexical", "ensemble", "local", "llm") to pin it; delete this table for no judge.
[judge]
backend = "auto"

[run]
attempts = 3
concurrency = 8
timeout_s = 60
k = 5
"""


@user_errors
def init_command(
    folder: Annotated[Path, typer.Argument(help="project folder to create or fill")] = Path("."),
    kit: Annotated[str, typer.Option(help=f"one of: {', '.join(TEMPLATES)}")] = "knowledge-base",
    name: Annotated[str, typer.Option(help="project name")] = "my knowledge agent",
    force: Annotated[bool, typer.Option(help="overwrite existing files")] = False,
) -> None:
    """Write ragcard.toml and a thresholds template (fill in the reasons before the first run)."""
    thresholds = template_text(kit)
    folder.mkdir(parents=True, exist_ok=True)
    targets = {
        folder / "ragcard.toml": _CONFIG.format(name=name, kit=kit),
        folder / "thresholds.toml": thresholds,
    }
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise ConfigError(f"{', '.join(existing)} already exist(s); pass --force to overwrite")
    for path, text in targets.items():
        write_atomic(path, text)
        err.print(f"wrote {path}", markup=False)
