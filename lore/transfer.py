"""Export and import of a whole store as NDJSON: every field, counters and timestamps kept."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from lore.activity import activity_record
from lore.garden.signatures import signatures_sync
from lore.inputs import (
    UNSTORABLE,
    FieldError,
    LessonInput,
    dimension_value,
    parse_count,
    parse_flag,
    parse_timestamp,
)
from lore.limits import IMPORT_ANALYZE_MIN, IMPORT_ERRORS_MAX, IMPORT_LINE_MAX
from lore.limits import IMPORT_BATCH as LIMIT_IMPORT_BATCH
from lore.models import Account, Activity, Lesson, LessonEvent, LessonTag, Tombstone
from lore.reads import lessons_with_pending, pending_apply
from lore.services import events_for, tags_sync
from lore.vacuum import lessons_vacuum_soon

EXPORT_FIELDS = (
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
    "archive_reason",
)
EXPORT_COMPLETE = "complete"  # the trailer's {"export": …}
_TIMESTAMPS = ("last_read_at", "last_opened_at", "created_at", "updated_at", "archived_at")
IMPORT_BATCH = LIMIT_IMPORT_BATCH.default
_READ_CHUNK = 64 * 1024
# Characters JSON leaves raw that str.splitlines() (and some NDJSON readers) treat as line breaks.
_LINE_BREAKS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(UTC).isoformat(timespec="microseconds") if value else None


def lesson_as_dict(lesson: Lesson) -> dict[str, object]:
    row = {name: getattr(lesson, name) for name in EXPORT_FIELDS}
    for name in _TIMESTAMPS:
        row[name] = _iso(row[name])  # type: ignore[arg-type]
    return row


def lesson_as_line(lesson: Lesson) -> str:
    return _as_line(lesson_as_dict(lesson))


def _as_line(row: dict[str, object]) -> str:
    text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
    for char, escaped in _LINE_BREAKS.items():
        if char in text:
            text = text.replace(char, escaped)
    return text + "\n"


def tombstone_as_line(tombstone: Tombstone) -> str:
    """A purged lesson's line: `"tombstone": true` and what stays of it (an import skips these lines)."""
    return _as_line(
        {
            "tombstone": True,
            "scope": tombstone.scope,
            "key": tombstone.key,
            "content_hash": tombstone.content_hash,
            "archived_at": _iso(tombstone.archived_at),
            "purged_at": _iso(tombstone.purged_at),
            "purge_run": tombstone.purge_run_id,
        }
    )


def export_trailer(*, lessons: int, tombstones: int) -> str:
    """The last line of every complete export: an export without it stopped early (an import skips it)."""
    return _as_line({"export": EXPORT_COMPLETE, "lessons": lessons, "tombstones": tombstones})


def export_lines(account: Account, *, chunk: int = 2000, tombstones: bool = False) -> Iterator[str]:
    """One JSON line per lesson (archived ones included), in id order, streamed in keyset chunks; then, with
    `tombstones`, one line per purged lesson; last, the trailer counting them (see `export_trailer`)."""
    counts = {"lessons": 0, "tombstones": 0}
    last_pk = 0
    while True:
        rows = list(
            lessons_with_pending(Lesson.objects.filter(account=account, pk__gt=last_pk).order_by("pk"))[
                :chunk
            ]
        )
        if not rows:
            break
        pending_apply(rows)  # exact counters: buffered reads included (lore.reads)
        for lesson in rows:
            yield lesson_as_line(lesson)
        counts["lessons"] += len(rows)
        last_pk = rows[-1].pk
    last_pk = 0
    while tombstones:
        tombs = list(Tombstone.objects.filter(account=account, pk__gt=last_pk).order_by("pk")[:chunk])
        if not tombs:
            break
        for tombstone in tombs:
            yield tombstone_as_line(tombstone)
        counts["tombstones"] += len(tombs)
        last_pk = tombs[-1].pk
    yield export_trailer(**counts)


@dataclass
class ImportReport:
    """What an import did. `failed` lists the first IMPORT_ERRORS_MAX failures; `failed_total` counts them all."""

    created: int = 0
    updated: int = 0
    failed: list[dict[str, object]] = field(default_factory=list)
    failed_total: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed_total

    def fail(self, line: int, field: str, message: str) -> None:
        self.failed_total += 1
        if len(self.failed) < IMPORT_ERRORS_MAX.value:
            self.failed.append({"line": line, "field": field, "message": message})

    def as_dict(self) -> dict[str, object]:
        return {
            "created": self.created,
            "updated": self.updated,
            "failed": self.failed,
            "failed_total": self.failed_total,
        }


class LineTooLong:
    """Stands for an NDJSON line longer than IMPORT_LINE_MAX: it was skipped as it streamed, never buffered."""


TOO_LONG = LineTooLong()


