"""Ephemera: statements of a momentary state — CI results, PR/MR states, run and worker liveness, a flagged line —
that are wrong a week later (seed 002's taxonomy; docs/gardener.md). The grammar that tells a status from a rule
is `lore.garden.status_grammar`: a lesson is ephemera when at least one of its sentences states a status and none
states a rule, a habit or advice; or when its kind or a tag says it is a status and nothing in it is durable.

The inventory reads only `ephemera_candidates` — lessons holding a state word (the grammar's STATES) or a status
label — and runs the grammar on those alone; the filter is a superset of what the grammar accepts (every
status sentence holds a state; tested on both databases), so it changes no verdict, only how many rows the grammar
reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.db.models.functions import Lower

from lore.garden.status_grammar import (
    MOMENT_DEIXIS,
    MOMENTARY_PHRASES,
    PRESENT_DEIXIS,
    STATES,
    Verdict,
    plan_sentence,
    rule_sentence,
    sentences_of,
    status_verdict,
    weak_sentence,
)
from lore.garden.status_model import GrammarReading, features, status_model
from lore.limits import GARDEN_BATCH
from lore.models import LessonTag


def _split_top(pattern: str, separator: str) -> list[str]:
    """`pattern` cut at each top-level `separator` (one inside a group stays in its group)."""
    parts, depth, current, at = [], 0, "", 0
    while at < len(pattern):
        if depth == 0 and pattern.startswith(separator, at):
            parts.append(current)
            current, at = "", at + len(separator)
            continue
        depth += {"(": 1, ")": -1}.get(pattern[at], 0)
        current, at = current + pattern[at], at + 1
    return [*parts, current]


# Words too common to find a status by: a phrase is found by its other words ("this morning" by "morning").
_COMMON = frozenset(
    "this for as since until at the in on a an of so to is are by with after right not".split()
)


def _anchors(state: str) -> list[str]:
    """The words every match of a state holds whole, as the regular expressions they are: its longest plain word
    that is not a common one (`timed\\s+out` → timed, `on\\s+attempt\\s+\\d+` → attempt, `crash(?:ing|ed)` →
    itself); a state whose plain words are all common gives the anchors of its last group's alternatives."""
    tokens = [t for part in _split_top(state, r"\s+") for t in _split_top(part, r"\s*") if t]
    words = [t for t in tokens if re.match(r"[a-z]", t) and t not in _COMMON]
    if words:
        return [max(words, key=lambda word: len(re.match(r"[a-z]+", word).group(0)))]  # type: ignore[union-attr]
    groups = [t for t in tokens if t.startswith("(?:") and t.endswith(")")]
    if not groups:  # only common words: the longest of them, however often it occurs
        common = [t for t in tokens if re.fullmatch(r"[a-z]+", t)]
        if not common:
            raise ValueError(f"the state {state!r} has no word to find it by")
        return [max(common, key=len)]
    inner = groups[-1][3:-1]
    return [word for alternative in _split_top(inner, "|") for word in _anchors(alternative)]


# The word each state holds whole (STATE_ENDS), with the time words a job in progress is stated with ("is taking a
# checkpoint right now"): a lesson holding a status sentence holds one.
_WORD_STATES = _split_top(f"{STATES}|{PRESENT_DEIXIS}|{MOMENT_DEIXIS}", "|")
# The momentary phrases name their own words ("m" of "I'm" is a run of word characters of its own).
PHRASE_WORDS = frozenset(word for words in MOMENTARY_PHRASES.values() for word in words)
# "…, Joel is on it.": the one momentary phrase whose words are all common ones, found by the phrase itself.
_ALL_COMMON_PHRASES = frozenset({r"on\s+it"})
STATE_ENDS = tuple(
    sorted({word for state in _WORD_STATES for word in _anchors(state)} | PHRASE_WORDS | _ALL_COMMON_PHRASES)
)


def states_regex(word_boundary: str) -> str:
    """The states' last words as one case-insensitive search between word boundaries (`\\b` for Python): a
    superset of what the grammar accepts. `holds_state` makes the same test faster."""
    return rf"{word_boundary}(?:{'|'.join(STATE_ENDS)}){word_boundary}"


# `holds_state`: a state's last word that is a plain word is found whole when it is one of the text's runs of word
# characters (what `\b…\b` around letters means), by a set lookup; the few with a pattern inside
# ("cancell?ed", "on[\s-]call") by a small regular expression.
_PLAIN_ENDS = frozenset(word for word in STATE_ENDS if re.fullmatch(r"[a-z]+", word))
_PATTERN_ENDS = re.compile(rf"\b(?:{'|'.join(w for w in STATE_ENDS if w not in _PLAIN_ENDS)})\b", re.I)
_RUNS = re.compile(r"\w+")


def holds_state(content: str) -> bool:
    """Whether `content` holds a state's last word whole: `states_regex(r"\\b")`'s test (tested equal on every
    corpus lesson), some 50 times faster than one regular expression of 270 alternatives, in Python or in
    PostgreSQL (about 50 µs a lesson either way: 45 s of a 1M inventory)."""
    lowered = content.lower()
    return not _PLAIN_ENDS.isdisjoint(_RUNS.findall(lowered)) or _PATTERN_ENDS.search(lowered) is not None


# Kinds that hold durable knowledge by definition (a quoted status in a decision is an example, not a state).
DURABLE_KINDS = frozenset({"decision", "preference", "convention", "contract", "architecture", "fact"})
# A kind or tag that says the lesson records a status.
EPHEMERAL_LABELS = frozenset(
    {"status", "ephemeral", "transient", "ci-status", "ci-result", "pr-state", "pr-status", "run-state"}
)


