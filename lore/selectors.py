"""Reads of the store (no side effects). The Explorer and the API list through here; the rows of a page carry
exact counters (lore.reads: pending reads included)."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.postgres.search import SearchQuery, SearchVector, SearchVectorExact
from django.db import connection
from django.db.models import Count, Q, QuerySet
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from lore.candidates import lessons_matching
from lore.conditions import Dimension
from lore.decay import ANNOTATION, lessons_with_decay
from lore.garden.retiring import lessons_current, lessons_retiring, proposed_retirements_mark
from lore.limits import LIST_PAGE_MAX, SEARCH_SHORT_WORDS_MAX, SEARCH_WORDS_MAX
from lore.models import Account, Lesson, LessonTag
from lore.reads import lessons_with_pending, pending_apply
from lore.rules.rule import Rule
from lore.search_plan import is_rare, rare_match_q

KEYSETS = {
    # sort name → (field of the keyset, label); every one is read newest/highest first, ties by id.
    # "archived" is for archived lessons only, where archived_at is never null.
    "newest": ("created_at", "Newest"),
    "opened_count": ("opened_count", "Most chosen"),
    "updated": ("updated_at", "Recently updated"),
    "archived": ("archived_at", "Recently archived"),
    # The one order read lowest first (ties by id, lowest first), on a score computed as of the cursor's moment.
    "coldest": (ANNOTATION, "Coldest"),
}
ASCENDING = {"coldest"}
# The orders a list can be read in (the Explorer's Sort control, read by the codec); the API offers SORTS.
LIST_SORTS = {name: KEYSETS[name] for name in ("newest", "opened_count", "updated", "coldest")}
SORTS = {name: KEYSETS[name] for name in ("newest", "opened_count", "coldest")}  # the API's (DESIGN §10)
DEFAULT_SORT = "newest"
_DATETIME_KEYS = {"created_at", "updated_at", "archived_at"}
SEARCH_CONFIG = "simple"
RETIRING = "retiring"  # the mark of a cursor into a current-first list's second part (lessons_page)
MAX_LIMIT = LIST_PAGE_MAX.value
PAGE_DEFAULT = 50  # lessons on a page when the request does not say


def sort_field(sort: str) -> str:
    """The lesson field (or annotation) a sort orders by; "" for no known sort."""
    return KEYSETS[sort][0] if sort in KEYSETS else ""


class CursorError(ValueError):
    pass


@dataclass(frozen=True)
class Page:
    rows: list[Lesson]
    next_cursor: str | None


def cursor_encode(
    sort: str, lesson: Lesson | None, as_of: datetime | None = None, *, retiring: bool = False
) -> str:
    """The cursor after `lesson`; a computed order (coldest) also keeps the moment its scores were read at. A
    current-first list's cursor into its second part (the lessons proposed for retirement) is marked `retiring`;
    there, no `lesson` means "from that part's start"."""
    field = KEYSETS[sort][0]
    value = getattr(lesson, field) if lesson is not None else None
    payload = [
        sort,
        value.isoformat() if isinstance(value, datetime) else value,
        lesson.pk if lesson else None,
    ]
    if as_of is not None or retiring:
        payload.append(as_of.isoformat() if as_of is not None else None)
    if retiring:
        payload.append(RETIRING)
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


def _fits_bigint(number: int) -> bool:
    # A forged cursor with a huge number must be refused here, not overflow the database driver.
    return -(2**63) <= number < 2**63


def cursor_decode(sort: str, cursor: str) -> tuple[object, int] | None:
    """(keyset value, id) from a cursor, None for the start of a current-first list's retiring part; CursorError
    if it is not one of ours or belongs to another sort."""
    payload = _cursor_payload(cursor)
    name, value, pk = payload[:3]
    if name != sort:
        raise CursorError("cursor belongs to another sort order")
    if pk is None and value is None and cursor_retiring(cursor):
        return None
    if not isinstance(pk, int):
        raise CursorError("cursor is not valid")
    if not _fits_bigint(pk) or (isinstance(value, int) and not _fits_bigint(value)):
        raise CursorError("cursor is not valid")
    if KEYSETS[sort][0] in _DATETIME_KEYS:
        try:
            parsed = parse_datetime(value) if isinstance(value, str) else None
        except ValueError:  # well-formed but impossible, e.g. month 13
            parsed = None
        if parsed is None:
            raise CursorError("cursor is not valid")
        return parsed, pk
    if not isinstance(value, int):
        raise CursorError("cursor is not valid")
    return value, pk


def _cursor_payload(cursor: str) -> list[object]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        payload = json.loads(base64.urlsafe_b64decode(padded.encode()).decode())
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise CursorError("cursor is not valid") from exc
    if not isinstance(payload, list) or len(payload) not in (3, 4, 5):
        raise CursorError("cursor is not valid")
    if len(payload) == 5 and payload[4] != RETIRING:
        raise CursorError("cursor is not valid")
    return payload


def cursor_retiring(cursor: str) -> bool:
    """Whether a cursor points into a current-first list's second part (the lessons proposed for retirement)."""
    return len(_cursor_payload(cursor)) == 5


