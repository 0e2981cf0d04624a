"""How a full-text search of active lessons is read on PostgreSQL: rare words from the index, common ones in order.

A list page with a search is `… WHERE <text> @@ <words> ORDER BY created_at DESC LIMIT 51`. PostgreSQL estimates a
prefix match (`word:*`) it has no statistics for at about 2% of the lessons, so it walks the newest-first index and
tests each lesson's text until it has a page: right for a common word (a page in a few hundred rows), a read of the
whole store for a word no lesson carries (10 s and a 503 at 1M lessons, bench/RESULTS.md, issue 16 #23).

The planner's own statistics tell the two apart: ANALYZE keeps the most common lexemes of the `lesson_search`
expression with the share of lessons carrying each (`pg_stats.most_common_elems`), and the index's row count. A
word's matches are estimated as the shares of the common lexemes it starts, times that count (a word that starts
none is rarer than the least common of them). When some word of the search is estimated at SEARCH_RARE_IDS
lessons or fewer, the search's matches are read from the GIN index first — at most that many, else the search
falls back — and the page is read by id; otherwise the search stays one predicate. Either way the lessons found
are the same (a test compares both readings); only the order of work differs.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from django.contrib.postgres.search import SearchVectorExact
from django.db import connection
from django.db.models import Q
from django.db.models.expressions import RawSQL

from lore.limits import SEARCH_RARE_IDS
from lore.models import Account, Lesson

# pg_stats is read again after this many seconds: a new ANALYZE changes which lexemes are common.
STATISTICS_TTL = 300.0


@dataclass(frozen=True)
class LexemeStatistics:
    """What ANALYZE last found in `lesson_search`: its common lexemes' shares and the lessons it covers."""

    shares: dict[str, float]
    lessons: float

    def matches(self, word: str) -> float:
        """Estimated lessons carrying a lexeme that starts with `word` (lower case, as 'simple' stores it);
        0 when it starts no common lexeme."""
        word = word.lower()
        share = sum(s for lexeme, s in self.shares.items() if lexeme.startswith(word))
        return min(share, 1.0) * self.lessons


_cached: dict[str, tuple[float, LexemeStatistics]] = {}


def lexeme_statistics(*, now: float | None = None) -> LexemeStatistics:
    """`lesson_search`'s statistics (none before the first ANALYZE), cached for STATISTICS_TTL seconds."""
    now = time.monotonic() if now is None else now
    database = connection.settings_dict["NAME"]
    cached = _cached.get(database)
    if cached is not None and now - cached[0] < STATISTICS_TTL:
        return cached[1]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples "
            "FROM pg_class c LEFT JOIN pg_stats s ON s.tablename = c.relname AND s.schemaname = current_schema() "
            "WHERE c.relname = 'lesson_search' AND c.relnamespace = current_schema()::regnamespace"
        )
        row = cursor.fetchone()
    lexemes, shares, lessons = row if row else (None, None, 0.0)
    statistics = LexemeStatistics(
        dict(zip(lexemes or (), shares or (), strict=False)), max(float(lessons), 0.0)
    )
    _cached[database] = (now, statistics)
    return statistics


def lexeme_statistics_forget() -> None:
    """Drop the cache (after an ANALYZE whose result must be seen at once: tests)."""
    _cached.clear()


def is_rare(words: Sequence[str]) -> bool:
    """Whether some word of the search is estimated at SEARCH_RARE_IDS lessons or fewer (all of them must match,
    so the search finds no more than its rarest word). Before any ANALYZE every word is: the index is asked
    first, a cost bounded by the cap, where the other reading is bounded only by the store."""
    statistics = lexeme_statistics()
    return any(statistics.matches(word) <= SEARCH_RARE_IDS.value for word in words)


def rare_match_q(account: Account, matches: SearchVectorExact) -> Q | None:
    """Active lessons of `account` whose text matches, as `pk IN (their ids)` read from the GIN index, or None
    when more than SEARCH_RARE_IDS match (the search is then not rare, and stays a predicate)."""
    probe = Lesson.objects.filter(account=account, archived_at__isnull=True).filter(matches).values("pk")
    sql, params = probe.query.sql_with_params()
    cap = SEARCH_RARE_IDS.value
    with connection.cursor() as cursor:
        # MATERIALIZED: planned on its own, without the LIMIT that would make a table walk look cheap; the
        # CTE is still read lazily, so the LIMIT stops the heap reads.
        cursor.execute(f"WITH found AS MATERIALIZED ({sql}) SELECT * FROM found LIMIT %s", [*params, cap + 1])
        ids = [row[0] for row in cursor.fetchall()]
    if len(ids) > cap:
        return None
    return Q(pk__in=RawSQL("SELECT unnest(%s::bigint[])", (ids,)))
