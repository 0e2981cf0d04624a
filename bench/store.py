"""The bench store: a realistic demo store (`lore.demo`, the `seed_demo` generator) of N lessons.

`demo_store_create` writes lessons and tag rows with COPY on PostgreSQL (a million lessons in about two minutes),
followed here by VACUUM ANALYZE. A store whose lesson count already matches is reused as it is, so a second
`make bench` does not reload.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection

from lore import demo
from lore.accounts import account_create, token_create
from lore.models import (
    Account,
    ApiToken,
    Lesson,
    LessonEvent,
    LessonEventBatch,
    LessonTag,
    Membership,
    ReadEvent,
)
from lore.roles import ALL_SCOPES, Role

ACCOUNT = "demo"
USER = "demo"
ADMIN = "bench-admin"
PASSWORD = "lore-bench"
SEED = 7


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
    account = Account.objects.filter(name=ACCOUNT).first() or account_create(name=ACCOUNT)
    existing = Lesson.objects.filter(account=account).count()
    if existing == lessons:
        return account, False
    disk_check(lessons, log=log)
    started = time.monotonic()
    if existing:
        _store_clear(account)
    # The seed_demo generator; on PostgreSQL it writes lessons and tag rows with COPY.
    demo.demo_store_create(account, lessons=lessons, seed=SEED, progress=_progress(lessons) if log else None)
    store_vacuum()
    if log:
        _say(f"\n  loaded {lessons:,} lessons in {time.monotonic() - started:.1f}s")
    return account, True


# What a loaded store takes on disk per lesson, measured on the 1M store (2,536 MB for the database: lessons, their
# indexes, tag rows, gardener band rows, read events), and the room asked for on top of the estimate: the final
# VACUUM ANALYZE, WAL until a checkpoint, and the archive run and undo the bench makes.
DISK_BYTES_PER_LESSON = 2_600
DISK_HEADROOM = 1.5


class NotEnoughDisk(RuntimeError):
    pass


def disk_estimate_bytes(lessons: int) -> int:
    return int(lessons * DISK_BYTES_PER_LESSON)


def _data_directory() -> str:
    """Where PostgreSQL keeps its files, when the server is on this machine (else the root file system)."""
    with connection.cursor() as cursor:
        try:
            cursor.execute("SHOW data_directory")
            path = str(cursor.fetchone()[0])
        except Exception:  # not a superuser: the setting is hidden
            return "/"
    return path if os.path.isdir(path) else "/"


def disk_check(lessons: int, *, log: bool = True) -> None:
    """Say how much disk loading `lessons` takes, and refuse (NotEnoughDisk) when the file system PostgreSQL
    writes to has less free than that plus headroom."""
    if connection.vendor != "postgresql":
        return
    need = disk_estimate_bytes(lessons)
    where = _data_directory()
    free = shutil.disk_usage(where).free
    gb = 1024**3
    if log:
        _say(
            f"  loading {lessons:,} lessons takes about {need / gb:.1f} GB of disk "
            f"({DISK_BYTES_PER_LESSON:,} bytes per lesson); {free / gb:.1f} GB free at {where}"
        )
    if free < need * DISK_HEADROOM:
        raise NotEnoughDisk(
            f"not enough disk to load {lessons:,} lessons: about {need / gb:.1f} GB needed "
            f"(× {DISK_HEADROOM} headroom = {need * DISK_HEADROOM / gb:.1f} GB), {free / gb:.1f} GB free at {where}"
        )


def _store_clear(account: Account) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "TRUNCATE lore_lessonevent, lore_lessoneventbatch, lore_lessoncountchange, lore_lessontag, lore_readevent, lore_lessonband, lore_supersedesclaim, "
                "lore_lessonvaluecount, "
                "lore_findingmember, lore_finding, lore_lessonread, lore_lesson"
            )
    else:
        Lesson.objects.filter(account=account).delete()
        ReadEvent.objects.filter(account=account).delete()


def _progress(lessons: int) -> Callable[[int], None]:
    def say(made: int) -> None:
        print(f"\r  {made:,}/{lessons:,} lessons", end="", file=sys.stderr, flush=True)

    return say


def store_vacuum() -> None:
    """VACUUM ANALYZE the lesson tables (fresh statistics, and a visibility map for index-only scans), and the
    tables the folds empty and refill: on this cluster autovacuum is off, and their dead rows (the reads buffer's
    above all) would otherwise pile up from run to run, read by every page that shows pending reads."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        # The scenarios' web requests leave their statement timeout on this connection (a session setting).
        cursor.execute("SET statement_timeout = 0")
        for table in (
            "lore_lesson",
            "lore_lessontag",
            "lore_lessonevent",
            "lore_lessoneventbatch",
            "lore_readevent",
            "lore_lessonband",
            "lore_lessonread",
            "lore_lessonvaluecount",
            "lore_lessonpagecount",
            "lore_lessoncountchange",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")


def identities_ensure(account: Account) -> Identities:
    """The demo login (a member of the account), a superuser for the admin, and a fresh API token."""
    User = get_user_model()
    user = User.objects.filter(username=USER).first() or User.objects.create_user(
        username=USER, password=PASSWORD
    )
    Membership.objects.get_or_create(user=user, account=account, defaults={"role": Role.ADMIN})
    admin = User.objects.filter(username=ADMIN).first() or User.objects.create_superuser(
        username=ADMIN, password=PASSWORD, email=""
    )
    ApiToken.objects.filter(account=account, name="bench").delete()
    _, raw = token_create(account=account, name="bench", created_by=user, scopes=ALL_SCOPES)
    return Identities(account=account, user=user, admin=admin, raw_token=raw)


def bench_events_clear(account: Account, since: datetime) -> None:
    """Drop the audit rows the bench's own archive run and undo wrote, so a reused store stays the same size."""
    LessonEvent.objects.filter(account=account, at__gte=since).delete()
    LessonEventBatch.objects.filter(account=account, at__gte=since).delete()


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