def cursor_as_of(cursor: str) -> datetime:
    """The moment a computed order's cursor read its scores at; CursorError if it holds none."""
    payload = _cursor_payload(cursor)
    raw = payload[3] if len(payload) >= 4 else None
    try:
        parsed = parse_datetime(raw) if isinstance(raw, str) else None
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise CursorError("cursor is not valid")
    return parsed


def search_words(q: str) -> list[str]:
    """The words of a search, or LimitExceeded: each word is a prefix match over the whole store, and a one-letter
    prefix matches most of it (SEARCH_WORDS_MAX, SEARCH_SHORT_WORDS_MAX)."""
    words = re.findall(r"\w+", q)
    SEARCH_WORDS_MAX.check(len(words), "q")
    SEARCH_SHORT_WORDS_MAX.check(sum(len(word) == 1 for word in words), "q")
    return words


def search_within_limits(q: str) -> str:
    """The words of `q` the search limits allow (the Explorer keeps what it can and says so)."""
    kept: list[str] = []
    short = 0
    for word in re.findall(r"\w+", q):
        if len(word) == 1:
            if short == SEARCH_SHORT_WORDS_MAX.value:
                continue
            short += 1
        kept.append(word)
        if len(kept) == SEARCH_WORDS_MAX.value:
            break
    return " ".join(kept)


def text_search_q(q: str, *, active_of: Account | None = None) -> Q:
    """Every word must appear in the key or the content: full-text search (prefix match, GIN index
    `lesson_search` of lore/migrations, over active lessons) on PostgreSQL, case-insensitive containment
    elsewhere. Over the search limits: LimitExceeded.

    `active_of`: the query reads only that account's active lessons, so a search of a rare word may be answered
    from the index's ids first (lore.search_plan): the same lessons, without a walk of the whole store."""
    words = search_words(q)
    if connection.vendor == "postgresql":
        if not words:
            return Q()
        query = SearchQuery(" & ".join(f"{w}:*" for w in words), search_type="raw", config=SEARCH_CONFIG)
        matches = SearchVectorExact(lesson_search_vector(), query)
        if active_of is not None and is_rare(words):
            by_ids = rare_match_q(active_of, matches)
            if by_ids is not None:
                return by_ids
        return Q(matches)
    found = Q()
    for word in q.split()[:10]:
        found &= Q(key__icontains=word) | Q(content__icontains=word)
    return found


def lesson_search_vector() -> SearchVector:
    """The expression the GIN index is built on; a query must use exactly this one to be served by it."""
    return SearchVector("key", "content", config=SEARCH_CONFIG)


def lessons_filtered(
    account: Account,
    rule: Rule,
    *,
    q: str = "",
    written_since: datetime | None = None,
    archived: bool = False,
    include_protected: bool = True,
    now: datetime | None = None,
) -> QuerySet[Lesson]:
    """The lessons a view shows: the rule (scope, conditions, dimensions), text, date range, status.

    With any condition set and `include_protected=False`, this is exactly the candidate set of that rule.
    """
    qs = lessons_matching(account, rule, now=now or timezone.now(), archived=archived)
    if not include_protected:
        qs = qs.filter(protected=False)
    if q.strip():
        qs = qs.filter(text_search_q(q, active_of=None if archived else account))
    if written_since is not None:
        qs = qs.filter(created_at__gte=written_since)
    return qs


def lessons_page(
    qs: QuerySet[Lesson],
    *,
    sort: str = DEFAULT_SORT,
    cursor: str | None = None,
    limit: int = PAGE_DEFAULT,
    now: datetime | None = None,
    current_first: bool = False,
) -> Page:
    """One keyset page of `qs` in `sort` order (one of KEYSETS; ties broken by id, newest first; `coldest`
    lowest score first, its scores read as of its first page's `now`, which its cursor carries on).

    `current_first` (the API's lists and searches): the lessons an open finding proposes to retire come after
    every other lesson, each part in `sort` order, and every row carries `proposed_retirement`."""
    if sort not in KEYSETS:
        raise CursorError(f"sort must be one of {', '.join(SORTS)}")
    limit = max(1, min(limit, MAX_LIMIT))
    as_of = None
    if sort in ASCENDING:
        as_of = cursor_as_of(cursor) if cursor else (now or timezone.now())
        qs = lessons_with_decay(qs, as_of)  # replaces a score the caller annotated at another moment
    in_retiring = bool(cursor) and cursor_retiring(cursor or "")
    if in_retiring and not current_first:
        raise CursorError("cursor is not valid")
    after = cursor_decode(sort, cursor) if cursor else None
    if not current_first:
        rows = _keyset_rows(qs, sort, after, limit + 1)
        next_cursor = cursor_encode(sort, rows[limit - 1], as_of) if len(rows) > limit else None
        rows = rows[:limit]
    else:
        rows, next_cursor = _current_first_rows(qs, sort, after, limit, as_of, in_retiring=in_retiring)
    pending_apply(rows)  # shown exact: pending reads included
    return Page(rows=rows, next_cursor=next_cursor)


