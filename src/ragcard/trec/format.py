"""Print a :class:`~ragcard.trec.evaluate.TrecResult` exactly as trec_eval prints it.

Each line is ``printf("%-22s\\t%s\\t%6.4f\\n", name, qid, value)``, or ``%ld`` for counts; per-query
lines (``-q``) come first, query by query, then the summary under the query id ``all``.
"""

from __future__ import annotations

from ragcard.trec.evaluate import TrecResult

__all__ = ["format_trec"]


def format_trec(result: TrecResult) -> str:
    """Render ``result`` in trec_eval's tab-separated output format (ends with a newline)."""
    lines: list[str] = []
    if result.per_query:
        per_query = [column for column in result.columns if column.values is not None]
        # One list per column once, instead of a numpy scalar lookup per printed value.
        values = [column.values.tolist() for column in per_query if column.values is not None]
        for index, qid in enumerate(result.query_ids):
            for column, column_values in zip(per_query, values, strict=True):
                lines.append(_line(column.name, qid, column_values[index], column.integer))
    for column in result.columns:
        lines.append(_line(column.name, "all", column.summary, column.integer))
    return "".join(lines)


def _line(name: str, qid: str, value: float | int | str, integer: bool) -> str:
    if isinstance(value, str):
        text = value
    elif integer:
        text = str(int(value))
    else:
        text = f"{value:6.4f}"
    return f"{name:<22}\t{qid}\t{text}\n"
