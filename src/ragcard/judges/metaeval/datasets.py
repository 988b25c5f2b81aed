"""Dataset names → readers: the built-in human-labelled sets, or a path to your own labels.

Data is never bundled: the built-in sets are read at run time from ``data_dir`` (in this
repository's layout, ``../shared/data``), each from its own sub-folder with its licence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ragcard.errors import ConfigError, InputError
from ragcard.inputs._jsonl import iter_json_lines
from ragcard.judges.metaeval.begin import read_begin
from ragcard.judges.metaeval.examples import SPLIT_SEED, Dataset, limit_examples
from ragcard.judges.metaeval.faithbench import read_faithbench
from ragcard.judges.metaeval.relevance import read_clapnq_relevance, read_relevance_labels
from ragcard.judges.metaeval.userlabels import read_user_labels
from ragcard.judges.metaeval.wice import read_wice

__all__ = ["BUILTIN_DATASETS", "DEFAULT_DATA_DIR", "load_dataset", "load_datasets"]

#: Where the built-in sets are looked for when no --data-dir is given (relative to the
#: working directory: the repository root, in this project's layout).
DEFAULT_DATA_DIR = Path("../shared/data")

#: name → reader(data_dir, seed). ``wice-100`` is the authors' published subset.
BUILTIN_DATASETS: dict[str, Callable[[Path, int], Dataset]] = {
    "wice": lambda data_dir, seed: read_wice(data_dir, published_subset=False, seed=seed),
    "wice-100": lambda data_dir, seed: read_wice(data_dir, published_subset=True, seed=seed),
    "begin": lambda data_dir, _seed: read_begin(data_dir),
    "faithbench": lambda data_dir, seed: read_faithbench(data_dir, seed=seed),
    "clapnq-relevance": lambda data_dir, _seed: read_clapnq_relevance(data_dir),
}


def load_dataset(
    name: str, data_dir: Path = DEFAULT_DATA_DIR, limit: int | None = None, seed: int = SPLIT_SEED
) -> Dataset:
    """A built-in dataset by name, or a ``.jsonl`` labels file by path; ``limit`` keeps the
    first ``limit`` examples of each part (dev and test)."""
    if name in BUILTIN_DATASETS:
        dataset = BUILTIN_DATASETS[name](data_dir, seed)
    elif name.endswith(".jsonl") or Path(name).is_file():
        reader = read_relevance_labels if _labels_relevance(Path(name)) else read_user_labels
        dataset = reader(Path(name), seed=seed)
    else:
        raise ConfigError(
            f"unknown dataset '{name}': choose one of {', '.join(BUILTIN_DATASETS)}, "
            "or give the path of a .jsonl labels file"
        )
    if limit is not None:
        if limit < 1:
            raise ConfigError(f"--limit must be at least 1, got {limit}")
        dataset = replace(
            dataset,
            examples=limit_examples(dataset.examples, limit),
            notes=(*dataset.notes, f"limited to the first {limit} examples of each part"),
        )
    return dataset


def _labels_relevance(path: Path) -> bool:
    """Whether a labels file holds relevance labels: its first object has ``question`` and
    ``answer`` and no ``claim`` (a file that cannot be read is left to the support reader,
    which reports why)."""
    try:
        for _number, data, _error in iter_json_lines(path):
            return (
                isinstance(data, dict)
                and {"question", "answer"} <= data.keys()
                and ("claim" not in data)
            )
    except InputError:
        return False
    return False


def load_datasets(
    names: Sequence[str],
    data_dir: Path = DEFAULT_DATA_DIR,
    limit: int | None = None,
    seed: int = SPLIT_SEED,
) -> list[Dataset]:
    """Every named dataset, in order; a name given twice is read once."""
    return [load_dataset(name, data_dir, limit, seed) for name in dict.fromkeys(names)]
