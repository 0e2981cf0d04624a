"""The three detectors. Each reads the account's active lessons — only those written since `since` when given
(the nightly re-run) — and yields Proposals; nothing here writes. Thresholds and why: docs/gardener.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import Q

from lore.garden.ephemera import ephemera_candidates, ephemera_match
from lore.garden.text import (
    containment,
    family_of,
    jaccard,
    numbers_of,
    overlap,
    root_of,
    shingles,
    title_words,
    wording,
    words_of,
)
from lore.limits import GARDEN_BATCH, GARDEN_BUCKET_MAX, GARDEN_CLAIMS_MAX
from lore.models import Account, Finding, Lesson, LessonBand, SupersedesClaim
from lore.scopes import scope_q
from lore.selectors import SEARCH_CONFIG, lesson_search_vector

Kind = Finding.Kind

# Exact similarity (Jaccard of shingles) from which two lessons of one family are near duplicates.
DUPLICATE_THRESHOLD = 0.5
# A reworded copy keeps its words but not their pairs ("X needs Y" / "X requires Y — because …"): below the shingle
# threshold, two lessons are near duplicates when their wordings (roots of words, lore.garden.text.wording) share
# at least this Jaccard and the smaller one lies at least this much in the other. Chosen on the development corpus
# (docs/gardener.md, "Reworded copies"): 38 of its 40 edited copies the shingles missed, 2 false pairs in 22,208.
REWORDED_JACCARD = 0.4
REWORDED_OVERLAP = 0.5
# How much of a quoted claim's words a lesson must hold to be the lesson the claim names.
CLAIM_THRESHOLD = 0.8
# `supersedes "…"` / `replaces "…"` (straight or curly quotes), seed 002's phrasing.
CLAIM = re.compile(r"\b(supersedes|replaces)\s*:?\s*[\"“”']([^\"“”\n]{3,300})[\"“”']", re.I)
# A claim that names the old lesson without quoting it, as agents write them: by its key ("Supersedes
# integration-tests-localdb: …") or as "the … note" ("Replaces the yarn-classic note", "supersedes the deploy.sh
# howto"). The name runs to the end of the clause (a stop, colon or semicolon before a space, or the end).
# The words an unquoted claim begins with; the inventory reads only lessons holding one of them.
CLAIM_LEADS = (
    "supersedes",
    "replaces",
    "replacing",
    "overrides",
    "update to",
    "correction to",
    "ignore the",
    "ignore any",
    "disregard the",
    "disregard any",
    "forget the",
)
NAMED_CLAIM = re.compile(
    r"\b(?:" + "|".join(lead.replace(" ", r"\s+") for lead in CLAIM_LEADS) + r")\s*:?\s+"
    # a name that is all one quotation is the quoted claim's (CLAIM); "ignore the 'atlantis plan' note" is named
    r"(?![\"“”'][^\"“”'\n]*[\"“”']\s*(?:[.;:!?,]|$))"
    r"(?P<name>(?:(?![.;:!?,](?:\s|$)|\s[—–-]\s)[^\"“”\n]){2,120}?)(?=[.;:!?,](?:\s|$)|\s[—–-]\s|$)",
    re.I,
)
NAMED_BY_KEY = re.compile(r"[a-z0-9]+(?:[-_.][a-z0-9]+)+")
_NOTE_NOUNS = (
    r"(?:note|notes|howto|how-to|lesson|entry|advice|guide|rule|section|doc|page|tip|instructions|runbook)"
)
NAMED_AS_NOTE = re.compile(
    # "the old note about a 7-day rule" is the note about a 7-day rule: the "about" form is tried first
    r"(?:the\s+|our\s+)?(?:old\s+|older\s+|earlier\s+|previous\s+|original\s+)?(?:"
    + _NOTE_NOUNS
    + r"\s+(?:about|on|for|regarding|re|saying|claiming|stating|pointing\s+(?:at|to)|(?:that|which)\s+(?:says|said)"
    + r"|that)\s+(?P<about>.+)"
    # "any `cmake --preset release` advice from before"
    + r"|(?P<words>.+?)\s+"
    + _NOTE_NOUNS
    + r"(?:\s+from\s+(?:before|earlier))?"
    # "the old one about submitting JCL over FTP"
    + r"|one\s+(?:about|on|regarding|saying|that\s+says)\s+(?P<one>.+))",
    re.I,
)


# A claim that says the old lesson no longer holds: "The old note about pinning nightly for embassy is no longer
# true", "so the Solr 8 / dismax note is obsolete", "The old `deno run …` instructions don't apply anymore".
_OUTDATED = (
    r"(?:(?:is|are)\s+(?:now\s+)?(?:no\s+longer\s+(?:true|valid|accurate|correct|right|relevant)|obsolete|outdated|"
    r"out\s+of\s+date|dead|stale|wrong|invalid|superseded|deprecated)|(?:doesn't|don't|does\s+not|do\s+not)\s+"
    r"(?:apply|hold)|no\s+longer\s+(?:holds|hold|applies|apply))"
)
OUTDATED_CLAIM = re.compile(
    r"(?:^|[.;:!?,]\s+|\s[—–-]\s+|\b(?:so|and|but)\s+)(?P<name>(?:the|our)\s+(?:(?![.;:!?,](?:\s|$))[^\"“”\n]){2,120}?)\s+"
    + _OUTDATED
    + r"\b",
    re.I,
)
# A claim that states the old lesson's own words and says they no longer hold: "No longer true that sessions come
# from the nightly cron — …", "It's no longer the case that CI runs on Travis". The claim is matched as a quoted one.
STATEMENT_CLAIM = re.compile(
    r"(?:^|[.;:!?,]\s+|\s[—–-]\s+)(?:it(?:'s|\s+is)\s+)?no\s+longer\s+(?:true|the\s+case)\s+that\s+"
    r"(?P<claim>(?:(?![.;:!?](?:\s|$)|\s[—–-]\s)[^\n]){3,200}?)(?=[.;:!?](?:\s|$)|\s[—–-]\s|$)",
    re.I,
)
# The words every match of _OUTDATED holds whole: on PostgreSQL the inventory finds claimers of this form through
# the full-text index by them first, and reads OUTDATED_SQL on those rows alone (a regular expression over every
# lesson took 11 s at 1M).
OUTDATED_WORDS = (
    "longer",
    "obsolete",
    "outdated",
    "date",
    "dead",
    "stale",
    "wrong",
    "invalid",
    "superseded",
    "deprecated",
    "apply",
    "hold",
    "holds",
    "applies",
)
# What the inventory reads claimers of this form by, in SQL (the same on PostgreSQL and SQLite): a note noun, then
# within a clause's length the words that retire it.
OUTDATED_SQL = (
    r"(note|lesson|howto|how-to|entry|advice|guide|rule|section|doc|page|tip|instructions|runbook|one)s?[^a-z]"
    r".{0,160}" + _OUTDATED.replace(r"\s+", " ").replace(r"(?:", "(") + r"|no longer (true|the case) that"
)


def _claimed_names(content: str) -> Iterator[tuple[str, str]]:
    """(the words of the claim, the name it gives the old lesson) of each unquoted claim of `content`."""
    for match in NAMED_CLAIM.finditer(content):
        yield match.group(0), match.group("name")
    for match in OUTDATED_CLAIM.finditer(content):
        yield match.group(0).strip(" .;:!?,"), match.group("name")


def says_it_replaces(content: str) -> bool:
    """Whether a lesson says it replaces another, quoted, stated or named: it states a change, not the same fact."""
    return (
        CLAIM.search(content) is not None
        or STATEMENT_CLAIM.search(content) is not None
        or any(_named(name) for _, name in _claimed_names(content))
    )


def _named(name: str) -> tuple[str, str] | None:
    """("key", slug) or ("words", words) for a named claim, or None when the name is neither (…"replaces the need
    for a lockfile" names no lesson)."""
    name = name.strip()
    if NAMED_BY_KEY.fullmatch(name) and "-" in name:
        return ("key", name.lower())
    note = NAMED_AS_NOTE.fullmatch(name)
    if note is not None:
        return ("words", note.group("words") or note.group("about") or note.group("one"))
    return None


ROW_FIELDS = (
    "id",
    "scope",
    "key",
    "content",
    "kind",
    "tags",
    "opened_count",
    "created_at",
    "updated_at",
    "protected",
)


@dataclass(frozen=True)
class Row:
    """The columns of a lesson the gardener reads."""

    id: int
    scope: str
    key: str
    content: str
    kind: str
    tags: list[str]
    opened_count: int
    created_at: datetime
    updated_at: datetime
    protected: bool

    @property
    def address(self) -> str:
        return f"{self.scope}::{self.key}"


@dataclass
class Proposal:
    """What a detector proposes: lessons to keep and to retire (each with why), the evidence, and the lesson the
    retired ones are superseded by (None for ephemera)."""

    kind: str
    family: str
    keep: list[tuple[Row, str]]
    retire: list[tuple[Row, str]]
    evidence: dict[str, Any]
    summary: str
    superseded_by: int | None = None


@dataclass
class Examined:
    """How many lessons each detector read (the GardenRun's `examined`)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, kind: str, count: int) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + count

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def _rows(queryset: Any) -> list[Row]:
    return [Row(*values) for values in queryset.values_list(*ROW_FIELDS)]


def _stream(id_query: Any) -> Iterator[Row]:
    """The rows of lessons whose ids a query answers: the ids first (one query, planned for all its rows), then
    the rows GARDEN_BATCH at a time by id. Memory holds the ids and one batch."""
    ids = sorted(id_query)
    for start in range(0, len(ids), GARDEN_BATCH.value):
        yield from _rows(Lesson.objects.filter(pk__in=ids[start : start + GARDEN_BATCH.value]).order_by("pk"))


def _keeper_order(row: Row) -> tuple[int, float, int]:
    """Most Chosen first (what agents actually open), then newest (the latest statement), then highest id."""
    return (-row.opened_count, -row.created_at.timestamp(), -row.id)


def family_q(family: str) -> Q:
    """The lessons of a scope family: a repo and its branches, or exactly one other scope."""
    return scope_q(family) if family.startswith("repo::") else Q(scope=family)


def _active(account: Account) -> Any:
    return Lesson.objects.filter(account=account, archived_at__isnull=True)


# ---------------------------------------------------------------- near duplicates


def _bucket_sql(since: datetime | None) -> tuple[str, list[Any]]:
    """Every bucket (band hash) of more than one lesson, with its first GARDEN_BUCKET_MAX lesson ids. On PostgreSQL
    the buckets come from one GROUP BY over the index and each bucket's ids from a LATERAL index range (nothing is
    sorted); elsewhere a window over the same rows. Params: account, [account, account, since,] account, limit."""
    band, lesson = LessonBand._meta.db_table, Lesson._meta.db_table
    changed, params = "", []
    if since is not None:
        changed = (
            f"AND hash IN (SELECT c.hash FROM {band} c JOIN {lesson} l ON l.id = c.lesson_id "
            "WHERE c.account_id = %s AND l.account_id = %s AND l.updated_at > %s AND l.archived_at IS NULL)"
        )
        params = [since]
    if connection.vendor == "postgresql":
        sql = f"""
            SELECT g.hash, b.lesson_id FROM (
                SELECT hash FROM {band} WHERE account_id = %s {changed} GROUP BY hash HAVING count(*) > 1
            ) g CROSS JOIN LATERAL (
                SELECT lesson_id FROM {band} WHERE account_id = %s AND hash = g.hash ORDER BY lesson_id LIMIT %s
            ) b ORDER BY g.hash, b.lesson_id
        """
    else:
        sql = f"""
            SELECT hash, lesson_id FROM (
                SELECT hash, lesson_id, count(*) OVER (PARTITION BY hash) AS n,
                       row_number() OVER (PARTITION BY hash ORDER BY lesson_id) AS rn
                FROM {band} WHERE account_id = %s {changed}
            ) buckets WHERE n > 1 AND rn <= %s ORDER BY hash, lesson_id
        """
    return sql, params


def candidate_groups(account: Account, since: datetime | None) -> list[list[int]]:
    """Lessons that share a band hash, joined into groups (lessons linked through any shared band are one
    group), from one SQL pass over LessonBand. With `since`: only buckets holding a lesson written since."""
    sql, params = _bucket_sql(since)
    args: list[Any] = [account.pk, *([account.pk, account.pk, *params] if since else [])]
    args += (
        [account.pk, GARDEN_BUCKET_MAX.value]
        if connection.vendor == "postgresql"
        else [GARDEN_BUCKET_MAX.value]
    )
    parent: dict[int, int] = {}

    def root(x: int) -> int:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    with connection.cursor() as cursor:
        cursor.execute(sql, args)
        current, first = None, 0
        while chunk := cursor.fetchmany(10_000):
            for bucket, lesson_id in chunk:
                if bucket != current:
                    current, first = bucket, lesson_id
                    root(lesson_id)
                else:
                    parent[root(lesson_id)] = root(first)
    groups: dict[int, list[int]] = {}
    for lesson_id in parent:
        groups.setdefault(root(lesson_id), []).append(lesson_id)
    return [sorted(ids) for ids in groups.values() if len(ids) > 1]


@dataclass(frozen=True)
class Likeness:
    """How alike a lesson is to its keeper: the Jaccard of shingles, and whether it is a reworded copy (alike by
    wording only)."""

    score: float
    reworded: bool = False
    dropped: bool = False  # the lesson is the keeper with a clause dropped, a number with it


def _is_status(row: Row) -> bool:
    return _status_text(row.content, row.kind, tuple(row.tags or ()))


@lru_cache(maxsize=8192)
def _status_text(content: str, kind: str, tags: tuple[str, ...]) -> bool:
    """Whether a lesson reads as a status (cached: a keeper is compared with every lesson of its group, and the
    grammar is the costly part of a comparison)."""
    return ephemera_match(content, kind, tags) is not None


def likeness(keeper: Row, row: Row) -> Likeness | None:
    """Whether `row` states what `keeper` states: one family, the same numbers, and shingles alike at
    DUPLICATE_THRESHOLD or wordings alike as a reworded copy's. A momentary status and a durable lesson are never
    the same statement, however alike their words ("X is on duty this week" / "X owns it whoever is on duty"); two
    statuses in other words are two moments, not one copied (the ephemera detector's to judge)."""
    if family_of(row.scope) != family_of(keeper.scope):
        return None
    numbers, keeper_numbers = numbers_of(row.content), numbers_of(keeper.content)
    if not numbers <= keeper_numbers:
        return None
    score = jaccard(shingles(keeper.key, keeper.content), shingles(row.key, row.content))
    if (
        numbers != keeper_numbers
    ):  # the keeper adds a clause with a number: the copy states nothing it does not
        alike = score >= DUPLICATE_THRESHOLD and _within(row, keeper)
        return Likeness(score, dropped=True) if alike else None
    if score >= DUPLICATE_THRESHOLD:
        return Likeness(score) if _is_status(keeper) == _is_status(row) else None
    words_a, words_b = wording(keeper.key, keeper.content), wording(row.key, row.content)
    if jaccard(words_a, words_b) < REWORDED_JACCARD or overlap(words_a, words_b) < REWORDED_OVERLAP:
        return None
    return None if _is_status(keeper) or _is_status(row) else Likeness(score, reworded=True)


def _within(row: Row, keeper: Row) -> bool:
    """Whether every word of `row` is a word of `keeper` (two durable lessons): `row` is `keeper` with a clause
    dropped, so retiring it loses nothing the keeper does not state."""
    words = wording(row.key, row.content)
    return words <= wording(keeper.key, keeper.content) and not _is_status(row) and not _is_status(keeper)


def duplicate_clusters(rows: Iterable[Row]) -> Iterator[tuple[Row, list[tuple[Row, Likeness]]]]:
    """Greedy clustering around keepers: the best keeper left takes every remaining lesson it is alike to
    (`likeness`); repeat with what is left. A lesson that states all the keeper states and a clause with a number
    more (the keeper is it with that clause dropped) takes the keeper's place: nothing is retired that states a
    number the kept lesson does not."""
    remaining = sorted(rows, key=_keeper_order)
    while len(remaining) > 1:
        keeper = remaining[0]
        fuller = next(
            (row for row in remaining[1:] if (alike := likeness(row, keeper)) and alike.dropped), None
        )
        if fuller is not None:
            keeper = fuller
        others: list[Row] = []
        members: list[tuple[Row, Likeness]] = []
        for row in remaining:
            if row is keeper:
                continue
            alike = likeness(keeper, row)
            if alike is not None:
                members.append((row, alike))
            else:
                others.append(row)
        if members:
            yield keeper, members
        remaining = others if members or fuller is None else [row for row in remaining if row is not keeper]


def near_duplicates(account: Account, *, since: datetime | None, examined: Examined) -> Iterator[Proposal]:
    """Near-duplicate clusters: keep the most Chosen (then newest), retire the others as superseded by it."""
    for ids in candidate_groups(account, since):
        rows = sorted(_rows(_active(account).filter(pk__in=ids[:5000])), key=_keeper_order)
        # A lesson that says it replaces another states a change, not the same fact (the superseded detector's).
        rows = [row for row in rows if not says_it_replaces(row.content)][: GARDEN_BUCKET_MAX.value]
        examined.add(Kind.NEAR_DUPLICATE, len(rows))
        for keeper, members in duplicate_clusters(rows):
            low = min(alike.score for _, alike in members)
            yield Proposal(
                kind=Kind.NEAR_DUPLICATE,
                family=family_of(keeper.scope),
                keep=[(keeper, _why_kept(members))],
                retire=[(row, _why_alike(alike)) for row, alike in members],
                evidence={
                    "similarity_min": round(low, 3),
                    "similarity_max": round(max(alike.score for _, alike in members), 3),
                    "threshold": DUPLICATE_THRESHOLD,
                    "measure": "Jaccard of words and word pairs of the content (provenance dates left out)",
                    "reworded": [row.key for row, alike in members if alike.reworded],
                    "reworded_threshold": {"jaccard": REWORDED_JACCARD, "overlap": REWORDED_OVERLAP},
                },
                summary=f"{len(members) + 1} lessons state the same thing"
                + (f" (similarity ≥ {low:.2f})" if low >= DUPLICATE_THRESHOLD else " (some reworded)"),
                superseded_by=keeper.id,
            )


def _why_kept(members: list[tuple[Row, Likeness]]) -> str:
    if any(alike.dropped for _, alike in members):
        return "kept: it states all the others state, and a number one of them leaves out"
    return "kept: the most Chosen of the group, then the newest"


def _why_alike(alike: Likeness) -> str:
    if alike.dropped:
        return f"the kept lesson with a clause left out (similarity {alike.score:.2f}); it states no number the kept one does not"
    if alike.reworded:
        return (
            f"the kept lesson reworded: the same words and numbers (word-pair similarity {alike.score:.2f})"
        )
    return f"similarity {alike.score:.2f} to the kept lesson"


# ---------------------------------------------------------------- superseded


def _claim_words(text: str, extra: Iterable[str] = ()) -> frozenset[str]:
    """The roots of a claim's (or a lesson's) words, a path or "A/B" read as its parts: a claim names the old
    lesson in its own inflections ("hand-rotating" / "rotated by hand", "Makefile/luarocks" / "Makefile +
    luarocks")."""
    return frozenset(_undoubled(root_of(word)) for word in [*extra, *words_of(text.replace("/", " "))])


def _undoubled(root: str) -> str:
    """ "runn" (of running) read as "run", "stopp" as "stop": a claim's inflection against the lesson's."""
    if len(root) > 3 and root.isalpha() and root[-1] == root[-2] and root[-1] not in "aeiouls":
        return root[:-1]
    return root


# Words a claim names the old lesson with that its text need not hold: prepositions and light verbs ("the note
# saying we use the Basic Profile only", "posting to the collector through HttpService").
CLAIM_FILLER = frozenset(
    _undoubled(root_of(word))
    for word in "through via about into onto across per using use uses used have has get gets do does go goes "
    "just also still".split()
)


def _named_words(claim: str) -> frozenset[str]:
    """The words of a claim that must be found in the lesson it names."""
    words = _claim_words(claim)
    return words - CLAIM_FILLER if words - CLAIM_FILLER else words


def claim_target(
    account: Account, claimer: Row, claim: str, *, min_words: int = 2
) -> tuple[Row, float] | None:
    """The one older lesson of the claimer's family that the quoted claim names, or None (no match, or two
    equally good ones: no proposal rather than a guess). A claim that names "the … note" may be one word long
    ("the Travis note"): the tie rule then asks that no other older lesson of the family holds it."""
    claim_words = _named_words(claim)
    if len(claim_words) < min_words or not claim_words:
        return None
    longest = max(claim_words, key=len)
    candidates = _rows(
        _active(account)
        .filter(family_q(family_of(claimer.scope)), created_at__lte=claimer.created_at)
        .filter(Q(content__icontains=longest) | Q(key__icontains=longest))
        .exclude(pk=claimer.id)
        .order_by("-created_at", "-id")[: GARDEN_BUCKET_MAX.value]
    )
    scored = sorted(
        (
            (containment(claim_words, _claim_words(row.content, title_words(row.key))), row)
            for row in candidates
            if claim.lower() not in row.content.lower() or not CLAIM.search(row.content)
        ),
        key=lambda pair: -pair[0],
    )
    if not scored or scored[0][0] < CLAIM_THRESHOLD:
        return None
    if len(scored) > 1 and scored[1][0] >= scored[0][0]:
        return None
    return scored[0][1], scored[0][0]


def _superseded(claimer: Row, target: Row, evidence: dict[str, Any]) -> Proposal:
    return Proposal(
        kind=Kind.SUPERSEDED,
        family=family_of(claimer.scope),
        keep=[(claimer, "kept: says it supersedes the other")],
        retire=[(target, f"superseded by {claimer.address}")],
        evidence=evidence,
        summary=f"{claimer.address} supersedes {target.address}",
        superseded_by=claimer.id,
    )


def superseded(account: Account, *, since: datetime | None, examined: Examined) -> Iterator[Proposal]:
    """Lessons a later lesson says it replaces: by a quoted claim (matched by similarity within the family) or by
    an explicit `supersedes: [scope::key]` written with it (matched by address)."""
    leads = Q()
    for lead in CLAIM_LEADS:
        leads |= Q(content__icontains=lead)
    written = _active(account) if since is None else _active(account).filter(updated_at__gt=since)
    cap = GARDEN_CLAIMS_MAX.value
    ids = sorted(
        {
            *written.filter(leads).order_by("pk").values_list("pk", flat=True)[:cap],
            *_outdated_claims(written).order_by("pk").values_list("pk", flat=True)[:cap],
        }
    )[:cap]
    rows = _rows(Lesson.objects.filter(pk__in=ids).order_by("pk"))
    examined.add(Kind.SUPERSEDED, len(rows))
    for claimer in rows:
        quoted = [(m.group(0), m.group(2)) for m in CLAIM.finditer(claimer.content)]
        stated = [(m.group(0), m.group("claim")) for m in STATEMENT_CLAIM.finditer(claimer.content)]
        for phrase, claim in (*quoted, *stated):
            found = claim_target(account, claimer, claim.strip())
            if found is not None:
                target, score = found
                evidence = {"phrase": phrase.strip(" .;:!?,—–-")[:300], "similarity": round(score, 3)}
                yield _superseded(claimer, target, {**evidence, "threshold": CLAIM_THRESHOLD})
                break
        else:
            yield from _named_claims(account, claimer)
    yield from _explicit(account, since=since, examined=examined)


def _outdated_claims(lessons: Any) -> Any:
    """The lessons of `lessons` that may say an old note no longer holds (OUTDATED_CLAIM): on PostgreSQL those the
    full-text index finds by OUTDATED_WORDS, then the regular expression on them; elsewhere the expression."""
    if connection.vendor == "postgresql":
        query = SearchQuery(" | ".join(OUTDATED_WORDS), config=SEARCH_CONFIG, search_type="raw")
        lessons = lessons.alias(search_vector=lesson_search_vector()).filter(search_vector=query)
    return lessons.filter(content__iregex=OUTDATED_SQL)


def _named_claims(account: Account, claimer: Row) -> Iterator[Proposal]:
    """The lesson an unquoted claim names: an older lesson of the family with that key, or the one "the … note"
    describes (its words held by that lesson and by no other as well)."""
    for phrase, claimed in _claimed_names(claimer.content):
        named = _named(claimed)
        if named is None:
            continue
        how, name = named
        evidence: dict[str, Any] = {"phrase": phrase[:300]}
        if how == "key":
            targets = _rows(
                _active(account)
                .filter(family_q(family_of(claimer.scope)), key=name, created_at__lte=claimer.created_at)
                .exclude(pk=claimer.id)
                .order_by("-created_at", "-id")[:2]
            )
            if len(targets) == 1:
                yield _superseded(claimer, targets[0], {**evidence, "named": "key"})
                return
            continue
        found = claim_target(account, claimer, _without_genre(name), min_words=1)
        if found is not None:
            target, score = found
            yield _superseded(
                claimer, target, {**evidence, "similarity": round(score, 3), "threshold": CLAIM_THRESHOLD}
            )
            return


# Words that say what sort of note a claim names, not what it says: "the reticulate/md4 setup note" is the note
# about reticulate and md4, whose text need not hold "setup".
NOTE_GENRE = frozenset("setup config configuration workaround procedure process steps details info".split())


def _without_genre(name: str) -> str:
    """A note's name without the words of its genre, unless nothing else would be left."""
    kept = [word for word in name.split() if word.lower().strip("`'\"") not in NOTE_GENRE]
    return " ".join(kept) if kept else name


def _explicit(account: Account, *, since: datetime | None, examined: Examined) -> Iterator[Proposal]:
    claims = SupersedesClaim.objects.filter(account=account, lesson__archived_at__isnull=True)
    if since is not None:
        claims = claims.filter(lesson__updated_at__gt=since)
    pairs = list(claims.order_by("pk").values_list("lesson_id", "scope", "key")[: GARDEN_CLAIMS_MAX.value])
    examined.add(Kind.SUPERSEDED, len(pairs))
    claimers = {row.id: row for row in _rows(_active(account).filter(pk__in={p[0] for p in pairs}))}
    for lesson_id, scope, key in pairs:
        target = _rows(_active(account).filter(scope=scope, key=key).exclude(pk=lesson_id))
        if target and lesson_id in claimers:
            yield _superseded(claimers[lesson_id], target[0], {"explicit": f"{scope}::{key}"})


# ---------------------------------------------------------------- expired ephemera


def expired_ephemera(
    account: Account, *, now: datetime, days: int, since: datetime | None, examined: Examined
) -> Iterator[Proposal]:
    """Ephemera (lore.garden.ephemera) last written more than `days` ago, one proposal per family. With `since`:
    only lessons that crossed the age line since then."""
    cutoff = now - timedelta(days=days)
    pending = _active(account).filter(protected=False, updated_at__lte=cutoff)
    if since is not None:
        pending = pending.filter(updated_at__gt=since - timedelta(days=days))
    by_family: dict[str, list[tuple[Row, str]]] = {}
    for row in _stream(ephemera_candidates(account.pk, pending)):
        examined.add(Kind.EXPIRED_EPHEMERA, 1)
        match = ephemera_match(row.content, row.kind, row.tags)
        # A lesson that says it replaces another states a change of practice ("Replacing the sfdx note: we deploy
        # with sf now"), however momentary its words.
        if match is not None and not says_it_replaces(row.content):
            age = (now - row.updated_at).days
            why = f"{match.said()}, last written {age} days ago"
            by_family.setdefault(family_of(row.scope), []).append((row, why))
    for family, retire in sorted(by_family.items()):
        retire.sort(key=lambda pair: pair[0].id)
        yield Proposal(
            kind=Kind.EXPIRED_EPHEMERA,
            family=family,
            keep=[],
            retire=retire,
            evidence={"older_than_days": days, "patterns": sorted({w.split(":")[0] for _, w in retire})},
            summary=f"{len(retire)} status statements older than {days} days",
        )
