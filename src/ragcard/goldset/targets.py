"""Target composition of a question set (docs/formats.md#categories) and held-out shares.

Defaults come from the kit (knowledge-base or persona); a project overrides them with a TOML
file, which rejects unknown keys so that a typo cannot silently fall back to a default::

    kit = "knowledge-base"      # optional: the kit whose shares apply when [shares] is absent
    min_items = 20              # optional: smallest acceptable category

    [shares]                    # optional: the target mix; replaces the kit's when present
    typical = 0.40
    paraphrase = 0.15

    [heldout]                   # optional: what `split` holds out
    share = 0.25                # every category not listed below
    [heldout.shares]
    currency_trap = 0.5
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ragcard.errors import ConfigError
from ragcard.inputs._files import read_utf8
from ragcard.inputs.questions import KB_CATEGORIES, PERSONA_CATEGORIES

__all__ = [
    "DEFAULT_HELDOUT_SHARE",
    "KIT_SHARES",
    "KITS",
    "MIN_ITEMS",
    "Targets",
    "infer_kit",
    "resolve_targets",
]

Kit = Literal["knowledge-base", "persona"]
KITS: tuple[Kit, ...] = ("knowledge-base", "persona")

#: docs/formats.md#categories target mixes.
KIT_SHARES: Mapping[str, Mapping[str, float]] = {
    "knowledge-base": {
        "typical": 0.40,
        "paraphrase": 0.15,
        "exact_term": 0.10,
        "multi_passage": 0.10,
        "unanswerable": 0.10,
        "access_probe": 0.10,
        "currency_trap": 0.05,
    },
    "persona": {
        "common": 0.40,
        "deep": 0.15,
        "b_only": 0.10,
        "not_in_record": 0.10,
        "after_cutoff": 0.10,
        "policy": 0.15,
    },
}
#: docs/formats.md#categories: one failure moves a category's rate by at most 5 points.
MIN_ITEMS = 20
DEFAULT_HELDOUT_SHARE = 0.25
_SUM_TOLERANCE = 0.01


class _HeldoutSection(BaseModel):
    model_config = ConfigDict(extra="forbid")

    share: float | None = Field(default=None, ge=0.0, le=1.0)
    shares: dict[str, float] = Field(default_factory=dict)


class _TargetsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kit: Kit | None = None
    min_items: int = Field(default=MIN_ITEMS, ge=1)
    shares: dict[str, float] = Field(default_factory=dict)
    heldout: _HeldoutSection = Field(default_factory=_HeldoutSection)


@dataclass(frozen=True, slots=True)
class Targets:
    """What a question set should look like: category shares, minimum size, held-out shares.

    ``shares`` is empty when no kit applies (only project categories): then only the minimum
    size is checked.
    """

    shares: Mapping[str, float]
    kit: str | None = None
    source: str = "defaults"
    min_items: int = MIN_ITEMS
    heldout_share: float = DEFAULT_HELDOUT_SHARE
    heldout_shares: Mapping[str, float] = field(default_factory=dict)

    def heldout_share_for(self, category: str | None) -> float:
        """The share of ``category`` that ``split`` holds out."""
        if category is not None and category in self.heldout_shares:
            return self.heldout_shares[category]
        return self.heldout_share


def infer_kit(categories: Iterable[str | None]) -> Kit | None:
    """The kit whose categories the set uses most; ``None`` when it uses neither kit's."""
    present = {c for c in categories if c}
    knowledge = len(present & set(KB_CATEGORIES))
    persona = len(present & set(PERSONA_CATEGORIES))
    if knowledge == persona == 0:
        return None
    return "knowledge-base" if knowledge >= persona else "persona"


def _read_file(path: Path) -> _TargetsFile:
    try:
        data = tomllib.loads(read_utf8(path))
    except FileNotFoundError:
        raise ConfigError(f"{path}: targets file not found — check the path") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    try:
        return _TargetsFile.model_validate(data)
    except ValidationError as error:
        details = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise ConfigError(
            f"{path}: {details} — allowed keys: kit, min_items, [shares], "
            "[heldout] share, [heldout.shares]"
        ) from None


def _check_shares(path: Path, section: str, shares: Mapping[str, float], total: bool) -> None:
    bad = {name: value for name, value in shares.items() if not 0.0 <= value <= 1.0}
    if bad:
        raise ConfigError(f"{path}: [{section}] shares must lie between 0 and 1, got {bad}")
    if total and shares and abs(sum(shares.values()) - 1.0) > _SUM_TOLERANCE:
        raise ConfigError(
            f"{path}: [{section}] shares add up to {sum(shares.values()):.3f}, not 1 — "
            "adjust them so the mix adds up to 100%"
        )


def resolve_targets(
    categories: Iterable[str | None] = (),
    *,
    kit: str | None = None,
    path: str | Path | None = None,
    heldout_share: float | None = None,
) -> Targets:
    """Targets from, in order of precedence: explicit arguments, the TOML file at ``path``,
    the kit's default shares (kit given, else named in the file, else inferred from
    ``categories``)."""
    if kit is not None and kit not in KITS:
        raise ConfigError(f"unknown kit {kit!r}; choose one of: {', '.join(KITS)}")
    if heldout_share is not None and not 0.0 <= heldout_share <= 1.0:
        raise ConfigError(f"held-out share must lie between 0 and 1, got {heldout_share}")
    spec = _TargetsFile()
    source = "the kit's default shares (docs/formats.md#categories)"
    if path is not None:
        path = Path(path)
        spec = _read_file(path)
        _check_shares(path, "shares", spec.shares, total=True)
        _check_shares(path, "heldout.shares", spec.heldout.shares, total=False)
        source = str(path)
    chosen = kit or spec.kit or infer_kit(categories)
    shares = dict(spec.shares) if spec.shares else dict(KIT_SHARES.get(chosen or "", {}))
    default_heldout = heldout_share
    if default_heldout is None:
        default_heldout = spec.heldout.share
    return Targets(
        shares=shares,
        kit=chosen,
        source=source,
        min_items=spec.min_items,
        heldout_share=DEFAULT_HELDOUT_SHARE if default_heldout is None else default_heldout,
        heldout_shares=dict(spec.heldout.shares),
    )