def _keyset_rows(
    qs: QuerySet[Lesson], sort: str, after: tuple[object, int] | None, count: int
) -> list[Lesson]:
    """At most `count` lessons of `qs` after the keyset position `after` (None: from the start), in `sort` order,
    with their pending reads."""
    field = KEYSETS[sort][0]
    later = "gt" if sort in ASCENDING else "lt"
    if after is not None:
        value, pk = after
        qs = qs.filter(Q(**{f"{field}__{later}": value}) | Q(**{field: value, f"pk__{later}": pk}))
    order = (field, "pk") if sort in ASCENDING else (f"-{field}", "-pk")
    return list(lessons_with_pending(qs.order_by(*order))[:count])


def _current_first_rows(
    qs: QuerySet[Lesson],
    sort: str,
    after: tuple[object, int] | None,
    limit: int,
    as_of: datetime | None,
    *,
    in_retiring: bool,
) -> tuple[list[Lesson], str | None]:
    """A current-first page: the lessons no open finding proposes to retire, then (once those are all read) the
    ones it does, each part one keyset range in `sort` order. One query while the first part fills the page, two
    at the turn; the cursor says which part it is in (docs/gardener.md, "Search that prefers current lore")."""
    current: list[Lesson] = []
    if not in_retiring:
        current = _keyset_rows(lessons_current(qs), sort, after, limit + 1)
        proposed_retirements_mark(current, known_current=True)
        if len(current) > limit:
            return current[:limit], cursor_encode(sort, current[limit - 1], as_of)
        after = None  # the second part is read from its start
    room = limit - len(current)
    tail = _keyset_rows(lessons_retiring(qs), sort, after, room + 1)
    more = len(tail) > room
    tail = tail[:room]
    proposed_retirements_mark(tail)
    next_cursor = None
    if more:
        next_cursor = cursor_encode(sort, tail[-1] if tail else None, as_of, retiring=True)
    return current + tail, next_cursor


# A loose index scan over lesson_unique_address (account, scope, key): one index probe per distinct scope instead of reading
# every lesson, so the scope picker costs the same with a thousand lessons or a million.
_SCOPES_SKIP_SCAN = """
WITH RECURSIVE found(scope) AS (
    (SELECT scope FROM lore_lesson WHERE account_id = %(account)s ORDER BY scope LIMIT 1)
    UNION ALL
    SELECT (SELECT l.scope FROM lore_lesson l WHERE l.account_id = %(account)s AND l.scope > found.scope
            ORDER BY l.scope LIMIT 1)
    FROM found WHERE found.scope IS NOT NULL
)
SELECT scope FROM found WHERE scope IS NOT NULL
"""


def scopes_present(account: Account) -> list[str]:
    """The scopes the account's lessons live in, sorted, for the scope picker."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_SCOPES_SKIP_SCAN, {"account": account.pk})
            return [row[0] for row in cursor.fetchall()]
    return list(
        Lesson.objects.filter(account=account).order_by("scope").values_list("scope", flat=True).distinct()
    )


MENU_VALUES_LIMIT = 40  # values a dimension's menu lists


def dimension_value_counts(
    base: QuerySet[Lesson], dim: Dimension, typed: str = "", limit: int = MENU_VALUES_LIMIT
) -> list[tuple[str, int]]:
    """[(value, lessons)] of `dim` over the lessons of `base`, most frequent first; blank values left out.

    One GROUP BY query (tags through LessonTag).
    """
    qs: QuerySet[Any]
    if dim.is_tags:
        qs = LessonTag.objects.filter(lesson__in=base.values("pk")).values_list("tag")
        field_name = "tag"
    else:
        qs = base.exclude(**{dim.field: ""}).values_list(dim.field)
        field_name = dim.field
    if typed:
        qs = qs.filter(**{f"{field_name}__icontains": typed.removeprefix(dim.value_prefix)})
    # COUNT(account_id), never NULL, rather than COUNT(id): every lesson index carries the account but not the id,
    # so the count can be an index-only scan (lesson_page_counts, lesson_active_facts; bench/EXPLAIN.md).
    rows = qs.annotate(n=Count("account")).order_by("-n", field_name)[:limit]
    return [(str(value), int(n)) for value, n in rows]


def run_of_account(account: Account, run_id: int) -> Any | None:
    """The archive run `run_id` of the account (what archived_by_run points at), or None. Read through the
    Lesson's relation so that a page below `policies` needs no import of it."""
    runs = Lesson._meta.get_field("archived_by_run").related_model
    assert runs is not None and not isinstance(runs, str)
    return runs._default_manager.filter(account=account, pk=run_id).first()
