"""The bench store: a realistic demo store (`lore.demo`, the `seed_demo` generator) of N lessons.

On PostgreSQL lessons and tag rows go in with COPY (a million lessons in about a minute), followed by VACUUM
ANALYZE; elsewhere (the smoke test on SQLite) through `demo_store_create`. A store whose lesson count already
matches is reused as it is, so a second `make bench` does not reload.
"""

from __future__ import annotations

import json
import random
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.utils import timezone

from lore import demo
from lore.accounts import token_create
from lore.models import Account, ApiToken, Lesson, LessonEvent, LessonTag, Membership, ReadEvent

ACCOUNT = "demo"
USER = "demo"
ADMIN = "bench-admin"
PASSWORD = "lore-bench"
SEED = 7
CHUNK = 50_000

LESSON_COLUMNS = (
    "id",
    "account_id",
    "scope",
    "key",
    "content",
    "kind",
    "tags",
    "host",
    "trigger",
    "source_agent",
    "origin_repo",
    "origin_branch",
    "origin_pr",
    "owner",
    "seen_count",
    "read_count",
    "last_read_at",
    "opened_count",
    "last_opened_at",
    "created_at",
    "updated_at",
    "protected",
    "archived_at",
    "archived_by_run_id",
    "archive_reason",
)


@dataclass
class Identities:
    account: Account
    user: AbstractBaseUser
    admin: AbstractBaseUser
    raw_token: str


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def store_ensure(lessons: int, *, log: bool = True) -> tuple[Account, bool]:
    """The demo account holding exactly `lessons` lessons: reused when the count matches, else (re)loaded.

    Returns (account, loaded).
    """
    account, _ = Account.objects.get_or_create(name=ACCOUNT)
    existing = Lesson.objects.filter(account=account).count()
    if existing == lessons:
        return account, False
    started = time.monotonic()
    if existing:
        _store_clear(account)
    if connection.vendor == "postgresql":
        _store_copy(account, lessons, log=log)
    else:
        demo.demo_store_create(account, lessons=lessons, seed=SEED)
    if log:
        _say(f"  loaded {lessons:,} lessons in {time.monotonic() - started:.1f}s")
    return account, True


def _store_clear(account: Account) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE lore_lessonevent, lore_lessontag, lore_readevent, lore_lesson")
    else:
        Lesson.objects.filter(account=account).delete()
        ReadEvent.objects.filter(account=account).delete()


def _lesson_row(pk: int, lesson: Lesson) -> tuple[object, ...]:
    values = {f: getattr(lesson, f) for f in LESSON_COLUMNS if f != "id"}
    values["tags"] = json.dumps(lesson.tags)
    return (pk, *values.values())


def _store_copy(account: Account, lessons: int, *, log: bool) -> None:
    """COPY the generator's lessons and their tag rows, in chunks, then the read events; then VACUUM ANALYZE."""
    rng = random.Random(SEED)
    now = timezone.now()
    rows = demo._lesson_rows(account, lessons, rng, now)
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(max(id), 0) FROM lore_lesson")
        next_pk = cursor.fetchone()[0] + 1
    made = 0
    lesson_copy = f"COPY lore_lesson ({', '.join(LESSON_COLUMNS)}) FROM STDIN"
    with transaction.atomic(), connection.cursor() as cursor:
        while made < lessons:
            tag_rows: list[tuple[int, int, str]] = []
            with cursor.copy(lesson_copy) as copy:
                for lesson in _take(rows, min(CHUNK, lessons - made)):
                    copy.write_row(_lesson_row(next_pk, lesson))
                    tag_rows += [(next_pk, account.pk, tag) for tag in lesson.tags]
                    next_pk += 1
                    made += 1
            with cursor.copy("COPY lore_lessontag (lesson_id, account_id, tag) FROM STDIN") as copy:
                for tag_row in tag_rows:
                    copy.write_row(tag_row)
            if log:
                print(f"\r  {made:,}/{lessons:,} lessons", end="", file=sys.stderr, flush=True)
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('lore_lesson', 'id'), (SELECT max(id) FROM lore_lesson))"
        )
    if log:
        print(file=sys.stderr)
    _read_events_create(account, lessons, rng, now)
    store_vacuum()


def _take(rows, count: int):  # noqa: ANN001, ANN202
    for _ in range(count):
        yield next(rows)


def _read_events_create(account: Account, lessons: int, rng: random.Random, now: datetime) -> None:
    """The same spread of read events `demo_store_create` makes (the Read stat card sums them)."""
    scopes = sorted({s for s, _, _ in demo._scopes()})
    ReadEvent.objects.bulk_create(
        [
            ReadEvent(
                account=account,
                scope=rng.choice(scopes),
                surface=rng.choice(["api", "cli", "mcp", "mcp"]),
                lesson_count=rng.choice([1, 1, 20, 20, 50]),
                at=now - timedelta(hours=rng.uniform(0, 24 * 120)),
            )
            for _ in range(min(5000, max(200, lessons // 10)))
        ],
        batch_size=5000,
    )


def store_vacuum() -> None:
    """VACUUM ANALYZE the lesson tables (fresh statistics, and a visibility map for index-only scans)."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for table in ("lore_lesson", "lore_lessontag", "lore_lessonevent", "lore_readevent"):
            cursor.execute(f"VACUUM ANALYZE {table}")


def identities_ensure(account: Account) -> Identities:
    """The demo login (a member of the account), a superuser for the admin, and a fresh API token."""
    User = get_user_model()
    user = User.objects.filter(username=USER).first() or User.objects.create_user(
        username=USER, password=PASSWORD
    )
    Membership.objects.get_or_create(user=user, account=account)
    admin = User.objects.filter(username=ADMIN).first() or User.objects.create_superuser(
        username=ADMIN, password=PASSWORD, email=""
    )
    ApiToken.objects.filter(account=account, name="bench").delete()
    _, raw = token_create(account=account, name="bench", created_by=user)
    return Identities(account=account, user=user, admin=admin, raw_token=raw)


def bench_events_clear(account: Account, since: datetime) -> None:
    """Drop the audit rows the bench's own archive run and undo wrote, so a reused store stays the same size."""
    LessonEvent.objects.filter(account=account, at__gte=since).delete()


def store_shape(account: Account) -> dict[str, int]:
    """Counts that describe the store, for the report."""
    active = Lesson.objects.filter(account=account, archived_at__isnull=True)
    return {
        "lessons": Lesson.objects.filter(account=account).count(),
        "active": active.count(),
        "protected": active.filter(protected=True).count(),
        "tag_rows": LessonTag.objects.filter(account=account).count(),
        "read_events": ReadEvent.objects.filter(account=account).count(),
    }
