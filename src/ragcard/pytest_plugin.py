"""A pytest plugin: evaluate a ragcard project from a team's own test suite.

Installed with ragcard (entry point ``pytest11``), it gives the ``ragcard_project`` fixture::

    def test_handbook(ragcard_project):
        ragcard_project("examples/handbook").assert_ship()

    def test_retrieval(ragcard_project):
        card = ragcard_project("examples/handbook", attempts=1)
        card.assert_measure("recall@5", ">=", 0.8)
        card.assert_met("access_leaks")          # a threshold of the project's thresholds.toml

A failing assertion says why in the scorecard's words: the decision's reasons, the failures by
likely cause, the measure with its interval and population size. Each project is run once per
test session and set of options (the runs are shared between tests); outputs go to pytest's
temporary folder and to a throwaway run history, never beside the project, unless ``out_dir``
or ``history_url`` say otherwise. Keyword arguments go to :func:`ragcard.run_evaluation`.
"""

from __future__ import annotations

import inspect
import json
import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ragcard._suggest import did_you_mean

if TYPE_CHECKING:
    from ragcard.metrics.base import MetricValue
    from ragcard.pipeline.evaluation import EvaluationResult

__all__ = ["ProjectResult", "ragcard_project"]

_COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
    "==": operator.eq,
}


@dataclass(frozen=True)
class ProjectResult:
    """A project's evaluation, with assertions that fail in the scorecard's words."""

    result: EvaluationResult

    @property
    def decision(self) -> str:
        return self.result.scorecard.decision.decision

    def explain(self) -> str:
        """The decision, its reasons and the commonest causes of failure, as text."""
        card = self.result.scorecard
        lines = [f"ragcard: {card.header.get('project', '')}: {self.decision.upper()}"]
        lines += [f"  - {reason}" for reason in card.decision.reasons]
        if card.causes:
            lines.append("  failures by likely cause:")
            lines += [
                f"    {c['items']} item(s), {c['layer']}: {c['cause']} (try: {c['try']}; e.g. "
                f"{', '.join(c['examples'][:4])})"
                for c in card.causes[:5]
            ]
        lines.append(f"  scorecard: {self.result.out_dir / 'scorecard.md'}")
        return "\n".join(lines)

    def assert_ship(self) -> None:
        """Fail unless the decision is ship (and a regression gate, if any, passed)."""
        if self.result.exit_code != 0:
            raise AssertionError(self.explain())

    def measure(self, name: str) -> MetricValue:
        """A measure's value; fails saying why when it could not be computed."""
        from ragcard.metrics.base import MetricValue

        metrics = self.result.scorecard.metrics
        if name not in metrics:
            raise AssertionError(f"ragcard: no measure {name!r} in this run; "
                                 + did_you_mean(name, metrics, "measures"))  # fmt: skip
        value = metrics[name]
        if not isinstance(value, MetricValue):
            raise AssertionError(f"ragcard: {name} not scored: {value.reason}")
        return value

    def assert_measure(self, name: str, comparison: str, threshold: float) -> None:
        """Fail unless ``name`` ``comparison`` ``threshold`` holds (``">="``, ``"<="``, …)."""
        if comparison not in _COMPARE:
            raise ValueError(f"comparison {comparison!r} must be one of {', '.join(_COMPARE)}")
        value = self.measure(name)
        if not _COMPARE[comparison](round(value.value, 9), threshold):
            interval = f" [{value.ci[0]:.3f}, {value.ci[1]:.3f}]" if value.ci else ""
            causes = [c for c in self.result.scorecard.causes
                      if c["layer"] == value.spec.layer][:3]  # fmt: skip
            said = "".join(
                f"\n  {c['items']} item(s): {c['cause']} (e.g. {', '.join(c['examples'][:4])})"
                for c in causes
            )
            raise AssertionError(
                f"ragcard: {name} = {value.shown()}{interval} (n={value.n}), expected "
                f"{comparison} {threshold:g}{said}"
            )

    def assert_met(self, measure: str) -> None:
        """Fail unless every threshold of the project on ``measure`` is met."""
        results = [r for r in self.result.scorecard.decision.results
                   if r.threshold.measure == measure]  # fmt: skip
        if not results:
            gated = [r.threshold.measure for r in self.result.scorecard.decision.results]
            raise AssertionError(f"ragcard: the project's thresholds have none on {measure!r}; "
                                 + did_you_mean(measure, gated, "measures with a threshold"))
        for r in results:
            if r.status != "met":
                t = r.threshold
                shown_value = getattr(r.result, "shown", None)
                why = getattr(r.result, "reason", None)
                shown = f"got {shown_value()}" if shown_value else f"not scored: {why}"
                raise AssertionError(
                    f"ragcard: threshold {t.measure} {t.comparison} {t.value:g} ({t.type}) "
                    f"{r.status}: {shown}; reason for it: {t.reason}"
                )


def _key(path: str | Path, options: dict[str, Any]) -> str:
    return json.dumps([str(Path(path).resolve()), options], sort_keys=True, default=str)


@pytest.fixture(scope="session")
def _ragcard_runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield {"root": tmp_path_factory.mktemp("ragcard"), "runs": {}}


@pytest.fixture
def ragcard_project(
    _ragcard_runs: dict[str, Any],
) -> Callable[..., ProjectResult]:
    """``ragcard_project(path, **options)`` runs the project (once per session and options)
    and returns a :class:`ProjectResult` to assert on."""
    from ragcard.pipeline.running import run_evaluation

    accepted = set(inspect.signature(run_evaluation).parameters) - {"config_path"}

    def run(path: str | Path, **options: Any) -> ProjectResult:
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise TypeError(f"ragcard_project: unknown option {unknown[0]!r}; "
                            + did_you_mean(unknown[0], accepted, "options of run_evaluation"))
        key = _key(path, options)
        runs: dict[str, ProjectResult] = _ragcard_runs["runs"]
        if key not in runs:
            folder = Path(_ragcard_runs["root"]) / f"run-{len(runs) + 1}"
            folder.mkdir(parents=True, exist_ok=True)
            settings: dict[str, Any] = {
                "out_dir": folder / "out",
                "eval_dir": folder / "eval",
                "history_url": f"sqlite:///{folder / 'history.sqlite'}",
                "progress": False,
                "fresh": True,
            }
            settings.update(options)
            runs[key] = ProjectResult(run_evaluation(path, **settings))
        return runs[key]

    return run
