"""The ``-m`` syntax: names, parameters, sets, print order and errors."""

from __future__ import annotations

import re

import pytest

from ragcard.errors import ConfigError
from ragcard.trec import MEASURES, parse_measures


def names(specs: list[str] | None) -> list[str]:
    return [name for m in parse_measures(specs).measures for name in m.printed_names()]


def test_default_is_the_official_set() -> None:
    assert names(None)[:10] == [
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank",
    ]  # fmt: skip
    assert names(None)[-9:] == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    assert names([]) == names(["official"])


def test_cutoffs_are_sorted_and_printed_with_trec_eval_names() -> None:
    assert names(["P.10,5"]) == ["P_5", "P_10"]
    assert names(["iprec_at_recall..5,.1,1"]) == [
        "iprec_at_recall_0.10",
        "iprec_at_recall_0.50",
        "iprec_at_recall_1.00",
    ]
    assert names(["success"]) == ["success_1", "success_5", "success_10"]


def test_print_order_is_trec_evals_not_the_command_lines() -> None:
    assert names(["ndcg_cut.10", "P.5", "map"]) == ["map", "P_5", "ndcg_cut_10"]


def test_repeated_measures_merge_their_cutoffs() -> None:
    assert names(["P.5", "P.10", "P.5"]) == ["P_5", "P_10"]


def test_parameters_in_one_valued_measures_become_part_of_the_name() -> None:
    assert names(["ndcg.1=3,2=9"]) == ["ndcg_1=3,2=9"]
    assert names(["11pt_avg..25,.5"]) == ["11pt_avg_.25,.5"]
    ndcg = parse_measures(["ndcg.1=3,2=9,4=4.5"]).measures[0]
    assert ndcg.gain_map == {1: 3.0, 2: 9.0, 4: 4.5}


def test_all_trec_lists_what_ragcard_does_not_compute() -> None:
    selection = parse_measures(["all_trec"])
    assert [m.name for m in selection.measures] == [d.name for d in MEASURES]
    assert "infAP" in selection.not_implemented
    assert "relstring" in selection.not_implemented


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mapp", "'mapp' is not a trec_eval measure. Valid measures: runid"),
        ("infAP", "'infAP' is not computed by ragcard"),
        ("P.0", "cutoff '0' is not a positive whole number"),
        ("ndcg_cut.23.4", "cutoff '23.4' is not a positive whole number"),
        ("P.five", "cutoff 'five'"),
        ("map.5", "'map' takes no parameters"),
        ("ndcg.1=", "'1=' is not 'level=gain'"),
        ("ndcg.high=2", "'high=2' is not 'level=gain'"),
        ("iprec_at_recall.x", "parameter 'x' is not a number"),
    ],
)
def test_bad_measures_explain_what_is_accepted(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        parse_measures([spec])
