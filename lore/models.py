"""The lesson store: tenants, tokens, lessons, and the events that record what happened to them.

Counters, timestamps, protection and archive state are changed only by `lore.services` (DESIGN.md §1, §3).
`read_count` and `last_read_at` change on every read, so they are deliberately kept out of every index:
on PostgreSQL that keeps a read bump a cheap HOT update. What an index carries of Delivered is its bin
(`delivered_bin`), which a read moves only when it crosses one of the histogram's edges.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import models
from django.db.models import Case
from django.db.models.functions import Coalesce

from lore.conditions import DELIVERED_BIN
from lore.decay import strength_product
from lore.roles import DEFAULT_TOKEN_SCOPES, Role


class Account(models.Model):
    """A tenant. Every query is scoped to one."""

    name = models.CharField(max_length=100, unique=True)
    # In every dashboard URL (/a/<slug>/explorer/): set once by lore.accounts.account_create.
    slug = models.SlugField(max_length=50, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Archived lessons are hard-deleted (leaving a Tombstone) this many days after they were archived; 0 = never.
    purge_after_days = models.PositiveIntegerField(default=180)
    # The gardener (docs/gardener.md): one apply retires at most this many lessons; ephemera older than this many
    # days (since their last write) are proposed for retirement.
    garden_apply_cap = models.PositiveIntegerField(default=25)
    garden_ephemera_days = models.PositiveIntegerField(default=14)

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="memberships")
    team = models.CharField(max_length=64, blank=True, default="")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "account"], name="membership_unique"),
            models.CheckConstraint(condition=models.Q(role__in=Role.values), name="membership_role_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.account}"


def token_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def _default_scopes() -> list[str]:
    return list(DEFAULT_TOKEN_SCOPES)


class ApiToken(models.Model):
    """A bearer token. Only its SHA-256 is stored; the raw token is shown once, at creation."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=100)
    prefix = models.CharField(max_length=12)
    hashed = models.CharField(max_length=64, unique=True)
    owner = models.CharField(max_length=64, default="personal", help_text="'personal' or a team slug")
    # What the token may do (lore.roles.Scope), in declared order; never more than its creator's role.
    scopes = models.JSONField(default=_default_scopes)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


# The stored column `Lesson.delivered_bin`: the bin of `read_count` among Delivered's edges, declared with the
# condition (lore.conditions.DELIVERED_BIN); 0 for at most the first edge, k for above edge k-1 and at most edge k,
# len(edges) above the last.
DELIVERED_BIN_EDGES = DELIVERED_BIN.edges


def delivered_bin_expression() -> Case:
    """The bin of `read_count` among DELIVERED_BIN_EDGES (the stored column's expression)."""
    return DELIVERED_BIN.expression("read_count")


# Columns the candidate query, the Explorer's counts and the matrix read, carried in one covering index so that
# those aggregates are index-only scans. read_count and last_read_at stay out (a read bump remains HOT); the index
# keys Delivered's bin instead, which a read moves only when it crosses an edge (the filtered Delivered histogram).
FACT_COLUMNS = (
    "protected",
    "opened_count",
    "seen_count",
    "created_at",
    "last_opened_at",
    "scope",
    "key",
    "trigger",
    "source_agent",
    "owner",
    "origin_repo",
    "origin_branch",
    "origin_pr",
)


