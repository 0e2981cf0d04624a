"""Every limit of Lore Explorer, declared once: its name, its value and the words of the 4xx that refuses more.

Each request, task and import does bounded work. The codec, the API, the import, the Explorer, the policy forms and
the CLI read their caps from here, and an answer over a limit names it: `{"error": {"code": "limit_exceeded",
"field": "tags", "message": "… at most 50 tags in an 'all' filter (limit: TAGS_ALL_MAX)"}}`. A limit with a
`setting` can be changed in Django settings (or the environment variable of the same name, see config/settings.py).
SECURITY.md's table of limits is generated from `LIMITS` (`render_table`), and a test keeps it in sync.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from lore.errors import ScopeError


class LimitExceeded(ScopeError):
    """Input over a declared limit. A ScopeError, so every path that already refuses a bad filter refuses this
    too; the API answers it with `code: limit_exceeded` and the limit's status (422, or 413 for a body)."""

    code = "limit_exceeded"

    def __init__(self, limit: Limit, message: str, field: str) -> None:
        super().__init__(message, field=field)
        self.limit = limit
        self.status = limit.status


@dataclass(frozen=True)
class Limit:
    name: str  # as it appears in the 4xx: "(limit: TAGS_ALL_MAX)"
    default: int
    unit: str  # what is counted: "tags", "bytes", "milliseconds"
    what: str  # "in an 'all' filter": completes "at most N {unit} {what}"
    field: str = ""  # the field an over-limit answer names, when the limit is about one
    setting: str = ""  # the Django setting that overrides it ("" = fixed)
    status: int = 422
    why: str = ""  # one line for SECURITY.md

    @property
    def value(self) -> int:
        if not self.setting:
            return self.default
        from django.conf import settings

        configured = getattr(settings, self.setting, None)
        if configured is None:
            configured = os.environ.get(self.setting) or self.default
        return int(configured)

    def describe(self) -> str:
        return f"at most {self.value:,} {self.unit} {self.what} (limit: {self.name})".replace("  ", " ")

    def error(self, field: str | None = None, *, got: int | None = None) -> LimitExceeded:
        head = f"{got:,} {self.unit} is too many: " if got is not None else ""
        return LimitExceeded(self, f"{head}{self.describe()}", field or self.field or self.name.lower())

    def check(self, count: int, field: str | None = None) -> int:
        """`count` if within the limit, else LimitExceeded naming it."""
        if count > self.value:
            raise self.error(field, got=count)
        return count


MB = 1024 * 1024

