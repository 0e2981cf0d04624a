"""Daily rollups and bounded event tables (issue 28, parts 2 and 3): every surface shows the same numbers before
and after the nightly rollup deletes what it rolled up. Runs on SQLite and, with DATABASE_URL, on PostgreSQL."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
import time_machine
from django.http import QueryDict
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from config.celery import ROLLUPS_TASK, app
from explorer.queries import read_card
from explorer.state import ExplorerState
from lore.limits import LESSON_HISTORY_SHOWN
from lore.models import (
    Account,
    DailyReads,
    DailyRollup,
    Lesson,
    LessonEvent,
    LessonEventBatch,
    PolicyRun,
    ReadEvent,
    RollupState,
    Tombstone,
)
from lore.rollups import (
    account_health,
    day_figures,
    day_of,
    deliveries_between,
    horizon_days,
    horizon_start,
    rollups_keep,
    rollups_nightly,
)
from lore.rules.rule import Rule
from lore.services import lesson_protect
from lore.tasks import nightly_rollups
from policies import grooming
from policies.services import policy_create
from tests.audit import audited
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

SCOPES = ("repo::acme/app", "branch::acme/app::main", "project::ops", "global")
SURFACES = ("api", "cli", "mcp", "dashboard")
DAYS = 200  # a store older than the horizon (90 days by default)


def _reads_over(account: Account, now, days: int = DAYS) -> None:  # noqa: ANN001
    """Read events every few hours for `days` days, across scopes and surfaces (dashboard ones too)."""
    rows = []
    for hour in range(0, days * 24, 5):
        at = now - timedelta(hours=hour, minutes=hour % 60)
        rows.append(
            ReadEvent(
                account=account,
                scope=SCOPES[hour % len(SCOPES)],
                surface=SURFACES[(hour // 5) % len(SURFACES)],
                lesson_count=1 + hour % 23,
                at=at,
            )
        )
    ReadEvent.objects.bulk_create(rows)


def _state(query: str):  # noqa: ANN202
    return ExplorerState.from_query(QueryDict(query))


def _ranges(today: date) -> list[str]:
    old = today - timedelta(days=150)
    return [
        "",
        "range=24h",
        "range=7d",
        "range=30d",
        "range=90d",
        f"range={old}..{today}",
        f"range={old}..{old + timedelta(days=10)}",
        f"range=..{today - timedelta(days=120)}",
        f"range={today - timedelta(days=DAYS + 5)}..",
        f"range={today - timedelta(days=91)}..{today - timedelta(days=89)}",
    ]


def _read_cards(account: Account, now) -> dict[str, int]:  # noqa: ANN001
    cards = {}
    for scope in ("", "scope=repo::acme/app", "scope=branch::acme/app::main", "scope=project::ops"):
        for rng in _ranges(day_of(now)):
            query = "&".join(part for part in (scope, rng) if part)
            cards[query] = read_card(account, _state(query), now=now).delivered
    return cards


def _history(client: Client, lesson: Lesson) -> str:
    html = client.get(reverse("explorer:sheet", args=[lesson.pk])).content.decode()
    match = re.search(r'<ol class="sheet-events">.*?</ol>', html, re.S)
    return match.group(0) if match else ""


def _without_tokens(html: str) -> str:
    return re.sub(r'(csrfmiddlewaretoken" value="|X-CSRFToken": ")[^"]+', r"\1", html)


@pytest.fixture
def history(account: Account):  # noqa: ANN201
    """A store with 200 days behind it: reads every few hours, an old run still archiving its lessons, a lesson
    with more events than its sheet shows, some of them older than the horizon."""
    long_ago = timezone.now() - timedelta(days=DAYS)
    Account.objects.filter(pk=account.pk).update(created_at=long_ago)
    account.refresh_from_db()
    with time_machine.travel(long_ago, tick=False):
        lessons = [LessonFactory(account=account, scope="repo::acme/app", opened_count=0) for _ in range(6)]
        busy = LessonFactory(account=account, scope="project::ops")
        policy = policy_create(
            account=account,
            rule=Rule(scope="repo::acme/app", conditions={"max_opened_count": 0}),
            name="unused",
        )
    with time_machine.travel(long_ago + timedelta(days=5), tick=False):
        run = grooming.run_start(account=account, policy=policy, trigger="manual", actor="alice")
        assert run is not None
        grooming.run_execute(run.pk)
    for day in range(0, DAYS - 10, 3):  # pin and unpin every third day: ~126 events
        with time_machine.travel(long_ago + timedelta(days=10 + day), tick=False):
            lesson_protect(account=account, lesson=busy, protected=day % 2 == 0, actor="alice")
    _reads_over(account, timezone.now())
    run.refresh_from_db()
    return {"lessons": lessons, "busy": busy, "run": run, "policy": policy}


def test_every_surface_shows_the_same_numbers_before_and_after_the_rollup(
    account: Account, logged_in: Client, history: dict
) -> None:
    now = timezone.now()
    run: PolicyRun = history["run"]
    assert run.archived == 6
    lessons = [*history["lessons"], history["busy"]]
    cards = _read_cards(account, now)
    sheets = {lesson.pk: _history(logged_in, lesson) for lesson in lessons}
    run_page = _without_tokens(logged_in.get(reverse("policies:run", args=[run.pk])).content.decode())
    archived_link = list(
        Lesson.objects.filter(account=account, archived_by_run=run).values_list("pk", flat=True)
    )
    reads_before, events_before = ReadEvent.objects.count(), LessonEvent.objects.count()

    report = rollups_nightly(now=now, accounts=[account])

    assert report.reads_rolled > 0 and report.events_pruned > 0  # something was really deleted
    assert ReadEvent.objects.count() == reads_before - report.reads_rolled
    assert LessonEvent.objects.count() == events_before - report.events_pruned
    assert not ReadEvent.objects.filter(at__lt=horizon_start(now)).exists()
    assert _read_cards(account, now) == cards
    assert {lesson.pk: _history(logged_in, lesson) for lesson in lessons} == sheets
    assert _without_tokens(logged_in.get(reverse("policies:run", args=[run.pk])).content.decode()) == run_page
    assert (
        list(Lesson.objects.filter(account=account, archived_by_run=run).values_list("pk", flat=True))
        == archived_link
    )
    # The events that archived lessons this run still holds are kept, however old.
    assert len(audited(run=run, action="archived")) == 6
    assert grooming.run_undo(run, actor="alice") == 6


def test_a_second_rollup_the_same_night_changes_nothing(account: Account, history: dict) -> None:
    now = timezone.now()
    rollups_nightly(now=now, accounts=[account])
    tables = (DailyRollup, DailyReads, ReadEvent, LessonEvent, LessonEventBatch)
    counts = {model: list(model.objects.order_by("pk").values()) for model in tables}
    again = rollups_nightly(now=now, accounts=[account])
    assert (again.days, again.reads_rolled, again.events_pruned) == (0, 0, 0)
    assert {model: list(model.objects.order_by("pk").values()) for model in tables} == counts


def test_rolled_up_reads_keep_their_scope_surface_and_sum(account: Account) -> None:
    now = timezone.now()
    _reads_over(account, now)
    old = ReadEvent.objects.filter(at__lt=horizon_start(now))
    expected = {(day_of(e.at), e.scope, e.surface): 0 for e in old}
    for event in old:
        expected[(day_of(event.at), event.scope, event.surface)] += event.lesson_count
    rollups_nightly(now=now, accounts=[account])
    kept = {(r.day, r.scope, r.surface): r.deliveries for r in DailyReads.objects.filter(account=account)}
    assert kept == expected


def test_a_lessons_history_keeps_every_event_its_sheet_shows(account: Account, history: dict) -> None:
    busy = history["busy"]
    shown = list(LessonEvent.objects.filter(lesson=busy).order_by("-at", "-pk")[: LESSON_HISTORY_SHOWN.value])
    rollups_nightly(now=timezone.now(), accounts=[account])
    left = list(LessonEvent.objects.filter(lesson=busy).order_by("-at", "-pk"))
    assert left[: LESSON_HISTORY_SHOWN.value] == shown
    assert len(left) < 126  # the older ones past the horizon went


def test_recent_events_are_never_pruned_however_many(account: Account) -> None:
    lesson = LessonFactory(account=account)
    for pinned in [True, False] * 40:
        lesson_protect(account=account, lesson=lesson, protected=pinned)
    rollups_nightly(now=timezone.now(), accounts=[account])
    assert LessonEvent.objects.filter(lesson=lesson).count() == 80


def test_the_daily_rollup_counts_each_day_once(account: Account, history: dict) -> None:
    now = timezone.now()
    written = rollups_keep(account, now=now)
    assert written == min(horizon_days(), 90)
    assert rollups_keep(account, now=now) == 0
    yesterday = DailyRollup.objects.get(account=account, day=day_of(now) - timedelta(days=1))
    start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    assert yesterday.reads == deliveries_between(account, since=start, until=start + timedelta(days=1))
    assert (yesterday.active, yesterday.archived, yesterday.purged) == (1, 6, 0)
    older = DailyRollup.objects.get(account=account, day=day_of(now) - timedelta(days=2))
    assert older.active is None  # nobody counted the lessons that night: a gap, not a guess


def test_the_rollup_counts_runs_archived_rows_and_undone_rows_on_their_day(
    account: Account, history: dict
) -> None:
    run: PolicyRun = history["run"]
    grooming.run_undo(run, actor="alice")  # one restore batch holding the six
    figures = day_figures(account, day_of(run.created_at), totals=False)
    assert (figures.runs, figures.runs_interrupted, figures.rows_archived) == (1, 0, 6)
    assert account_health(account, now=timezone.now()).today.rows_undone == 6
    # An undo logged per lesson, as before issue 29, counts beside the batches.
    LessonEvent.objects.create(
        account=account, lesson=history["busy"], action="restored", run=run, at=timezone.now()
    )
    assert day_figures(account, day_of(timezone.now()), totals=False).rows_undone == 7


def test_rollups_of_another_account_are_not_touched(account: Account, other_account: Account) -> None:
    now = timezone.now()
    _reads_over(other_account, now)
    before = ReadEvent.objects.filter(account=other_account).count()
    rollups_nightly(now=now, accounts=[account])
    assert ReadEvent.objects.filter(account=other_account).count() == before
    assert not DailyReads.objects.filter(account=other_account).exists()
    assert not RollupState.objects.filter(account=other_account).exists()


def test_the_nightly_rollup_is_on_the_beat_schedule_after_midnight() -> None:
    entry = app.conf.beat_schedule["nightly-rollups"]
    assert entry["task"] == ROLLUPS_TASK
    assert entry["schedule"].hour == {0} and entry["schedule"].minute == {5}


def test_purged_lessons_are_the_day_befores_total_plus_the_days_tombstones(account: Account) -> None:
    now = timezone.now()
    today = day_of(now)
    DailyRollup.objects.create(account=account, day=today - timedelta(days=1), purged=40, computed_at=now)
    for purged_at in (now, now - timedelta(days=1)):  # yesterday's is already in its rollup's 40
        Tombstone.objects.create(account=account, lesson_id=1, scope="global", key="k", content_hash="x",
                                 archived_at=purged_at, purged_at=purged_at)  # fmt: skip
    assert account_health(account, now=now).today.purged == 41
    DailyRollup.objects.all().delete()
    assert (
        account_health(account, now=now).today.purged == 2
    )  # no rollup to start from: every tombstone counted


def test_the_nightly_task_rolls_every_account_up(account: Account, other_account: Account) -> None:
    for each in (account, other_account):
        Account.objects.filter(pk=each.pk).update(created_at=timezone.now() - timedelta(days=3))
    result = nightly_rollups.delay().get()
    assert result["days"] == 6  # three days each: the day it was created, the day after, yesterday
    assert DailyRollup.objects.filter(account=other_account).count() == 3
