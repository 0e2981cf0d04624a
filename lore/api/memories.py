"""`/api/v1/memories`: write, list, search, fetch, open, protect, restore, export, import (DESIGN.md §10).

Handlers are thin: validate (schemas + the registry) → a selector or a service → serialise. The counter effects
of DESIGN.md §3 happen here and nowhere else in the API: a list or search page delivers every lesson on it,
GET /memories/{id} delivers one, POST /memories/read is the deliberate open.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.http import HttpRequest, JsonResponse, StreamingHttpResponse
from django.utils import timezone
from ninja import Body, Path, Query, Router, Status

from lore.api.auth import account_of, actor_of, needs, surface_of, token_of
from lore.api.errors import ApiError, error_responses, not_found
from lore.api.schemas import (
    ID_MAX,
    AddressIn,
    ImportOut,
    LessonDetailOut,
    LessonIn,
    ListIn,
    ListQuery,
    PageOut,
    ProtectIn,
    SearchIn,
)
from lore.garden.selectors import lesson_superseded_by, lessons_superseded_by_mark
from lore.inputs import LessonInput
from lore.limits import IMPORT_BODY_MAX
from lore.models import Account, Lesson
from lore.purge import purged_message, tombstone_latest
from lore.reads import lesson_exact, lessons_with_exact_decay, reads_settle_for, rule_fields
from lore.roles import Scope
from lore.rules.codec import listing_parse_strict
from lore.scopes import parse_address, parse_scope, validate_key
from lore.selectors import lessons_filtered, lessons_page, sort_field
from lore.services import lesson_open, lesson_protect, lesson_restore, lesson_write, lessons_deliver
from lore.transfer import export_lines, import_stream

router = Router(tags=["memories"])
NDJSON = "application/x-ndjson"


# ---------------------------------------------------------------- helpers


def no_nul(value: str, field: str) -> str:
    """PostgreSQL cannot store or compare NUL characters: refuse them as bad input."""
    if "\x00" in value:
        raise ApiError(422, f"{field} contains a NUL character", field=field)
    return value


def exact(lesson: Lesson) -> Lesson:
    """The lesson as answered: its counters with its pending reads (lore.reads)."""
    return lesson_exact(Lesson.objects.filter(pk=lesson.pk)) or lesson


def lessons_deliver_page(request: HttpRequest, account: Account, rows: Sequence[Lesson], scope: str) -> None:
    """Delivered +1 for every lesson handed over (one UPDATE), reflected in the rows we answer with."""
    now = timezone.now()
    lessons_deliver(
        account=account,
        lesson_ids=[row.pk for row in rows],
        scope=scope,
        surface=surface_of(request),
        now=now,
    )
    for row in rows:
        row.read_count += 1
        row.last_read_at = now


def lessons_list_page(
    request: HttpRequest,
    data: Mapping[str, Any],
    *,
    text: str = "",
    rule_data: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One page of the list. Its rule, search and sort are read by the codec (its first problem is the 422) from
    `rule_data` (the query string, repeats and all) or `data`."""
    account = account_of(request)
    source = rule_data if rule_data is not None else data
    listing = listing_parse_strict({**source, "q": no_nul(text, "query")} if text else source)
    rule = listing.rule
    reads_settle_for(
        account, rule_fields(rule, sort_field(listing.sort))
    )  # a rule or an order on counters reads them exact
    qs = lessons_filtered(account, rule, q=listing.q, archived=bool(data.get("archived")))
    now = timezone.now()
    page = lessons_page(
        lessons_with_exact_decay(qs, now),  # shown; the Coldest order sorts on the stored one
        sort=listing.sort,
        cursor=data.get("cursor"),
        limit=data["limit"],
        now=now,
        current_first=True,  # lessons proposed for retirement after current lore (lore.garden.retiring)
    )
    lessons_superseded_by_mark(page.rows)  # archived rows say what replaced them: one query, not one per row
    lessons_deliver_page(request, account, page.rows, rule.scope)
    return {"items": page.rows, "next_cursor": page.next_cursor}