FILTER_VALUES_MAX = Limit(
    "FILTER_VALUES_MAX",
    1000,
    "values",
    "in one filter",
    setting="LORE_FILTER_VALUES_MAX",
    why="a filter's `IN (…)` list",
)
TAGS_ALL_MAX = Limit(
    "TAGS_ALL_MAX",
    50,
    "tags",
    "in an 'all' filter",
    field="tags",
    setting="LORE_TAGS_ALL_MAX",
    why="a lesson carries a handful of labels; the filter is one aggregate whatever its size",
)
TAGS_PER_LESSON_MAX = Limit(
    "TAGS_PER_LESSON_MAX", 1000, "tags", "on one lesson", field="tags", why="labels written with a lesson"
)
VALUE_LENGTH_MAX = Limit("VALUE_LENGTH_MAX", 512, "characters", "in a filter value, label or key", why="")
SCOPE_LENGTH_MAX = Limit("SCOPE_LENGTH_MAX", 600, "characters", "in a scope", field="scope")
RETENTION_TEXT_MAX = Limit(
    "RETENTION_TEXT_MAX",
    4000,
    "characters",
    "of a ?retention= value read",
    field="retention",
    why="the rest cannot hold more than every condition",
)
CURSOR_MAX = Limit(
    "CURSOR_MAX", 500, "characters", "in a page cursor", field="cursor", why="a cursor is ours"
)
CONTENT_MAX = Limit("CONTENT_MAX", 100_000, "characters", "of lesson content", field="content")
NAME_MAX = Limit("NAME_MAX", 200, "characters", "in a policy name", field="name")
SEARCH_TEXT_MAX = Limit("SEARCH_TEXT_MAX", 200, "characters", "in a search", field="q")
SEARCH_WORDS_MAX = Limit(
    "SEARCH_WORDS_MAX",
    10,
    "words",
    "in a search",
    field="q",
    setting="LORE_SEARCH_WORDS_MAX",
    why="every word is a prefix match over the whole store",
)
SEARCH_SHORT_WORDS_MAX = Limit(
    "SEARCH_SHORT_WORDS_MAX",
    2,
    "one-letter words",
    "in a search",
    field="q",
    setting="LORE_SEARCH_SHORT_WORDS_MAX",
    why="a one-letter prefix matches most of the store",
)
SEARCH_RARE_IDS = Limit(
    "SEARCH_RARE_IDS",
    10_000,
    "lessons",
    "read from the full-text index for a search of a rare word, before its page is read by id",
    setting="LORE_SEARCH_RARE_IDS",
    why="past it the search is read newest first, which finds a page of a common word in a few rows",
)
LIST_PAGE_MAX = Limit("LIST_PAGE_MAX", 200, "lessons", "per page", field="limit")
REQUEST_BODY_MAX = Limit(
    "REQUEST_BODY_MAX",
    5 * MB,
    "bytes",
    "in a request body",
    field="body",
    setting="DATA_UPLOAD_MAX_MEMORY_SIZE",
    status=413,
    why="a body Django reads whole; an import streams under its own",
)
IMPORT_BODY_MAX = Limit(
    "IMPORT_BODY_MAX",
    100 * MB,
    "bytes",
    "in an import",
    field="body",
    setting="LORE_IMPORT_BODY_MAX",
    status=413,
    why="read as a stream, never held whole",
)
IMPORT_LINE_MAX = Limit(
    "IMPORT_LINE_MAX",
    2 * MB,
    "bytes",
    "in one import line",
    field="line",
    setting="LORE_IMPORT_LINE_MAX",
    why="a longer line is reported and skipped, never buffered",
)
IMPORT_BATCH = Limit("IMPORT_BATCH", 500, "lines", "per import batch", why="lines are written as they arrive")
IMPORT_ERRORS_MAX = Limit(
    "IMPORT_ERRORS_MAX",
    100,
    "failures",
    "listed in an import report (the total is always counted)",
    setting="LORE_IMPORT_ERRORS_MAX",
)
IMPORT_ANALYZE_MIN = Limit(
    "IMPORT_ANALYZE_MIN",
    10_000,
    "lines",
    "imported before PostgreSQL's ANALYZE runs",
    setting="LORE_IMPORT_ANALYZE_MIN",
    why="fresh statistics after a large import (PostgreSQL only)",
)
PREVIEW_KEYS_DEFAULT = Limit(
    "PREVIEW_KEYS_DEFAULT", 1000, "keys", "in a preview unless keys_limit asks", field="keys_limit"
)
PREVIEW_KEYS_MAX = Limit(
    "PREVIEW_KEYS_MAX",
    10_000,
    "keys",
    "in a preview (count stays exact)",
    field="keys_limit",
    setting="LORE_PREVIEW_KEYS_MAX",
)
STATEMENT_TIMEOUT_MS = Limit(
    "STATEMENT_TIMEOUT_MS",
    10_000,
    "milliseconds",
    "per SQL statement of a web request (PostgreSQL); over it: 503",
    setting="LORE_STATEMENT_TIMEOUT_MS",
    status=503,
)
RUN_STATEMENT_TIMEOUT_MS = Limit(
    "RUN_STATEMENT_TIMEOUT_MS",
    60_000,
    "milliseconds",
    "per SQL statement of a policy run (PostgreSQL)",
    setting="LORE_RUN_STATEMENT_TIMEOUT_MS",
)
RUN_TIME_LIMIT = Limit(
    "RUN_TIME_LIMIT",
    900,
    "seconds",
    "for one policy's run task (then it is interrupted and can be completed)",
    setting="LORE_RUN_TIME_LIMIT",
)
RUN_HEARTBEAT_STALE = Limit(
    "RUN_HEARTBEAT_STALE",
    60,
    "seconds",
    "without a heartbeat before a running run is marked interrupted",
    setting="LORE_RUN_HEARTBEAT_STALE",
)

PURGE_BATCH = Limit(
    "PURGE_BATCH",
    1000,
    "lessons",
    "purged per transaction by the nightly purge",
    setting="LORE_PURGE_BATCH",
    why="a failed batch rolls back whole and is taken again by the next sweep",
)
ARCHIVE_BATCH = Limit(
    "ARCHIVE_BATCH",
    5000,
    "lessons",
    "archived by a grooming run, or restored by an undo, per transaction",
    setting="LORE_ARCHIVE_BATCH_SIZE",
    why="each batch is one statement (lessons and their audit events) committed with the run's counters; "
    "5,000 rather than 2,000 since issue 29's fifth pass (its counts and audit row cost less per lesson)",
)