def ndjson_lines(read: Callable[[int], bytes]) -> Iterator[tuple[int, bytes | LineTooLong]]:
    """(line number, bytes) of every non-blank line of a stream, read in chunks: memory stays bounded by
    IMPORT_LINE_MAX whatever the stream holds (a line over it yields TOO_LONG; runs of blank lines cost nothing)."""
    max_line = IMPORT_LINE_MAX.value
    number = 0  # lines completed so far
    pending: list[bytes] = []
    pending_size = 0
    too_long = False
    while True:
        chunk = read(_READ_CHUNK)
        if not chunk:
            break
        if not pending and not too_long and not chunk.strip():
            number += chunk.count(b"\n")  # blank lines only
            continue
        parts = chunk.split(b"\n")
        for index, part in enumerate(parts):
            last = index == len(parts) - 1
            if not too_long:
                if pending_size + len(part) > max_line:
                    too_long, pending, pending_size = True, [], 0
                else:
                    pending.append(part)
                    pending_size += len(part)
            if last:
                break  # the line goes on in the next chunk
            number += 1
            if too_long:
                yield number, TOO_LONG
            elif pending_size and b"".join(pending).strip():
                yield number, b"".join(pending)
            pending, pending_size, too_long = [], 0, False
    if too_long:
        yield number + 1, TOO_LONG
    elif pending and b"".join(pending).strip():
        yield number + 1, b"".join(pending)


def _metadata(data: dict[str, object], name: str) -> str:
    """A free-text field no reader filters on exactly: NUL and lone surrogates, which no database stores, are
    dropped rather than failing the line."""
    raw = data.get(name) or ""
    if not isinstance(raw, str):
        raise FieldError(name, "must be a string")
    return UNSTORABLE.sub("", raw)


def _lesson_from_line(account: Account, raw: str | bytes | LineTooLong) -> Lesson:
    if isinstance(raw, LineTooLong):
        raise FieldError("line", f"is too long: {IMPORT_LINE_MAX.describe()}")
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise FieldError("line", f"not valid UTF-8 (byte {exc.start + 1})") from exc
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise FieldError("line", f"not valid JSON ({exc.msg} at column {exc.colno})") from exc
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise FieldError("line", f"not a usable JSON value ({str(exc)[:120]})") from exc
    except RecursionError as exc:
        raise FieldError("line", "nested too deeply") from exc
    if not isinstance(data, dict):
        raise FieldError("line", "must be a JSON object")
    unknown = sorted(set(data) - set(EXPORT_FIELDS))
    if unknown:
        raise FieldError(unknown[0], "is not a lesson field")
    base = LessonInput.from_data(data)
    created_at = parse_timestamp(data, "created_at") or timezone.now()
    archive_reason = _metadata(data, "archive_reason")
    if len(archive_reason) > 200:
        raise FieldError("archive_reason", "must be a string of at most 200 characters")
    owner = _metadata(data, "owner")
    lesson = Lesson(
        account=account,
        scope=base.scope,
        key=base.key,
        content=base.content,
        tags=base.tags,
        **base.dims,
        owner=dimension_value("owner", owner) if owner else "personal",
        seen_count=max(1, parse_count(data, "seen_count", 1)),
        read_count=parse_count(data, "read_count"),
        opened_count=parse_count(data, "opened_count"),
        last_read_at=parse_timestamp(data, "last_read_at"),
        last_opened_at=parse_timestamp(data, "last_opened_at"),
        created_at=created_at,
        updated_at=parse_timestamp(data, "updated_at") or created_at,
        protected=parse_flag(data, "protected"),
        archived_at=parse_timestamp(data, "archived_at"),
        archive_reason=archive_reason,
    )
    if lesson.opened_count > lesson.read_count:
        raise FieldError("opened_count", "cannot exceed read_count (opens are a subset of reads)")
    return lesson


def _is_tombstone(text: str | bytes) -> bool:
    """An exported tombstone line (a record of a purge) or the export's trailer: nothing to import."""
    return _is_marker(text, "tombstone", True) or _is_marker(text, "export", EXPORT_COMPLETE)


def _is_marker(text: str | bytes, name: str, value: object) -> bool:
    head = f'{{"{name}":'
    if not (text.startswith(head) if isinstance(text, str) else text.startswith(head.encode())):
        return False
    try:
        return bool(json.loads(text).get(name) == value)
    except (ValueError, RecursionError, AttributeError):
        return False


def import_lines(
    account: Account, lines: Iterable[str | bytes], *, actor: str = "", progress: object = None
) -> ImportReport:
    """Upsert every valid line on (scope, key), keeping timestamps and counters. Bad lines are reported by
    number and skipped; good lines are committed in batches, so an interrupted import can simply be re-run."""
    return import_numbered(account, enumerate(lines, start=1), actor=actor, progress=progress)


def import_stream(
    account: Account, read: Callable[[int], bytes], *, actor: str = "", progress: object = None
) -> ImportReport:
    """`import_lines` of a byte stream read in chunks (a request body, a file): memory bounded whatever its size."""
    return import_numbered(account, ndjson_lines(read), actor=actor, progress=progress)