def archived_message(lesson: Lesson) -> str:
    """Why an archived lesson is not opened, naming the lesson that replaced it when the gardener retired it."""
    replaced = lesson_superseded_by(lesson)
    if replaced is None:
        return f"{lesson.address} is archived: restore it first"
    return (
        f"{lesson.address} is archived, superseded by {replaced['address']}: read that one, or restore this"
    )


def lesson_at(account: Account, body: AddressIn) -> Lesson:
    """The lesson named by `address` or `scope`+`key`; 404 when this account has none there."""
    if body.address:
        address = parse_address(body.address)
        scope, key = address.scope, address.key
    elif body.scope and body.key:
        scope, key = parse_scope(body.scope), validate_key(body.key)
    else:
        raise ApiError(422, "name the lesson: address (SCOPE::KEY) or scope and key", field="address")
    lesson = Lesson.objects.filter(account=account, scope=scope, key=key).first()
    if lesson is None:
        tombstone = tombstone_latest(account, scope, key)
        if tombstone is not None:
            raise ApiError(410, purged_message(tombstone), field="address", code="purged")
        raise ApiError(404, f"no lesson at {scope}::{key}")
    return lesson


# ---------------------------------------------------------------- endpoints


@router.post(
    "",
    response={200: LessonDetailOut, 201: LessonDetailOut, **error_responses(400)},
    summary="Write a lesson",
    auth=needs(Scope.WRITE),
)
def memory_write(request: HttpRequest, payload: LessonIn) -> Status[Lesson]:  # type: ignore[valid-type]
    """Write (upsert on scope+key). A rewrite is a recurrence (Recurrence +1) and restores an archived key."""
    data = LessonInput.from_data(payload.dict(exclude_none=True))  # type: ignore[attr-defined]
    no_nul(data.content, "content")
    token = token_of(request)
    lesson, created = lesson_write(
        account=token.account, data=data, owner=token.owner, actor=actor_of(request)
    )
    answered = exact(lesson)
    answered.proposed_retirement = None  # type: ignore[attr-defined]  # a write leaves any finding of it stale
    return Status(201 if created else 200, answered)


@router.get(
    "",
    response={200: PageOut, **error_responses()},
    summary="List lessons (delivers the page)",
    auth=needs(Scope.READ),
)
def memory_list(request: HttpRequest, filters: Query[ListQuery]) -> dict[str, Any]:  # type: ignore[valid-type]
    """One keyset page. Every lesson on it is delivered (Delivered +1); `sort=opened_count` for most chosen."""
    unknown = sorted(set(request.GET) - set(ListQuery.model_fields))
    if unknown:  # a misspelt filter must not silently widen the list
        raise ApiError(422, f"{unknown[0]}: not a known filter", field=unknown[0])
    return lessons_list_page(request, filters.dict(), rule_data=request.GET)  # type: ignore[attr-defined]


@router.post(
    "/list",
    response={200: PageOut, **error_responses(400)},
    summary="List lessons (JSON filters)",
    auth=needs(Scope.READ),
)
def memory_list_post(request: HttpRequest, payload: ListIn | None = Body(None)) -> dict[str, Any]:  # type: ignore[valid-type]
    """The same as GET /memories with the filters in a JSON body (no body: the first page of everything)."""
    return lessons_list_page(request, (payload or ListIn()).dict())  # type: ignore[attr-defined,operator]


@router.post(
    "/search",
    response={200: PageOut, **error_responses(400)},
    summary="Search lessons",
    auth=needs(Scope.READ),
)
def memory_search(request: HttpRequest, payload: SearchIn) -> dict[str, Any]:  # type: ignore[valid-type]
    """Every word of `query` in the key or the content, with the list filters. Delivers the page."""
    data = payload.dict()  # type: ignore[attr-defined]
    return lessons_list_page(request, data, text=data.pop("query"))


@router.post(
    "/read",
    response={200: LessonDetailOut, **error_responses(400, 404, 409)},
    summary="Open a lesson",
    auth=needs(Scope.READ),
)
def memory_read(request: HttpRequest, payload: AddressIn) -> Lesson:
    """The deliberate agent open (memory.read, lorekit read/show): Delivered +1, Chosen +1, Last agent open now."""
    account = account_of(request)
    lesson = lesson_at(account, payload)
    if lesson.is_archived:
        raise ApiError(409, archived_message(lesson), code="archived")
    return lesson_open(account=account, lesson=lesson, surface=surface_of(request))


