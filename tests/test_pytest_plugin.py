"""The pytest plugin (entry point ``pytest11``), tested with ``pytester``: a team's test suite
asserts ship or single measures, and a failure says why in the scorecard's words."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragcard._cli.main import app

pytest_plugins = ["pytester"]

TESTS = '''
def test_ships(ragcard_project):
    ragcard_project("sample", attempts=1).assert_ship()


def test_measures(ragcard_project):
    card = ragcard_project("sample", attempts=1)   # the same run: once per session
    card.assert_measure("recall@5", ">=", 0.9)
    card.assert_met("access_leaks")


def test_strict(ragcard_project):
    ragcard_project("strict", attempts=1).assert_ship()


def test_a_measure_too_high(ragcard_project):
    ragcard_project("sample", attempts=1).assert_measure("id_precision", ">=", 0.99)


def test_unscored(ragcard_project):
    ragcard_project("sample", attempts=1).measure("flag_accuracy")


def test_a_measure_misspelt(ragcard_project):
    ragcard_project("sample", attempts=1).measure("recal@5")


def test_a_threshold_misspelt(ragcard_project):
    ragcard_project("sample", attempts=1).assert_met("acess_leaks")


def test_an_option_misspelt(ragcard_project):
    ragcard_project("sample", attempt=1)
'''


def _sample(folder: Path) -> None:
    assert CliRunner().invoke(app, ["init", "--example", str(folder)]).exit_code == 0
    with (folder / "thresholds.toml").open("a") as thresholds:  # 10 questions may decide here
        thresholds.write('\n[evidence]\nmin_items = 1\nreason = "the plugin, not the agent"\n')


def test_the_plugin_asserts_ship_and_measures_with_the_scorecards_reasons(
    pytester: pytest.Pytester,
) -> None:
    _sample(pytester.path / "sample")
    _sample(pytester.path / "strict")
    with (pytester.path / "strict" / "thresholds.toml").open("a") as thresholds:
        thresholds.write('\n[[threshold]]\nmeasure = "latency_p50_ms"\ncomparison = "<="\n'
                         'value = 0.0001\ntype = "graded"\nreason = "instant answers"\n')
    pytester.makepyfile(test_team=TESTS)
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(passed=2, failed=6)
    result.stdout.fnmatch_lines([
        "*ragcard: *: HOLD*",
        "*graded latency_p50_ms <= 0.0001 missed*",
        "*ragcard: id_precision = * [[]*, *[]] (n=10), expected >= 0.99*",
        "*ragcard: flag_accuracy not scored: no item states an expected_flag*",
        "*ragcard: no measure 'recal@5' in this run; did you mean 'recall@5'?*",
        "*ragcard: the project's thresholds have none on 'acess_leaks'; did you mean "
        "'access_leaks'?*",
        "*ragcard_project: unknown option 'attempt'; did you mean 'attempts'?*",
    ], consecutive=False)  # fmt: skip
    assert not (pytester.path / "sample" / "out").exists()  # outputs went to pytest's tmp
