"""BEGIN (WoW): the reader keeps the dataset's split, drops Generic rows, and fails loudly on a
malformed file."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcard.errors import InputError
from ragcard.judges.metaeval.begin import COLUMNS, read_begin

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
HAVE_BEGIN = (DATA / "begin" / "begin_test_wow.tsv").is_file()


@pytest.mark.skipif(not HAVE_BEGIN, reason=f"BEGIN not found at {DATA / 'begin'}")
def test_reads_both_files_with_their_split() -> None:
    dataset = read_begin(DATA)
    dev, test = dataset.part("dev"), dataset.part("test")
    assert len(dev) == 430 and sum(e.supported for e in dev) == 180
    assert len(test) == 3601 and sum(e.supported for e in test) == 1392  # 6 Generic left out
    assert dataset.fixed_split and "6 'Generic' rows left out" in dataset.notes[0]
    assert {e.group for e in test} == {"gpt2", "t5", "ctrl", "doha"}
    # Literal quotes are text, not CSV quoting: some responses contain them.
    assert any('"' in e.claims[0] for e in test)


def write(folder: Path, rows: list[str]) -> Path:
    (folder / "begin").mkdir()
    header = "\t".join(COLUMNS)
    for name in ("begin_dev_wow.tsv", "begin_test_wow.tsv"):
        (folder / "begin" / name).write_text("\n".join([header, *rows]) + "\n")
    return folder


def test_a_tiny_file_pair(tmp_path: Path) -> None:
    row = 't5\twow\tThe sky is blue.\thi\tthe "sky" is blue\tFully attributable'
    dataset = read_begin(write(tmp_path, [row, row.replace("Fully", "Not fully")]))
    assert [e.supported for e in dataset.part("test")] == [True, False]
    assert dataset.part("dev")[0].claims == ('the "sky" is blue',)
    assert dataset.part("dev")[0].evidence_sets[0][0].text == "The sky is blue."


def test_bad_rows_are_all_reported(tmp_path: Path) -> None:
    rows = ["t5\twow\tk\tm\tr", "t5\twow\tk\tm\tr\tMaybe"]
    with pytest.raises(InputError) as caught:
        read_begin(write(tmp_path, rows))
    text = str(caught.value)
    assert "begin_dev_wow.tsv:2" in text and "expected 6 fields" in text
    assert "begin_test_wow.tsv:3" in text and "Maybe" in text


def test_missing_folder_says_what_to_pass(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--data-dir"):
        read_begin(tmp_path)