@router.post(
    "/protect",
    response={200: LessonDetailOut, **error_responses(400, 404)},
    summary="Pin or unpin",
    auth=needs(Scope.WRITE),
)
def memory_protect(request: HttpRequest, payload: ProtectIn) -> Lesson:
    """A protected lesson is skipped by every policy and every manual run until unpinned."""
    account = account_of(request)
    lesson = lesson_at(account, payload)
    return exact(
        lesson_protect(account=account, lesson=lesson, protected=payload.protected, actor=actor_of(request))
    )


@router.post(
    "/restore",
    response={200: LessonDetailOut, **error_responses(400, 404, 410)},
    summary="Restore a lesson",
    auth=needs(Scope.WRITE),
)
def memory_restore(request: HttpRequest, payload: AddressIn) -> Lesson:
    """Bring an archived lesson back (a no-op for an active one). A purged lesson answers 410 `purged`, saying
    when: only its tombstone remains."""
    account = account_of(request)
    return exact(lesson_restore(account=account, lesson=lesson_at(account, payload), actor=actor_of(request)))


@router.get(
    "/export",
    response={200: None, **error_responses()},
    summary="Export every lesson as NDJSON",
    openapi_extra={
        "responses": {
            "200": {
                "description": "One JSON object per line, every field incl. counters and timestamps",
                "content": {NDJSON: {"schema": {"type": "string"}}},
            }
        }
    },
    auth=needs(Scope.READ),
)
def memory_export(request: HttpRequest, tombstones: bool = False) -> StreamingHttpResponse:
    """Streamed: one line per lesson (archived ones too), in id order. Reads nothing into counters. With
    `tombstones=true`, then one `{"tombstone": true, scope, key, content_hash, archived_at, purged_at,
    purge_run}` line per purged lesson (an import skips those lines)."""
    lines = export_lines(account_of(request), tombstones=tombstones)
    response = StreamingHttpResponse(lines, content_type=NDJSON)
    response["Content-Disposition"] = 'attachment; filename="lessons.ndjson"'
    return response


@router.post(
    "/import",
    response={200: ImportOut, **error_responses(400)},
    summary="Import NDJSON (upsert, keeps counters and timestamps)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {NDJSON: {"schema": {"type": "string", "description": "One lesson per line"}}},
        }
    },
    auth=needs(Scope.WRITE),
)
def memory_import(request: HttpRequest) -> dict[str, Any] | JsonResponse:
    """Upsert on scope+key, streamed line by line. Bad lines are reported by number and skipped; when no line
    could be imported the answer is a 422 whose `report` names every bad line."""
    length = request.headers.get("Content-Length", "").strip()
    if not length.strip("0"):
        raise ApiError(422, "the body is empty: send NDJSON, one lesson per line", field="body")
    if not length.isdigit() or int(length) > IMPORT_BODY_MAX.value:
        raise IMPORT_BODY_MAX.error("body")
    report = import_stream(account_of(request), request.read, actor=actor_of(request))
    if report.failed and not (report.created or report.updated):
        first = report.failed[0]
        message = f"nothing imported: line {first['line']}: {first['field']}: {first['message']}"
        error = {"code": "invalid", "message": message, "field": first["field"]}
        return JsonResponse({"error": error, "report": report.as_dict()}, status=422)
    return report.as_dict()


@router.get(
    "/{lesson_id}",
    response={200: LessonDetailOut, **error_responses(404)},
    summary="Fetch one lesson",
    auth=needs(Scope.READ),
)
def memory_get(request: HttpRequest, lesson_id: int = Path(..., ge=1, le=ID_MAX)) -> Lesson:
    """A single fetch: Delivered +1 (not Chosen — that is POST /memories/read)."""
    account = account_of(request)
    lesson = lesson_exact(Lesson.objects.filter(account=account, pk=lesson_id))
    if lesson is None:
        raise not_found("lesson")
    lessons_deliver_page(request, account, [lesson], lesson.scope)
    return lesson
