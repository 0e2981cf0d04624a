"""Ephemera: statements of a momentary state — CI results, PR states, run/liveness — that are wrong a week later
(seed taxonomy in docs/gardener.md). A lesson is ephemera when one of PATTERNS matches its text and nothing marks
it durable, or when its kind or a tag says it is a status. Durable look-alikes ("CI must be green before merge",
"the PR template is in .github/") state a rule or a fact about how things work, and are never ephemera.

The inventory reads only `ephemera_candidates` — lessons holding a state word (STATES) or a status label — and
runs the patterns on those alone; the SQL filter is a superset of what the patterns match (tested on both
databases), so it changes no verdict, only how many rows reach Python.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.postgres.search import SearchQuery
from django.db import connection
from django.db.models import QuerySet
from django.db.models.functions import Lower

from lore.models import LessonTag
from lore.selectors import SEARCH_CONFIG, lesson_search_vector

_STATE_VERB = r"(?:is|are|was|were|went|turned|came\s+back|has\s+been|have\s+been|got|just\s+got)\s+(?:now\s+|still\s+|currently\s+|all\s+)?"
_CI_SUBJECT = (
    r"(?:ci|build|builds|pipeline|tests?|test\s+suite|checks?|lint|linter|workflow|job|mypy|ruff|pytest|e2e|"
    r"biome\s+check|github\s+actions|the\s+run)"
)
_SHA = r"(?:[0-9a-f]{7,40})"

# The states each pattern ends on, as regular-expression fragments valid in Python and in PostgreSQL alike:
# every match of a pattern holds one of its states as a whole word, which is what `ephemera_candidates` (below)
# asks the database for before a pattern runs.
CI_STATES = (
    r"green|red|passing|failing|passed|failed|broken|pending|queued|cancell?ed|timed\s+out|fixed",
    r"passed|failed|succeeded|went\s+green|went\s+red",
)
PR_STATES = (
    r"draft|open|opened|merged|closed|approved|pending|blocked|in\s+review|ready\s+for\s+review|"
    r"awaiting\s+review|rebased|reverted|green|red|failing|passing"
)
RUN_STATES = (
    r"running|queued|stuck|alive|idle|in\s+progress|on\s+attempt\s+\d+|retrying|starting|restarting|down|"
    r"up\s+again|hung"
)
ATTEMPT = r"on\s+attempt\s+\d+"

PATTERNS: dict[str, re.Pattern[str]] = {
    # "the build is green on commit abc123", "CI was red", "tests are passing now", "mypy came back failing"
    "ci_result": re.compile(
        rf"\b{_CI_SUBJECT}\b[^.;\n]{{0,30}}?\b{_STATE_VERB}(?:{CI_STATES[0]})\b",
        re.I,
    ),
    # "biome check passed at step 3", "build failed on commit 1a2b3c4"
    "ci_step": re.compile(
        rf"(?<!\S)(?:{CI_STATES[1]})\s+(?:at|on|in)\s+(?:step\s+\d+|commit\s+{_SHA}|"
        rf"{_SHA}\b|run\s+#?\d+|build\s+#?\d+)",
        re.I,
    ),
    # "PR #42 is draft", "PR #55 CI is pending", "the PR was merged", "pull request 12 got approved"
    "pr_state": re.compile(
        rf"\b(?:pr|pull\s+request|mr|merge\s+request)\s*#?\d*\b[^.;\n]{{0,30}}?\b{_STATE_VERB}(?:a\s+)?"
        rf"(?:{PR_STATES})\b",
        re.I,
    ),
    # "issue-delivery run mqw97i6m is running", "the Worker is on attempt 2", "the deploy is still in progress"
    "run_liveness": re.compile(
        r"\b(?:run|job|worker|task|deploy|deployment|rollout|server|service|agent|process|migration|session)\b"
        r"(?:\s+[a-z0-9][a-z0-9-]{3,})?[^.;\n]{0,20}?\b(?:is|are)\s+(?:now\s+|still\s+|currently\s+)?"
        rf"(?:{RUN_STATES})\b",
        re.I,
    ),
    "attempt": re.compile(rf"\b{ATTEMPT}\b", re.I),
}
# Every state above, one alternation. In its pattern each state follows whitespace (`\s+`, or the start of the
# text for ci_step's) and its last word is followed by a word boundary or whitespace: a lesson a pattern matches
# holds that last word (STATE_ENDS) as a whole word, and a word beginning with its letters (STATE_WORDS).
STATES = "|".join((*CI_STATES, PR_STATES, RUN_STATES, ATTEMPT))


def _last_word(state: str) -> str:
    """A state's last word, as the regular expression it is: `timed\\s+out` → out, `on\\s+attempt\\s+\\d+` → attempt."""
    return [part for part in re.split(r"\\s\+", state) if re.match(r"[a-z]", part)][-1]


