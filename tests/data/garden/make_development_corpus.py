"""Builds tests/data/garden/development-generated.jsonl: half of the gardener's development corpus (README.md beside it).

Run `python tests/data/garden/make_development_corpus.py` after changing it; the JSONL is committed so that the tests and
`make bench` read the same lessons. Each line is a lesson (scope, key, content, kind, tags, age_days,
opened_count, supersedes) with a `label`:
- `dup`: a duplicate group id and `variant` (original | verbatim | paraphrase): lessons of one group in one scope
  family state the same thing; "verbatim" variants differ in case, punctuation, a word or a branch.
- `supersedes_target`: the address of the older lesson this one replaces (by quoted claim or explicit field).
- `ephemera`: true for a CI result, PR state or run/liveness statement.
- `lookalike`: a durable lesson that resembles a duplicate, an ephemera or a claim, and must not be retired.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).with_name("development-generated.jsonl")
FAMILIES = {
    "repo::acme/app": ["branch::acme/app::main", "branch::acme/app::feat/billing-v2"],
    "repo::acme/api": ["branch::acme/api::main"],
    "project::platform": [],
    "global": [],
}

FACTS = [
    ("use-uv", "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."),
    ("reviewer-read-only", "Reviewers must be read-only by tool policy, never by prompt text alone."),
    (
        "squash-migrations",
        "Do not squash migrations on release branches because downstream forks depend on them.",
    ),
    (
        "pg-concurrently",
        "Create indexes concurrently on tables over a million rows or the deploy blocks writes.",
    ),
    ("vault-secrets", "Secrets come from the vault sidecar and are never committed in dotenv files."),
    ("pnpm-root", "Run pnpm from the workspace root; per-package installs corrupt the shared lockfile."),
    (
        "retry-after",
        "The API sends Retry-After with every 429 response; honour it rather than backing off blindly.",
    ),
    ("hydration", "Hydration mismatches come from reading the clock during render; compute it in an effect."),
    ("tokenizer-warm", "Warm the tokenizer cache before benchmarks or the first run dominates the median."),
    (
        "webhook-idempotent",
        "Billing webhooks are delivered again on timeout, so every handler is idempotent on event id.",
    ),
    ("go-context", "Pass context.Context as the first argument and never store it inside a struct."),
    ("session-rotate", "Rotate the session id on privilege change or the old cookie keeps working."),
    (
        "adr-numbered",
        "Record architecture decisions as numbered ADRs under docs/adr and never edit one after merge.",
    ),
    (
        "factories",
        "Build test objects with the factories module; hand-written fixtures drift from the schema.",
    ),
    ("draft-pr", "Finalization opens a draft pull request and never pushes to main directly."),
    (
        "fugu-transient",
        "Issue delivery treats the .fugu directory as a transient path that is never committed.",
    ),
    (
        "blank-url",
        "A blank telemetry URL under inherit mode silently disables telemetry; use required-url instead.",
    ),
    (
        "journal-hash",
        "Resume journal hashing must invalidate whenever the tool policy or context mode changes.",
    ),
    ("tofu", "We chose OpenTofu over Terraform for the licence; modules stay compatible with both."),
    ("targeted-tests", "Prefer targeted tests during review and the full suite only for broad changes."),
    ("utc-only", "Store every timestamp in UTC and convert to local time only in the browser."),
    ("feature-flags", "New checkout features ship behind a feature flag that defaults to off in production."),
    ("n-plus-one", "Every list endpoint is checked for N+1 queries with an assertion on the query count."),
    ("csp-no-inline", "The content security policy forbids inline script, so handlers live in static files."),
    ("ruff-format", "Formatting is ruff format with a line length of one hundred and ten characters."),
    ("redis-db-index", "Each developer uses their own Redis database index so queues never collide."),
    (
        "celery-crontab",
        "Celery beat schedules are crontabs, never intervals, because intervals reset on restart.",
    ),
    (
        "keyset-pages",
        "Paginate large lists with keyset cursors; offset pagination gets slower on every page.",
    ),
    ("lock-order", "Statements that update many rows lock them in id order so two batches cannot deadlock."),
    (
        "statement-timeout",
        "Web requests run with a statement timeout and answer 503 when a query exceeds it.",
    ),
    (
        "email-lowercase",
        "Email addresses are compared lower-cased; the database collation is case sensitive.",
    ),
    ("image-pin", "Pin container base images by digest, not by tag, so rebuilds are reproducible."),
    ("log-json", "Services log one JSON object per line so the collector can parse fields without regexes."),
    ("no-cdn", "The dashboard serves its own assets and never loads anything from a CDN at run time."),
    (
        "branch-names",
        "Branch names start with feat, fix, chore or docs followed by a slash and a short slug.",
    ),
    ("axe-pages", "Every dashboard page must pass axe-core with zero violations at desktop and phone width."),
    ("money-decimal", "Money amounts are integers of cents; floats lose pennies in currency conversion."),
    (
        "retry-jitter",
        "Outbound HTTP retries use exponential backoff with full jitter and at most five attempts.",
    ),
    ("tz-cron", "Cron expressions in this repo are evaluated in UTC whatever the server locale says."),
    (
        "mypy-strict",
        "New modules are type checked with mypy strict; legacy modules are listed as exceptions.",
    ),
]
# Different wording, same statement: proposed when close enough, never required (recall is for near-verbatim).
PARAPHRASES = {
    "use-uv": "Installs go through uv rather than pip; uv.lock is the lockfile and CI verifies it.",
    "pg-concurrently": "On tables above a million rows, build indexes concurrently, otherwise deploys block writes.",
    "go-context": "context.Context is always the first parameter and must never be kept in a struct field.",
    "utc-only": "All timestamps are stored as UTC; only the browser converts them to local time.",
    "keyset-pages": "Use keyset cursors for pagination of large lists because offsets slow down page after page.",
    "image-pin": "Reference base images by their digest instead of a tag so that rebuilds are reproducible.",
    "log-json": "Each service writes a single JSON object per log line so fields parse without regexes.",
    "money-decimal": "Store money as integer cents, since floating point loses pennies during conversion.",
}
# Same shape, different fact: never near duplicates.
NUMBER_LOOKALIKES = [
    (
        "python-version",
        "The service runs on Python 3.11 in production and CI.",
        "The service runs on Python 3.12 in production and CI.",
    ),
    (
        "pool-size",
        "The database pool holds 20 connections per worker process.",
        "The database pool holds 50 connections per worker process.",
    ),
    (
        "retention-days",
        "Raw request logs are kept for 30 days and then deleted.",
        "Raw request logs are kept for 90 days and then deleted.",
    ),
    (
        "port",
        "The admin service listens on port 8080 behind the internal proxy.",
        "The admin service listens on port 9090 behind the internal proxy.",
    ),
    (
        "node-version",
        "Frontend builds use Node 20 LTS; older versions miss the fetch API.",
        "Frontend builds use Node 22 LTS; older versions miss the fetch API.",
    ),
]
ORDER_LOOKALIKES = [
    (
        "prefer-pip",
        "Use pip instead of uv for the legacy tooling image; the lockfile there is requirements.txt.",
    ),
    ("reviewer-write", "Writers must be read-write by tool policy; reviewers get their own sandbox."),
]
SUPERSESSIONS = [
    (
        "gardener-delete",
        "The gardener hard-deletes stale memories after thirty days.",
        'supersedes "gardener hard-deletes stale memories" — the API has no hard delete; retirement is reversible.',
    ),
    (
        "finalize-push",
        "Finalization pushes the finished branch straight to main when checks pass.",
        'supersedes "finalization pushes to main" — finalization opens a draft PR and never pushes to main.',
    ),
    (
        "deploy-friday",
        "Deploys are frozen every Friday afternoon for the whole platform.",
        'replaces "deploys are frozen on Friday afternoons": deploys run any day; the freeze is only before holidays.',
    ),
    (
        "cache-ttl",
        "The catalogue cache keeps entries for one hour before refreshing them.",
        'supersedes "catalogue cache keeps entries one hour" — entries now expire after five minutes.',
    ),
    (
        "auth-provider",
        "Authentication goes through the legacy LDAP bridge for staff accounts.",
        'replaces "authentication goes through the legacy LDAP bridge" — staff sign in with OIDC now.',
    ),
    (
        "queue-broker",
        "Background jobs use RabbitMQ as the Celery broker in every environment.",
        'supersedes "background jobs use RabbitMQ as the broker" — Redis is the broker everywhere since the move.',
    ),
    (
        "lint-tool",
        "Python linting is done with flake8 and isort as separate pre-commit hooks.",
        'replaces "linting is done with flake8 and isort" — ruff does both in one hook.',
    ),
    (
        "image-registry",
        "Container images are pushed to the self-hosted Harbor registry.",
        'supersedes "images are pushed to the self-hosted Harbor registry" — the cloud registry replaced Harbor.',
    ),
    (
        "test-db",
        "Integration tests run against an in-memory SQLite database for speed.",
        'replaces "integration tests run against in-memory SQLite" — they run on PostgreSQL to catch locking bugs.',
    ),
    (
        "feature-owner",
        "The billing team owns the invoice PDF renderer and its templates.",
        'supersedes "billing team owns the invoice PDF renderer" — documents moved to the platform team.',
    ),
    (
        "docs-site",
        "Product documentation is built with Sphinx from the docs folder.",
        'replaces "documentation is built with Sphinx" — MkDocs builds it now.',
    ),
    (
        "metrics-push",
        "Services push metrics to the StatsD relay every ten seconds.",
        'supersedes "services push metrics to the StatsD relay" — Prometheus scrapes them instead.',
    ),
]
UNMATCHED_CLAIMS = [
    ("nomatch-1", 'supersedes "the mobile app polls for notifications every minute" — it uses push now.'),
    ("nomatch-2", 'replaces "tickets are triaged on Mondays by the on-call" — triage happens daily.'),
    (
        "nomatch-3",
        'supersedes "shipping labels print from the warehouse laptop" — they print from the cloud service.',
    ),
]
EXPLICIT = [
    (
        "old-flag-service",
        "Feature flags are read from the flags.yaml file baked into the image.",
        "new-flag-service",
        "Feature flags are served by the flag service and cached for thirty seconds per process.",
    ),
    (
        "old-backup",
        "Database backups run nightly with pg_dump to the NFS share.",
        "new-backup",
        "Database backups are continuous WAL archiving with a weekly base backup to object storage.",
    ),
    (
        "old-oncall",
        "The on-call rotation is tracked in a shared spreadsheet.",
        "new-oncall",
        "The on-call rotation lives in the paging tool; the spreadsheet is gone.",
    ),
]
EPHEMERA = [
    "the build is green on commit 4f9c2ab",
    "biome check passed at step 3",
    "CI was red on the last push to the billing branch",
    "the test suite is failing on main right now",
    "mypy came back failing on the api package",
    "PR #42 is draft",
    "PR #55 CI is pending",
    "the PR was merged this morning",
    "pull request 118 got approved by the platform team",
    "PR #77 is blocked on a missing review",
    "issue-delivery run mqw97i6m is running",
    "the Worker is on attempt 2",
    "the deploy is still in progress for the api",
    "migration 0042 is running on the replica",
    "the nightly job is stuck at the export step",
    "lint is passing again after the ruff upgrade",
    "the pipeline turned green after the retry",
    "PR #301 was closed without merging",
    "the staging server is down after the upgrade",
    "the e2e tests were failing on the checkout flow",
    "build failed on commit 9e1d07c",
    "PR #12 is ready for review",
    "the rollout is in progress in the eu region",
    "workflow lint-and-test is queued behind the release job",
    "the release job is on attempt 3",
]
DURABLE_LOOKALIKES = [
    "CI must be green before merge",
    "Never merge a PR while CI is red; fix or revert first.",
    "A PR must have one approving review before it is merged.",
    "The deploy job runs on every push to main and needs the release tag.",
    "If the build is red on main, the person who broke it reverts within the hour.",
    "Draft PRs do not trigger the expensive e2e workflow; mark the PR ready to run it.",
    "The test suite has to pass on PostgreSQL as well as SQLite before release.",
    "Long-running migrations should run in batches so the service stays up.",
    "When a worker is stuck, the heartbeat check marks its run interrupted within a minute.",
    "PR titles follow conventional commits so the changelog can be generated.",
    "Flaky tests are quarantined with a ticket; never retry them silently in CI.",
    "A release is cut from main only when every required check is green.",
    "The staging server is rebuilt from the image every night at two.",
    "Merged PRs delete their branch automatically; do not reuse branch names.",
    "The pipeline caches dependencies by lockfile hash, so changing the lockfile invalidates it.",
]


def lesson(
    scope: str,
    key: str,
    content: str,
    *,
    age: float,
    label: dict,
    kind: str = "lesson",
    opened: int = 0,
    tags: list[str] | None = None,
    supersedes: list[str] | None = None,
) -> dict:
    return {
        "scope": scope,
        "key": key,
        "content": content,
        "kind": kind,
        "tags": tags or [],
        "age_days": age,
        "opened_count": opened,
        "supersedes": supersedes or [],
        "label": label,
    }


def verbatim(rng: random.Random, text: str) -> str:
    """A near-verbatim copy: case, punctuation or one small word changed."""
    choice = rng.randrange(4)
    if choice == 0:
        return text.lower()
    if choice == 1:
        return (
            text.replace(";", ",").replace(".", "!") if ";" in text else text.rstrip(".") + " (noted again)."
        )
    if choice == 2:
        return "Note: " + text
    return text.replace(" the ", " our ", 1) if " the " in text else text + " Confirmed."


def build() -> list[dict]:
    rng = random.Random(15)
    rows: list[dict] = []
    families = list(FAMILIES)
    for n, (slug, text) in enumerate(FACTS):
        family = families[n % len(families)]
        scopes = [family, *FAMILIES[family]]
        group = f"dup-{slug}"
        rows.append(
            lesson(
                family,
                slug,
                text,
                age=rng.uniform(40, 300),
                opened=rng.randint(0, 9),
                label={"dup": group, "variant": "original"},
            )
        )
        if n < 30:  # near-verbatim duplicates, 1 to 3 each, some on a branch of the repo
            for v in range(1 + n % 3):
                rows.append(
                    lesson(
                        rng.choice(scopes),
                        f"{slug}-{v + 2}",
                        verbatim(rng, text),
                        age=rng.uniform(1, 200),
                        opened=rng.randint(0, 9),
                        label={"dup": group, "variant": "verbatim"},
                    )
                )
        if slug in PARAPHRASES:
            rows.append(
                lesson(
                    rng.choice(scopes),
                    f"{slug}-said-otherwise",
                    PARAPHRASES[slug],
                    age=rng.uniform(1, 200),
                    label={"dup": group, "variant": "paraphrase"},
                )
            )
        # The same text in another family is not a duplicate there: families are separate banks.
        if n % 5 == 0:
            other = families[(n + 1) % len(families)]
            rows.append(
                lesson(
                    other,
                    slug,
                    text,
                    age=rng.uniform(1, 200),
                    label={"dup": f"dup-{slug}-in-{other}", "variant": "original"},
                )
            )
    for slug, a, b in NUMBER_LOOKALIKES:
        rows.append(lesson("repo::acme/app", slug, a, age=90, label={"lookalike": "numbers"}))
        rows.append(lesson("repo::acme/app", f"{slug}-now", b, age=10, label={"lookalike": "numbers"}))
    for slug, text in ORDER_LOOKALIKES:
        rows.append(lesson("repo::acme/app", slug, text, age=30, label={"lookalike": "word order"}))
    for n, (slug, old, new) in enumerate(SUPERSESSIONS):
        family = families[n % len(families)]
        rows.append(lesson(family, slug, old, age=rng.uniform(100, 300), label={"superseded": True}))
        rows.append(
            lesson(
                family,
                f"{slug}-now",
                new,
                age=rng.uniform(1, 60),
                kind="decision",
                label={"supersedes_target": f"{family}::{slug}"},
            )
        )
    for slug, text in UNMATCHED_CLAIMS:
        rows.append(
            lesson("project::platform", slug, text, age=5, kind="decision", label={"lookalike": "claim"})
        )
    for old_slug, old, new_slug, new in EXPLICIT:
        rows.append(lesson("repo::acme/api", old_slug, old, age=200, label={"superseded": True}))
        rows.append(
            lesson(
                "repo::acme/api",
                new_slug,
                new,
                age=3,
                kind="decision",
                supersedes=[f"repo::acme/api::{old_slug}"],
                label={"supersedes_target": f"repo::acme/api::{old_slug}"},
            )
        )
    for n, text in enumerate(EPHEMERA):
        family = families[n % len(families)]
        scope = rng.choice([family, *FAMILIES[family]])
        rows.append(
            lesson(
                scope,
                f"status-{n:02d}",
                text,
                age=rng.uniform(15, 90),
                kind=rng.choice(["lesson", "bus"]),
                label={"ephemera": True},
            )
        )
        # A fresh status of the same shape: another run's number, so it is not a copy of the old one.
        rows.append(
            lesson(
                scope,
                f"status-{n:02d}-fresh",
                f"{text} (run {n + 100})",
                age=rng.uniform(0, 10),
                label={"ephemera": True, "fresh": True},
            )
        )
    for n, text in enumerate(DURABLE_LOOKALIKES):
        family = families[n % len(families)]
        rows.append(
            lesson(
                family,
                f"rule-{n:02d}",
                text,
                age=rng.uniform(15, 300),
                kind=rng.choice(["lesson", "gotcha"]),
                label={"lookalike": "ephemera"},
            )
        )
    # Filler: distinct durable lessons over every scope, so that the inventory works inside a real store.
    subjects = [
        "the importer",
        "the billing worker",
        "the search index",
        "the auth service",
        "the CLI",
        "the scheduler",
        "the mobile client",
        "the report builder",
        "the webhook relay",
        "the audit log",
    ]
    verbs = [
        "batches writes in groups of",
        "retries a failed call up to",
        "keeps at most",
        "rejects more than",
        "caches results for",
        "opens no more than",
    ]
    units = ["rows", "attempts", "entries", "requests per minute", "seconds", "connections"]
    for n in range(110):
        family = families[n % len(families)]
        subject, verb, unit = subjects[n % 10], verbs[(n // 10) % 6], units[(n // 3) % 6]
        text = f"{subject.capitalize()} {verb} {10 + n * 7} {unit}; see its module docstring ({n})."
        rows.append(
            lesson(
                rng.choice([family, *FAMILIES[family]]),
                f"fact-{n:03d}",
                text,
                age=rng.uniform(1, 400),
                label={},
            )
        )
    return rows


if __name__ == "__main__":
    corpus = build()
    OUT.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in corpus))
    print(f"{len(corpus)} lessons → {OUT}")
