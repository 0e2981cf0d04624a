"""The status grammar (lore/garden/status_grammar.py, docs/gardener.md "Expired ephemera"): every rule and every
vocabulary is checked with a sentence it accepts and a sentence it refuses."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from lore.garden.ephemera import DURABLE_KINDS, EphemeraMatch, grammar_match, read_grammar
from lore.garden.status_grammar import status_verdict, weak_sentence
from lore.limits import GARDEN_SENTENCE_MAX


def ephemera_match(content: str, kind: str = "", tags: Sequence[str] = ()) -> EphemeraMatch | None:
    """The grammar's verdict alone, as `lore.garden.ephemera.ephemera_match` gives it before the learned reader is
    asked (tests/lore/test_status_model.py tests the reader)."""
    if kind.lower() in DURABLE_KINDS:
        return None
    return grammar_match(*read_grammar(content), kind, tags)


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
    # Momentary phrases (MOMENTARY_PHRASES): a moment whatever the subject.
    (
        "the writer's own work in progress",
        "I'm regenerating the protobuf stubs on branch proto-v3",
        "Regenerating the protobuf stubs is done by make proto.",
    ),
    (
        "the writer waiting",
        "Waiting on the vendor to send the new signing cert before tagging",
        "A tag waits for the signing cert to be present in the vault.",
    ),
    (
        "we are blocked",
        "We're blocked on the schema review from data-eng",
        "Schema changes are blocked by the linter.",
    ),
    (
        "how far a piece of work has got",
        "Reindex of the search cluster: 37 of 90 shards done",
        "The reindex moves shards one at a time, 90 in all.",
    ),
    (
        "about half done",
        "about half the services migrated to the new base image",
        "Half the services use Alpine.",
    ),
    (
        "a step out of a count",
        "the bisect is on step 4 of 7",
        "The bisect script takes a step count as its argument.",
    ),
    (
        "a trend being watched",
        "replication lag is 40s and climbing",
        "Replication lag climbs during the nightly vacuum; it recovers by 06:00.",
    ),
    (
        "someone at lunch",
        "the approver is at lunch",
        "Approvals are never given at lunch-and-learn sessions.",
    ),
    (
        "holding a lock",
        "I hold the deploy lock for the payments cluster, ask me first",
        "The deploy lock is held by whoever runs the release script.",
    ),
    (
        "a handoff",
        "Handoff: the flaky-upload fix is on branch fix/upload, tests not run",
        "Handoffs go in the team channel.",
    ),
    (
        "leaving work for later",
        "Leaving the Gradle 8.10 bump for tomorrow",
        "Leaving a fix for the next release train means a two-week wait for customers.",
    ),
    (
        "a note's last word says what the writer is doing",
        "nightly broke the arm64 wheels, reverting",
        "Reverting a release commit needs a second approver.",
    ),
    ("a full disk", "runner ci-arm-04 disk full", "Runners clean their disk after every job."),
    (
        "still not",
        "The vendor's fix is still not released",
        "The vendor releases fixes on the first Monday of each month.",
    ),
    (
        "a handle at work now",
        "@ravi rebasing the release branch now",
        "@ravi owns rebasing of the release branch.",
    ),
    (
        "the writer's action with its moment",
        "Restarting the ingest workers now",
        "Restarting the ingest workers clears the stuck offsets.",
    ),
    # What keeps a sentence with a time word durable.
    (
        "a predicate of practice beside 'currently' (a passive with its agent)",
        "The ingest worker is currently offline",
        "Certificates are currently issued by the internal ACME server, not Let's Encrypt.",
    ),
    (
        "a predicate of practice beside 'currently' (the simple present)",
        "the mirror is at 91% right now",
        "Nightly images currently publish to the EU registry only.",
    ),
    (
        "a predicate of practice: we + a present verb",
        "the queue is 4k deep at the moment",
        "At the moment we only ship x86-64 server images.",
    ),
    (
        "the only way to",
        "the cluster is read-only right now",
        "Right now the only way to resize a volume is to recreate it.",
    ),
    (
        "a state after 'instead of' is not asserted",
        "the export job got killed again",
        "Long exports write a checkpoint every 10 minutes instead of getting killed at the time limit.",
    ),
    (
        "'fails on …' is a behaviour",
        "the lint job fails on commit 3e4f5a6b",
        "The lint job fails on unformatted files under src/.",
    ),
    (
        "'in a row' counts a streak, not a rule",
        "the nightly failed three nights in a row",
        "Three failures in a row open an incident.",
    ),
    (
        "a dated historical lesson",
        "the canary is degraded since 14:10",
        "Mar 2024: the canary was degraded for a day because of a stale DNS record; we now pin the resolver.",
    ),
    (
        "in maintenance",
        "db-primary is in maintenance mode until 18:00",
        "A replica in maintenance mode is skipped by the router.",
    ),
    ("hours ago, written short", "the feed was last loaded 26h ago", "The feed loads every 6h."),
    (
        "a lesson learned from an incident",
        "the ingest deploy restarted every client at once",
        "Lesson from the March outage: the ingest deploy restarted every client at once. Roll hosts one by one.",
    ),
    (
        "'now and then' is a frequency",
        "test_upload is hung right now on the arm runner",
        "Standing workaround: test_upload hangs now and then on arm runners, so it runs with one retry.",
    ),
    (
        "'without it' states a condition",
        "the docs stage is skipped on build 4411",
        "PRs need the perf label; without it the perf stage is skipped and the PR shows green.",
    ),
    (
        "waiting after a comma",
        "preview for PR 88 is up, waiting for design approval",
        "Previews wait for design approval.",
    ),
    (
        "a place in a queue",
        "gate: 9 changes ahead of ours",
        "The gate merges changes in the order they were approved.",
    ),
    (
        "watching",
        "canary at 5% of traffic, watching error rate",
        "The canary takes 5% of traffic for an hour.",
    ),
    (
        "blocked:",
        "Blocked: can't test refunds until finance adds me",
        "Refund tests need a finance sandbox account.",
    ),
    (
        "a question asserts no state",
        "build 88123 red again, cache poisoned?",
        "Nightly red? Check the mirror status page before you rerun anything.",
    ),
    (
        "'still' before a present-tense verb is concessive, not a moment",
        "the docs job is still red on trunk",
        "In Woodpecker, a step marked failure: ignore still shows red, but the pipeline passes without it.",
    ),
    (
        "a time clause pins one named thing's state to a moment, not a kind of thing's",
        "The v3.2 rollout is paused until the DBA is back. Do not resume it by hand.",
        "Merges to the kernels are blocked until the perf job lands within 5% of baseline. Do not bypass it.",
    ),
    (
        "half applied",
        "migration 0107 half applied on staging",
        "Half-applied migrations are rolled back by the deploy tool.",
    ),
    (
        "since the hh:mm deploy",
        "error rate doubled since the 11:30 deploy",
        "Error budgets reset at 11:30 each Monday.",
    ),
    ("all weekend", "the disk alert has been firing all weekend", "Disk alerts are muted on weekends."),
    (
        "a practice beside 'currently': a present verb and 'only'",
        "the mirror is currently offline",
        "The solver currently converges only with double precision; keep float64 in new kernels.",
    ),
    (
        "a name is not a verb",
        "QA3 CICS region down",
        "CICS regions are recycled nightly at 02:00.",
    ),
    (
        "a rule word inside a hyphenated name is a name",
        "Fare-rule cache hotfix merged, waiting for the prod window",
        "Fare rule changes are merged only by the pricing team.",
    ),
    (
        "a state before 'behind' is asserted",
        "nightly-arm64 build queued behind 6 other jobs",
        "Queued jobs behind a paused runner are cancelled after an hour.",
    ),
    (
        "an aside in brackets between subject and state",
        "PR 3310 (cache refactor) blocked on security review",
        "PRs (any size) are blocked by the label bot until triaged.",
    ),
    (
        "a budget used up",
        "artifact storage 91% full",
        "Artifact storage alerts fire when it is 90% full.",
    ),
    (
        "a budget used up (at N% of it)",
        "build minutes at 87% of the monthly quota",
        "Keep build minutes below 80% of the monthly quota.",
    ),
    (
        "how far a piece of work has got",
        "Reindex of orders: 63% done, ETA ~2h",
        "The reindex page shows the percentage done and an ETA for each index.",
    ),
    (
        "day N of M",
        "Canary test day 4 of 7, no regressions",
        "Canary tests run for 7 days before promotion.",
    ),
    (
        "how long one thing has been in its state",
        "The Windows image has been in 'Preparing' for 3 hours",
        "A build that has been queued for 3 hours is cancelled automatically.",
    ),
    (
        "a day named as a due date",
        "Security review of the SSO change expected Thursday",
        "Security reviews are due every Thursday.",
    ),
    (
        "work under way now",
        "docs site rebuilding now, links may 404",
        "Logging now goes to Loki instead of files.",
    ),
    (
        "one day's instance of a thing",
        "today's nightly has 14 new crash reports in Sentry",
        "Today's view shows every build of the last 24 hours.",
    ),
    (
        "a state that began at a moment",
        "the sandbox API returns 503 since this morning",
        "The sandbox API returns 503 when the token expires.",
    ),
    (
        "until a day is a time, not a clause",
        "sim nodes 3-5 reserved for the grasp benchmark until Friday",
        "Release branches stay frozen until the tag is signed.",
    ),
    (
        "a missed run",
        "sitemap job missed last night's run",
        "A job that missed its window runs at the next tick.",
    ),
    (
        "out for review",
        "MR !77 (retry budget) out for review with Ola",
        "Docs MRs go out for review to the tech writers first.",
    ),
    (
        "a state before 'over' is asserted",
        "ledger export job paused over the holiday",
        "Paused jobs over 24h old are purged by the reaper.",
    ),
    (
        "'the only' is not a rule word",
        "perf job queued behind the nightly on the only ARM runner",
        "Perf jobs queue behind the nightly on the only ARM runner.",
    ),
    (
        "work for a stretch starting now",
        "Watching p99 for the next hour after the flip.",
        "Watching p99 is the release captain's job.",
    ),
    (
        "a negation is not a name",
        "Ingest is stuck.",
        "Nothing is stuck.",
    ),
    (
        "a relative clause of a kind of thing",
        "the migration that started at 9 is still running",
        "A test that fails today but passed yesterday isn't using the fixed clock.",
    ),
    (
        "'never' opening a clause is advice beside any time word",
        "The preview for PR 88 is currently down.",
        "Previews are public URLs; currently there is no auth in front of them, so never point one at prod.",
    ),
    (
        "a present passive with an agent is a behaviour",
        "MR !301 was rejected by the merge bot",
        "#NOT_REQUIRED is rejected by ATC.",
    ),
    (
        "a modal with an adverb before the state",
        "the ingest rig is idle right now",
        "A rig showing 'running' can still be idle: the status is its last heartbeat.",
    ),
    (
        "today's date is a value, not the moment",
        "today's import has 40 rejected rows",
        "The date printed on invoices is the billing date, not today's date (print date).",
    ),
    (
        "a participle before a noun describes it",
        "PR 4411 merged, deploy pending",
        "Release notes are still built from merged PR titles.",
    ),
    (
        "cycle N of M",
        "rig 2 at cycle 300/1000",
        "Rigs run 1000 cycles per test, about 300 per day.",
    ),
    (
        "till it's finished",
        "migration 0091 running on prod. Keep deploys off till it's finished.",
        "migration 0091 running on prod. Keep deploys off while migrations run.",
    ),
    (
        "awaiting someone's review",
        "PR #219 awaiting Hana's review",
        "A PR awaiting Hana's review for a week gets a reminder from the bot.",
    ),
    (
        "sluggish with a time word",
        "search sluggish atm",
        "Search is sluggish on cold caches.",
    ),
    (
        "someone's next step on the thing",
        "release workflow on hold at approve-prod since Friday; Léa needs to click it",
        "The release workflow holds at approve-prod; the release manager needs to click it.",
    ),
    (
        "'not an outage' classifies, it reports nothing",
        "checkout API outage since 09:10",
        "A 502 from the edge during a deploy is a blip, not an outage.",
    ),
    (
        "'just' before a present-tense verb means simply, not recently",
        "the nightly just failed",
        "Forked PRs can't read the secret, so their e2e tests just get skipped.",
    ),
    (
        "half way, two words",
        "reindex of the orders table half way",
        "Reindexing the orders table takes half a day.",
    ),
    (
        "approvals or signatures counted so far",
        "MR !311 has 1 of 2 approvals",
        "Merges to main need 2 of 3 approvals from CODEOWNERS.",
    ),
    (
        "signatures counted so far",
        "the upgrade tx has 2/5 sigs",
        "The treasury Safe is a 3/5 multisig.",
    ),
    (
        "a time word after an adjective state is not the noun it describes",
        "4.2.1 in store review, iOS approved yesterday.",
        "Approved vendors are listed in procurement.yml.",
    ),
    (
        "back around a time of day",
        "press02 stopped for a die change, back around 15:30",
        "Presses go back to RUN at 06:00 after the nightly die check.",
    ),
    (
        "the writer's action with its moment, after a comma",
        "lint shows 12 warnings after the bump, fixing them now",
        "We pin numpy, fixing the ABI break for good.",
    ),
    (
        "being re-run, rebuilt, replayed",
        "EOD report for 2025-10-14 being rerun after late marks",
        "Jobs being rerun are marked amber in the grid.",
    ),
    (
        "a rollout of one version at a percentage",
        "staged rollout of 2.8.0 on iOS at 20%, crash-free 99.4%",
        "A staged rollout of a new version starts at 1% and doubles daily.",
    ),
    (
        "watching a figure before the next step",
        "Rolling model v9 out to 5% of traffic; watching the error rate before going to 25.",
        "Watching the error rate before going to 25% is the on-call's job during a rollout.",
    ),
    (
        "a next step on a named day",
        "outbox has 4k messages queued, will drain Monday",
        "The outbox drains every Monday at 06:00.",
    ),
    (
        "someone is fixing it, as the last words",
        "CL 48213 broke the editor build, Sam is fixing.",
        "Whoever breaks the editor build owns fixing it, not the release manager.",
    ),
    (
        "replicas on the new image so far",
        "ckan rolling update: 2/3 replicas on the new image",
        "Quorum needs 2/3 replicas healthy before a write is acknowledged.",
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


def test_a_time_clause_or_a_watch_beside_a_status_anchors_it_in_its_moment() -> None:
    assert ephemera_match("rig-4 down, fan dead. HIL only on rig-1 until the spare arrives") is not None
    assert ephemera_match("rig-4 down, fan dead. HIL only on rig-1.") is None
    assert ephemera_match("orders-sync worker lagging. Keep an eye on it.") is not None
    assert ephemera_match("orders-sync worker lagging. Restart it from the runbook.") is None


def test_a_prohibition_about_the_thing_a_status_names_anchors_that_status_in_its_moment() -> None:
    assert ephemera_match("Export job eu-7 paused after a disk alarm. Don't restart it.") is not None
    assert ephemera_match("Export job eu-7 paused after a disk alarm. Restart it from the runbook.") is None
    assert ephemera_match("Flyway V91 running on prod, 2M rows to go. DO NOT DEPLOY.") is not None
    assert ephemera_match("Flyway V91 running on prod, 2M rows to go. Wait for it before deploying.") is None


def test_a_rule_sentence_next_to_a_status_keeps_the_lesson_durable() -> None:
    assert ephemera_match("The nightly build is red on main right now.") is not None
    assert ephemera_match("The nightly build is red on main right now. Never merge while it is red.") is None


def test_a_provenance_date_is_not_deixis() -> None:
    assert ephemera_match("as of 2026-07-03: finalization opens a draft PR and never pushes to main") is None


def test_a_lesson_of_a_durable_kind_is_never_ephemera() -> None:
    assert ephemera_match("The mirror is down right now.", kind="note") is not None
    for kind in ("decision", "convention", "fact"):
        assert ephemera_match("The mirror is down right now.", kind=kind) is None


def test_a_sentence_longer_than_any_status_is_read_as_no_status() -> None:
    status = "the nightly build is red on main right now"
    assert status_verdict(status) is not None
    padded = status + ", and " + "the runner keeps running for " * (GARDEN_SENTENCE_MAX.value // 20)
    assert len(padded) > GARDEN_SENTENCE_MAX.value and status_verdict(padded) is None
    assert ephemera_match(padded) is None


def test_a_how_to_that_starts_with_build_is_advice_beside_a_habit() -> None:
    lesson = (
        "Build with `./mvnw -T 1C verify`; the `perf` profile adds JMH benchmarks and is skipped in PR jobs."
    )
    assert ephemera_match(lesson) is None
    assert ephemera_match("the `perf` profile is skipped on main right now") is not None


def test_a_time_word_inside_a_quoted_message_leaves_a_condition_weak() -> None:
    condition = "If the PS5 devkit shows 'Application is currently being installed' forever, reboot the kit"
    assert weak_sentence(condition)
    assert ephemera_match(condition + "; the deploy job itself has already succeeded.") is None
    # a time word of its own
    assert not weak_sentence("If the PS5 devkit is currently installing, reboot the kit")


def test_what_something_does_to_a_state_as_a_habit_is_durable() -> None:
    assert (
        ephemera_match(
            "Merging to main runs the `deploy` workflow; the Actions run goes green as soon as the upload "
            "finishes, so check the Railway deployment status before saying it's live."
        )
        is None
    )
    assert ephemera_match("so a single approval leaves the PR blocked.") is None
    assert ephemera_match("the Actions run went green at 14:05") is not None


def test_the_consequence_of_not_following_advice_is_not_asserted() -> None:
    advice = "on the OCI build runner use the `large` shape or the container gets OOM-killed without a clear error."
    assert ephemera_match(advice) is None
    assert ephemera_match("the container gets OOM-killed on the OCI runner again today") is not None


def test_a_symptom_and_what_it_means_is_a_definition_not_a_status() -> None:
    assert (
        ephemera_match(
            "Windows build failing with `LNK1201` = agent disk full. Clean the workspace and rerun."
        )
        is None
    )
    assert ephemera_match("Drone 'pending' on arm64 = Pi runner rebooting. Wait.") is None
    assert ephemera_match("Windows build failing with LNK1201 on agent win-07, disk full.") is not None


def test_what_may_follow_is_not_what_is() -> None:
    lesson = "`owasp-dependency-check` fails the pipeline at CVSS ≥ 7, so main can go red overnight without a commit."
    assert ephemera_match(lesson) is None
    assert ephemera_match("main went red overnight without a commit") is not None


def test_a_state_told_of_each_of_a_kind_is_a_habit() -> None:
    assert (
        ephemera_match("Fork PRs don't get `BENCH_TOKEN`, so the benchmark comment job is skipped on them.")
        is None
    )
    assert ephemera_match("the benchmark comment job is skipped on PR 551 again") is not None


def test_the_last_release_tag_names_a_kind_of_tag_not_a_moment() -> None:
    lesson = (
        "Hotfix branches are cut from the last release tag, merged to both `main` and the release branch, and "
        "the `vX.Y.Z` tag is set on the hotfix branch itself."
    )
    assert ephemera_match(lesson) is None
    assert ephemera_match("the last release is stuck in notarization") is not None


def test_a_present_tense_verb_onto_a_pool_is_practice() -> None:
    assert ephemera_match("Training jobs currently schedule onto the `a100-spot` pool.") is None