class PolicyRun(models.Model):
    """One archive run: a policy's, an ad-hoc rule's, or a finding's apply. Lessons it archived carry it
    (`Lesson.archived_by_run`), so Undo restores the run as a whole."""

    class Trigger(models.TextChoices):
        MANUAL = "manual"
        NIGHTLY = "nightly"
        API = "api"
        CLI = "cli"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        INTERRUPTED = "interrupted"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="policy_runs")
    # The policy that started the run (None for an ad-hoc rule or a finding's apply), by id: a lore model does not
    # point up into policies. Deleting the policy clears it (policies.services.policy_delete); `policy_name` keeps
    # the name the run was started under.
    policy_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    policy_name = models.CharField(max_length=200, blank=True, default="")
    rule_snapshot = models.JSONField(default=dict, blank=True)
    trigger = models.CharField(max_length=8, choices=Trigger.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    matched = models.PositiveIntegerField(default=0)
    archived = models.PositiveIntegerField(default=0)
    restored = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    # The moment of the preview a run carries out (Run now's confirm page): it archives only what matched then.
    # Without one, the run archives what matches when it starts.
    as_of = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    created_by = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "policies_policyrun"  # the table it was created with, before it moved here: no data moved
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["account", "policy_id", "-created_at"], name="policyrun_recent")]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.policy_name or 'an ad-hoc rule'}: {self.status}"

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class Lesson(models.Model):
    # Not indexed on its own: every lesson index leads with the account (bench/RESULTS.md, redundant indexes).
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="lessons", db_index=False)
    scope = models.CharField(max_length=600)
    key = models.CharField(max_length=512)
    content = models.TextField()
    # The dimensions. Blank means "not set", never NULL, so that `not in` filters stay simple.
    kind = models.CharField(max_length=64, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    host = models.CharField(max_length=128, blank=True, default="")
    trigger = models.CharField(max_length=128, blank=True, default="")
    source_agent = models.CharField(max_length=128, blank=True, default="")
    origin_repo = models.CharField(max_length=256, blank=True, default="")
    origin_branch = models.CharField(max_length=256, blank=True, default="")
    origin_pr = models.CharField(max_length=32, blank=True, default="")
    owner = models.CharField(max_length=64, default="personal")
    # The counters (DESIGN.md §3): Recurrence, Delivered, Chosen.
    seen_count = models.PositiveIntegerField(default=1)
    read_count = models.PositiveIntegerField(default=0)
    # Delivered's histogram bin, kept by the database (DELIVERED_BIN_EDGES). Indexed where read_count is not: a
    # read that stays inside its bin leaves every index alone, so its bump stays a HOT update.
    delivered_bin = models.GeneratedField(
        expression=delivered_bin_expression(), output_field=models.SmallIntegerField(), db_persist=True
    )
    last_read_at = models.DateTimeField(null=True, blank=True)
    opened_count = models.PositiveIntegerField(default=0)
    last_opened_at = models.DateTimeField(null=True, blank=True)
    # Set explicitly by the write service: reads must never move updated_at, so no auto_now here.
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    protected = models.BooleanField(default=False)
    archived_at = models.DateTimeField(null=True, blank=True)
    archived_by_run = models.ForeignKey(
        PolicyRun,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="archived_lessons",
        db_index=False,  # lesson_archived_by_run below, partial and ordered for "Undo run"
        # No database constraint: an archive batch sets it on 2,000 lessons to the id of the run doing it, and
        # PostgreSQL checked it row by row at commit (bench/RESULTS.md, issue 16 #22). SET_NULL still applies.
        db_constraint=False,
    )
    archive_reason = models.CharField(max_length=200, blank=True, default="")
    # Set when the gardener retires this lesson in favour of another (a near duplicate's keeper, or the lesson
    # that says it supersedes this one); cleared when the lesson is restored or rewritten.
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes", db_index=False
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "scope", "key"], name="lesson_unique_address"),
        ]
        indexes = [
            # The Explorer's default order (newest) and keyset pagination, active lessons only.
            # Also the kept Created histogram's boundary day (lore.bins.kept_distribution): `protected` carried so
            # that the unfiltered view's count of one day is an index-only scan.
            models.Index(
                fields=["account", "-created_at", "-id"],
                name="lesson_active_newest",
                condition=models.Q(archived_at__isnull=True),
                include=["protected"],
            ),
            models.Index(
                fields=["account", "-opened_count", "-id"],
                name="lesson_active_chosen",
                condition=models.Q(archived_at__isnull=True),
            ),
            # The Explorer's Recently updated order. A rewrite was never a HOT update (it moves seen_count, which
            # lesson_active_facts carries); read bumps do not touch updated_at and stay HOT.
            models.Index(
                fields=["account", "-updated_at", "-id"],
                name="lesson_active_updated",
                condition=models.Q(archived_at__isnull=True),
            ),
            # Also the kept Last agent open histogram's boundary day: index-only (an expression index serves one
            # only when it carries the columns of its expression), whether never opened, whether pinned.
            models.Index(
                Coalesce("last_opened_at", "created_at"),
                "account",
                name="lesson_last_agent_open",
                condition=models.Q(archived_at__isnull=True),
                include=["protected", "last_opened_at", "created_at"],
            ),
            # The kept decay histogram's boundary cells (lore.bins.kept_decay_distribution): the active, unpinned
            # lessons of one (strength product, last-open day) cell, index-only (it carries every column of the
            # score). Archived and pinned lessons stay out: archiving a lesson adds nothing here.
            models.Index(
                "account",
                strength_product(),
                Coalesce("last_opened_at", "created_at"),
                name="lesson_decay_cells",
                condition=models.Q(archived_at__isnull=True, protected=False),
                include=["protected", "opened_count", "seen_count", "last_opened_at", "created_at"],
            ),
            # Preview counts and keys, the run's count, the Explorer's filtered counts, value counts and matrix:
            # index-only scans, with a range on kind (and host) when those are filtered. Delivered's bin is a key,
            # not carried: a count of one bin's lessons (a value typed inside it, lore.bins) checks it in the index
            # and reads the table for that bin's lessons only.
            models.Index(
                fields=["account", "kind", "host", "delivered_bin"],
                include=FACT_COLUMNS,
                name="lesson_active_facts",
                condition=models.Q(archived_at__isnull=True),
            ),
            # The Explorer's unfiltered numbers (stat cards, the default Host × Kind matrix, value counts of
            # those dimensions) in one index-only pass: few distinct key combinations, so B-tree deduplication
            # keeps it around 9 MB per million lessons, many times less to read than the table.
            models.Index(
                fields=["account", "scope", "host", "kind", "protected", "archived_at"],
                name="lesson_page_counts",
            ),
            # "Undo run" walks a run's lessons in id order: only archived lessons carry a run.
            models.Index(
                fields=["archived_by_run", "id"],
                name="lesson_archived_by_run",
                condition=models.Q(archived_by_run__isnull=False),
            ),
            models.Index(
                fields=["account", "-archived_at", "-id"],
                name="lesson_archived_recent",
                condition=models.Q(archived_at__isnull=False),
            ),
            # The sheet's "Supersedes" links: only retired lessons carry one.
            models.Index(
                fields=["superseded_by"],
                name="lesson_superseded_by",
                condition=models.Q(superseded_by__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.address

    @property
    def address(self) -> str:
        return f"{self.scope}::{self.key}"

    @property
    def is_archived(self) -> bool:
        return self.archived_at is not None


class LessonTag(models.Model):
    """One row per (lesson, tag): lets tag filters and per-tag counts run as indexed SQL on every database."""

    # Both covered by the indexes below (lessontag_unique leads with the lesson, lessontag_lookup with the account).
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="tag_rows", db_index=False)
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    tag = models.CharField(max_length=512)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["lesson", "tag"], name="lessontag_unique")]
        indexes = [models.Index(fields=["account", "tag", "lesson"], name="lessontag_lookup")]

    def __str__(self) -> str:
        return self.tag


