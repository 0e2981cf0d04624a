"""A realistic demo store (DESIGN.md §12): counters shaped like a real store's.

Every lesson has been delivered at least 26 times (a read rides along in every list page), most hundreds of
times; a long tail was never deliberately opened; a few are opened very often; ages span two years.

Rows are generated as plain dicts and written with the fastest bulk path the database offers (COPY on
PostgreSQL, executemany elsewhere), so 100k lessons take seconds.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from itertools import accumulate, islice
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from lore.garden.signatures import band_hashes
from lore.models import Account, Lesson, LessonBand, LessonTag, ReadEvent

REPOS = {
    "acme/app": ["main", "feat/billing-v2", "fix/login-redirect", "chore/deps"],
    "acme/api": ["main", "feat/rate-limits", "release/2.4"],
    "acme/infra": ["main", "ops/pg-upgrade"],
    "globex/web": ["main", "feat/checkout", "fix/ssr-hydration"],
    "initech/ml": ["main", "exp/tokenizer"],
}
PROJECTS = ["onboarding", "platform"]
KINDS = [
    ("lesson", 40),
    ("decision", 14),
    ("gotcha", 14),
    ("preference", 10),
    ("convention", 8),
    ("bus", 10),
    ("todo", 4),
]
HOSTS = [("claude-code", 38), ("codex", 22), ("cursor", 14), ("aw", 12), ("reviewer", 9), ("ci-runner", 5)]
TRIGGERS = [
    ("session-end", 35),
    ("user-correction", 20),
    ("pr-review", 16),
    ("ci-failure", 14),
    ("manual", 10),
    ("compaction", 5),
]
AGENTS = [("claude", 45), ("codex", 25), ("gemini", 10), ("reviewer-bot", 12), ("planner", 8)]
OWNERS = [("personal", 70), ("platform", 18), ("data", 12)]
TAGS = [
    "ci::pr-review-state",
    "lang::python",
    "lang::typescript",
    "lang::go",
    "area::db",
    "area::auth",
    "area::billing",
    "tooling::uv",
    "tooling::pnpm",
    "testing",
    "perf",
    "security",
    "flaky",
    "deploy",
    "docs",
]
TOPICS = [
    ("use-uv", "Use `uv` instead of `pip` for installs; the lockfile is uv.lock."),
    ("reviewer-read-only", "Reviewers must be read-only by tool policy; never grant them write tools."),
    ("migrations-squash", "Do not squash migrations on release branches; downstream forks depend on them."),
    (
        "pg-index-concurrently",
        "Create indexes CONCURRENTLY on tables over 1M rows or the deploy blocks writes.",
    ),
    ("flaky-e2e-retry", "The checkout e2e suite is flaky on CI under load; retry once before bisecting."),
    ("env-secrets", "Secrets come from the vault sidecar, never from .env files committed to the repo."),
    ("pnpm-workspace", "Run pnpm from the workspace root; per-package installs corrupt the lockfile."),
    ("rate-limit-headers", "The API returns Retry-After on 429; honour it instead of exponential backoff."),
    ("ssr-hydration", "Hydration mismatches come from Date.now() in render; compute it in an effect."),
    ("tokenizer-cache", "Warm the tokenizer cache before benchmarks or the first run dominates the median."),
    ("pr-review-state", "CI posts review-state events on every push; only the latest per PR matters."),
    ("billing-idempotency", "Billing webhooks are retried; every handler must be idempotent on event id."),
    ("go-context", "Pass context.Context as the first argument; never store it in a struct."),
    ("auth-session-rotation", "Rotate the session id on privilege change or the old cookie stays valid."),
    ("docs-adr", "Record architecture decisions as ADRs under docs/adr, numbered, never edited after merge."),
    ("test-factories", "Use the factories in tests/factories.py; hand-built fixtures drift from the schema."),
]


def _weighted(rng: random.Random, pairs: list[tuple[str, int]]) -> str:
    values, cumulative = _CUMULATIVE[id(pairs)]
    return rng.choices(values, cum_weights=cumulative)[0]


_CUMULATIVE = {
    id(pairs): ([p[0] for p in pairs], list(accumulate(p[1] for p in pairs)))
    for pairs in (KINDS, HOSTS, TRIGGERS, AGENTS, OWNERS)
}


def _scopes() -> list[tuple[str, str, str]]:
    """(scope, origin_repo, origin_branch) with a realistic spread of weights folded into repetition."""
    out: list[tuple[str, str, str]] = [("global", "", "")] * 3
    out += [(f"project::{p}", "", "") for p in PROJECTS]
    for repo, branches in REPOS.items():
        out += [(f"repo::{repo}", repo, "main")] * 6
        out += [(f"branch::{repo}::{b}", repo, b) for b in branches]
    return out


def _lesson_rows(account: Account, count: int, rng: random.Random, now: datetime) -> Iterator[dict[str, Any]]:
    """Lesson rows as {attname: value}, counters shaped like a real store's."""
    scopes = _scopes()
    for n in range(count):
        scope, repo, branch = rng.choice(scopes)
        slug, sentence = rng.choice(TOPICS)
        # Ages over two years, more of them recent.
        age_days = min(730.0, rng.expovariate(1 / 220))
        created = now - timedelta(days=age_days, seconds=rng.randint(0, 86_399))
        seen = 1 if rng.random() < 0.7 else (rng.randint(2, 3) if rng.random() < 0.85 else rng.randint(4, 20))
        updated = created + (now - created) * rng.random() if seen > 1 else created
        # Delivered: at least 26 (list pages carry everything along), typically in the hundreds; a lesson
        # only days old has barely started collecting, so the store's lowest counts sit at 26 and just above.
        scale = min(1.0, 0.25 + age_days / 120) if age_days >= 3 else max(age_days, 0.01) / 12
        read = 26 + int(rng.lognormvariate(math.log(120 * scale), 0.6))
        if rng.random() < 0.004:
            read = rng.randint(1200, 1600)  # delivered 1,400 times to nobody's benefit
        roll = rng.random()
        opened = 0 if roll < 0.55 else (rng.randint(1, 5) if roll < 0.93 else rng.randint(6, 40))
        if rng.random() < 0.01:
            opened = rng.randint(80, 400)
        opened = min(opened, read)
        last_opened = created + (now - created) * (rng.random() ** 0.4) if opened else None
        last_read = now - timedelta(hours=rng.uniform(0, min(age_days * 24, 24 * 30)))
        # An open is a read: the last delivery is never older than the last open, nor than the lesson.
        last_read = max(last_read, created, last_opened or created)
        tags = rng.sample(TAGS, k=rng.choice([0, 1, 1, 2, 2, 3]))
        kind = _weighted(rng, KINDS)
        if kind == "bus" and rng.random() < 0.7:
            tags = list(dict.fromkeys(["ci::pr-review-state", *tags]))
        archived = now - timedelta(days=rng.uniform(0, 60)) if rng.random() < 0.02 else None
        yield {
            "account_id": account.pk,
            "scope": scope,
            "key": f"{slug}-{n:06d}",
            "content": f"{sentence} (observed in {scope}.)",
            "kind": kind,
            "tags": tags,
            "host": _weighted(rng, HOSTS),
            "trigger": _weighted(rng, TRIGGERS),
            "source_agent": _weighted(rng, AGENTS),
            "origin_repo": repo,
            "origin_branch": branch,
            "origin_pr": str(rng.randint(100, 999)) if repo and rng.random() < 0.35 else "",
            "owner": _weighted(rng, OWNERS),
            "seen_count": seen,
            "read_count": read,
            "last_read_at": last_read,
            "opened_count": opened,
            "last_opened_at": last_opened,
            "created_at": created,
            "updated_at": updated,
            "protected": rng.random() < 0.01,
            "archived_at": archived,
            "archived_by_run_id": None,
            "archive_reason": "archived by hand" if archived else "",
            "superseded_by_id": None,
        }


