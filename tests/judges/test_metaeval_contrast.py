"""The contrast benchmark: its variant generators on hand-written sentences, the split by
passage, the paraphrase file's staleness check, and ``judges evaluate --dataset contrast``."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from ragcard._cli.judges import judges_app
from ragcard.judges import build_judge
from ragcard.judges.metaeval.contrast_data import (
    PARAPHRASES,
    build_contrast,
    load_paraphrases,
    read_sources,
    sentence_sha,
)
from ragcard.judges.metaeval.contrast_faithful import number_unit, reorder
from ragcard.judges.metaeval.contrast_names import swap_name
from ragcard.judges.metaeval.contrast_polarity import change_figure, flip_relation, negate
from ragcard.judges.metaeval.contrast_report import evaluate_contrast, format_contrast

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PASSAGE = (
    "Bicycles are parked in the basement of building B. Visitors sign in at the front desk of "
    "building A, where Priya Shah hands out passes. Tom Baker and Ann Lee run the desk. "
    "Parking costs £5 per day, and the basement closes before 8 pm."
)


def rng() -> random.Random:
    return random.Random(0)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Bicycles are parked in the basement.", "Bicycles are not parked in the basement."),
        ("You can park a bicycle there.", "You cannot park a bicycle there."),
        ("The office has two desks.", "The office does not have two desks."),
        ("The office has moved twice.", "The office has not moved twice."),
        ("Bicycles are not parked on the roof.", "Bicycles are parked on the roof."),
        ("You can't park here.", "You can park here."),
        ("She founded the club in 1990.", "She never founded the club in 1990."),
        ("The gate no longer opens at night.", "The gate still opens at night."),
    ],
)
def test_negation_adds_or_removes_one_negation(sentence: str, expected: str) -> None:
    made = negate(sentence, PASSAGE, rng())
    assert made is not None and made.text == expected and made.kind == "negation"
    assert not made.supported


def test_negation_leaves_a_sentence_it_would_doubly_negate() -> None:
    assert negate("There is no parking on the roof.", PASSAGE, rng()) is None


def test_swapped_name_comes_from_the_same_passage() -> None:
    sentence = "Priya Shah hands out passes at the front desk."
    for seed in range(20):
        made = swap_name(sentence, PASSAGE, random.Random(seed))
        assert made is not None and made.text != sentence
        old, new = made.change.split(" -> ")
        assert old == "Priya Shah" and new in PASSAGE and new not in sentence
        # A name listed beside another ("Tom Baker and Ann Lee") is no swap for it.
    listed = swap_name("Tom Baker runs the desk.", PASSAGE, rng())
    assert listed is None or "Ann Lee" not in listed.text


def test_swapped_name_needs_a_name_the_passage_states() -> None:
    assert swap_name("Marco Rossi hands out passes.", PASSAGE, rng()) is None
    # A capital only because a passage sentence starts with the word is no name.
    made = swap_name("Priya Shah parks in building B.", PASSAGE, rng())
    assert made is not None and "Visitors" not in made.text and "Parking" not in made.text


def test_swapped_name_is_no_name_the_sentence_already_uses() -> None:
    passage = "The club sacked Simon Grayson in May, and Alex Neil was appointed on 4 July."
    made = swap_name("Grayson's replacement was Alex Neil.", passage, rng())
    assert made is None or "Simon Grayson" not in made.text


@pytest.mark.parametrize(
    ("sentence", "old", "new"),
    [
        ("The basement closes before 8 pm.", "before", "after"),
        ("Costs increased last year.", "increased", "decreased"),
        ("This is the highest floor.", "highest", "lowest"),
        ("Staff must sign in.", "must", "may"),
    ],
)
def test_flipped_relation_flips_one_word(sentence: str, old: str, new: str) -> None:
    made = flip_relation(sentence, PASSAGE, rng())
    assert made is not None and made.change == f"{old} -> {new}"
    assert made.text == sentence.replace(old, new, 1)


def test_flipped_relation_skips_fixed_phrases() -> None:
    assert flip_relation("The hall is named after Priya Shah.", PASSAGE, rng()) is None


def test_changed_figure_changes_one_figure() -> None:
    made = change_figure("Parking costs £5 per day.", PASSAGE, rng())
    assert made is not None and made.text != "Parking costs £5 per day."
    assert made.text.startswith("Parking costs £") and "5" not in made.text
    words = change_figure("It has three doors.", PASSAGE, rng())
    assert words is not None and words.text == "It has four doors."
    assert change_figure("It has doors.", PASSAGE, rng()) is None


def test_faithful_rewrites_stay_faithful_in_form() -> None:
    moved = reorder("In 2019, the desk moved to building A.", PASSAGE, rng())
    assert moved is not None and moved.text == "The desk moved to building A in 2019."
    front = reorder("The desk moved to building A in 2019.", PASSAGE, rng())
    assert front is not None and front.text == "In 2019, the desk moved to building A."
    pair = reorder("The desk is run by Tom Baker and Ann Lee.", PASSAGE, rng())
    assert pair is not None and pair.text == "The desk is run by Ann Lee and Tom Baker."
    assert moved.supported and pair.supported
    # A phrase moved past a second clause would attach to it: left alone.
    assert reorder("In 2019, the desk moved and the gate closed.", PASSAGE, rng()) is None
    pounds = number_unit("Parking costs £5 per day.", PASSAGE, random.Random(1))
    assert pounds is not None
    assert pounds.text in {"Parking costs 5 pounds per day.", "Parking costs £5 daily."}
    assert number_unit("It has 3 doors.", PASSAGE, rng()).text == "It has three doors."  # type: ignore[union-attr]
    assert number_unit("It has three doors.", PASSAGE, rng()).text == "It has 3 doors."  # type: ignore[union-attr]
    assert number_unit("It opened on 3 March.", PASSAGE, rng()) is None


# -- a tiny data dir ------------------------------------------------------------------------


def _clapnq(folder: Path, count: int) -> None:
    (folder / "clapnq").mkdir(parents=True)
    lines = []
    for i in range(count):
        passage = (f"Town {i} lies on the river Ouse. The mayor of Town {i} is Alice Moor, and "
                   f"the clerk is Ben Hale. The bridge was built before 1900.")  # fmt: skip
        answers = [f"The mayor of Town {i} is Alice Moor.", "The bridge was built before 1900."]
        lines.append(json.dumps({
            "id": f"q{i}", "input": "who is the mayor",
            "passages": [{"title": "Town", "text": passage, "sentences": []}],
            "output": [{"answer": a, "selected_sentences": [], "meta": {}} for a in answers],
        }))  # fmt: skip
    (folder / "clapnq" / "clapnq_dev_answerable.jsonl").write_text("\n".join(lines) + "\n")


def _wice(folder: Path) -> None:
    (folder / "wice").mkdir(parents=True)
    record = {"claim": "The museum was opened in 1950 by Clara Voss.", "label": "supported",
              "evidence": ["Menu", "Clara Voss opened the museum in 1950.", "Oskar Brandt ran it."],
              "supporting_sentences": [[1]], "meta": {"id": "test00001"}}  # fmt: skip
    (folder / "wice" / "claim_test.jsonl").write_text(json.dumps(record) + "\n")


def _begin(folder: Path) -> None:
    (folder / "begin").mkdir(parents=True)
    header = ["model_name", "data_source", "knowledge", "message", "response", "begin_label"]
    for part in ("dev", "test"):
        with (folder / "begin" / f"begin_{part}_wow.tsv").open("w", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            writer.writerow(header)
            writer.writerow(["t5", "wow", f"the {part} lake is the largest in the region",
                             "hi", f"the {part} lake is the largest in the region",
                             "Fully attributable"])  # fmt: skip


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    _clapnq(folder, 12)
    _wice(folder)
    _begin(folder)
    return folder


def test_split_is_by_passage_deterministic_and_disjoint(data_dir: Path) -> None:
    one = build_contrast(data_dir, examples_dir=None)
    two = build_contrast(data_dir, examples_dir=None)
    assert [(i.id, i.part, i.variant.text) for i in one.items] == [
        (i.id, i.part, i.variant.text) for i in two.items
    ]
    parts: dict[str, set[str]] = {}
    for item in one.items:
        parts.setdefault(item.source.passage_key, set()).add(item.part)
    assert all(len(found) == 1 for found in parts.values())
    assert {"dev", "test"} == {p for found in parts.values() for p in found}
    other = build_contrast(data_dir, seed=7, examples_dir=None)
    assert [i.part for i in other.items] != [i.part for i in one.items]
    kinds = {i.variant.kind for i in one.items}
    assert {"original", "negation", "swapped-name", "flipped-relation", "changed-figure"} <= kinds


def test_sources_skip_what_is_absent(tmp_path: Path) -> None:
    sources, skipped = read_sources(tmp_path / "nothing", examples_dir=None)
    assert sources == []
    assert any("clapnq: skipped" in s and "--data-dir" in s for s in skipped)
    assert len(skipped) == 5


def test_paraphrase_file_staleness(data_dir: Path, tmp_path: Path) -> None:
    sources, _ = read_sources(data_dir, examples_dir=None)
    first, second = sources[0], sources[1]
    path = tmp_path / "paraphrases.jsonl"
    lines = [
        {"id": first.id, "source_sha256": sentence_sha(first.sentence), "paraphrase": "ok"},
        {"id": second.id, "source_sha256": sentence_sha("an older text"), "paraphrase": "x"},
        {"id": "clapnq:gone:0", "source_sha256": "0" * 64, "paraphrase": "y"},
        {"id": "handbook:HB-9", "source_sha256": "0" * 64, "paraphrase": "not read: no corpus"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    kept, stale = load_paraphrases(sources, path)
    assert kept == {first.id: "ok"}
    assert stale == [
        f"{second.id} (source sentence changed)",
        "clapnq:gone:0 (source sentence gone)",
    ]
    built = build_contrast(data_dir, examples_dir=None, paraphrases=path)
    assert any("2 stale paraphrases" in note for note in built.notes)
    assert [i.variant.text for i in built.items if i.variant.kind == "paraphrase"] == ["ok"]


def test_shipped_paraphrases_match_the_bundled_corpora() -> None:
    """The repository's own paraphrase lines are current (the public sets' lines are checked
    where the data is, by the benchmark's note)."""
    sources, _ = read_sources(Path("/nonexistent"), EXAMPLES)
    _kept, stale = load_paraphrases(sources, PARAPHRASES)
    assert stale == []
    for line in PARAPHRASES.read_text("utf-8").splitlines():
        record = json.loads(line)
        assert record["paraphrase"].strip() and record["paraphrase"] != record.get("source")
        if "source" in record:  # the bundled corpora's lines carry their text
            assert sentence_sha(record["source"]) == record["source_sha256"]


