"""``import``: logs to a labelling sample — clean, deduplicated, de-identified, drawn to mix."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from ragcard.errors import ConfigError, InputError
from ragcard.goldset import ImportOptions, Targets, import_logs
from ragcard.inputs.questions import load_questions


def write_csv(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_csv_pipeline(tmp_path: Path) -> None:
    rows = [
        {"text": "  How many   days holiday do I get?  ", "when": "1"},
        {"text": "how many days holiday do i get", "when": "2"},  # exact duplicate
        {"text": "Hi, I'm Priya. Can I carry over leave? Call 07700 900123", "when": "3"},
        {"text": "Hi, I'm Tom. Can I carry over leave? Call 07700 900456", "when": "4"},
        {"text": "how many days holiday do I get each year please", "when": "5"},
        {"text": "my email is a.b@example.com, who approves expenses?", "when": "6"},
        {"text": "   ", "when": "7"},
        {"text": "Cafe\u0301 expenses, multi\nline", "when": "8"},
    ]
    path = write_csv(tmp_path / "logs.csv", rows)
    result = import_logs(path, ImportOptions(column="text", near_duplicate=0.6))
    texts = [question.question for question in result.questions]
    assert texts == [
        "How many days holiday do I get?",
        "Hi, I'm [NAME]. Can I carry over leave? Call [PHONE]",
        "my email is [EMAIL], who approves expenses?",
        "Café expenses, multi line",
    ]
    assert result.rows == 8 and result.empty == 1
    assert result.exact_duplicates == 2  # row 2, and row 4 once its name and number are gone
    assert result.near_duplicates == 1  # row 5
    assert dict(result.removed) == {"name": 2, "phone": 2, "email": 1}
    assert result.removed_by_placeholder == {"[NAME]": 2, "[PHONE]": 2, "[EMAIL]": 1}
    assert result.sampling == "all"
    assert [q.source for q in result.questions] == [
        "logs.csv:2",
        "logs.csv:4",
        "logs.csv:7",
        "logs.csv:9",
    ]
    assert [q.id for q in result.questions] == ["LOG-0001", "LOG-0002", "LOG-0003", "LOG-0004"]
    out = tmp_path / "questions.jsonl"
    out.write_text(result.to_jsonl(), encoding="utf-8")
    loaded = load_questions(out)
    assert len(loaded) == 4 and loaded.questions[0].model_extra == {"source": "logs.csv:2"}
    summary = result.to_dict()
    assert summary["not_detected"] and json.dumps(summary)


def test_jsonl_nested_field_and_missing(tmp_path: Path) -> None:
    path = tmp_path / "logs.jsonl"
    lines = [
        {"request": {"q": "where is form HR-17?"}, "category": "exact_term"},
        {"request": {}, "event": "heartbeat"},
        {"request": {"q": "what is core hours"}},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = import_logs(path, ImportOptions(column="request.q"))
    assert result.missing == 1
    assert [(q.question, q.category, q.source) for q in result.questions] == [
        ("where is form HR-17?", "exact_term", "logs.jsonl:1"),
        ("what is core hours", None, "logs.jsonl:3"),
    ]
    assert "category" not in result.questions[1].to_record()


def category_log(tmp_path: Path) -> Path:
    rows = []
    for category, count in (("typical", 300), ("paraphrase", 100), ("unanswerable", 5)):
        rows += [
            {"question": f"{category} question number {i} {'x' * (i % 7)}", "category": category}
            for i in range(count)
        ]
    rows += [{"question": f"unlabelled question {i}", "category": ""} for i in range(50)]
    return write_csv(tmp_path / "logs.csv", rows)


def test_stratified_sample_meets_quotas_and_tops_up(tmp_path: Path) -> None:
    targets = Targets(shares={"typical": 0.5, "paraphrase": 0.3, "unanswerable": 0.2})
    result = import_logs(category_log(tmp_path), ImportOptions(n=40, seed=3), targets)
    assert result.sampling == "stratified"
    assert dict(result.quotas) == {"typical": 20, "paraphrase": 12, "unanswerable": 8}
    drawn = result.sampled_by_category()
    assert len(result.questions) == 40
    assert drawn["unanswerable"] == 5  # all there are; the rest topped up at random
    assert drawn["paraphrase"] >= 12 and drawn["typical"] >= 20
    again = import_logs(category_log(tmp_path), ImportOptions(n=40, seed=3), targets)
    assert again.questions == result.questions
    other = import_logs(category_log(tmp_path), ImportOptions(n=40, seed=4), targets)
    assert other.questions != result.questions


def test_uniform_sample_without_categories(tmp_path: Path) -> None:
    path = write_csv(
        tmp_path / "logs.csv",
        [{"question": f"question {i} about topic {i * 7}"} for i in range(100)],
    )
    result = import_logs(path, ImportOptions(n=10, seed=1, category_column=None))
    assert result.sampling == "uniform" and len(result.questions) == 10
    sources = [int(q.source.split(":")[1]) for q in result.questions]
    assert sources == sorted(sources)  # log order kept
    assert import_logs(path, ImportOptions(n=10, seed=1)).questions == result.questions


def test_kit_inferred_from_log_categories(tmp_path: Path) -> None:
    result = import_logs(category_log(tmp_path), ImportOptions(n=20))
    assert set(result.quotas) == {
        "typical",
        "paraphrase",
        "exact_term",
        "multi_passage",
        "unanswerable",
        "access_probe",
        "currency_trap",
    }
    assert sum(result.quotas.values()) == 20


def test_missing_column_lists_the_columns(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "logs.csv", [{"query": "x", "user": "u"}])
    with pytest.raises(InputError, match="query, user"):
        import_logs(path, ImportOptions())
    jsonl = tmp_path / "logs.jsonl"
    jsonl.write_text('{"query": "x"}\nnot json\n', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        import_logs(jsonl, ImportOptions())
    assert caught.value.problems[0].line == 2
    jsonl.write_bytes(b'{"question": "caf\xe9?"}\n[1]\n')  # latin-1, then not an object
    with pytest.raises(InputError) as caught:
        import_logs(jsonl, ImportOptions())
    latin1, listed = caught.value.problems
    assert latin1.message == "not UTF-8 text (byte 0xe9 at column 18)"
    assert latin1.fix is not None and "save the file as UTF-8" in latin1.fix
    assert (listed.message, listed.fix) == ("expected a JSON object", "one log record per line")


def test_bad_options() -> None:
    with pytest.raises(ConfigError):
        ImportOptions(n=0)
    with pytest.raises(ConfigError):
        ImportOptions(near_duplicate=1.5)