class ReadEvent(models.Model):
    """One delivery (a list/search page, a single fetch, a detail sheet), recorded against the scope asked for."""

    class Surface(models.TextChoices):
        API = "api"
        CLI = "cli"
        MCP = "mcp"
        DASHBOARD = "dashboard"

    # One row per read, so one index only: every query asks by account and time (the Read card, the cascade).
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="read_events", db_index=False)
    scope = models.CharField(max_length=600)
    surface = models.CharField(max_length=16, choices=Surface.choices)
    lesson_count = models.PositiveIntegerField()
    at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["account", "at"], name="readevent_account_at")]

    def __str__(self) -> str:
        return f"{self.surface} read of {self.lesson_count} in {self.scope}"


class LessonRead(models.Model):
    """One read of one lesson not yet folded into its counters (lore.reads): the append-only buffer that keeps
    reads from rewriting lesson rows. A read adds Delivered +1 (`read_count`, `last_read_at`); an `opened` one
    also Chosen +1 (`opened_count`, `last_opened_at`). The fold moves these rows into the lessons and deletes them.
    """

    # No database constraints: a page of reads is one INSERT, checked against nothing. A row of a purged lesson
    # is dropped by the next fold; an account's are deleted with it (on_delete, Django-side).
    account = models.ForeignKey(
        Account, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    lesson_id = models.BigIntegerField()
    opened = models.BooleanField(default=False)
    at = models.DateTimeField()

    class Meta:
        indexes = [
            # The fold of one account (lore.reads.reads_settle), oldest first.
            models.Index(fields=["account", "id"], name="lessonread_account"),
            # The pending reads of the lessons a page shows, matched on the account too: one index, so the
            # planner never ANDs in the account's whole share of the buffer (bench/reads.py, 1M).
            models.Index(fields=["lesson_id", "account"], name="lessonread_lesson_account"),
        ]

    def __str__(self) -> str:
        return f"{'open' if self.opened else 'delivery'} of lesson {self.lesson_id}"


# What a person or an import did to a lesson that a run must not override when it happened after the run's
# snapshot (lore.candidates.untouched_since): a restore, an import, an unpin. Their own index finds the few recent
# ones without reading the event log, which every archive and restore grows.
DECISIONS_A_RUN_RESPECTS = ("restored", "imported", "unprotected")


class LessonEvent(models.Model):
    """The audit trail of one lesson."""

    class Action(models.TextChoices):
        ARCHIVED = "archived"
        RESTORED = "restored"
        PROTECTED = "protected"
        UNPROTECTED = "unprotected"
        IMPORTED = "imported"
        WRITTEN = "written"

    # No key here carries a database constraint: an archive or restore batch writes one event per lesson, and
    # PostgreSQL checked every key row by row at commit — a quarter of a run's time for account and run
    # (bench/RESULTS.md #14), a tenth of a batch for the lesson (#22) — for values the same statement copies from
    # the lesson it changes and the run doing it. Django's on_delete still applies: every path that deletes
    # lessons (lore.purge, the demo reseed) goes through the ORM, which deletes their events first.
    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_constraint=False)
    # Covered by lessonevent_lesson_at.
    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="events", db_index=False, db_constraint=False
    )
    action = models.CharField(max_length=16, choices=Action.choices)
    actor = models.CharField(max_length=200, blank=True, default="")
    run = models.ForeignKey(
        PolicyRun,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_constraint=False,
    )
    detail = models.CharField(max_length=500, blank=True, default="")
    at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["lesson", "-at"], name="lessonevent_lesson_at"),
            models.Index(
                fields=["at"],
                name="lessonevent_decision_at",
                condition=models.Q(action__in=DECISIONS_A_RUN_RESPECTS),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.lesson_id}"