def test_report_counts_right_per_kind(data_dir: Path) -> None:
    contrast = build_contrast(data_dir, examples_dir=None)
    evaluation = evaluate_contrast(build_judge({"backend": "lexical"}), contrast, "dev")
    rows = {row.kind: row for row in evaluation.rows()}
    dev = contrast.part("dev")
    assert rows["original"].n == sum(i.variant.kind == "original" for i in dev)
    assert rows["negation"].right <= rows["negation"].n
    text = format_contrast(evaluation, misses=1)
    assert "dev part" in text and "negation" in text and "caught" in text


# -- the CLI --------------------------------------------------------------------------------

runner = CliRunner()
app = typer.Typer()
app.add_typer(judges_app, name="judges")


def contrast(*args: str) -> Result:
    return runner.invoke(app, ["judges", "evaluate", "--judge", "lexical", "--dataset",
                               "contrast", *args])  # fmt: skip


def test_cli_prints_the_table(data_dir: Path) -> None:
    result = contrast("--data-dir", str(data_dir), "--misses", "1")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "contrast benchmark [contrast], test part" in out
    for kind in ("negation", "swapped-name", "flipped-relation", "changed-figure", "original"):
        assert f"  {kind} " in out
    assert "95% Wilson" in out and "n=" in out
    dev = contrast("--data-dir", str(data_dir), "--split", "dev")
    assert dev.exit_code == 0 and "dev part" in dev.stdout