def _letters(word: str) -> str:
    """The plain letters every match of a last word begins with: `cancell?ed` → cancel."""
    letters = re.match(r"[a-z]+", word)
    assert letters is not None
    found = letters.group(0)
    return found[:-1] if word[len(found) : len(found) + 1] == "?" else found


STATE_ENDS = tuple(sorted({_last_word(state) for state in STATES.split("|")}))
STATE_WORDS = tuple(sorted({_letters(word) for word in STATE_ENDS}))


def states_regex(word_boundary: str) -> str:
    """STATES as one case-insensitive search between word boundaries (`\\b` for Python and SQLite): a superset
    of what PATTERNS match."""
    return rf"{word_boundary}(?:{STATES}){word_boundary}"


# Words of a rule, a contract or a how-it-works fact: a statement holding one is durable whatever it mentions.
DURABLE_MARKERS = re.compile(
    r"\b(?:must|should|shall|always|never|do\s+not|don't|needs?\s+to|has\s+to|have\s+to|required?|requires|"
    r"before\s+(?:merg|deploy|releas|push)\w*|whenever|every\s+time|each\s+time|if\s+|when\s+|unless|policy|rule|"
    r"prefer|means|because|so\s+that|until|instead)\b",
    re.I,
)
# Kinds that hold durable knowledge by definition (a quoted status in a decision is an example, not a state).
DURABLE_KINDS = frozenset({"decision", "preference", "convention", "contract", "architecture"})
# A kind or tag that says the lesson records a status.
EPHEMERAL_LABELS = frozenset(
    {"status", "ephemeral", "transient", "ci-status", "ci-result", "pr-state", "pr-status", "run-state"}
)


@dataclass(frozen=True)
class EphemeraMatch:
    pattern: str  # a PATTERNS name, or "label" when only the kind or a tag says so
    matched: str  # the text that matched (or the label)


def ephemera_match(content: str, kind: str = "", tags: Sequence[str] = ()) -> EphemeraMatch | None:
    """Why this lesson is ephemera, or None when it is not (see the module docstring)."""
    if kind.lower() in DURABLE_KINDS:
        return None
    labels = {kind.lower(), *(t.lower() for t in tags)} & EPHEMERAL_LABELS
    durable = DURABLE_MARKERS.search(content) is not None
    if not durable:
        for name, pattern in PATTERNS.items():
            found = pattern.search(content)
            if found:
                return EphemeraMatch(name, found.group(0)[:200])
    if labels and not durable:
        return EphemeraMatch("label", sorted(labels)[0])
    return None


def ephemera_candidates(account_id: int, lessons: QuerySet[Any]) -> QuerySet[Any]:
    """The ids of the lessons of `lessons` (an account's active ones) that could be ephemera, in SQL: not of a
    durable kind, and holding a state or a status label as kind or tag. Every lesson `ephemera_match` accepts
    is among them.

    On PostgreSQL the state test is the full-text GIN index (`lore.selectors.lesson_search_vector`): a word that
    follows whitespace starts a lexeme, so a prefix query on STATE_WORDS finds every lesson a pattern matches
    (and more: `red:*` also finds "redis", which the whole-word test on the rows it found then drops). Elsewhere it is `states_regex` (Python's `re` on SQLite). The three
    tests are a UNION, each planned on its own (an OR would cost the index)."""
    lessons = lessons.exclude(kind__in=DURABLE_KINDS)
    if connection.vendor == "postgresql":
        query = SearchQuery(
            " | ".join(f"{word}:*" for word in STATE_WORDS), config=SEARCH_CONFIG, search_type="raw"
        )
        # The index finds the lessons holding a word that begins like a state; `\m…\M` (PostgreSQL's word start
        # and end) keeps those holding a state's last word whole ("redirect" is not "red"), read on those rows only.
        stated = (
            lessons.alias(search_vector=lesson_search_vector())
            .filter(search_vector=query)
            .filter(content__iregex=rf"\m(?:{'|'.join(STATE_ENDS)})\M")
        )
    else:
        stated = lessons.filter(content__iregex=states_regex(r"\b"))
    labelled_kind = lessons.alias(lower_kind=Lower("kind")).filter(lower_kind__in=EPHEMERAL_LABELS)
    tags = LessonTag.objects.filter(account_id=account_id).alias(lower_tag=Lower("tag"))
    labelled_tag = lessons.filter(pk__in=tags.filter(lower_tag__in=EPHEMERAL_LABELS).values("lesson_id"))
    return stated.values_list("pk", flat=True).union(
        labelled_kind.values_list("pk", flat=True), labelled_tag.values_list("pk", flat=True)
    )
