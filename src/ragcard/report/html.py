"""``ragcard report RUN --html``: one self-contained HTML file a team reads.

Everything is inline — styles, the charts (SVG drawn from the numbers here), the small script
that filters the failures — and the page makes no request at all: its Content-Security-Policy
allows no source but its own inline style and the one script whose hash it names, so even a
string that escaped escaping could not run or fetch anything. Every piece of agent, corpus or
question text goes through Jinja2's autoescaping; restricted text never reaches the renderer
(:mod:`.run_report` redacts it).
"""

from __future__ import annotations

import base64
import hashlib
import math
from collections.abc import Sequence
from importlib import resources
from typing import Any

import jinja2

from ragcard.report.markdown import format_value, judge_summary
from ragcard.report.run_report import MeasureView, RunReport

__all__ = ["FILTER_SCRIPT", "render_html"]

#: The page's only script: filter the failing items by layer, cause, category and text.
FILTER_SCRIPT = """
(function () {
  "use strict";
  var rows = Array.prototype.slice.call(document.querySelectorAll(".failure"));
  var fields = ["layer", "cause", "category", "text"].map(function (n) {
    return document.getElementById("f-" + n);
  });
  var count = document.getElementById("f-count");
  function keep(row) {
    var layer = fields[0].value, cause = fields[1].value, category = fields[2].value;
    var text = fields[3].value.toLowerCase();
    if (layer && JSON.parse(row.dataset.layers).indexOf(layer) < 0) { return false; }
    if (cause && JSON.parse(row.dataset.causes).indexOf(cause) < 0) { return false; }
    if (category && row.dataset.category !== category) { return false; }
    return !text || row.textContent.toLowerCase().indexOf(text) >= 0;
  }
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = keep(row);
      row.hidden = !ok;
      shown += ok ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " shown";
  }
  fields.forEach(function (f) {
    f.addEventListener("input", apply);
    f.addEventListener("change", apply);
  });
  apply();
}());
""".strip()

_W = 420.0  # width of a bar chart's plot, in SVG units


def _script_hash(script: str) -> str:
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _x(value: float) -> float:
    return round(max(0.0, min(1.0, value)) * _W, 2)


def _bar(view: MeasureView, threshold: float | None) -> dict[str, Any]:
    bar: dict[str, Any] = {"width": _x(view.value or 0.0)}
    if view.low is not None and view.high is not None:
        bar["low"], bar["high"] = _x(view.low), _x(view.high)
    if threshold is not None and 0.0 <= threshold <= 1.0:
        bar["threshold"] = _x(threshold)
    return bar


def histogram(values: Sequence[float], bins: int = 20) -> dict[str, Any] | None:
    """Bars of a histogram of ``values`` over a 400×120 plot, and the p50/p95 marks."""
    if not values:
        return None
    ordered = sorted(values)
    low, high = ordered[0], ordered[-1]
    span = (high - low) or 1.0
    counts = [0] * bins
    for v in ordered:
        counts[min(bins - 1, int((v - low) / span * bins))] += 1
    top = max(counts)
    width = 400 / bins

    def at(q: float) -> float:
        value = ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]
        return round((value - low) / span * 400, 2)

    return {
        "bars": [
            {
                "x": round(i * width, 2),
                "w": round(width - 1, 2),
                "h": round(c / top * 110, 2),
                "y": round(120 - c / top * 110, 2),
                "n": c,
                "from": low + i * span / bins,
                "to": low + (i + 1) * span / bins,
            }  # fmt: skip
            for i, c in enumerate(counts)
        ],
        "low": low,
        "high": high,
        "p50": at(0.5),
        "p95": at(0.95),
        "p50_value": ordered[min(len(ordered) - 1, max(0, math.ceil(0.5 * len(ordered)) - 1))],
        "p95_value": ordered[min(len(ordered) - 1, max(0, math.ceil(0.95 * len(ordered)) - 1))],
        "n": len(ordered),
    }


def _curve(points: Sequence[tuple[int, float, int]]) -> dict[str, Any] | None:
    if not points:
        return None
    coords = [(round(40 + (k - 1) * 40, 2), round(130 - v * 120, 2)) for k, v, _n in points]
    return {
        "polyline": " ".join(f"{x},{y}" for x, y in coords),
        "points": [
            {"x": x, "y": y, "k": k, "value": v, "n": n}
            for (x, y), (k, v, n) in zip(coords, points, strict=True)
        ],  # fmt: skip
    }


def _thresholds(report: RunReport) -> dict[str, float]:
    return {
        r.threshold.measure: r.threshold.value
        for r in report.card.decision.results
        if "[" not in r.threshold.measure
    }


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("ragcard.report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["value"] = format_value
    env.filters["pct"] = lambda v: "—" if v is None else f"{v * 100:.1f}%"
    env.filters["num"] = lambda v: "—" if v is None else f"{v:.3f}"
    env.filters["ms"] = lambda v: f"{v:.0f} ms"
    return env


def render_html(report: RunReport) -> str:
    """The report as one self-contained HTML document."""
    card = report.card
    thresholds = _thresholds(report)
    bars = {
        view.name: _bar(view, thresholds.get(view.name))
        for views in report.measures.values()
        for view in views
        if view.unit_interval
    }
    categories = [
        {"row": row, "bar": {"width": _x(row.pass_rate), "low": _x(row.low), "high": _x(row.high)}}
        for row in report.categories
    ]
    failures = report.failures
    css = resources.files("ragcard.report").joinpath("templates").joinpath("report.css")
    style = css.read_text("utf-8")
    return (
        _environment()
        .get_template("report.html")
        .render(
            report=report,
            card=card,
            header=card.header,
            config=card.config,
            judge=judge_summary(card.config.get("judge", {})),
            bars=bars,
            categories=categories,
            latency=histogram(report.latency_ms),
            first_token=histogram(report.first_token_ms),
            recall=_curve(report.recall_curve),
            failures=failures,
            layers=sorted({layer for f in failures for layer in f.layers}),
            causes=sorted({cause for f in failures for cause in f.causes}),
            failure_categories=sorted({f.category for f in failures}),
            script=FILTER_SCRIPT,
            script_hash=_script_hash(FILTER_SCRIPT),
            css=style,
            css_hash=_script_hash(style),
        )
    )
