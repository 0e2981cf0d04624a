"""Possible duplicates: lessons of one scope family that state the same fact in other words, which the shingles
cannot match (docs/gardener.md, "Paraphrases"). Optional (LORE_GARDEN_SEMANTIC and the `semantic` extra) and
review-only: a finding's members all carry the action `review`, and nothing is retired until a person picks the
lesson to keep (lore.garden.apply).

Candidates are exact dot products of stored unit vectors within a family block (at most GARDEN_SEMANTIC_BLOCK_MAX
lessons, newest first); a nightly run compares only lessons embedded since against their block. A pair is proposed
at cosine >= SEMANTIC_THRESHOLD when its lessons state the same numbers (lore.garden.text.numbers_of, as the
shingle method), neither says it supersedes another, neither is a status statement, and the shingle method would
not already propose it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import numpy as np

from lore.garden.detect import DUPLICATE_THRESHOLD, ROW_FIELDS, Examined, Row, says_it_replaces
from lore.garden.embeddings import (
    MODEL_NAME,
    embedding_estimate,
    embeddings_pending,
    embeddings_sync,
    semantic_check,
    semantic_enabled,
    vectors_of,
)
from lore.garden.ephemera import ephemera_match
from lore.garden.record import findings_insert
from lore.garden.text import family_of, jaccard, names_of, numbers_of, shingles
from lore.limits import GARDEN_SEMANTIC_BLOCK_MAX, GARDEN_SEMANTIC_EMBED_MAX, GARDEN_SEMANTIC_NEIGHBOURS
from lore.models import Account, Finding, FindingMember, GardenRun, Lesson, LessonEmbedding, SupersedesClaim

KIND = Finding.Kind.POSSIBLE_DUPLICATE
REVIEW, KEEP, RETIRE = FindingMember.Action.REVIEW, FindingMember.Action.KEEP, FindingMember.Action.RETIRE
# Cosine of two lessons' embeddings from which they are a possible duplicate: chosen on the development corpora
# (docs/gardener.md has the table); the held-out corpus was never used to choose it.
SEMANTIC_THRESHOLD = 0.67
# Below it, a pair whose lessons name at least SEMANTIC_NAMES_MIN of the same things (files, identifiers, versions,
# numbers: lore.garden.text.names_of) is a possible duplicate from this cosine: a paraphrase rewords a fact, not the
# names in it. Chosen on the development corpora (docs/gardener.md, "Paraphrases"): paraphrase recall 0.60 -> 0.67,
# no false pair added.
SEMANTIC_NAMED_THRESHOLD = 0.55
SEMANTIC_NAMES_MIN = 2
MEASURE = "cosine of WordLlama embeddings (l2_supercat, 256 dimensions) of the title and content"
# Rows of the similarity matrix computed at once (memory: CHUNK x block floats and indices).
CHUNK = 256


def semantic_inventory_check() -> None:
    """When the semantic gardener is on, load its model now, so that an inventory without the extra fails at
    once with a message naming it (SemanticUnavailable) rather than after the other detectors."""
    if semantic_enabled():
        semantic_check()


def _order(row: Row) -> tuple[int, float, int]:
    """The suggested keeper first: most Chosen, then newest, then highest id (as the shingle method)."""
    return (-row.opened_count, -row.created_at.timestamp(), -row.id)


def _families(account: Account, fresh: set[int], full: bool) -> list[str]:
    embeddings = LessonEmbedding.objects.filter(account=account, model=MODEL_NAME)
    if not full:
        embeddings = embeddings.filter(lesson_id__in=fresh)
    return sorted(set(embeddings.values_list("family", flat=True)))


def _block(account: Account, family: str) -> tuple[list[int], np.ndarray]:
    """The family's active lessons' ids and vectors, newest first, at most GARDEN_SEMANTIC_BLOCK_MAX."""
    pairs = list(
        LessonEmbedding.objects.filter(
            account=account, family=family, model=MODEL_NAME, lesson__archived_at__isnull=True
        )
        .order_by("-lesson_id")
        .values_list("lesson_id", "vector")[: GARDEN_SEMANTIC_BLOCK_MAX.value]
    )
    return [pk for pk, _ in pairs], vectors_of(vector for _, vector in pairs)


def similar_pairs(
    ids: list[int], vectors: np.ndarray, anchors: set[int] | None
) -> dict[tuple[int, int], float]:
    """Pairs (low id, high id) of the block at or above SEMANTIC_NAMED_THRESHOLD, each lesson paired with at most its
    GARDEN_SEMANTIC_NEIGHBOURS closest (a family of look-alike lessons yields block x neighbours pairs, not
    block squared); with `anchors`, only the neighbours of those lessons."""
    rows = [i for i, pk in enumerate(ids) if anchors is None or pk in anchors]
    closest = min(GARDEN_SEMANTIC_NEIGHBOURS.value + 1, len(ids))  # + the lesson itself
    found: dict[tuple[int, int], float] = {}
    for start in range(0, len(rows), CHUNK):
        chunk = rows[start : start + CHUNK]
        scores = vectors[chunk] @ vectors.T
        top = np.argpartition(-scores, closest - 1, axis=1)[:, :closest]
        best = np.take_along_axis(scores, top, axis=1)
        for r, c in zip(*np.nonzero(best >= SEMANTIC_NAMED_THRESHOLD), strict=True):
            a, b = ids[chunk[r]], ids[top[r, c]]
            if a != b:
                found[(min(a, b), max(a, b))] = float(best[r, c])
    return found


def _eligible(rows: dict[int, Row], claimers: set[int]) -> set[int]:
    """Lessons that may be paraphrases: not a supersession (the superseded detector's) nor a status statement."""
    return {
        pk
        for pk, row in rows.items()
        if pk not in claimers
        and not says_it_replaces(row.content)
        and ephemera_match(row.content, row.kind, row.tags) is None
    }


def _same_fact(a: Row, b: Row, score: float) -> bool:
    """Same numbers (versions, ports, limits are facts), close enough (at SEMANTIC_THRESHOLD, or below it naming
    the same things), and not a pair the shingle method proposes itself."""
    if numbers_of(a.content) != numbers_of(b.content):
        return False
    if score < SEMANTIC_THRESHOLD and len(shared_names(a, b)) < SEMANTIC_NAMES_MIN:
        return False
    return jaccard(shingles(a.key, a.content), shingles(b.key, b.content)) < DUPLICATE_THRESHOLD


def shared_names(a: Row, b: Row) -> list[str]:
    """The names both lessons mention, sorted."""
    return sorted(names_of(a.content) & names_of(b.content))


def review_pairs(
    rows: dict[int, Row], pairs: dict[tuple[int, int], float]
) -> Iterator[list[tuple[Row, float]]]:
    """Greedy around the suggested keeper: the first lesson left is paired with every remaining lesson similar to
    it, one finding per pair (a person judges two lessons at a time, never a keeper for a group of which one
    member may be a look-alike); repeat with the lessons it was not paired with."""
    remaining = sorted(rows.values(), key=_order)
    while len(remaining) > 1:
        anchor = remaining[0]
        others: list[tuple[Row, float]] = []
        members: list[tuple[Row, float]] = []
        for row in remaining[1:]:
            score = pairs.get((min(anchor.id, row.id), max(anchor.id, row.id)))
            (members if score is not None else others).append((row, score or 0.0))
        for row, score in members:
            yield [(anchor, score), (row, score)]
        remaining = [row for row, _ in others] if members else remaining[1:]


def possible_duplicates(
    account: Account, *, fresh: set[int], full: bool, taken: set[int], examined: Examined
) -> Iterator[list[tuple[Row, float]]]:
    """Clusters of possible duplicates, family by family. `taken`: lessons already in an open finding."""
    claimers = set(SupersedesClaim.objects.filter(account=account).values_list("lesson_id", flat=True))
    for family in _families(account, fresh, full):
        ids, vectors = _block(account, family)
        examined.add(KIND, len(ids))
        pairs = similar_pairs(ids, vectors, None if full else fresh)
        involved = {pk for pair in pairs for pk in pair} - taken
        rows = {
            values[0]: Row(*values)
            for values in Lesson.objects.filter(account=account, pk__in=involved).values_list(*ROW_FIELDS)
        }
        eligible = _eligible(rows, claimers)
        kept = {
            pair: score
            for pair, score in pairs.items()
            if pair[0] in eligible and pair[1] in eligible and _same_fact(rows[pair[0]], rows[pair[1]], score)
        }
        linked = {pk for pair in kept for pk in pair}
        yield from review_pairs({pk: rows[pk] for pk in linked}, kept)


def _finding(
    account: Account, members: list[tuple[Row, float]], run: GardenRun, now: datetime
) -> tuple[Finding, list[FindingMember]]:
    from lore.garden.inventory import fingerprint  # the inventory calls this module: imported when used

    scores = [score for _, score in members[1:]]
    names = shared_names(members[0][0], members[1][0]) if min(scores) < SEMANTIC_THRESHOLD else []
    finding = Finding(
        account=account,
        kind=KIND,
        family=family_of(members[0][0].scope)[:600],
        fingerprint=fingerprint(KIND, [(row, REVIEW) for row, _ in members]),
        evidence={
            "similarity_min": round(min(scores), 3),
            "similarity_max": round(max(scores), 3),
            "threshold": SEMANTIC_THRESHOLD,
            "measure": MEASURE,
            **({"names": names, "named_threshold": SEMANTIC_NAMED_THRESHOLD} if names else {}),
            "superseded_by": None,
            "review_only": True,
        },
        summary="two lessons may state the same thing in other words: choose the one to keep",
        garden_run=run,
        created_at=now,
    )
    rows = [
        FindingMember(
            lesson_id=row.id,
            action=KEEP if row.protected else REVIEW,
            updated_at=row.updated_at,
            why=_why(row, i, score, names),
        )
        for i, (row, score) in enumerate(members)
    ]
    return finding, rows


def _why(row: Row, position: int, score: float, names: list[str]) -> str:
    if row.protected:
        return "kept: protected lessons are never retired"
    if position == 0:
        return "listed first: the most Chosen, then the newest (a suggestion: you choose the keeper)"
    if names:
        return f"similarity {score:.2f} to the first, and both name {', '.join(names[:6])}"
    return f"similarity {score:.2f} to the first"


def _record(account: Account, found: list[list[tuple[Row, float]]], run: GardenRun, now: datetime) -> int:
    """Record new possible-duplicate findings (not those recorded before: the same fingerprint)."""
    return len(findings_insert(account, [_finding(account, members, run, now) for members in found]))


def semantic_inventory(
    account: Account,
    run: GardenRun,
    *,
    since: datetime | None,
    examined: Examined,
    taken: set[int],
    room: int,
    now: datetime,
) -> int:
    """When the semantic gardener is on: say how long embedding will take (the run's phase), embed what was
    written since its vector, then record possible duplicates (at most `room` findings). Answers how many."""
    if not semantic_enabled() or room <= 0:
        return 0
    semantic_check()
    waiting = embeddings_pending(account)
    pending = waiting[: GARDEN_SEMANTIC_EMBED_MAX.value]
    later = f" ({len(waiting) - len(pending):,} more next run)" if len(waiting) > len(pending) else ""
    GardenRun.objects.filter(pk=run.pk).update(
        phase=f"{KIND}: embedding {len(pending):,} lessons, {embedding_estimate(len(pending))}{later}"[:200],
        examined=examined.total,
    )
    fresh = embeddings_sync(account, pending)
    GardenRun.objects.filter(pk=run.pk).update(phase=f"{KIND}: comparing", examined=examined.total)
    # Lessons already proposed for retirement, or to review in another possible duplicate, are left out; a kept
    # lesson is not: a paraphrase of a near-duplicate group's keeper is exactly what this detector is for.
    open_members = FindingMember.objects.filter(
        finding__account=account, finding__status=Finding.Status.OPEN, action__in=[RETIRE, REVIEW]
    )
    taken = taken | set(open_members.values_list("lesson_id", flat=True))
    found = []
    for members in possible_duplicates(
        account, fresh=fresh, full=since is None, taken=taken, examined=examined
    ):
        found.append(members)
        if len(found) >= room:
            break
    return _record(account, found, run, now)
