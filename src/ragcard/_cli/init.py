"""``ragcard init``: write a starting ragcard.toml and thresholds file for a kit; with
``--example``, a whole sample project (corpus, questions, a working agent) to run at once."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from ragcard._cli._common import err, user_errors
from ragcard.decision.template_fit import fit_template
from ragcard.decision.thresholds import TEMPLATES, template_text
from ragcard.errors import ConfigError, InputError
from ragcard.outputs._writing import write_atomic

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

# The judge behind answer correctness, faithfulness, citation accuracy and the rubric.
# "auto" = the best offline judge, "ensemble" (part of the default install, so every machine
# decides alike). Name a backend ("lexical", "ensemble", "local", "llm") to pin it; delete
# this table for no judge.
[judge]
backend = "auto"

[run]
attempts = 3
concurrency = 8
timeout_s = 60
k = 5
"""


_EXAMPLE_FILES = ("corpus.jsonl", "questions.jsonl", "my_agent.py")
_EXAMPLE_NAME = "sample handbook assistant"


def _next_steps(folder: Path, example: bool) -> list[str]:
    shown = str(folder)
    if example:
        return [
            "next:",
            f"  ragcard run {shown}              # asks my_agent.py every question 3 times, "
            "scores, decides",
            f"  ragcard questions check {shown}  # the question set against the kit's mix",
            f"  ragcard history {shown}          # the runs recorded so far",
            "then replace my_agent.py with a call to your agent (docs/agents.md) and the "
            "corpus and questions with yours (docs/formats.md)",
        ]
    written = (folder / "questions.jsonl").is_file() and (folder / "corpus.jsonl").is_file()
    return [
        "next:",
        *([] if written else [f"  write {folder / 'questions.jsonl'} and "
                              f"{folder / 'corpus.jsonl'} (docs/formats.md)"]),
        f"  write {folder / 'my_agent.py'} with answer(request) -> response (docs/agents.md), "
        "or change [agent]",
        f"  check the thresholds and their reasons in {folder / 'thresholds.toml'}",
        f"  ragcard run {shown}",
        "or start from a working sample: ragcard init --example FOLDER",
    ]


def _fitted(folder: Path, template: str, example: bool) -> tuple[str, list[str]]:
    """The template, fitted to a question set (and recorded responses) already in ``folder``
    — an imported dataset: gates these inputs can never score are left out, saying why."""
    questions_path, responses_path = folder / "questions.jsonl", folder / "responses.jsonl"
    if example or not questions_path.is_file():
        return template, []
    from ragcard.inputs.questions import load_questions
    from ragcard.inputs.responses import load_responses

    try:
        questions = load_questions(questions_path).questions
        cites = None
        if responses_path.is_file():
            cites = any(getattr(r, "resolved_citations", list)() for r in
                        load_responses(responses_path))  # fmt: skip
    except InputError:
        return template, []  # (the run lists the problems; the template stays whole)
    return fit_template(template, questions, cites)


@user_errors
def init_command(
    folder: Annotated[Path, typer.Argument(help="project folder to create or fill")] = Path("."),
    kit: Annotated[str, typer.Option(help=f"one of: {', '.join(TEMPLATES)}")] = "knowledge-base",
    name: Annotated[str | None, typer.Option(help="project name")] = None,
    force: Annotated[bool, typer.Option(help="overwrite existing files")] = False,
    example: Annotated[
        bool,
        typer.Option(
            "--example",
            help="also write a working sample project: corpus.jsonl, questions.jsonl and "
            "my_agent.py (knowledge-base kit), ready for `ragcard run FOLDER`",
        ),
    ] = False,
) -> None:
    """Write ragcard.toml and a thresholds template (fill in the reasons before the first run);
    with --example a whole sample project, and the commands to run next."""
    if example and kit != "knowledge-base":
        raise ConfigError("--example is a knowledge-base project: drop --kit or --example")
    thresholds, left_out = _fitted(folder, template_text(kit), example)
    project = name or (_EXAMPLE_NAME if example else "my knowledge agent")
    targets = {
        folder / "ragcard.toml": _CONFIG.format(name=project, kit=kit),
        folder / "thresholds.toml": thresholds,
    }
    if example:
        sample = resources.files("ragcard").joinpath("templates", "example")
        for file in _EXAMPLE_FILES:
            targets[folder / file] = sample.joinpath(file).read_text("utf-8")
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise ConfigError(f"{', '.join(existing)} already exist(s); pass --force to overwrite")
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in targets.items():
        write_atomic(path, text)
        err.print(f"wrote {path}", markup=False, highlight=False)
    for note in left_out:
        err.print(f"thresholds.toml: left out the gate on {note} (commented out, with why)",
                  markup=False, highlight=False)  # fmt: skip
    for line in _next_steps(folder, example):
        err.print(line, markup=False, highlight=False)
