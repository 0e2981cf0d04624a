"""The gardener's measured precision and recall, as the Findings page shows them: what a team can trust.

The figures are written by the evaluation (`bench/garden_eval.py --write`, on the labelled corpora under
tests/data/garden/) into `evaluation.json` beside this module; a test recomputes them and fails when they differ, so
the page never shows figures the code no longer earns. The held-out corpus is the headline: it was written apart
from the rules and never tuned on; the development corpus is what the rules were tuned on (a training score).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

FIGURES_PATH = Path(__file__).with_name("evaluation.json")


@lru_cache(maxsize=1)
def garden_figures() -> dict[str, Any]:
    """{"heldout": {...}, "development": {...}} as last measured, or {} when never measured."""
    try:
        return json.loads(FIGURES_PATH.read_text())  # type: ignore[no-any-return]
    except (OSError, ValueError):
        return {}


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{round(value * 100)}%"


def garden_trust_rows() -> list[dict[str, str]]:
    """The rows of the Findings page's "How far to trust these findings" table: per finding kind, precision (how
    many proposals were right) and recall (how many of the lessons it should find it found), held-out first."""
    figures = garden_figures()
    if not figures:
        return []
    rows = [
        ("Near duplicates: copies (case, punctuation, another branch)", "near_duplicate", "verbatim"),
        ("Near duplicates: lightly edited (a word, a provenance date)", "near_duplicate", "edited"),
        ("Superseded (a lesson says it replaces another)", "superseded", "superseded"),
        ("Expired ephemera (CI, PR, run status)", "expired_ephemera", "expired_ephemera"),
    ]
    if any(figures.get(name, {}).get("semantic") for name in figures):
        rows.append(
            ("Possible duplicates (paraphrases; optional, review only)", "possible_duplicate", "paraphrase")
        )
    table = []
    for label, kind, recall in rows:
        row = {"label": label}
        for name in ("heldout", "development"):
            corpus = figures.get(name, {})
            row[f"{name}_precision"] = _percent(corpus.get("precision", {}).get(kind))
            row[f"{name}_recall"] = _percent(corpus.get("recall", {}).get(recall))
        table.append(row)
    return table


def garden_lookalikes_flagged() -> dict[str, int]:
    """How many durable look-alikes of the held-out corpus were flagged, of how many."""
    flag = garden_figures().get("heldout", {}).get("must_not_flag", {})
    return {"flagged": flag.get("flagged", 0), "of": flag.get("ephemera_lookalikes", 0)}
