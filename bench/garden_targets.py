"""The gardener's targets (issue 27), on the held-out corpus, declared once: bench/garden_eval.py judges by them,
tests/lore/test_garden_evaluation.py asserts them, and the report prints them. Plain data, importable before
Django is set up (the report renders without it)."""

from __future__ import annotations

# The targets (issue 27), on the held-out corpus: name → (figure's path in a result, at least / at most).
TARGETS: dict[str, tuple[tuple[str, ...], float, str]] = {
    "precision of near duplicates": (("precision", "near_duplicate"), 0.95, "min"),
    "precision of superseded": (("precision", "superseded"), 0.95, "min"),
    "precision of expired ephemera": (("precision", "expired_ephemera"), 0.95, "min"),
    "recall of near-verbatim duplicates": (("recall", "verbatim"), 0.9, "min"),
    "recall of lightly edited duplicates": (("recall", "edited"), 0.9, "min"),
    "recall of expired ephemera": (("recall", "expired_ephemera"), 0.85, "min"),
    "durable look-alikes flagged": (("must_not_flag", "flagged"), 0, "max"),
    "durable look-alikes in the set": (("must_not_flag", "ephemera_lookalikes"), 40, "min"),
}
SEMANTIC_TARGETS: dict[str, tuple[tuple[str, ...], float, str]] = {
    "precision of possible duplicates": (("precision", "possible_duplicate"), 0.8, "min"),
    "recall of paraphrases": (("recall", "paraphrase"), 0.6, "min"),
}
