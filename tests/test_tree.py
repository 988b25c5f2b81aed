"""The tree shows the pipeline (issue 11 item 9): stage packages in pipeline order, each
importing only the stages before it, but for the exceptions listed here with their reason.

A new import from an earlier stage into a later one fails this test: move the code to the stage
it belongs to, or add the import below with why it is right.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "ragcard"

#: The pipeline's stages, in order (README "How ragcard is built"); a package imports only
#: packages of its own stage or earlier ones.
STAGES: dict[str, int] = {
    # shared by every stage
    "errors": 0, "_sentences": 0, "_suggest": 0, "_version": 0,
    "inputs": 1,
    "adapters": 2, "agent": 2, "reference": 2,
    "judges": 3,
    "metrics": 4,
    "aggregation": 5,
    "decision": 6,
    "outputs": 7, "report": 7,
    "pipeline": 8,
    # what acts on runs: the command line, people, the red team, gold-set tools
    "_cli": 9, "review": 9, "redteam": 9, "goldset": 9, "trec": 9, "pytest_plugin": 9,
    "__init__": 9, "__main__": 9,
}  # fmt: skip

#: The flat modules left at the top of the package: shared helpers and the entry points.
TOP_LEVEL = {"__init__", "__main__", "_sentences", "_suggest", "_version", "errors",
             "pytest_plugin"}

#: Imports from an earlier stage into a later one, each with why it stays.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {
    ("aggregation/_parallel", "outputs.results"): "workers write the results lines they score",
    ("aggregation/_scorer", "outputs._writing"): "the scorer streams results.jsonl atomically",
    ("aggregation/_scorer", "outputs.results"): "the results line is the scorer's output",
    ("aggregation/_scorer", "report.scorecard"): "the scorer builds the scorecard it fills",
    ("decision/baseline", "outputs._runfolder"): "the gate compares two finished run folders",
    ("decision/baseline", "outputs.results"): "the gate reads both runs' results lines",
    ("inputs/_recorded", "metrics.base"): "results.jsonl given as responses: its scores' names",
    ("inputs/_recorded", "outputs.results"): "results.jsonl given as responses is recognised",
    ("judges/ensemble_model", "outputs._writing"): "trained weights are written atomically",
    ("judges/metaeval/calibration", "outputs._writing"): "a saved calibration, atomically",
    ("judges/metaeval/calibration", "report.kappa"): "κ in plain words, as the scorecard says it",
    ("judges/metaeval/correctness", "aggregation.stats"): "the same intervals as the scorecard",
    ("judges/metaeval/contrast_report", "aggregation.stats"): "Wilson intervals, as the card's",
    ("judges/metaeval/correctness", "goldset.agreement"): "agreement with people, one code",
    ("judges/metaeval/metrics", "aggregation.stats"): "the same seeded bootstrap",
    ("judges/metaeval/render", "report.kappa"): "κ in plain words",
    ("metrics/redteam", "aggregation.stats"): "Wilson intervals of attack success rates",
    ("pipeline/running", "goldset.labellog"): "a run records the label log it ran on",
    ("pipeline/running", "redteam.measures"): "the red team's findings gate the run",
    ("pipeline/running", "redteam.leftovers"): "test passages a killed red-team run left go first",
    ("report/run_report", "review._run"): "the HTML report shows the blind review",
    ("report/sections", "review.render"): "the scorecard shows the blind review's section",
}


def _stage(parts: tuple[str, ...] | list[str]) -> int | None:
    return STAGES.get(parts[0]) if parts else None


def _imports() -> list[tuple[str, str, int, int]]:
    """Every ``ragcard`` import: (module, imported, its stage, the imported one's stage)."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        here = _stage(parts)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[list[str]] = []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                if node.module == "ragcard":  # the package's own names (__version__…)
                    targets = [[alias.name] for alias in node.names if alias.name in STAGES]
                elif node.module.startswith("ragcard."):
                    targets = [node.module.split(".")[1:]]
            elif isinstance(node, ast.Import):
                targets = [
                    a.name.split(".")[1:] for a in node.names if a.name.startswith("ragcard.")
                ]
            for target in targets:
                there = _stage(target)
                assert here is not None, f"{path}: not in a stage of STAGES"
                assert there is not None, f"{path}: imports ragcard.{'.'.join(target)}, no stage"
                found.append(("/".join(parts), ".".join(target), here, there))
    return found


def test_only_the_listed_imports_point_up_the_pipeline() -> None:
    imports = _imports()
    upward = {(module, target) for module, target, here, there in imports if there > here}
    new = sorted(upward - set(ALLOWED_UPWARD))
    assert not new, f"imports from an earlier stage into a later one: {new}"
    gone = sorted(set(ALLOWED_UPWARD) - upward)
    assert not gone, f"no longer imported, drop from ALLOWED_UPWARD: {gone}"
    assert len(imports) > 500  # the walk saw the package


def test_the_top_level_holds_the_stages_not_flat_modules() -> None:
    flat = {path.stem for path in SRC.glob("*.py")}
    assert flat == TOP_LEVEL, f"fold {sorted(flat - TOP_LEVEL)} into a stage package"
    packages = {p.name for p in SRC.iterdir() if (p / "__init__.py").exists()}
    assert packages <= set(STAGES), sorted(packages - set(STAGES))
