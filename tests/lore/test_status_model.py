"""The learned status reader (lore/garden/status_model.py, bench/status_model_train.py): trained on the
development corpus only, shipped as what that corpus gives, and read only where the grammar refuses a lesson."""

from __future__ import annotations

import json

import pytest

from bench.garden_eval import CORPORA
from bench.status_model_train import digests, examples, threshold_of, train, veto_of
from lore.garden.ephemera import (
    LEARNED,
    ephemera_match,
    grammar_match,
    holds_state,
    learned_reads,
    read_grammar,
)
from lore.garden.status_model import MODEL_PATH, GrammarReading, features, shape_of, status_model

SHIPPED = json.loads(MODEL_PATH.read_text())


def test_the_model_is_trained_on_the_development_corpus_only_never_on_a_held_out_file() -> None:
    trained_on = [entry["file"] for entry in SHIPPED["trained_on"]]
    assert trained_on == [path.name for path in CORPORA["development"]]
    assert not {path.name for path in CORPORA["heldout"]} & set(trained_on)
    assert all(not name.startswith("heldout") for name in trained_on)


def test_the_shipped_model_is_what_the_development_corpus_gives() -> None:
    """Each development file is the one the model was trained on (a changed corpus needs `make status-model`),
    and fitting again gives the shipped weights: nobody edited them by hand."""
    assert SHIPPED["trained_on"] == digests(CORPORA["development"]), "retrain: make status-model"
    fresh = train(validate=False)
    assert fresh["weights"].keys() == SHIPPED["weights"].keys()
    assert fresh["bias"] == pytest.approx(SHIPPED["bias"], abs=1e-3)
    drift = max(abs(fresh["weights"][f] - SHIPPED["weights"][f]) for f in SHIPPED["weights"])
    assert drift < 1e-3


def test_the_shipped_threshold_is_the_one_cross_validation_chose_and_flagged_no_look_alike() -> None:
    figures = SHIPPED["cross_validation"]
    assert SHIPPED["threshold"] == threshold_of(figures)
    assert figures["by_threshold"][str(SHIPPED["threshold"])]["lookalikes"] == 0
    # What it adds on a writer it has not seen, by cross-validation: more than nothing.
    assert figures["by_threshold"][str(SHIPPED["threshold"])]["added"] > 0


@pytest.mark.parametrize(
    "status",
    [
        "ecto migration 20240611_add_reactions_index running concurrently on prod, don't deploy",
        "@tomasz is on the HITL rig until 15:00, please don't queue rig jobs.",
        "0057_add_review_log_idx building concurrently on prod, ~55%. hold api deploys till it's finished",
    ],
)
def test_a_status_the_grammar_refuses_is_read_by_the_model(status: str) -> None:
    statuses, reading = read_grammar(status)
    assert grammar_match(statuses, reading, "note", ()) is None
    match = ephemera_match(status, "note")
    assert match is not None and match.pattern == LEARNED
    assert "sure it states a status, from" in match.matched  # says which words weighed


@pytest.mark.parametrize(
    "durable",
    [
        "CI must be green before merge.",
        "Never merge a PR while CI is red.",
        "If the build is red on main, check the mirror first.",
        "The nightly job runs at 02:00 UTC and takes about 40 minutes.",
        "A red `e2e` check on a PR means the staging DB was reset; rerun it.",
    ],
)
def test_a_durable_look_alike_is_not_read_as_a_status(durable: str) -> None:
    assert ephemera_match(durable, "note") is None


def test_a_lesson_of_a_durable_kind_is_never_ephemera_whatever_the_model_reads() -> None:
    status = "ecto migration 20240611_add_reactions_index running concurrently on prod, don't deploy"
    assert ephemera_match(status, "decision") is None and ephemera_match(status, "fact") is None


def test_the_model_reads_only_lessons_holding_a_state_so_the_inventorys_pre_filter_finds_all_it_accepts() -> (
    None
):
    for example in examples(CORPORA["development"]):
        match = ephemera_match(example.row["content"], example.row["kind"], example.row["tags"])
        if match is not None and match.pattern == LEARNED:
            assert holds_state(example.row["content"])


@pytest.mark.parametrize(
    ("token", "shape"),
    [
        ("a1c77d0", "<sha>"),
        ("14:05", "<time>"),
        ("2026-03-14", "<date>"),
        ("55%", "<percent>"),
        ("3,412", "<number>"),
        ("v0.91.0", "<version>"),
        ("#1311", "<ref>"),
        ("!212", "<ref>"),
        ("@kgrant", "<mention>"),
        ("gocd-agent-7", "<id>"),
        ("deploy", None),
        ("don't", None),
        ("fix/empty-config", None),
        ("deadbeef", None),  # a word of hex letters with no digit is a word
    ],
)
def test_numbers_hashes_and_identifiers_are_read_by_their_shape(token: str, shape: str | None) -> None:
    assert shape_of(token) == shape