def test_cli_says_when_the_data_is_absent(tmp_path: Path) -> None:
    result = contrast("--data-dir", str(tmp_path / "none"))
    assert "clapnq: skipped" in result.stderr and "--data-dir" in result.stderr
    # The bundled corpora still run, so the table is printed from them.
    assert result.exit_code == 0, result.output
    assert "handbook" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--split", "train"], "--split must be dev or test"),
        (["--save", "x.json"], "the contrast figures are printed only"),
        (["--dataset", "begin"], "in its own run"),
    ],
)
def test_cli_bad_input(args: list[str], message: str, tmp_path: Path) -> None:
    result = contrast("--data-dir", str(tmp_path), *args)
    assert result.exit_code == 2 and message in result.output


def test_split_option_is_for_contrast_only(tmp_path: Path) -> None:
    result = runner.invoke(app, ["judges", "evaluate", "--judge", "lexical", "--dataset", "begin",
                                 "--split", "dev"])  # fmt: skip
    assert result.exit_code == 2 and "--dataset contrast" in result.output


def test_limit_keeps_the_first_sources_of_each_part(data_dir: Path) -> None:
    result = contrast("--data-dir", str(data_dir), "--limit", "1", "--split", "dev")
    assert result.exit_code == 0, result.output
    assert "limited to the first 1 source sentences of each part" in result.stdout
    assert "n=1 " in result.stdout  # one original sentence