class LessonEventBatch(models.Model):
    """The audit event of every lesson one archive or restore batch changed, in one row (issue 29): what a
    LessonEvent per lesson held, once, with the lessons' ids ascending in `lesson_ids` and their span in
    `first_lesson_id`..`last_lesson_id` (a batch takes its lessons in id order, so a lesson's history finds the
    rows that may hold it by that span and looks inside only those). Per-lesson LessonEvent rows of archives and
    restores written before it are read beside these (lore.events)."""

    account = models.ForeignKey(
        Account, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    action = models.CharField(max_length=16, choices=LessonEvent.Action.choices)
    actor = models.CharField(max_length=200, blank=True, default="")
    run = models.ForeignKey(
        PolicyRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_constraint=False
    )
    detail = models.CharField(max_length=500, blank=True, default="")
    at = models.DateTimeField()
    lesson_ids = models.JSONField()
    first_lesson_id = models.BigIntegerField()
    last_lesson_id = models.BigIntegerField()
    lessons = models.PositiveIntegerField()  # as written; a purge takes ids out of lesson_ids, not from here

    class Meta:
        indexes = [
            models.Index(fields=["account", "first_lesson_id"], name="lessoneventbatch_span"),
            models.Index(
                fields=["at"],
                name="lessoneventbatch_decision_at",
                condition=models.Q(action__in=DECISIONS_A_RUN_RESPECTS),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.lessons} lessons from {self.first_lesson_id}"


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode()).hexdigest()


class PurgeRun(models.Model):
    """One purge of an account's long-archived lessons (the nightly sweep, or by hand)."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    cutoff = models.DateTimeField(help_text="lessons archived before this were purged")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.RUNNING)
    purged = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    def __str__(self) -> str:
        return f"purge {self.pk} of account {self.account_id}"


class Tombstone(models.Model):
    """What stays of a purged lesson: its address, a hash of its content and when it was archived and purged.
    A key can be written, archived and purged again: one tombstone each time."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    lesson_id = models.BigIntegerField(help_text="the id the lesson had: its old dashboard links find this")
    scope = models.CharField(max_length=600)
    key = models.CharField(max_length=512)
    content_hash = models.CharField(max_length=64)
    archived_at = models.DateTimeField()
    archived_by_run_id = models.BigIntegerField(null=True, blank=True)
    purged_at = models.DateTimeField()
    purge_run = models.ForeignKey(PurgeRun, null=True, on_delete=models.SET_NULL, related_name="tombstones")

    class Meta:
        indexes = [
            models.Index(fields=["account", "scope", "key", "-purged_at"], name="tombstone_address"),
            models.Index(fields=["account", "lesson_id"], name="tombstone_lesson"),
            models.Index(fields=["account", "-purged_at"], name="tombstone_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.scope}::{self.key} purged {self.purged_at:%Y-%m-%d}"

    @property
    def address(self) -> str:
        return f"{self.scope}::{self.key}"


class Activity(models.Model):
    """Who did what in an account: one row per change a person, a token, a command or the nightly sweep made
    (Settings → Activity, a policy's history). A run's thousands of archived lessons are one row, the run; each
    lesson keeps its own LessonEvent. Written only by `lore.activity.activity_record`."""

    class Action(models.TextChoices):
        LESSON_WRITTEN = "lesson.written", "wrote a lesson"
        LESSON_ARCHIVED = "lesson.archived", "archived"
        LESSON_RESTORED = "lesson.restored", "restored"
        LESSON_PINNED = "lesson.pinned", "pinned"
        LESSON_UNPINNED = "lesson.unpinned", "unpinned"
        LESSONS_IMPORTED = "lessons.imported", "imported lessons"
        POLICY_CREATED = "policy.created", "created a policy"
        POLICY_EDITED = "policy.edited", "edited a policy"
        POLICY_ENABLED = "policy.enabled", "enabled a policy"
        POLICY_DISABLED = "policy.disabled", "disabled a policy"
        POLICY_DELETED = "policy.deleted", "deleted a policy"
        RUN_STARTED = "run.started", "ran a policy"
        RUN_UNDONE = "run.undone", "undid a run"
        FINDING_APPLIED = "finding.applied", "applied a finding"
        FINDING_DISMISSED = "finding.dismissed", "dismissed a finding"
        FINDING_UNDONE = "finding.undone", "undid a finding"
        GARDEN_RUN = "garden.run", "ran the gardener"
        MEMBER_INVITED = "member.invited", "invited a member"
        MEMBER_ADDED = "member.added", "added a member"
        MEMBER_ROLE = "member.role", "changed a role"
        MEMBER_REMOVED = "member.removed", "removed a member"
        TOKEN_CREATED = "token.created", "created a token"
        TOKEN_REVOKED = "token.revoked", "revoked a token"
        ACCOUNT_CHANGED = "account.changed", "changed a setting"
        LESSONS_PURGED = "lessons.purged", "purged lessons"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    action = models.CharField(max_length=24, choices=Action.choices)
    actor = models.CharField(max_length=200)
    subject = models.CharField(max_length=600, blank=True, default="")  # what it was done to, in words
    # What the row is about, when it is a lesson, a policy or a run: plain ids, so history outlives the object.
    lesson_id = models.BigIntegerField(null=True, blank=True)
    policy_id = models.BigIntegerField(null=True, blank=True)
    run_id = models.BigIntegerField(null=True, blank=True)
    detail = models.CharField(max_length=500, blank=True, default="")
    at = models.DateTimeField()

    class Meta:
        indexes = [
            models.Index(fields=["account", "-at", "-id"], name="activity_recent"),
            models.Index(fields=["account", "actor", "-at", "-id"], name="activity_by_actor"),
            models.Index(
                fields=["account", "policy_id", "-at"],
                name="activity_of_policy",
                condition=models.Q(policy_id__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.actor} {self.action} {self.subject}"


# ---------------------------------------------------------------- the gardener (docs/gardener.md)


class LessonBand(models.Model):
    """One LSH band of a lesson's MinHash signature, kept at write time (lore.garden.signatures). Lessons that
    share a band hash are candidate near duplicates: the inventory finds them with a GROUP BY on this table.
    The hash mixes in the lesson's scope family and the band's number, so a bucket never crosses families."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="+")
    hash = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["account", "hash", "lesson"], name="lessonband_bucket")]

    def __str__(self) -> str:
        return f"band {self.hash} of {self.lesson_id}"


class LessonEmbedding(models.Model):
    """A lesson's semantic embedding (lore.garden.embeddings), computed by the inventory worker when the semantic
    gardener is on: a unit vector stored as float16 bytes, with the hash of the text it was computed from and the
    model that computed it, so a nightly run embeds only lessons written since."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    lesson = models.OneToOneField(Lesson, on_delete=models.CASCADE, related_name="+")
    family = models.CharField(
        max_length=600, help_text="the lesson's scope family: lessons are compared within one"
    )
    text_hash = models.CharField(max_length=64, help_text="SHA-256 of the text embedded (title and content)")
    model = models.CharField(max_length=64)
    vector = models.BinaryField()
    updated_at = models.DateTimeField(help_text="the lesson's updated_at when it was embedded")

    class Meta:
        indexes = [models.Index(fields=["account", "family"], name="lessonembedding_family")]

    def __str__(self) -> str:
        return f"embedding of {self.lesson_id}"


class SupersedesClaim(models.Model):
    """An explicit `supersedes: [scope::key]` written with a lesson: the named lesson is proposed for
    retirement in favour of this one. Replaced on every write of the lesson."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="supersedes_claims")
    scope = models.CharField(max_length=600)
    key = models.CharField(max_length=512)

    class Meta:
        indexes = [models.Index(fields=["account", "lesson"], name="supersedesclaim_lesson")]

    def __str__(self) -> str:
        return f"{self.lesson_id} supersedes {self.scope}::{self.key}"


class GardenRun(models.Model):
    """One inventory of an account. A nightly run examines only lessons written since the last finished one.
    Asked for from the web, CLI or MCP it is queued for the worker; an account has at most one queued or running
    (the constraint below: a second request answers the pending one)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    PENDING = (Status.QUEUED, Status.RUNNING)

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    trigger = models.CharField(max_length=16, default="manual")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.RUNNING)
    full = models.BooleanField(default=True, help_text="examined every lesson, not only what changed")
    since = models.DateTimeField(null=True, blank=True, help_text="examined lessons written after this")
    examined = models.PositiveIntegerField(default=0)
    found = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    phase = models.CharField(
        max_length=200,
        blank=True,
        default="",
        help_text="what a running inventory is doing now (its progress)",
    )

    class Meta:
        indexes = [models.Index(fields=["account", "-started_at"], name="gardenrun_recent")]
        constraints = [
            models.UniqueConstraint(
                fields=["account"],
                condition=models.Q(status__in=["queued", "running"]),
                name="gardenrun_one_pending",
            )
        ]

    def __str__(self) -> str:
        return f"garden run {self.pk} of account {self.account_id}: {self.status}"


class Finding(models.Model):
    """A group of lessons the gardener proposes to retire (some kept), with its evidence. Nothing changes until
    a person or a `groom` token applies it; a dismissed finding comes back only when a member's content changes
    (its fingerprint, a hash of its members' ids and contents, is then different)."""

    class Kind(models.TextChoices):
        NEAR_DUPLICATE = "near_duplicate", "near duplicate"
        SUPERSEDED = "superseded", "superseded"
        EXPIRED_EPHEMERA = "expired_ephemera", "expired ephemera"
        # Semantic similarity (lore.garden.semantic): review-only, a person picks the lesson to keep.
        POSSIBLE_DUPLICATE = "possible_duplicate", "possible duplicate"

    class Status(models.TextChoices):
        OPEN = "open"
        DISMISSED = "dismissed"
        APPLIED = "applied"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    family = models.CharField(
        max_length=600, help_text="the scope family: a repo (and its branches) or a scope"
    )
    fingerprint = models.CharField(max_length=64)
    evidence = models.JSONField(default=dict, blank=True)
    summary = models.CharField(max_length=500, blank=True, default="")
    garden_run = models.ForeignKey(
        GardenRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    applied_run = models.ForeignKey(
        PolicyRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_by = models.CharField(max_length=200, blank=True, default="")
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "kind", "fingerprint"], name="finding_unique_fingerprint"
            )
        ]
        indexes = [models.Index(fields=["account", "status", "kind", "-id"], name="finding_list")]

    def __str__(self) -> str:
        return f"{self.kind} finding {self.pk}"

    @property
    def retire_count(self) -> int:
        """How many lessons an apply retires (from the prefetched members)."""
        return sum(1 for m in self.members.all() if m.action == FindingMember.Action.RETIRE)


class FindingMember(models.Model):
    """One lesson of a finding: what is proposed for it (keep or retire) and why. `updated_at` is the lesson's
    at the inventory: apply re-checks it, so a lesson rewritten since is never retired on stale evidence."""

    class Action(models.TextChoices):
        KEEP = "keep"
        RETIRE = "retire"
        # A possible duplicate's members: nothing is proposed until a person picks the one to keep.
        REVIEW = "review"

    finding = models.ForeignKey(Finding, on_delete=models.CASCADE, related_name="members")
    lesson = models.ForeignKey(Lesson, on_delete=models.CASCADE, related_name="+")
    action = models.CharField(max_length=8, choices=Action.choices)
    why = models.CharField(max_length=500, blank=True, default="")
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["finding", "lesson"], name="findingmember_unique")]

    def __str__(self) -> str:
        return f"{self.action} {self.lesson_id}"


class TransferJob(models.Model):
    """An export or import started from the dashboard, run by a Celery task with progress (lore.transfer_jobs).
    Its file lives under LORE_TRANSFER_DIR: an export's until it expires, an import's upload until it is read."""

    class Kind(models.TextChoices):
        EXPORT = "export"
        IMPORT = "import"

    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        EXPIRED = "expired"

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    created_by = models.CharField(max_length=200, blank=True, default="")
    file_name = models.CharField(max_length=200, blank=True, default="")  # under LORE_TRANSFER_DIR
    size = models.BigIntegerField(default=0)  # bytes of the file
    lines_done = models.PositiveIntegerField(default=0)
    lines_total = models.PositiveIntegerField(null=True, blank=True)  # when known (an export counts first)
    report = models.JSONField(default=dict, blank=True)  # an import's capped report
    error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["account", "-created_at"], name="transferjob_recent")]

    def __str__(self) -> str:
        return f"{self.kind} job {self.pk} of account {self.account_id}: {self.status}"

    @property
    def is_active(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class LessonValueCount(models.Model):
    """How many lessons of an account carry a value of a dimension, in one state: kept by database triggers on
    PostgreSQL as appended changes (+n, -n) that reads sum and a fold compacts (lore.value_counts). Not a
    foreign key in the database: the rows an account's deletion appends (its lessons leaving) must not be refused,
    and the fold removes keys whose sum is 0."""

    account = models.ForeignKey(
        Account, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    dimension = models.CharField(max_length=32)
    value = models.CharField(max_length=256)
    archived = models.BooleanField()
    protected = models.BooleanField()
    n = models.BigIntegerField()

    class Meta:
        indexes = [
            models.Index(fields=["account", "dimension", "archived", "value"], name="lessonvaluecount_read"),
            # The newest kept row of an account's dimension: the fingerprint of its kept decay cells
            # (lore.decay_cells), one index probe.
            models.Index(fields=["account", "dimension", "id"], name="lessonvaluecount_newest"),
        ]

    def __str__(self) -> str:
        return f"{self.dimension}={self.value!r} of account {self.account_id}: {self.n:+d}"


class LessonPageCount(models.Model):
    """How many lessons of an account share a scope, host, kind and state: the Explorer's unfiltered stat cards
    and matrix, kept by the same triggers and fold as LessonValueCount (lore.value_counts), in a few thousand rows
    where the lessons are a million."""

    account = models.ForeignKey(
        Account, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    scope = models.CharField(max_length=600)
    host = models.CharField(max_length=128)
    kind = models.CharField(max_length=64)
    archived = models.BooleanField()
    protected = models.BooleanField()
    n = models.BigIntegerField()

    class Meta:
        indexes = [models.Index(fields=["account", "scope", "host", "kind"], name="lessonpagecount_read")]

    def __str__(self) -> str:
        return f"{self.scope} {self.host} {self.kind} of account {self.account_id}: {self.n:+d}"


class LessonCountChange(models.Model):
    """One statement's changes to the kept counts of an account in one state, packed in one row: for a dimension,
    {value: ±lessons}; for the page counts (`dimension` PAGE_COUNTS), [[scope, host, kind, ±lessons], …]. The
    triggers append these instead of a LessonValueCount or LessonPageCount row per value (issue 29: an archive
    batch of 2,000 appended ~1,600 of those); readers sum them with the kept rows through the views of
    LessonValueCountView and LessonPageCountView, and the fold moves them into the kept rows (lore.value_counts)."""

    PAGE_COUNTS = ""

    account = models.ForeignKey(
        Account, on_delete=models.DO_NOTHING, db_constraint=False, db_index=False, related_name="+"
    )
    dimension = models.CharField(max_length=32, blank=True)
    archived = models.BooleanField()
    protected = models.BooleanField()
    counts = models.JSONField()

    class Meta:
        indexes = [models.Index(fields=["account", "dimension", "archived"], name="lessoncountchange_read")]

    def __str__(self) -> str:
        return f"{self.dimension or 'page counts'} of account {self.account_id}: {len(self.counts)} changes"


class LessonValueCountView(models.Model):
    """The kept value counts and the packed changes not yet folded, one row per (key, change): a view on
    PostgreSQL (`lore.value_counts.VIEWS`), which readers sum. `id` is not unique (a packed row's changes share
    its id, negated)."""

    id = models.BigIntegerField(primary_key=True)
    account = models.ForeignKey(Account, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    dimension = models.CharField(max_length=32)
    value = models.CharField(max_length=256)
    archived = models.BooleanField()
    protected = models.BooleanField()
    n = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "lore_lessonvaluecount_all"

    def __str__(self) -> str:
        return f"{self.dimension}={self.value!r} of account {self.account_id}: {self.n:+d}"


class LessonPageCountView(models.Model):
    """The kept page counts and the packed changes not yet folded, as LessonValueCountView."""

    id = models.BigIntegerField(primary_key=True)
    account = models.ForeignKey(Account, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+")
    scope = models.CharField(max_length=600)
    host = models.CharField(max_length=128)
    kind = models.CharField(max_length=64)
    archived = models.BooleanField()
    protected = models.BooleanField()
    n = models.BigIntegerField()

    class Meta:
        managed = False
        db_table = "lore_lessonpagecount_all"

    def __str__(self) -> str:
        return f"{self.scope} {self.host} {self.kind} of account {self.account_id}: {self.n:+d}"


# ---------------------------------------------------------------- daily rollups (lore.rollups)


class DailyRollup(models.Model):
    """One account's day, kept by the nightly rollup (lore.rollups): the Health page reads these rows, not the
    event tables, so it costs the same at 10M lessons as at 1k. Written once, the first night after the day."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    # Lessons at the end of the day (counted when the rollup ran, minutes after midnight UTC); purged is the
    # running total of tombstones. NULL for a day written later (a missed night, a backfill): not a guess.
    active = models.BigIntegerField(null=True, blank=True)
    archived = models.BigIntegerField(null=True, blank=True)
    purged = models.BigIntegerField(null=True, blank=True)
    findings_opened = models.PositiveIntegerField(default=0)
    findings_applied = models.PositiveIntegerField(default=0)
    reads = models.BigIntegerField(default=0, help_text="lessons delivered (what the Read card sums)")
    runs = models.PositiveIntegerField(default=0)
    runs_interrupted = models.PositiveIntegerField(default=0, help_text="interrupted or failed")
    rows_archived = models.BigIntegerField(default=0)
    rows_undone = models.BigIntegerField(default=0)
    computed_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["account", "day"], name="dailyrollup_account_day")]

    def __str__(self) -> str:
        return f"{self.day} of account {self.account_id}"


class DailyReads(models.Model):
    """The read events of one day, scope and surface, once they are older than EVENTS_HORIZON_DAYS: their rows
    are deleted and their sums kept here, so the Read card answers a custom range reaching that far the same."""

    account = models.ForeignKey(Account, on_delete=models.CASCADE, related_name="+", db_index=False)
    day = models.DateField()
    scope = models.CharField(max_length=600)
    surface = models.CharField(max_length=16, choices=ReadEvent.Surface.choices)
    deliveries = models.BigIntegerField(default=0, help_text="the sum of the rows' lesson_count")
    events = models.BigIntegerField(default=0, help_text="how many ReadEvent rows were rolled up")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["account", "day", "scope", "surface"], name="dailyreads_key")
        ]

    def __str__(self) -> str:
        return f"{self.surface} reads of {self.scope} on {self.day}: {self.deliveries}"


class RollupState(models.Model):
    """Where the nightly pruning of an account's old lesson events stopped (a lesson id): a run bounded by
    ROLLUP_TIME_LIMIT goes on from there the next night, and starts over once it has seen every lesson."""

    account = models.OneToOneField(Account, on_delete=models.CASCADE, related_name="+")
    events_after_lesson = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"rollup state of account {self.account_id}"