def _lesson_fields() -> list[Any]:
    """The columns a writer sets: not the id, not what the database generates (Delivered's bin)."""
    return [f for f in Lesson._meta.concrete_fields if not f.primary_key and not f.generated]


def _db_value(field: Any, value: Any) -> Any:
    if field.attname == "tags":
        return json.dumps(value)
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def _insert_postgres(rows: list[dict[str, Any]]) -> list[int]:
    """COPY the rows (ids drawn from the table's sequence first, so tag rows can refer to them)."""
    fields = _lesson_fields()
    table = Lesson._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)", [table, len(rows)]
        )
        ids = [r[0] for r in cursor.fetchall()]
        columns = ", ".join(connection.ops.quote_name(c) for c in ["id", *(f.column for f in fields)])
        with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
            for pk, row in zip(ids, rows, strict=True):
                copy.write_row([pk, *(_db_value(f, row[f.attname]) for f in fields)])
        with cursor.cursor.copy(
            f"COPY {LessonTag._meta.db_table} (lesson_id, account_id, tag) FROM STDIN"
        ) as copy:
            for pk, row in zip(ids, rows, strict=True):
                for tag in row["tags"]:
                    copy.write_row([pk, row["account_id"], tag])
        # The gardener's signatures, kept by every writer (lore.garden.signatures).
        with cursor.cursor.copy(
            f"COPY {LessonBand._meta.db_table} (lesson_id, account_id, hash) FROM STDIN"
        ) as copy:
            for pk, row in zip(ids, rows, strict=True):
                for value in band_hashes(row["scope"], row["key"], row["content"]):
                    copy.write_row([pk, row["account_id"], value])
    return ids