SUPERSEDES_MAX = Limit(
    "SUPERSEDES_MAX",
    20,
    "addresses",
    "in a lesson's `supersedes`",
    field="supersedes",
    why="each one is a proposal the gardener makes",
)
SUPERSEDES_SHOWN_MAX = Limit(
    "SUPERSEDES_SHOWN_MAX",
    50,
    "addresses",
    "listed in a lesson's answered `supersedes`",
    why="a keeper may have replaced many lessons over time: the newest are listed",
)
GARDEN_BATCH = Limit(
    "GARDEN_BATCH",
    2000,
    "lessons",
    "read per batch by the gardener's inventory",
    setting="LORE_GARDEN_BATCH",
    why="the inventory reads the rows it examines by id in batches; memory stays flat",
)
GARDEN_BUCKET_MAX = Limit(
    "GARDEN_BUCKET_MAX",
    200,
    "lessons",
    "compared in one group of look-alike lessons",
    setting="LORE_GARDEN_BUCKET_MAX",
    why="pairwise checks are bounded; the rest of a bigger group is taken by a later inventory",
)
GARDEN_SENTENCE_MAX = Limit(
    "GARDEN_SENTENCE_MAX",
    600,
    "characters",
    "of one sentence the status grammar reads",
    why="a longer sentence is read as no status (the longest of the labelled corpora is 195): the grammar's work on "
    "a sentence grows with the square of its length",
)
GARDEN_CLAIMS_MAX = Limit(
    "GARDEN_CLAIMS_MAX",
    5000,
    "supersession claims",
    "matched per inventory",
    setting="LORE_GARDEN_CLAIMS_MAX",
)
GARDEN_FINDINGS_MAX = Limit(
    "GARDEN_FINDINGS_MAX",
    2000,
    "findings",
    "proposed per inventory",
    setting="LORE_GARDEN_FINDINGS_MAX",
    why="a review queue nobody can read is no report; apply or dismiss and the next run proposes more",
)
GARDEN_SEMANTIC_BLOCK_MAX = Limit(
    "GARDEN_SEMANTIC_BLOCK_MAX",
    20000,
    "lessons",
    "of one scope family compared by the semantic gardener (the newest)",
    setting="LORE_GARDEN_SEMANTIC_BLOCK_MAX",
    why="possible duplicates are exact dot products within a family; memory and time stay bounded",
)
GARDEN_SEMANTIC_NEIGHBOURS = Limit(
    "GARDEN_SEMANTIC_NEIGHBOURS",
    10,
    "lessons",
    "paired with each lesson by the semantic gardener (its closest)",
    setting="LORE_GARDEN_SEMANTIC_NEIGHBOURS",
    why="a family of look-alike lessons yields at most this many candidate pairs per lesson, not every pair",
)
GARDEN_SEMANTIC_EMBED_MAX = Limit(
    "GARDEN_SEMANTIC_EMBED_MAX",
    300000,
    "lessons",
    "embedded by one semantic inventory (the rest by the next)",
    setting="LORE_GARDEN_SEMANTIC_EMBED_MAX",
    why="a first semantic inventory of a large store finishes within GARDEN_TIME_LIMIT; stored vectors are kept",
)
GARDEN_APPLY_CAP_MAX = Limit(
    "GARDEN_APPLY_CAP_MAX",
    500,
    "lessons",
    "as an account's apply cap (default 25: one apply retires at most the cap)",
    field="garden_apply_cap",
)
GARDEN_TIME_LIMIT = Limit(
    "GARDEN_TIME_LIMIT",
    600,
    "seconds",
    "for one inventory task (then it stops; the next one starts over)",
    setting="LORE_GARDEN_TIME_LIMIT",
)
FINDINGS_PAGE_MAX = Limit("FINDINGS_PAGE_MAX", 200, "findings", "per page", field="limit")
TRANSFER_EXPIRES = Limit(
    "TRANSFER_EXPIRES",
    24 * 3600,
    "seconds",
    "an export file from the dashboard stays downloadable",
    setting="LORE_TRANSFER_EXPIRES",
    status=410,
    why="then the file is deleted and its link answers 410",
)
TRANSFER_TIME_LIMIT = Limit(
    "TRANSFER_TIME_LIMIT",
    3600,
    "seconds",
    "for one dashboard import or export job",
    setting="LORE_TRANSFER_TIME_LIMIT",
    why="then it is stopped and marked failed (a job whose worker died too), and can be started again",
)
TRANSFER_JOBS_ACTIVE_MAX = Limit(
    "TRANSFER_JOBS_ACTIVE_MAX",
    2,
    "jobs",
    "of import or export going at once per account",
    setting="LORE_TRANSFER_JOBS_ACTIVE_MAX",
    status=429,
    why="each one is a background task reading or writing the whole store",
)

