"""The gardener's evaluation (bench/garden_eval.py, tests/data/garden/README.md): the held-out corpus — written
apart from the rules, never tuned on — meets every target, and the figures the Findings page shows are the ones the
code earns."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from bench.garden_eval import (
    CORPORA,
    SEMANTIC_TARGETS,
    TARGETS,
    corpus_rows,
    targets_missed,
)
from lore.garden.figures import FIGURES_PATH
from lore.garden.text import family_of
from lore.scopes import parse_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluations(garden_corpora) -> dict[str, dict[str, Any]]:  # noqa: ANN001
    """Both corpora inventoried once for the test session (tests/conftest.py), then rolled back."""
    return garden_corpora.evaluations


# Targets the held-out corpus is still below, with the figure measured when this was written (docs/gardener.md,
# "Evaluation"). Strict: when a change meets one, its test passes unexpectedly and fails, so this list is kept true.
HELD_OUT_MISSES: dict[str, str] = {}
TARGET_NAMES = [*TARGETS, *SEMANTIC_TARGETS]


@pytest.mark.parametrize(
    "target",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=HELD_OUT_MISSES[name]))
        if name in HELD_OUT_MISSES
        else name
        for name in TARGET_NAMES
    ],
)
def test_on_the_held_out_corpus_the_gardener_meets_each_target(evaluations, target: str) -> None:  # noqa: ANN001
    result = evaluations["heldout"]
    if target in SEMANTIC_TARGETS and not result["semantic"]:
        pytest.skip("the semantic extra is not installed: possible duplicates are not looked for")
    # Only the figures: nobody reads the held-out corpus's misses (tests/data/garden/README.md).
    missed = targets_missed(result, semantic=result["semantic"])
    assert not [m for m in missed if m.startswith(f"{target}:")]


def test_the_gardener_recognises_most_statuses_of_the_development_corpus_and_flags_no_look_alike(
    evaluations,  # noqa: ANN001
) -> None:
    """The development figures the grammar was tuned to (a training score, a guard against regressions)."""
    result = evaluations["development"]
    assert result["precision"]["expired_ephemera"] == 1.0 and result["recall"]["expired_ephemera"] >= 0.88
    assert result["must_not_flag"]["flagged"] == 0 and result["must_not_flag"]["ephemera_lookalikes"] >= 1000
    for figure in ("near_duplicate", "superseded"):
        assert result["precision"][figure] == 1.0
    # Edited copies of the retired round-four held-out sets include heavier rewordings (their writers' "edited")
    assert result["recall"]["verbatim"] == 1.0 and result["recall"]["edited"] >= 0.95


def test_the_findings_pages_figures_are_the_ones_the_code_earns(evaluations) -> None:  # noqa: ANN001
    recorded = json.loads(FIGURES_PATH.read_text())
    for name, result in evaluations.items():
        for part in ("precision", "recall", "counts"):
            measured = {k: v for k, v in result[part].items() if result["semantic"] or "possible" not in k}
            shown = {k: v for k, v in recorded[name][part].items() if k in measured}
            assert shown == measured, (name, part, "run: .venv/bin/python bench/garden_eval.py --write")
        assert recorded[name]["must_not_flag"]["flagged"] == result["must_not_flag"]["flagged"]


def test_the_held_out_corpus_has_every_kind_the_targets_are_measured_on() -> None:
    rows = list(corpus_rows(CORPORA["heldout"]))
    labels = Counter(
        row["label"].get("variant") or row["label"].get("lookalike") or ("ephemera" if row["label"] else "")
        for row in rows
    )
    assert len(rows) >= 160
    assert labels["verbatim"] >= 10 and labels["edited"] >= 10 and labels["paraphrase"] >= 10, labels
    assert labels["ephemera"] >= 40 and labels["ephemera"] >= 40, (
        labels
    )  # the must-not-flag set: ≥ 40 look-alikes


def test_every_duplicate_group_of_both_corpora_lies_in_one_scope_family_with_one_original() -> None:
    for files in CORPORA.values():
        groups: dict[str, list[dict[str, Any]]] = {}
        for row in corpus_rows(files):
            if row["label"].get("dup"):
                groups.setdefault(row["label"]["dup"], []).append(row)
        for name, members in groups.items():
            assert len({family_of(m["scope"]) for m in members}) == 1, name
            assert [m["label"]["variant"] for m in members].count("original") == 1, name


def test_every_supersession_label_names_a_lesson_of_its_corpus_as_the_store_spells_its_address() -> None:
    for files in CORPORA.values():
        rows = list(corpus_rows(files))
        addresses = {f"{parse_scope(row['scope'])}::{row['key']}" for row in rows}
        for row in rows:
            for part in ("supersedes_target", "superseded"):
                if isinstance(row["label"].get(part), str):
                    assert row["label"][part] in addresses, row["label"]