def _insert_generic(rows: list[dict[str, Any]]) -> list[int]:
    """executemany; inside the transaction this connection holds the write lock (SQLite), so the account's
    newest ids after the insert are exactly the rows just written, in order."""
    fields = _lesson_fields()
    table = Lesson._meta.db_table
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {table} ({columns}) VALUES ({', '.join(['%s'] * len(fields))})",
            [[_db_value(f, row[f.attname]) for f in fields] for row in rows],
        )
        cursor.execute(
            f"SELECT id FROM {table} WHERE account_id = %s ORDER BY id DESC LIMIT %s",
            [rows[0]["account_id"], len(rows)],
        )
        ids = [r[0] for r in cursor.fetchall()][::-1]
        cursor.executemany(
            f"INSERT INTO {LessonTag._meta.db_table} (lesson_id, account_id, tag) VALUES (%s, %s, %s)",
            [(pk, row["account_id"], tag) for pk, row in zip(ids, rows, strict=True) for tag in row["tags"]],
        )
        cursor.executemany(
            f"INSERT INTO {LessonBand._meta.db_table} (lesson_id, account_id, hash) VALUES (%s, %s, %s)",
            [
                (pk, row["account_id"], value)
                for pk, row in zip(ids, rows, strict=True)
                for value in band_hashes(row["scope"], row["key"], row["content"])
            ],
        )
    return ids


def demo_store_create(
    account: Account,
    *,
    lessons: int,
    seed: int = 7,
    batch: int = 10_000,
    progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
) -> int:
    """Bulk-insert `lessons` demo lessons (and their tag rows and some read events). Returns how many."""
    rng = random.Random(seed)
    now = now or timezone.now()
    insert = _insert_postgres if connection.vendor == "postgresql" else _insert_generic
    made = 0
    rows = _lesson_rows(account, lessons, rng, now)
    while chunk := list(islice(rows, batch)):
        with transaction.atomic():
            insert(chunk)
        made += len(chunk)
        if progress:
            progress(made)
    scopes = sorted({s for s, _, _ in _scopes()})
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
        batch_size=2000,
    )
    return made
