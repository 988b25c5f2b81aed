"""trec_eval's measures: names, parameters, the ``-m`` syntax, and the order they print in.

A measure is asked for as trec_eval asks for it: a name, optionally followed by a dot and
parameters (``P.5,10``, ``ndcg_cut.10``, ``iprec_at_recall.0,.5,1``, ``ndcg.1=3,2=9``), or a
nickname for a set (``official``, the default; ``all_trec``). Output order is trec_eval's fixed
measure order, whatever the order on the command line.

Parameters given more than once for the same measure (``-m P.5 -m P.10``) are merged into one
list of cutoffs; trec_eval would silently keep only the first.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from ragcard.errors import ConfigError

__all__ = [
    "MEASURES",
    "NICKNAMES",
    "Measure",
    "MeasureDefinition",
    "MeasureSelection",
    "NOT_IMPLEMENTED",
    "ParamKind",
    "Summary",
    "parse_measures",
]


class ParamKind(Enum):
    """How a measure takes parameters after the dot."""

    NONE = "none"
    INT_CUTOFFS = "int_cutoffs"  # P.5,10 → P_5, P_10 (ranks)
    FLOAT_CUTOFFS = "float_cutoffs"  # iprec_at_recall.0.1,0.5 → iprec_at_recall_0.10 …
    FLOAT_PARAMS = "float_params"  # 11pt_avg.0.2,0.5,0.8 → one value, named with the params
    GAIN_MAP = "gain_map"  # ndcg.1=3,2=9 → one value, gains per relevance level


class Summary(Enum):
    """How per-query values become the ``all`` line (``meas_avg.c``)."""

    MEAN = "mean"
    SUM = "sum"  # counts: num_ret, num_rel, …
    GEOMETRIC = "geometric"  # gm_map: exp(mean(log(max(v, 1e-5))))
    QUERIES = "queries"  # num_q
    RUN_ID = "run_id"  # runid


@dataclass(frozen=True, slots=True)
class MeasureDefinition:
    """What trec_eval knows about one measure family."""

    name: str
    description: str
    params: ParamKind = ParamKind.NONE
    defaults: tuple[float, ...] = ()
    summary: Summary = Summary.MEAN
    integer: bool = False

    @property
    def summary_only(self) -> bool:
        """Printed on the ``all`` line only, never per query (runid, num_q, gm_map)."""
        return self.summary in (Summary.GEOMETRIC, Summary.QUERIES, Summary.RUN_ID)


_RANKS = (5.0, 10.0, 15.0, 20.0, 30.0, 100.0, 200.0, 500.0, 1000.0)
_RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)

# In trec_eval's print order (measures.c of 10.0, as seen in its test outputs).
MEASURES: tuple[MeasureDefinition, ...] = (
    MeasureDefinition("runid", "run id from the run file", summary=Summary.RUN_ID),
    MeasureDefinition("num_q", "number of queries evaluated", summary=Summary.QUERIES),
    MeasureDefinition("num_ret", "documents retrieved", summary=Summary.SUM, integer=True),
    MeasureDefinition("num_rel", "relevant documents judged", summary=Summary.SUM, integer=True),
    MeasureDefinition(
        "num_rel_ret", "relevant documents retrieved", summary=Summary.SUM, integer=True
    ),
    MeasureDefinition("map", "mean average precision"),
    MeasureDefinition("gm_map", "geometric mean average precision", summary=Summary.GEOMETRIC),
    MeasureDefinition("Rprec", "precision after R documents, R = number relevant"),
    MeasureDefinition("bpref", "binary preference (Buckley & Voorhees 2004)"),
    MeasureDefinition("recip_rank", "reciprocal rank of the first relevant document"),
    MeasureDefinition(
        "iprec_at_recall",
        "interpolated precision at recall levels",
        ParamKind.FLOAT_CUTOFFS,
        _RECALL_POINTS,
    ),
    MeasureDefinition("P", "precision at rank cutoffs", ParamKind.INT_CUTOFFS, _RANKS),
    MeasureDefinition("recall", "recall at rank cutoffs", ParamKind.INT_CUTOFFS, _RANKS),
    MeasureDefinition(
        "11pt_avg",
        "interpolated precision averaged over recall levels",
        ParamKind.FLOAT_PARAMS,
        _RECALL_POINTS,
    ),
    MeasureDefinition("ndcg", "nDCG of the whole ranking (gain = relevance)", ParamKind.GAIN_MAP),
    MeasureDefinition("ndcg_cut", "nDCG at rank cutoffs", ParamKind.INT_CUTOFFS, _RANKS),
    MeasureDefinition(
        "map_cut", "average precision at rank cutoffs", ParamKind.INT_CUTOFFS, _RANKS
    ),
    MeasureDefinition(
        "relative_P", "precision at cutoffs over min(cutoff, R)", ParamKind.INT_CUTOFFS, _RANKS
    ),
    MeasureDefinition(
        "success",
        "1 if a relevant document is within the cutoff",
        ParamKind.INT_CUTOFFS,
        (1.0, 5.0, 10.0),
    ),
    MeasureDefinition("set_P", "precision of the whole retrieved set"),
    MeasureDefinition("set_recall", "recall of the whole retrieved set"),
    MeasureDefinition(
        "num_nonrel_judged_ret",
        "judged non-relevant documents retrieved",
        summary=Summary.SUM,
        integer=True,
    ),
)

_BY_NAME = {definition.name: definition for definition in MEASURES}

# trec_eval's all_trec measures that ragcard does not compute; asked for through the
# nickname they are skipped (and reported), asked for by name they are an error.
NOT_IMPLEMENTED = (
    "relstring", "infAP", "gm_bpref", "Rprec_mult", "utility", "binG", "G", "ndcg_rel", "Rndcg",
    "set_relative_P", "set_map", "set_F", "rbp", "rbp_resid", "unj",
)  # fmt: skip

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
        "recip_rank", "iprec_at_recall", "P",
    ),
    "all_trec": (
        *(definition.name for definition in MEASURES), *NOT_IMPLEMENTED,
    ),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Measure:
    """One measure family as requested: its definition and its parameters.

    ``params`` are cutoffs or levels for the cutoff kinds, and ``(level, gain)`` pairs flattened
    for ``ndcg``'s gain map; ``label`` is the parameter text trec_eval prints in the name of
    measures that keep one value (``11pt_avg_.25,.5``, ``ndcg_1=3,2=9``).
    """

    definition: MeasureDefinition
    params: tuple[float, ...] = ()
    label: str | None = None

    @property
    def name(self) -> str:
        """The family name (``P``, ``ndcg_cut``, ``map``)."""
        return self.definition.name

    def printed_names(self) -> tuple[str, ...]:
        """The names of the values this measure prints, as trec_eval prints them."""
        kind = self.definition.params
        if kind is ParamKind.INT_CUTOFFS:
            return tuple(f"{self.name}_{int(cutoff)}" for cutoff in self.params)
        if kind is ParamKind.FLOAT_CUTOFFS:
            return tuple(f"{self.name}_{cutoff:3.2f}" for cutoff in self.params)
        if self.label is not None:
            return (f"{self.name}_{self.label}",)
        return (self.name,)

    @property
    def gain_map(self) -> dict[int, float]:
        """``ndcg``'s relevance level → gain overrides (empty: gain = level)."""
        pairs = self.params
        return {int(pairs[i]): pairs[i + 1] for i in range(0, len(pairs), 2)}