def import_numbered(
    account: Account,
    lines: Iterable[tuple[int, str | bytes | LineTooLong]],
    *,
    actor: str = "",
    progress: object = None,
) -> ImportReport:
    report = ImportReport()
    batch: list[tuple[int, Lesson]] = []
    for number, raw in lines:
        if isinstance(raw, str | bytes):
            raw = raw.strip()
            if not raw or _is_tombstone(raw):
                continue
        try:
            batch.append((number, _lesson_from_line(account, raw)))
        except FieldError as exc:
            report.fail(number, exc.field, exc.message)
        except (ValueError, TypeError, RecursionError) as exc:  # whatever else a hostile line provokes
            report.fail(number, "line", f"cannot be read ({type(exc).__name__})")
        if len(batch) >= LIMIT_IMPORT_BATCH.value:
            _import_batch_or_lines(account, batch, report, actor)
            batch = []
            if callable(progress):
                progress(report)
    if batch:
        _import_batch_or_lines(account, batch, report, actor)
    if report.created + report.updated >= IMPORT_ANALYZE_MIN.value:
        analyze_lessons()  # now, and the tags too: the VACUUM queued next runs later
    lessons_vacuum_soon(report.created + report.updated)
    if report.created or report.updated:
        activity_record(
            account=account,
            action=Activity.Action.LESSONS_IMPORTED,
            actor=actor,
            subject=f"{report.created + report.updated:,} lessons",
            detail=f"{report.created:,} new, {report.updated:,} updated, {report.failed_total:,} lines refused",
        )
    return report


def analyze_lessons() -> None:
    """Fresh planner statistics after a large write (PostgreSQL; a cluster with autovacuum off never gets them)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Lesson._meta.db_table}, {LessonTag._meta.db_table}")


def _import_batch_or_lines(
    account: Account, batch: list[tuple[int, Lesson]], report: ImportReport, actor: str
) -> None:
    """A batch in one transaction; if the database refuses it, line by line, so one bad line loses only itself."""
    try:
        _import_batch(account, [lesson for _, lesson in batch], report, actor)
        return
    except DatabaseError:
        pass
    for number, lesson in batch:
        lesson.pk = None
        try:
            _import_batch(account, [lesson], report, actor)
        except DatabaseError as exc:
            message = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
            report.fail(number, "line", f"refused by the database: {message}")


UPDATED_FIELDS = [f for f in EXPORT_FIELDS if f not in ("scope", "key")] + ["archived_by_run"]


@transaction.atomic
def _import_batch(account: Account, batch: list[Lesson], report: ImportReport, actor: str) -> None:
    by_address = {(lesson.scope, lesson.key): lesson for lesson in batch}  # a later line wins
    existing = dict(
        ((scope, key), pk)
        for scope, key, pk in Lesson.objects.filter(
            account=account, scope__in={s for s, _ in by_address}, key__in={k for _, k in by_address}
        ).values_list("scope", "key", "pk")
    )
    to_create = [lesson for address, lesson in by_address.items() if address not in existing]
    to_update = []
    for address, lesson in by_address.items():
        if address in existing:
            lesson.pk, lesson.archived_by_run = existing[address], None
            to_update.append(lesson)
    Lesson.objects.bulk_create(to_create, batch_size=IMPORT_BATCH)
    if to_update:
        # One INSERT … ON CONFLICT DO UPDATE for the whole batch: bulk_update's CASE per field and row took
        # seconds per batch, which made re-running an interrupted import slow.
        for lesson in to_update:
            lesson.pk = None
        Lesson.objects.bulk_create(
            to_update,
            update_conflicts=True,
            unique_fields=["account", "scope", "key"],
            update_fields=UPDATED_FIELDS,
            batch_size=IMPORT_BATCH,
        )
        for lesson in to_update:
            lesson.pk = existing[(lesson.scope, lesson.key)]
    if not all(lesson.pk for lesson in to_create):  # backends without RETURNING: look the new ids up
        ids = dict(
            ((s, k), pk)
            for s, k, pk in Lesson.objects.filter(
                account=account,
                scope__in={lsn.scope for lsn in to_create},
                key__in={lsn.key for lsn in to_create},
            ).values_list("scope", "key", "pk")
        )
        for lesson in to_create:
            lesson.pk = ids[(lesson.scope, lesson.key)]
    tags_sync(account, {lesson.pk: lesson.tags for lesson in by_address.values()})
    signatures_sync(account, list(by_address.values()))
    events_for(
        Lesson.objects.filter(account=account, pk__in=[lesson.pk for lesson in by_address.values()]),
        action=LessonEvent.Action.IMPORTED,
        actor=actor,
        run_id=None,
        detail="",
        now=timezone.now(),
    )
    report.created += len(to_create)
    report.updated += len(to_update)