READS_FOLD_BATCH = Limit(
    "READS_FOLD_BATCH",
    5000,
    "buffered reads",
    "folded into lesson counters per transaction",
    setting="LORE_READS_FOLD_BATCH",
    why="a batch is moved whole or not at all: a crash loses and doubles nothing",
)
READS_FOLD_RUN_MAX = Limit(
    "READS_FOLD_RUN_MAX",
    2_000_000,
    "buffered reads",
    "folded by one run of the every-minute fold",
    setting="LORE_READS_FOLD_RUN_MAX",
    why="the rest waits for the next minute; counters stay exact meanwhile (pending reads are shown)",
)
READS_FOLD_TIME_LIMIT = Limit(
    "READS_FOLD_TIME_LIMIT",
    50,
    "seconds",
    "for one run of the every-minute fold (it stops between batches)",
    setting="LORE_READS_FOLD_TIME_LIMIT",
)
VACUUM_AFTER_ROWS = Limit(
    "VACUUM_AFTER_ROWS",
    10_000,
    "lessons",
    "changed by one run, undo, purge, import or gardener change before the lessons are vacuumed",
    setting="LORE_VACUUM_AFTER_ROWS",
    why="a bulk change clears the visibility map every index-only count reads; autovacuum waits for 20% of the table",
)
VACUUM_TIME_LIMIT = Limit(
    "VACUUM_TIME_LIMIT",
    1800,
    "seconds",
    "for one VACUUM of the lessons after a bulk change (then it stops; the next one goes on)",
    setting="LORE_VACUUM_TIME_LIMIT",
)
VALUE_COUNTS_FOLD_AFTER = Limit(
    "VALUE_COUNTS_FOLD_AFTER",
    20_000,
    "rows",
    "of per-value count changes summed by one filter-menu read before it folds them",
    setting="LORE_VALUE_COUNTS_FOLD_AFTER",
    why="the every-minute fold keeps them few; a read that finds many (no beat running) folds them itself",
)

DECAY_CELLS_CACHED = Limit(
    "DECAY_CELLS_CACHED",
    64,
    "splits",
    "of an account's decay cells (for one set of edges) one process keeps for the hour after a read (the least "
    "recently read are dropped)",
    setting="LORE_DECAY_CELLS_CACHED",
    why="the decay score's section reads the few cells a cut can cross within the hour instead of every cell; "
    "each split holds an account's cells near a cut, a few thousand at 1M",
)
METRICS_POLICIES_MAX = Limit(
    "METRICS_POLICIES_MAX",
    100,
    "policies",
    'labelled by id in /metrics, those run most recently (the runs of the others are summed as `policy="other"`)',
    setting="LORE_METRICS_POLICIES_MAX",
    why="a scrape answers the same few series whatever the number of policies",
)
# Daily rollups and the bounded event tables (lore.rollups).
EVENTS_HORIZON_DAYS = Limit(
    "EVENTS_HORIZON_DAYS",
    90,
    "days",
    "of read deliveries and lesson events kept row by row; older days are kept as daily rollups",
    setting="LORE_EVENTS_HORIZON_DAYS",
    why="never below 90 (the Read card's longest preset and its all-time window), so a preset is always answered "
    "from the rows and a custom range, whole days, from the rows and the rollups alike",
)
ROLLUP_BACKFILL_DAYS = Limit(
    "ROLLUP_BACKFILL_DAYS",
    90,
    "days",
    "of daily rollups one run writes for an account that has none yet (or missed nights)",
    setting="LORE_ROLLUP_BACKFILL_DAYS",
    why="never more than the events horizon: a day is rolled up from rows still kept",
)
ROLLUP_BATCH = Limit(
    "ROLLUP_BATCH",
    5000,
    "rows",
    "of read events rolled up and deleted per transaction (or lessons whose old events are pruned)",
    setting="LORE_ROLLUP_BATCH",
    why="a batch deletes its rows and adds them to the rollups in one transaction: a crash loses or doubles nothing",
)
ROLLUP_TIME_LIMIT = Limit(
    "ROLLUP_TIME_LIMIT",
    600,
    "seconds",
    "for one nightly run of the rollups (it stops between batches; the next night goes on)",
    setting="LORE_ROLLUP_TIME_LIMIT",
)
LESSON_HISTORY_SHOWN = Limit(
    "LESSON_HISTORY_SHOWN",
    50,
    "events",
    "of a lesson's history shown on its sheet (the newest); older ones past the horizon are pruned",
    why="what the sheet shows is kept whatever its age, so pruning never changes a lesson's history",
)

LIMITS: tuple[Limit, ...] = tuple(v for v in globals().values() if isinstance(v, Limit))
LIMITS_BY_NAME = {limit.name: limit for limit in LIMITS}


def render_table() -> str:
    """The Markdown table SECURITY.md carries (between its `limits:begin`/`limits:end` markers)."""
    rows = ["| Limit | Default | What | Setting |", "|---|---|---|---|"]
    for limit in LIMITS:
        what = f"{limit.unit} {limit.what}" + (f" — {limit.why}" if limit.why else "")
        setting = f"`{limit.setting}`" if limit.setting else "—"
        rows.append(f"| `{limit.name}` | {limit.default:,} | {what} | {setting} |")
    return "\n".join(rows)
