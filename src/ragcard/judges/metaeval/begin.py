"""BEGIN, Wizard-of-Wikipedia part (Dziri et al.): is a dialogue response attributable to its
knowledge snippet?

The dev file is the tuning part and the test file the reported part (the dataset's own
split). Claim = the response; evidence = the knowledge snippet (the previous turn is context,
not evidence, and is not shown to the judge). ``Fully attributable`` is supported; ``Not fully
attributable`` is not; the few ``Generic`` rows (nothing checkable) are left out and counted in
the notes. The group is the generator (``gpt2``, ``t5``, ``ctrl``, ``doha``): labels are
skewed by generator, so a judge keying on style can look good; report per group too.
"""

from __future__ import annotations

import csv
from pathlib import Path

from ragcard.errors import InputError, Problem
from ragcard.judges.base import Evidence
from ragcard.judges.metaeval.examples import Dataset, LabelledExample, Part, require_file

__all__ = ["read_begin"]

FILES: dict[Part, str] = {"dev": "begin_dev_wow.tsv", "test": "begin_test_wow.tsv"}
COLUMNS = ["model_name", "data_source", "knowledge", "message", "response", "begin_label"]
LICENCE = "CC BY 4.0 (BEGIN WoW part; Wizard of Wikipedia data credited in NOTICE_wow.txt)"
CREDIT = (
    "BEGIN: Dziri, Rashkin, Linzen, Reitter, 'Evaluating Groundedness in Dialogue Systems: The "
    "BEGIN Benchmark'; github.com/google/BEGIN-dataset; Wizard of Wikipedia (Dinan et al., "
    "Facebook/Meta)"
)
_LABELS = {"Fully attributable": True, "Not fully attributable": False}


def read_begin(data_dir: Path) -> Dataset:
    """Read ``data_dir/begin/begin_{dev,test}_wow.tsv`` (dev = tuning part, test = reported)."""
    examples: list[LabelledExample] = []
    problems: list[Problem] = []
    generic = 0
    for part, file_name in FILES.items():
        path = require_file(data_dir / "begin" / file_name, "BEGIN", f"begin/{file_name}")
        with path.open(encoding="utf-8", newline="") as handle:
            # QUOTE_NONE: hundreds of rows hold literal '"' that are text, not CSV quoting.
            rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
            header = next(rows, None)
            if header != COLUMNS:
                problems.append(Problem(str(path), 1, None, "unexpected header", header))
                continue
            for line, row in enumerate(rows, start=2):
                if len(row) != len(COLUMNS):
                    problems.append(
                        Problem(str(path), line, None, f"expected 6 fields, got {len(row)}")
                    )
                    continue
                model, _, knowledge, _, response, label = row
                if label == "Generic":
                    generic += 1
                    continue
                if label not in _LABELS:
                    problems.append(Problem(str(path), line, "begin_label", "unknown", label))
                    continue
                examples.append(
                    LabelledExample(
                        id=f"begin-{part}-{line}",
                        claims=(response,),
                        evidence_sets=((Evidence("knowledge", knowledge),),),
                        supported=_LABELS[label],
                        label=label,
                        part=part,
                        group=model,
                    )
                )
    if problems:
        raise InputError(problems, "BEGIN files are not in the expected format")
    return Dataset(
        name="begin",
        title="BEGIN (Wizard of Wikipedia), response vs. knowledge snippet",
        examples=tuple(examples),
        split_rule="dataset's own split: tuned on begin_dev_wow.tsv, reported on "
        "begin_test_wow.tsv",
        licence=LICENCE,
        credit=CREDIT,
        fixed_split=True,
        notes=(
            f"{generic} 'Generic' rows left out (nothing checkable)",
            "no published figures are comparable with this release (see the data README)",
        ),
    )
