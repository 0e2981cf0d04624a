"""The status grammar (lore/garden/status_grammar.py, docs/gardener.md "Expired ephemera"): every rule and every
vocabulary is checked with a sentence it accepts and a sentence it refuses."""

from __future__ import annotations

import pytest

from lore.garden.ephemera import ephemera_match
from lore.garden.status_grammar import status_verdict

# (rule or vocabulary, a sentence the grammar calls a status (with the rule that fires), a look-alike it must not)
PAIRS = [
    (
        "status subject + state",
        "the build is green on commit 4f9c2ab",
        "The pipeline caches dependencies by lockfile hash.",
    ),
    ("no modal between subject and state", "PR #42 is draft", "CI must be green before merge"),
    (
        "any specific noun phrase + state",
        "the function is throttled",
        "Release branches are frozen three working days before a tag.",
    ),
    (
        "a name that is one thing",
        "ingest_events is paused while we rotate the Snowflake key",
        "Paused consumers still hold their partition assignment.",
    ),
    (
        "momentary states",
        "the passkeys branch needs a rebase onto main",
        "A worker that stopped sending heartbeats is restarted by the supervisor.",
    ),
    (
        "momentary states (heartbeats)",
        "stopped sending heartbeats",
        "Heartbeats are sent every ten seconds by each worker.",
    ),
    ("a state anchored by deixis", "failed twice today", "Builds fail when the cache is cold."),
    (
        "a commit anchors a present-tense pass",
        "All login tests pass at a1c77d0",
        "Newer versions fail the job on generated files.",
    ),
    (
        "an id anchors a state",
        "SonarCloud flagged line 212 on the current PR",
        "The verifier flags any line over 120 characters.",
    ),
    (
        "a clause pinned to a moment",
        "Aisha is away this week",
        "a team that used a lot last week waits longer today",
    ),
    (
        "a job in progress now",
        "p4 server is taking a checkpoint right now",
        "The nightly job is taking longer since we added the export step; budget an hour.",
    ),
    (
        "a state after a determiner and before a noun is an attribute",
        "The Verifier flagged line 88",
        "a draft PR does not trigger the e2e workflow",
    ),
    (
        "an adjective state before a noun is an attribute",
        "the migration is still pending on production right now",
        "pending mutations are capped at 500",
    ),
    (
        "flaky is a status only with a time word",
        "the checkout suite is flaky today",
        "The checkout suite is flaky on CI under load.",
    ),
    (
        "now before a verb is a change of practice",
        "the deploy is red now",
        "We now run migrations in a separate stage.",
    ),
    (
        "habit markers win even beside a time word",
        "the deploy job is pending right now",
        "The deploy job usually stays pending for a minute, which is normal.",
    ),
    (
        "rule markers",
        "Merged at 14:05, PR #77 is closed now",
        "Merged PRs delete their branch automatically.",
    ),
    (
        "a past incident told as a lesson",
        "the deploy froze at the slot swap this morning",
        "In March the deploy froze at the slot swap; since then the swap waits on the health check.",
    ),
    ("do not inside a status", "do not retry, job 8812 is still running", "Do not retry flaky jobs."),
    (
        "until inside a status",
        "deploy is paused until the DBA is back",
        "Keep the MR in draft until CI is green.",
    ),
    (
        "a condition is durable",
        "the build is red on main right now",
        "If the build is red on main, revert within the hour.",
    ),
    (
        "an attempt anchors a state",
        "the release job is on attempt 3",
        "Retry the job on attempt 3 only if the cache is warm.",
    ),
    (
        "since a day anchors a state",
        "Release 24.07 has been failing since Tuesday",
        "Releases have been signed since 2023 with the production key.",
    ),
    (
        "only is weak beside a moment",
        "only hotfixes until Monday; the branch is frozen",
        "Builds only run on the shared runners.",
    ),
    (
        "a count makes a plural one thing",
        "212 jobs pending in gpu-h100 right now",
        "Jobs pending in the h100 partition are ordered by fair share.",
    ),
    (
        "waiting on a review",
        "MR !2201 is waiting on security sign-off",
        "A queued job is waiting for that exact rig.",
    ),
]


@pytest.mark.parametrize(("rule", "status", "durable"), PAIRS, ids=[p[0] for p in PAIRS])
def test_each_rule_of_the_grammar_accepts_its_status_and_refuses_its_look_alike(
    rule: str, status: str, durable: str
) -> None:
    assert ephemera_match(status) is not None, rule
    assert ephemera_match(durable) is None, rule


def test_a_status_names_the_rule_that_fired_and_the_words_it_fired_on() -> None:
    verdict = status_verdict("PR #55 CI is pending")
    assert verdict is not None and verdict.rule == "subject_state" and verdict.matched == "CI is pending"
    assert status_verdict("Aisha is away this week").rule == "moment"  # type: ignore[union-attr]


def test_advice_beside_an_anchored_status_is_about_that_moment_and_beside_an_unanchored_one_is_durable() -> (
    None
):
    assert (
        ephemera_match("HIL rig 3 is bricked again. Please skip it until Lars reflashes the image.")
        is not None
    )
    assert ephemera_match("The staging server is down. Restart it with the runbook's second step.") is None


def test_a_rule_sentence_next_to_a_status_keeps_the_lesson_durable() -> None:
    assert ephemera_match("The nightly build is red on main right now.") is not None
    assert ephemera_match("The nightly build is red on main right now. Never merge while it is red.") is None


def test_a_provenance_date_is_not_deixis() -> None:
    assert ephemera_match("as of 2026-07-03: finalization opens a draft PR and never pushes to main") is None