@dataclass(frozen=True, slots=True)
class MeasureSelection:
    """The measures to compute, in print order, and any asked for that ragcard lacks."""

    measures: tuple[Measure, ...]
    not_implemented: tuple[str, ...] = ()


def parse_measures(specs: Iterable[str] | None) -> MeasureSelection:
    """Turn ``-m`` arguments into measures, in trec_eval's print order.

    ``None`` or no specs gives trec_eval's default, the ``official`` set.

    Raises:
        ConfigError: an unknown measure, or parameters that do not parse; the message lists
            what is accepted.
    """
    wanted: dict[str, list[str]] = {}
    skipped: list[str] = []
    for spec in list(specs or []) or ["official"]:
        name, dot, text = spec.partition(".")
        if name in NICKNAMES and not dot:
            for member in NICKNAMES[name]:
                if member in _BY_NAME:
                    wanted.setdefault(member, [])
                elif member not in skipped:
                    skipped.append(member)
            continue
        if name not in _BY_NAME:
            raise ConfigError(_unknown_measure_message(spec, name))
        texts = wanted.setdefault(name, [])
        if dot:
            texts.append(text)
    measures = tuple(
        _build(definition, wanted[definition.name])
        for definition in MEASURES
        if definition.name in wanted
    )
    return MeasureSelection(measures, tuple(skipped))


def _unknown_measure_message(spec: str, name: str) -> str:
    valid = ", ".join(definition.name for definition in MEASURES)
    why = "is not computed by ragcard" if name in NOT_IMPLEMENTED else "is not a trec_eval measure"
    return (
        f"measure '{spec}': '{name}' {why}. Valid measures: {valid}; "
        f"sets: {', '.join(NICKNAMES)}. Parameters follow a dot, e.g. -m P.5,10 -m ndcg_cut.10"
    )


def _build(definition: MeasureDefinition, texts: Sequence[str]) -> Measure:
    kind = definition.params
    if not texts:
        return Measure(definition, definition.defaults)
    if kind is ParamKind.NONE:
        raise ConfigError(f"measure '{definition.name}' takes no parameters (got '{texts[0]}')")
    if kind is ParamKind.GAIN_MAP:
        if len(set(texts)) > 1:
            raise ConfigError(f"measure 'ndcg' given two different gain maps: {', '.join(texts)}")
        return Measure(definition, _parse_gain_map(texts[0]), texts[0])
    if kind is ParamKind.FLOAT_PARAMS:
        if len(set(texts)) > 1:
            raise ConfigError(
                f"measure '{definition.name}' given two parameter lists: {', '.join(texts)}"
            )
        values = tuple(_parse_float(definition.name, item) for item in texts[0].split(","))
        return Measure(definition, values, texts[0])
    items = [item for text in texts for item in text.split(",")]
    if kind is ParamKind.INT_CUTOFFS:
        cutoffs = {_parse_rank(definition.name, item) for item in items}
    else:
        cutoffs = {_parse_float(definition.name, item) for item in items}
    return Measure(definition, tuple(sorted(cutoffs)))


def _parse_rank(measure: str, text: str) -> float:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(
            f"measure '{measure}': cutoff '{text}' is not a positive whole number of ranks "
            f"(e.g. -m {measure}.5,10)"
        )
    return float(value)


def _parse_float(measure: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise ConfigError(
            f"measure '{measure}': parameter '{text}' is not a number (e.g. -m {measure}.0.5)"
        ) from None


def _parse_gain_map(text: str) -> tuple[float, ...]:
    flat: list[float] = []
    for item in text.split(","):
        level, equals, gain = item.partition("=")
        try:
            flat += [float(int(level)), float(gain)]
        except ValueError:
            equals = ""
        if not equals:
            raise ConfigError(
                f"measure 'ndcg': '{item}' is not 'level=gain' (e.g. -m ndcg.1=1,2=3,3=7)"
            )
    return tuple(flat)
