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