def test_features_hold_words_neighbours_shapes_and_the_grammars_reading() -> None:
    reading = GrammarReading(sentences=1, statuses=0, rule=True, weak=False, plan=False)
    found = features("Jenkins #4630 still running at a1c77d0", "note", ["ci"], reading)
    assert {
        "w:jenkins",
        "w:<ref>",
        "b:still running",
        "b:at <sha>",
        "end:ing",
        "kind:note",
        "tag:ci",
    } <= found
    assert "grammar:rule" in found and "grammar:status" not in found and "ends-as-sentence" not in found


def test_the_reasons_name_words_and_shapes_as_a_person_reads_them() -> None:
    model = status_model()
    found = {"w:still", "b:at <sha>", "kind:note", "end:ing"}
    weights = {"w:still": 2.0, "b:at <sha>": 1.5, "kind:note": 3.0, "end:ing": 0.5}
    from lore.garden.status_model import StatusModel

    reasons = StatusModel(weights=weights, bias=0.0, threshold=model.threshold).reasons(found)
    assert reasons == ["“still”", "“at [a commit hash]”", "a word ending in “ing”"]


def test_a_lesson_that_states_a_rule_beside_a_status_keeps_its_rule_the_model_is_not_asked() -> None:
    lesson = "The nightly build is red on main right now. Never merge while it is red."
    statuses, reading = read_grammar(lesson)
    assert reading.rule and not learned_reads(lesson, reading)
    assert ephemera_match(lesson, "note") is None


def test_advice_beside_a_status_is_the_models_to_weigh() -> None:
    """The grammar refuses a status beside advice nothing anchors; the model reads the whole lesson."""
    lesson = "Flyway V91 running on prod, 2M rows to go. Wait for it before deploying."
    statuses, reading = read_grammar(lesson)
    assert grammar_match(statuses, reading, "note", ()) is None and learned_reads(lesson, reading)
    match = ephemera_match(lesson, "note")
    assert match is not None and match.pattern == LEARNED


def test_the_inventory_stops_reading_at_a_rule_and_otherwise_reads_what_the_training_read() -> None:
    """A rule settles a lesson (the reader is not asked), so the inventory reads no further; a lesson with no rule
    is read as the training read it, whole."""
    status = "Flyway V91 running on prod, 2M rows to go. Wait for it before deploying."
    assert read_grammar(status) == read_grammar(status, whole=True)
    ruled = "Never merge while main is red. The nightly build is red on main right now."
    assert read_grammar(ruled)[1].sentences == read_grammar(ruled, whole=True)[1].sentences
    assert read_grammar(ruled)[0] == [] and read_grammar(ruled, whole=True)[0] != []


def test_a_status_the_grammar_misread_in_a_how_to_is_overruled_by_the_model() -> None:
    how_to = (
        "Replay dead-lettered webhooks with `pnpm tsx scripts/replay-webhooks.ts --customer <id> --since <iso>`; "
        "replays keep the original event id so customers can dedupe."
    )
    statuses, reading = read_grammar(how_to)
    assert (
        grammar_match(statuses, reading, "howto", ()) is not None
    )  # the grammar reads "Replay dead" as a state
    assert ephemera_match(how_to, "howto") is None


def test_the_model_does_not_overrule_a_plain_status_the_grammar_found() -> None:
    for status in (
        "The nightly build is red on main right now.",
        "PR #55 CI is pending",
        "the mirror is down today",
    ):
        match = ephemera_match(status, "note")
        assert match is not None and match.pattern != LEARNED


def test_the_veto_is_the_highest_at_which_cross_validation_overruled_no_status_the_grammar_found() -> None:
    figures = {"by_veto": {"0.1": {"lost": 0, "false_removed": 3}, "0.2": {"lost": 0}, "0.3": {"lost": 2}}}
    assert veto_of(figures) == 0.2
    assert veto_of({"by_veto": {"0.1": {"lost": 1}}}) == 0.0
    assert SHIPPED["veto"] == veto_of(SHIPPED["cross_validation"])


def test_the_threshold_needs_no_look_alike_and_almost_only_statuses_among_what_the_model_adds() -> None:
    figures = {
        "by_threshold": {
            "0.8": {"added": 300, "false": 2, "lookalikes": 1},
            "0.9": {"added": 200, "false": 3, "lookalikes": 0},
            "0.95": {"added": 150, "false": 1, "lookalikes": 0},
        }
    }
    assert threshold_of(figures) == 0.95
