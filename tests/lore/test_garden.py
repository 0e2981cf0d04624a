"""The gardener (docs/gardener.md): detection, the inventory, gated apply, dismiss and undo."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from bench.garden_eval import CORPORA, corpus_rows
from lore.garden.apply import (
    FindingNotOpen,
    FindingOverCap,
    FindingStale,
    finding_apply,
    finding_dismiss,
    finding_undo,
)
from lore.garden.detect import OUTDATED_CLAIM, OUTDATED_WORDS, _named
from lore.garden.ephemera import ephemera_candidates, ephemera_match, holds_state, states_regex
from lore.garden.inventory import GardenRunPending, garden_inventory
from lore.garden.signatures import BANDS
from lore.models import Finding, FindingMember, GardenRun, Lesson, LessonBand
from lore.services import lesson_protect
from lore.tasks import nightly_garden
from tests.audit import audited
from tests.lore.garden_helpers import write

pytestmark = pytest.mark.django_db
UV = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."


def members(finding: Finding) -> dict[str, str]:
    return {m.lesson.key: m.action for m in finding.members.select_related("lesson")}


def test_every_write_keeps_the_lessons_signature(account) -> None:  # noqa: ANN001
    lesson = write(account, "repo::acme/app", "use-uv", UV)
    assert LessonBand.objects.filter(lesson=lesson).count() == BANDS
    write(account, "repo::acme/app", "use-uv", "Something else entirely, about the billing worker.")
    assert LessonBand.objects.filter(lesson=lesson).count() == BANDS  # replaced, not added


def test_near_duplicates_in_one_family_keep_the_most_chosen_then_newest_and_retire_the_others(
    account,
) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV, age_days=100, opened=1)
    write(account, "branch::acme/app::main", "use-uv-2", UV.lower(), age_days=50, opened=5)
    write(account, "repo::acme/app", "use-uv-3", "Note: " + UV, age_days=10, opened=5)
    run = garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="near_duplicate")
    assert run.found == 1 and finding.family == "repo::acme/app"
    assert members(finding) == {"use-uv-3": "keep", "use-uv": "retire", "use-uv-2": "retire"}
    assert finding.evidence["similarity_min"] >= finding.evidence["threshold"]


def test_lessons_of_different_families_are_never_near_duplicates(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV)
    write(account, "repo::acme/api", "use-uv", UV)
    write(account, "project::platform", "use-uv", UV)
    assert garden_inventory(account).found == 0


def test_lessons_that_state_different_numbers_are_not_near_duplicates(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "python", "The service runs on Python 3.11 in production and CI.")
    write(account, "repo::acme/app", "python-now", "The service runs on Python 3.12 in production and CI.")
    assert garden_inventory(account).found == 0


REWORDED = (
    "Release builds of the billing service need Gradle 8.7 and JDK 17; the protobuf codegen plugin breaks on JDK 21.",
    "Building billing for release requires Gradle 8.7 plus JDK 17, because on JDK 21 the protobuf codegen plugin "
    "breaks.",
)


def test_a_copy_reworded_but_keeping_most_of_its_words_and_every_number_is_a_near_duplicate(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/billing", "jdk-17-for-codegen", REWORDED[0], age_days=90, opened=9)
    write(account, "repo::acme/billing", "gradle-87-jdk17", REWORDED[1], age_days=10, opened=1)
    assert garden_inventory(account).found == 1
    finding = Finding.objects.get(account=account, kind="near_duplicate")
    assert members(finding) == {"jdk-17-for-codegen": "keep", "gradle-87-jdk17": "retire"}
    assert finding.evidence["reworded"] == ["gradle-87-jdk17"]


def test_a_reworded_copy_that_changes_a_number_is_not_a_near_duplicate(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/billing", "jdk-17-for-codegen", REWORDED[0])
    write(account, "repo::acme/billing", "gradle-88-jdk17", REWORDED[1].replace("8.7", "8.8"))
    assert garden_inventory(account).found == 0


def test_a_status_and_a_rule_in_the_same_words_are_never_near_duplicates(account) -> None:  # noqa: ANN001
    write(
        account,
        "repo::acme/app",
        "maria-desk",
        "Maria is on release duty this week, so deploy questions go to her.",
    )
    write(
        account,
        "repo::acme/app",
        "maria-owns-deploys",
        "Maria owns the deploy scripts; deploy questions go to her whoever is on release duty.",
    )
    garden_inventory(account)
    assert not Finding.objects.filter(account=account, kind="near_duplicate").exists()


def test_a_quoted_supersedes_claim_proposes_the_older_lesson_it_names(account) -> None:  # noqa: ANN001
    old = write(
        account,
        "repo::acme/app",
        "gardener",
        "The gardener hard-deletes stale memories after 30 days.",
        age_days=90,
    )
    new = write(
        account,
        "branch::acme/app::main",
        "gardener-now",
        'supersedes "gardener hard-deletes stale memories" — retirement is reversible.',
        age_days=2,
    )
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="superseded")
    assert members(finding) == {new.key: "keep", old.key: "retire"}
    assert finding.evidence["phrase"].startswith("supersedes")
    assert finding.evidence["superseded_by"] == new.pk


def test_an_unquoted_claim_naming_the_old_lessons_key_proposes_that_lesson(account) -> None:  # noqa: ANN001
    old = write(account, "repo::acme/app", "tests-localdb", "Integration tests run on LocalDB.", age_days=200)
    write(account, "repo::acme/app", "other", "Integration tests log to tests.log.", age_days=150)
    new = write(
        account,
        "branch::acme/app::main",
        "tests-containers",
        "Supersedes tests-localdb: integration tests start SQL Server in a container now.",
        age_days=3,
    )
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="superseded")
    assert members(finding) == {new.key: "keep", old.key: "retire"}
    assert finding.evidence["named"] == "key"


def test_an_unquoted_claim_naming_the_old_lesson_as_the_note_about_it_proposes_that_lesson(account) -> None:  # noqa: ANN001
    old = write(
        account, "repo::acme/lib", "ci-host", "CI runs on Travis; .travis.yml holds the matrix.", age_days=300
    )
    write(account, "repo::acme/lib", "docs", "Docs build with mkdocs on every tag.", age_days=300)
    new = write(
        account, "repo::acme/lib", "ci-now", "Replaces the Travis note: CI is GitHub Actions.", age_days=5
    )
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="superseded")
    assert members(finding) == {new.key: "keep", old.key: "retire"}


@pytest.mark.parametrize(
    "claim",
    [
        "Update to the earlier note on the Travis matrix: CI is GitHub Actions.",
        "Correction to the note about Travis: CI is GitHub Actions.",
        "Ignore the old advice about Travis; CI is GitHub Actions.",
        "CI is GitHub Actions. This replaces the old Travis note — the .travis.yml is gone.",
        "CI is GitHub Actions. This lesson replaces the old one about the Travis matrix.",
        "CI is GitHub Actions; this overrides the older lesson saying CI runs on Travis.",
        "CI is GitHub Actions. The old note about the Travis matrix is no longer true.",
        "CI moved to GitHub Actions, so the Travis matrix note is obsolete.",
        "Travis is gone, so ignore the 'Travis matrix' note - CI is GitHub Actions.",
        "CI is GitHub Actions. Forget the Travis/matrix note.",
        "CI is GitHub Actions; this supersedes the note about Travis holding the matrix.",
        "We dropped Travis — the old `travis matrix` note is obsolete.",
        "No longer true that CI runs on Travis — it is GitHub Actions now.",
        "It's no longer the case that CI runs on Travis; we use GitHub Actions.",
        "CI is GitHub Actions. Forget the Travis setup note, that service is gone.",
        "CI is GitHub Actions; the earlier note saying CI uses Travis no longer holds.",
        "CI is GitHub Actions. Ignore the older note about running CI through Travis; that service is gone.",
        "CI is GitHub Actions. The old note pointing at Travis is outdated.",
        "CI is GitHub Actions; the earlier note that CI runs on Travis no longer holds.",
        "CI is GitHub Actions. Ignore any Travis matrix advice from before.",
    ],
)
def test_other_wordings_of_a_claim_name_the_old_lesson_too(account, claim: str) -> None:  # noqa: ANN001
    old = write(
        account, "repo::acme/lib", "ci-host", "CI runs on Travis; .travis.yml holds the matrix.", age_days=300
    )
    write(account, "repo::acme/lib", "docs", "Docs build with mkdocs on every tag.", age_days=300)
    new = write(account, "repo::acme/lib", "ci-now", claim, age_days=5)
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="superseded")
    assert members(finding) == {new.key: "keep", old.key: "retire"}


def test_a_note_named_by_what_it_is_about_is_that_subject_even_when_the_subject_ends_in_a_note_noun() -> None:
    assert _named("the old note about a 7-day rule") == ("words", "a 7-day rule")
    assert _named("the Travis matrix note") == ("words", "Travis matrix")


def test_a_lesson_that_says_it_replaces_another_is_never_ephemera_however_momentary_its_words(
    account,
) -> None:  # noqa: ANN001
    old = write(
        account, "repo::acme/lib", "ci-host", "CI runs on Travis; .travis.yml holds the matrix.", age_days=300
    )
    new = write(
        account,
        "repo::acme/lib",
        "ci-now",
        "Replacing the Travis note: CI is running on GitHub Actions now.",
        age_days=60,
    )
    garden_inventory(account)
    assert not Finding.objects.filter(account=account, kind="expired_ephemera").exists()
    finding = Finding.objects.get(account=account, kind="superseded")
    assert members(finding) == {new.key: "keep", old.key: "retire"}


def test_every_claim_that_an_old_note_no_longer_holds_holds_a_word_the_index_finds_it_by() -> None:
    claims = [
        "The old note about Travis is no longer true.",
        "so the Solr 8 / dismax note is obsolete",
        "The note about /var/log/app.log is out of date - nothing writes it.",
        "The old `make dist` instructions don't apply anymore.",
        "The runbook entry on failover is now deprecated.",
        *(row["content"] for files in CORPORA.values() for row in corpus_rows(files)),
    ]
    held = [claim for claim in claims if OUTDATED_CLAIM.search(claim)]
    assert len(held) >= 5
    for claim in held:
        assert set(re.findall(r"[a-z]+", claim.lower())) & set(OUTDATED_WORDS), claim


def test_an_unquoted_claim_that_names_no_lesson_or_two_proposes_nothing(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/lib", "lock", "The lockfile is committed and CI checks it.", age_days=300)
    write(account, "repo::acme/lib", "travis-a", "Travis builds the docs.", age_days=300)
    write(account, "repo::acme/lib", "travis-b", "Travis caches ~/.cargo between builds.", age_days=300)
    write(
        account, "repo::acme/lib", "pin", "Pinning replaces the need for a lockfile check in CI.", age_days=5
    )
    write(account, "repo::acme/lib", "ci-now", "Replaces the Travis note: CI is GitHub Actions.", age_days=5)
    assert garden_inventory(account).found == 0


def test_a_claim_that_matches_no_lesson_proposes_nothing(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "unrelated", "Billing webhooks are retried on timeout.", age_days=90)
    write(account, "repo::acme/app", "claim", 'replaces "the mobile app polls every minute" — it uses push.')
    assert not Finding.objects.filter(account=account).exists() and garden_inventory(account).found == 0


VIYA = (
    "Production programs run on compute context biostat-prod (SAS 9.4-compatible, 8 GB per session). "
    "Dev uses biostat-dev."
)
VIYA_CLAUSE_DROPPED = (
    "Production programs run on compute context biostat-prod (8 GB per session). Dev uses biostat-dev."
)


def test_a_copy_with_a_clause_and_its_number_left_out_is_a_near_duplicate_and_the_fuller_lesson_is_kept(
    account,
) -> None:  # noqa: ANN001
    fuller = write(account, "repo::acme/stats", "viya", VIYA, age_days=200, opened=1)
    copy = write(account, "repo::acme/stats", "viya-contexts", VIYA_CLAUSE_DROPPED, age_days=20, opened=9)
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="near_duplicate")
    assert members(finding) == {fuller.key: "keep", copy.key: "retire"}
    reasons = {m.lesson.key: m.why for m in finding.members.select_related("lesson")}
    assert "a number one of them leaves out" in reasons[fuller.key] and "clause left out" in reasons[copy.key]


def test_a_lesson_with_words_of_its_own_beside_a_number_the_other_lacks_is_not_a_copy(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "tokio", "Pin tokio to 1.38 in the server; the agent uses 1.36.")
    write(account, "repo::acme/app", "tokio-agent", "Pin tokio to 1.38 in the agent.", opened=5)
    garden_inventory(account)
    assert not Finding.objects.filter(account=account, kind="near_duplicate").exists()


def test_an_explicit_supersedes_field_proposes_the_named_lesson(account) -> None:  # noqa: ANN001
    old = write(account, "repo::acme/api", "backup", "Backups run nightly with pg_dump.", age_days=200)
    write(
        account,
        "repo::acme/api",
        "backup-now",
        "Backups are continuous WAL archiving.",
        supersedes=["repo::acme/api::backup"],
    )
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="superseded")
    assert finding.evidence["explicit"] == old.address and members(finding)[old.key] == "retire"


EPHEMERA = [
    "the build is green on commit 4f9c2ab",
    "biome check passed at step 3",
    "PR #42 is draft",
    "PR #55 CI is pending",
    "the PR was merged",
    "issue-delivery run mqw97i6m is running",
    "the Worker is on attempt 2",
]
DURABLE = [
    "CI must be green before merge",
    "Never merge a PR while CI is red; fix or revert first.",
    "A PR must have one approving review before it is merged.",
    "If the build is red on main, the person who broke it reverts within the hour.",
    "When a worker is stuck, the heartbeat check marks its run interrupted within a minute.",
    "The checkout e2e suite is flaky on CI under load; retry once before bisecting.",
    "CI posts review-state events on every push; only the latest per PR matters.",
]


@pytest.mark.parametrize("text", EPHEMERA)
def test_ci_results_pr_states_and_run_statements_are_ephemera(text: str) -> None:
    assert ephemera_match(text) is not None


@pytest.mark.parametrize("text", DURABLE)
def test_durable_look_alikes_are_never_ephemera(text: str) -> None:
    assert ephemera_match(text) is None


def test_a_status_in_a_decision_is_not_ephemera_and_a_status_label_is() -> None:
    assert ephemera_match("PR #42 is draft", kind="decision") is None
    assert ephemera_match("waiting on the platform team", tags=["status"]) is not None


@pytest.mark.parametrize("corpus", ["development", "heldout"])
def test_every_lesson_the_grammar_calls_ephemera_passes_the_sql_pre_filter(
    garden_corpora, corpus: str
) -> None:  # noqa: ANN001
    """On each corpus as the write path stores it (loaded once for the session, tests/conftest.py): the lessons
    `ephemera_match` accepts, and the ids `ephemera_candidates` pre-filters."""
    ephemera, candidates = garden_corpora.ephemera[corpus]
    assert len(ephemera) >= 30 and ephemera <= candidates


def test_the_fast_state_test_is_the_state_regular_expressions_test_on_every_corpus_lesson() -> None:
    slow = re.compile(states_regex(r"\b"), re.I)
    texts = [row["content"] for files in CORPORA.values() for row in corpus_rows(files)]
    texts += [
        "I'm on it",
        "cancelled",
        "canceled",
        "on-call",
        "on call",
        "crash-looping",
        "today's",
        "redis",
        "Red!",
    ]
    assert len(texts) > 4000
    for text in texts:
        assert holds_state(text) == bool(slow.search(text)), text


TOKENS_A_PARSER_JOINS = [
    "CI is green/red on main again",
    "the deploy is down.example.com for everyone",
    "mypy came back failing(2)",
    "the build went green-ish on commit abc1234",
    "worker is running/tmp/x",
]


@pytest.mark.parametrize("text", TOKENS_A_PARSER_JOINS)
def test_a_state_word_inside_a_path_host_or_hyphenated_word_passes_the_sql_pre_filter(
    account, text: str
) -> None:  # noqa: ANN001
    lesson = write(account, "global", "state", text)
    assert ephemera_match(text) is not None
    assert lesson.pk in set(ephemera_candidates(account.pk, Lesson.objects.filter(account=account)))


def test_the_sql_pre_filter_leaves_out_lessons_without_a_state_word_or_a_status_label(account) -> None:  # noqa: ANN001
    kept = [
        write(account, "global", f"state-{n}", text, tags=["Status"] if n == 0 else [])
        for n, text in enumerate(["waiting on the platform team", *EPHEMERA])
    ]
    write(account, "global", "uv", UV)
    write(account, "global", "pinned", "Pin the Postgres image to 16.4; the reader checks it by hand.")
    write(account, "global", "decided", "PR #42 is draft", kind="decision")
    write(account, "global", "evergreen", "The evergreen service reads its config from etcd.")
    write(account, "global", "redirect", "Login redirects go through /auth/callback; the output is logged.")
    candidates = ephemera_candidates(account.pk, Lesson.objects.filter(account=account))
    assert sorted(candidates) == sorted(lesson.pk for lesson in kept)


def test_ephemera_older_than_the_accounts_ephemera_age_are_proposed_younger_ones_are_not(account) -> None:  # noqa: ANN001
    account.garden_ephemera_days = 14
    account.save()
    write(account, "repo::acme/app", "old", "PR #42 is draft", age_days=15)
    write(account, "repo::acme/app", "young", "PR #43 is draft", age_days=13)
    garden_inventory(account)
    finding = Finding.objects.get(account=account, kind="expired_ephemera")
    assert members(finding) == {"old": "retire"} and "subject_state" in finding.members.get().why


def test_the_inventory_changes_no_lesson(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "a", UV)
    write(account, "repo::acme/app", "b", UV)
    write(account, "repo::acme/app", "c", "PR #42 is draft")
    before = list(Lesson.objects.values_list("pk", "archived_at", "updated_at", "seen_count", "read_count"))
    assert garden_inventory(account).found == 2
    assert (
        list(Lesson.objects.values_list("pk", "archived_at", "updated_at", "seen_count", "read_count"))
        == before
    )


def test_one_apply_retires_at_most_the_accounts_cap(account) -> None:  # noqa: ANN001
    account.garden_apply_cap = 3
    account.save()
    for n in range(5):
        write(account, "repo::acme/app", f"s{n}", f"PR #{n + 10} is draft")
    garden_inventory(account)
    sizes = sorted(f.members.count() for f in Finding.objects.filter(account=account))
    assert sizes == [2, 3]
    account.garden_apply_cap = 2
    account.save()
    big = max(Finding.objects.filter(account=account), key=lambda f: f.members.count())
    with pytest.raises(FindingOverCap):
        finding_apply(account=account, finding_id=big.pk, actor="alice")
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_apply_is_an_archive_run_recording_reason_and_superseded_by_and_undo_restores_it_whole(
    account,
) -> None:  # noqa: ANN001
    keeper = write(account, "repo::acme/app", "use-uv", UV, opened=9)
    copies = [write(account, "repo::acme/app", f"use-uv-{n}", UV.lower()) for n in range(3)]
    garden_inventory(account)
    finding = Finding.objects.get(account=account)
    run = finding_apply(account=account, finding_id=finding.pk, actor="alice")
    retired = Lesson.objects.filter(pk__in=[c.pk for c in copies])
    assert run.archived == 3 and all(
        x.archived_by_run_id == run.pk and x.superseded_by_id == keeper.pk for x in retired
    )
    assert all("near duplicate" in x.archive_reason for x in retired)
    assert len(audited(run_id=run.pk, action="archived")) == 3
    assert set(keeper.supersedes.all()) == set(retired)
    finding.refresh_from_db()
    assert finding.status == "applied" and finding.applied_run_id == run.pk
    assert finding_undo(account=account, finding_id=finding.pk, actor="alice") == 3
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
    assert not Lesson.objects.filter(superseded_by__isnull=False).exists()
    with pytest.raises(FindingNotOpen):
        finding_apply(account=account, finding_id=finding.pk, actor="alice")


def test_a_protected_lesson_is_never_retired(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV, opened=9)
    pinned = write(account, "repo::acme/app", "use-uv-2", UV.lower())
    lesson_protect(account=account, lesson=pinned)
    write(account, "repo::acme/app", "use-uv-3", "Note: " + UV)
    garden_inventory(account)
    finding = Finding.objects.get(account=account)
    assert members(finding)["use-uv-2"] == "keep"
    other = write(account, "repo::acme/app", "status", "PR #42 is draft", age_days=40)
    garden_inventory(account, full=True)
    ephemera = Finding.objects.get(account=account, kind="expired_ephemera")
    lesson_protect(account=account, lesson=other)  # pinned after the inventory: apply re-checks
    with pytest.raises(FindingStale):
        finding_apply(account=account, finding_id=ephemera.pk, actor="alice")
    finding_apply(account=account, finding_id=finding.pk, actor="alice")
    pinned.refresh_from_db()
    other.refresh_from_db()
    assert pinned.archived_at is None and other.archived_at is None


def test_apply_retires_nothing_when_a_member_was_rewritten_since_the_inventory(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV, opened=9)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    garden_inventory(account)
    finding = Finding.objects.get(account=account)
    write(account, "repo::acme/app", "use-uv-2", UV.lower() + " Still true.", age_days=0)
    with pytest.raises(FindingStale):
        finding_apply(account=account, finding_id=finding.pk, actor="alice")
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_a_dismissed_finding_comes_back_only_when_a_members_content_changes(account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV, opened=9)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    garden_inventory(account)
    finding = finding_dismiss(account=account, finding_id=Finding.objects.get().pk, actor="alice")
    assert finding.status == "dismissed"
    assert garden_inventory(account, full=True).found == 0
    write(account, "repo::acme/app", "use-uv-2", UV.lower() + " again", age_days=1)
    assert garden_inventory(account, full=True).found == 1
    assert Finding.objects.filter(status="open").count() == 1


def test_a_nightly_rerun_examines_only_what_changed_since_the_last_inventory(account) -> None:  # noqa: ANN001
    for n in range(6):
        write(account, "repo::acme/app", f"fact-{n}", f"The importer keeps {n * 7} rows; see its docstring.")
    first = garden_inventory(account, trigger="nightly")
    assert first.full and first.examined >= 6
    second = garden_inventory(account, trigger="nightly")
    assert not second.full and second.examined == 0
    write(account, "repo::acme/app", "use-uv", UV, age_days=0)
    write(account, "repo::acme/app", "use-uv-2", UV.lower(), age_days=0)
    third = garden_inventory(account, trigger="nightly")
    assert third.found == 1 and 0 < third.examined <= 4


def test_a_finding_of_another_account_cannot_be_applied_dismissed_or_undone(account, other_account) -> None:  # noqa: ANN001
    write(account, "repo::acme/app", "use-uv", UV)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    garden_inventory(account)
    finding = Finding.objects.get()
    for act in (finding_apply, finding_dismiss, finding_undo):
        with pytest.raises(Finding.DoesNotExist):
            act(account=other_account, finding_id=finding.pk, actor="mallory")
    assert FindingMember.objects.filter(finding=finding).count() == 2 and finding.status == "open"


def test_the_nightly_task_starts_no_inventory_for_an_account_with_one_queued(account, other_account) -> None:  # noqa: ANN001
    queued = GardenRun.objects.create(account=account, status="queued", started_at=timezone.now())
    found = nightly_garden()
    assert account.pk not in found and other_account.pk in found
    assert list(GardenRun.objects.filter(account=account)) == [queued]
    assert GardenRun.objects.get(account=other_account).status == "done"


def test_a_direct_inventory_is_refused_while_one_is_queued_and_the_queued_one_runs_once(account) -> None:  # noqa: ANN001

    write(account, "repo::acme/app", "use-uv", UV)
    write(account, "repo::acme/app", "use-uv-2", UV.lower())
    queued = GardenRun.objects.create(account=account, status="queued", started_at=timezone.now())
    with pytest.raises(GardenRunPending):
        garden_inventory(account)
    assert garden_inventory(account, run=queued).status == "done"
    again = garden_inventory(account, run=queued)  # a redelivered message: the run is finished, left alone
    assert (again.pk, again.found, Finding.objects.count()) == (queued.pk, 1, 1)
