"""docs/ cannot drift from the code (issue 11 item 2).

Each table of docs/formats.md, docs/metrics.md and docs/agents.md is checked against the model,
measure or setting it documents: a field that exists in the code and not in the docs fails
with the page, the table and the row to add. Other helpers add fields and measures in
parallel; the message is meant to be followed as written.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import AliasChoices, BaseModel, create_model

from ragcard._cli.main import app
from ragcard.adapters.callable import CallableConfig
from ragcard.adapters.command import CommandConfig
from ragcard.adapters.http import REQUEST_FIELDS, RESPONSE_FIELDS, HttpConfig
from ragcard.adapters.replay import ReplayConfig
from ragcard.aggregation.scoring import default_layers, metric_specs
from ragcard.decision.thresholds import Threshold
from ragcard.inputs import config as config_module
from ragcard.inputs.corpus import Passage
from ragcard.inputs.questions import GoldPassage, LabelSet, Question
from ragcard.inputs.responses import AgentResponse, CitationRef, RecordedResponse, RetrievedRef
from ragcard.metrics.base import ScoringSettings
from ragcard.metrics.populations import population_of
from ragcard.pipeline.evaluation import load_inputs, score_responses
from ragcard.pipeline.project import judge_from_spec

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
SRC = ROOT / "src" / "ragcard"


def section(page: str, heading: str) -> list[str]:
    """The lines under ``heading`` (e.g. ``## corpus.jsonl``) up to the next heading."""
    lines = (DOCS / page).read_text(encoding="utf-8").splitlines()
    assert heading in lines, f"docs/{page} has no heading {heading!r}: add it"
    out = []
    for line in lines[lines.index(heading) + 1 :]:
        if line.startswith("#"):
            break
        out.append(line)
    return out


def cells(line: str) -> list[str]:
    """A table row's cells (``\\|`` inside a cell is a literal pipe)."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]


def documented(page: str, heading: str) -> set[str]:
    """The backticked names in the first cell of each table row of a section."""
    names: set[str] = set()
    for line in section(page, heading):
        if line.startswith("|") and not line.startswith("|---"):
            names.update(re.findall(r"`([^`]+)`", cells(line)[0]))
    return names


def model_names(model: type[BaseModel]) -> dict[str, str]:
    """Every key a model reads from a file: field names and their aliases → the field."""
    names = {}
    for field_name, info in model.model_fields.items():
        names[field_name] = field_name
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names.update({str(choice): field_name for choice in alias.choices})
        elif isinstance(alias, str):
            names[alias] = field_name
    return names


#: ragcard.toml's tables, as one model (the config reads them table by table).
TOML_TABLES = create_model(
    "RagcardToml",
    **{name: (Any, None) for name in [*config_module.SECTIONS, *config_module.FREE_TABLES]},
)

MODEL_TABLES = [
    ("formats.md", "## questions.jsonl", Question),
    ("formats.md", "### gold entries", GoldPassage),
    ("formats.md", "### labels entries", LabelSet),
    ("formats.md", "## corpus.jsonl", Passage),
    ("formats.md", "## responses.jsonl", RecordedResponse),
    ("formats.md", "### retrieved entries", RetrievedRef),
    ("formats.md", "### citations entries", CitationRef),
    ("formats.md", "## thresholds.toml", Threshold),
    ("formats.md", "## ragcard.toml", TOML_TABLES),
    ("formats.md", "### project", config_module.ProjectSection),
    ("formats.md", "### run", config_module.RunSection),
    ("formats.md", "### history", config_module.HistorySection),
    ("formats.md", "### baseline", config_module.BaselineSection),
    ("formats.md", "### signing", config_module.SigningSection),
    ("agents.md", "## Response", AgentResponse),
    ("agents.md", "## callable", CallableConfig),
    ("agents.md", "## http", HttpConfig),
    ("agents.md", "## command", CommandConfig),
    ("agents.md", "## replay", ReplayConfig),
]


@pytest.mark.parametrize(("page", "heading", "model"), MODEL_TABLES,
                         ids=[f"{p}:{h}" for p, h, _ in MODEL_TABLES])  # fmt: skip
def test_every_field_of_the_model_is_documented(
    page: str, heading: str, model: type[BaseModel]
) -> None:
    have = documented(page, heading)
    missing = [name for name in model_names(model) if name not in have]
    where = f"{model.__module__}.{model.__qualname__}"
    assert not missing, "\n".join(
        f"docs/{page}: the table under {heading!r} has no row for `{name}` (field "
        f"{model_names(model)[name]!r} of {where}); add a row `| `{name}` | <type, default> | "
        "<what it means> |` to that table" for name in missing
    )


def test_every_documented_field_exists_in_the_model() -> None:
    """The other way round: a row for a field the code no longer reads is stale."""
    stale = []
    for page, heading, model in MODEL_TABLES:
        known = set(model_names(model))
        stale += [
            f"docs/{page} {heading!r}: `{name}`"
            for name in documented(page, heading)
            if name not in known
        ]
    assert not stale, "rows for fields the code does not read; remove them: " + "; ".join(stale)


def test_the_request_and_response_tables_match_the_adapters() -> None:
    request = set(Question(id="Q", question="q?").request()) | {"attempt"}
    assert set(REQUEST_FIELDS) <= request
    have = documented("agents.md", "## Request")
    missing = sorted(request - have)
    assert not missing, (
        f"docs/agents.md '## Request' lacks {missing}: add a row `| `name` | type | meaning |` "
        "for each field the agent receives (ragcard.inputs.questions.Question.request)"
    )
    missing = sorted(set(RESPONSE_FIELDS) - documented("agents.md", "## Response"))
    assert not missing, (
        f"docs/agents.md '## Response' lacks {missing} (adapters.http.RESPONSE_FIELDS)"
    )


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real scorecard and results.jsonl (with a judge, so every kind of line appears)."""
    mini = ROOT / "tests" / "fixtures" / "mini"
    out = tmp_path_factory.mktemp("docs-run")
    inputs = load_inputs(mini / "questions.jsonl", mini / "corpus.jsonl", mini / "thresholds.toml")
    lines = (mini / "responses.jsonl").read_text().splitlines()
    responses = out / "responses.jsonl"  # Q6 unrecorded: a failed attempt too
    responses.write_text("\n".join(x for x in lines if '"Q6"' not in x) + "\n")
    score_responses(inputs, responses, out / "run", run_date=dt.date(2026, 1, 1),
                    judge=judge_from_spec({"backend": "lexical"}))  # fmt: skip
    return out / "run"


def test_every_results_line_key_is_documented(scored: Path) -> None:
    keys: dict[str, None] = {}
    for line in (scored / "results.jsonl").read_text().splitlines():
        keys.update(dict.fromkeys(json.loads(line)))
    missing = [k for k in keys if k not in documented("formats.md", "## results.jsonl")]
    assert not missing, "\n".join(
        f"docs/formats.md: the table under '## results.jsonl' has no row for `{k}` (a key of "
        f"every line ragcard writes); add `| `{k}` | <what it holds> |`" for k in missing
    )


def test_every_scorecard_key_is_documented(scored: Path) -> None:
    card = json.loads((scored / "scorecard.json").read_text())
    have = documented("formats.md", "## scorecard.json")
    missing = [k for k in card if k not in have]
    assert not missing, "\n".join(
        f"docs/formats.md: the table under '## scorecard.json' has no row for `{k}` (a key "
        f"of scorecard.json); add `| `{k}` | <what it holds> |`" for k in missing
    )
    config_row = next(x for x in section("formats.md", "## scorecard.json") if "`config`" in x)
    absent = [k for k in card["config"] if f"`{k}`" not in config_row]
    assert not absent, f"docs/formats.md scorecard.json `config` row: name {absent} in it"


def _measure_rows() -> dict[str, list[str]]:
    rows = {}
    for line in section("metrics.md", "## Measures"):
        row = cells(line)
        if row and row[0].startswith("`"):
            rows[row[0].strip("`")] = row
    return rows


def test_every_measure_is_documented_with_its_population() -> None:
    specs = metric_specs(default_layers(), ScoringSettings())
    rows = _measure_rows()
    problems = []
    for name, spec in specs.items():
        if name not in rows:
            population = population_of(spec)
            items = population.items if population else "<items>"
            attempts = population.attempts if population else "<attempts>"
            problems.append(
                f"docs/metrics.md: the table under '## Measures' has no row for `{name}` "
                f"(declared by the {spec.layer} layer); add `| `{name}` | {spec.layer} | "
                f"{spec.kind} | {'higher' if spec.higher_is_better else 'lower'} | "
                f"<what it computes> | {items} | {attempts} |`"
            )
            continue
        cells = rows[name]
        expected = [spec.layer, spec.kind, "higher" if spec.higher_is_better else "lower"]
        if cells[1:4] != expected:
            problems.append(f"docs/metrics.md `{name}`: layer, kind, better are {expected}")
        population = population_of(spec)
        if population is None:
            problems.append(f"add {spec.base!r} to POPULATIONS in metrics/populations.py")
        elif cells[5:7] != [population.items, population.attempts]:
            problems.append(
                f"docs/metrics.md `{name}`: items and attempts must read "
                f"{population.items!r} and {population.attempts!r} (metrics/populations.py)"
            )
    assert not problems, "\n".join(problems)


def test_every_diagnosis_rule_is_documented() -> None:
    source = (SRC / "aggregation" / "diagnosis.py").read_text(encoding="utf-8")
    rules = re.findall(r'"([a-z_]+(?:\.[a-z_]+)+)",?\s*\)', source)
    assert len(rules) >= 10
    have = documented("metrics.md", "## Diagnosis")
    missing = [rule for rule in rules if rule not in have]
    assert not missing, (
        f"docs/metrics.md '## Diagnosis' lacks the rules {missing} "
        "(ragcard/aggregation/diagnosis.py): add "
        "`| `rule` | layer | symptom | likely cause | try |` for each"
    )


def _code_blocks(page: str) -> Iterator[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    yield from re.findall(r"```python\n(.*?)```", text, re.DOTALL)


def test_the_agents_shown_are_the_agents_tested() -> None:
    blocks = list(_code_blocks("agents.md"))
    files = [SRC / "templates" / "example" / "my_agent.py", DOCS / "agents" / "http_agent.py",
             DOCS / "agents" / "command_agent.py"]  # fmt: skip
    for path in files:
        assert path.read_text(encoding="utf-8") in blocks, (
            f"docs/agents.md must show {path.relative_to(ROOT)} verbatim in a ```python block "
            "(the tests run that file)"
        )


# --- SPEC § and docs links -----------------------------------------------------------------


def _help_texts(command: Any, path: str = "ragcard") -> Iterator[tuple[str, str]]:
    """Every command's and option's help (typer's own command objects: typer bundles click)."""
    texts = [command.help or "", getattr(command, "short_help", None) or ""]
    texts += [getattr(p, "help", None) or "" for p in command.params]
    yield path, "\n".join(texts)
    for name, sub in getattr(command, "commands", {}).items():
        yield from _help_texts(sub, f"{path} {name}")


def test_no_help_text_cites_a_spec_users_do_not_have() -> None:
    found = [where for where, text in _help_texts(typer.main.get_command(app)) if "SPEC" in text]
    assert not found, f"help of {found} cites SPEC §…: point to docs/<page>.md instead"


def _user_strings(path: Path) -> Iterator[tuple[int, str]]:
    """String constants of a module that can reach a user: not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                yield node.lineno, node.value


def test_no_message_cites_a_spec_users_do_not_have() -> None:
    found = [f"{p.relative_to(ROOT)}:{line}" for p in sorted(SRC.rglob("*.py"))
             for line, text in _user_strings(p) if "SPEC §" in text]  # fmt: skip
    examples = ROOT / "examples"
    shipped = [*(SRC / "templates").rglob("*.toml"), ROOT / "README.md",
               *examples.rglob("*.toml"), *examples.rglob("*.md")]  # fmt: skip
    found += [str(p.relative_to(ROOT)) for p in shipped if "SPEC §" in p.read_text("utf-8")]
    assert not found, f"these cite SPEC §, which users do not have; point to docs/ instead: {found}"


def test_no_comment_or_docstring_points_to_the_spec() -> None:
    """Code comments and docstrings point to docs/ pages, which ship; never to the spec."""
    found = [f"{p.relative_to(ROOT)}:{n}"
             for p in sorted(SRC.rglob("*")) if p.suffix in {".py", ".md"}
             for n, line in enumerate(p.read_text("utf-8").splitlines(), 1)
             if re.search(r"\bSPEC\b(?!S)", line) and "_SPEC" not in line]  # fmt: skip
    assert not found, f"these point to the spec, which users do not have; use docs/: {found}"


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def test_every_docs_link_points_to_a_page_and_heading_that_ship() -> None:
    sources = [ROOT / "README.md", *DOCS.glob("*.md"), *SRC.rglob("*.py"),
               *(SRC / "templates").rglob("*")]  # fmt: skip
    broken = []
    for source in sources:
        if source.is_dir():
            continue
        text = source.read_text(encoding="utf-8")
        base = DOCS if source.parent == DOCS else ROOT
        pattern = r"\(([\w-]+\.md)(#[\w-]+)?\)" if base is DOCS else r"(docs/[\w-]+\.md)(#[\w-]+)?"
        for page, anchor in re.findall(pattern, text):
            target = base / page
            if not target.is_file():
                broken.append(f"{source.relative_to(ROOT)} → {page}")
                continue
            if anchor:
                slugs = {_slug(line) for line in target.read_text("utf-8").splitlines()
                         if line.startswith("#")}  # fmt: skip
                if anchor[1:] not in slugs:
                    broken.append(f"{source.relative_to(ROOT)} → {page}{anchor}")
    assert not broken, f"links to pages or headings that do not exist: {broken}"


def test_the_readme_links_the_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in ("docs/formats.md", "docs/metrics.md", "docs/agents.md"):
        assert page in readme, f"README.md must link {page}"


def test_pinned_versions_in_the_docs_are_this_version() -> None:
    """A `ragcard==X` pin in the docs names the version pyproject.toml declares."""
    declared = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(),
                         flags=re.M)  # fmt: skip
    assert declared
    pages = [ROOT / "README.md", ROOT / "action.yml", *DOCS.glob("*.md")]
    pins = {(page.name, pin) for page in pages
            for pin in re.findall(r"ragcard(?:\[[\w,-]+\])?==([\w.+-]+)", page.read_text())}
    stale = {(name, pin) for name, pin in pins if pin != declared.group(1)}
    assert not stale, f"pins of another version than {declared.group(1)}: {stale}"


def test_the_import_page_pins_what_ragas_needs() -> None:
    """docs/import.md installs ragas with the langchain-community the benchmarks pin (0.4 broke
    `import ragas.metrics`)."""
    pins = dict(line.split("==") for line in (ROOT / "benchmarks" / "requirements-ragas.txt")
                .read_text().splitlines() if "==" in line and not line.startswith("#"))
    page = (DOCS / "import.md").read_text(encoding="utf-8")
    for package in ("ragas", "langchain-community"):
        assert f"{package}=={pins[package]}" in page, f"docs/import.md must pin {package}"