# The pattern of a match the learned reader made, and of one only a kind or tag made.
LEARNED = "learned"
LABEL = "label"


@dataclass(frozen=True)
class EphemeraMatch:
    pattern: str  # the grammar's rule ("subject_state", "state_deixis"), LABEL, or LEARNED
    matched: str  # the words it fired on, the label, or (LEARNED) how sure the reader is and from what

    def said(self) -> str:
        """Why, as a finding says it: the words a rule fired on in quotes; the reader's account as it is."""
        return f"{self.pattern}: {self.matched if self.pattern == LEARNED else f'“{self.matched}”'}"


def read_grammar(content: str, *, whole: bool = False) -> tuple[list[Verdict], GrammarReading]:
    """The status verdicts of `content`'s sentences, and what the grammar read in them: up to the first sentence
    that states a rule, which settles the lesson (durable, and the learned reader is not asked); `whole` reads
    every sentence (the reader's training reads whole lessons)."""
    statuses: list[Verdict] = []
    rule = weak = plan = False
    sentences = sentences_of(content)
    for sentence in sentences:
        verdict = status_verdict(sentence)
        if verdict is not None:
            statuses.append(verdict)
        elif rule_sentence(sentence):
            rule = True
            if not whole:
                break
        else:
            weak = weak or weak_sentence(sentence)
            plan = plan or plan_sentence(sentence)
    return statuses, GrammarReading(len(sentences), len(statuses), rule, weak, plan)


def grammar_match(
    statuses: list[Verdict], reading: GrammarReading, kind: str, tags: Sequence[str]
) -> EphemeraMatch | None:
    """The grammar's verdict on a lesson: at least one sentence states a status and none states a rule; a
    condition or advice beside a status ("Don't kill it.") leaves it a status only when the status is anchored in
    a moment. A status label (kind or tag) stands for a status sentence."""
    if reading.rule:
        return None
    if statuses and (not reading.weak or reading.plan or any(verdict.anchored for verdict in statuses)):
        return EphemeraMatch(statuses[0].rule, statuses[0].matched[:200])
    labels = {kind.lower(), *(t.lower() for t in tags)} & EPHEMERAL_LABELS
    if labels and not statuses and not reading.weak:
        return EphemeraMatch(LABEL, sorted(labels)[0])
    return None


def learned_reads(content: str, reading: GrammarReading) -> bool:
    """Whether the learned reader is asked about a lesson the grammar refused: only when it holds a state (so the
    inventory's pre-filter finds every lesson it could accept) and no sentence of it states a rule (must, never,
    always, usually…): a lesson that states a rule beside a status keeps its rule. A condition or advice beside
    a status ("…, 2M rows to go. Wait for it before deploying.") is the model's to weigh."""
    return not reading.rule and holds_state(content)


def ephemera_match(content: str, kind: str = "", tags: Sequence[str] = ()) -> EphemeraMatch | None:
    """Why this lesson is ephemera, or None when it is not: the grammar's verdict (`grammar_match`) unless the
    learned reader (`lore.garden.status_model`) is less than its veto sure of it; or, where the grammar refuses a
    lesson the reader may read (`learned_reads`), the reader's, when it is at least its threshold sure. A lesson
    of a durable kind is never ephemera."""
    if kind.lower() in DURABLE_KINDS:
        return None
    statuses, reading = read_grammar(content)
    match = grammar_match(statuses, reading, kind, tags)
    if match is not None and match.pattern == LABEL:
        return match
    if match is None and not learned_reads(content, reading):
        return None
    model = status_model()
    found = features(content, kind, tags, reading)
    sure = model.score(found)
    if match is not None:
        return match if sure >= model.veto else None
    if sure < model.threshold:
        return None
    return EphemeraMatch(
        LEARNED, f"{sure:.0%} sure it states a status, from " + ", ".join(model.reasons(found))
    )


def ephemera_candidates(account_id: int, lessons: QuerySet[Any]) -> list[int]:
    """The ids of the lessons of `lessons` (an account's active ones) that could be ephemera: not of a durable
    kind, and holding a state (`holds_state`) or a status label as kind or tag. Every lesson `ephemera_match`
    accepts is among them.

    Each lesson's kind and content are read once, streamed GARDEN_BATCH rows at a time, and tested in Python: at 1M
    lessons 7.7 s for 666k contents, where PostgreSQL's full-text index then its regular expression on the 462k rows
    the index found took 40 s (docs/gardener.md, "At scale"), and on a small store the index's plan computed every
    lesson's tsvector (6.7 s for 4,600 lessons). The lessons tagged with a status label are one query on the tags
    beforehand: joined to the lessons, a plan made before the statistics knew the store probed the tags once per
    lesson (1.4 s for 9,700 lessons, over the statement timeout on a busy machine)."""
    tags = LessonTag.objects.filter(account_id=account_id).alias(lower_tag=Lower("tag"))
    tagged = set(tags.filter(lower_tag__in=EPHEMERAL_LABELS).values_list("lesson_id", flat=True))
    rows = (
        lessons.exclude(kind__in=DURABLE_KINDS)
        .order_by()
        .values_list("pk", "kind", "content")
        .iterator(chunk_size=GARDEN_BATCH.value)
    )
    return sorted(
        pk
        for pk, kind, content in rows
        if pk in tagged or kind.lower() in EPHEMERAL_LABELS or holds_state(content)
    )
