"""Signatures kept at write time: a MinHash of each lesson's wording (the roots of its words, lore.garden.text.wording;
datasketch), cut into LSH bands whose hashes are stored in LessonBand. Two lessons whose wordings have Jaccard
similarity s share at least one band with probability 1 - (1 - s^ROWS)^BANDS: 0.65 at s = 0.4, 0.88 at s = 0.5, 0.97
at s = 0.6, 0.998 at s = 0.7 (docs/gardener.md). A copy's wording is at least as alike as its shingles (a reworded
copy keeps its words, not their pairs), so one signature finds the candidates of both measures. The inventory
groups band hashes in SQL and checks each candidate pair with the exact similarities, so a band collision never
decides.

Every writer keeps them: lesson_write (one lesson), the import and the demo/bench loader (a batch at a time, one
DELETE and one INSERT per batch).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from datasketch import MinHash

from lore.garden.text import family_of, title_of, wording_of_title
from lore.models import Account, Lesson, LessonBand, SupersedesClaim
from lore.scopes import Address

BANDS = 16
ROWS = 3
NUM_PERM = BANDS * ROWS
SEED = 1
# Stored band hashes depend on the scheme: named, so a datasketch upgrade cannot change it silently.
SCHEME = "affine32"
_PERMUTATIONS = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME).permutations  # computed once, shared


def _signed64(digest: bytes) -> int:
    return int.from_bytes(digest[:8], "big", signed=True)


def band_hashes(scope: str, key: str, content: str) -> tuple[int, ...]:
    """The BANDS band hashes of a lesson (empty when it has no words). Each mixes in the scope family and the
    band's number, so equal hashes mean "same family, same band, same MinHash rows"."""
    return _bands(family_of(scope), title_of(key), content)


@lru_cache(maxsize=8192)
def _bands(family_name: str, title: str, content: str) -> tuple[int, ...]:
    word_set = wording_of_title(title, content)
    if not word_set:
        return ()
    minhash = MinHash(num_perm=NUM_PERM, seed=SEED, scheme=SCHEME, permutations=_PERMUTATIONS)
    minhash.update_batch([w.encode() for w in sorted(word_set)])
    values = minhash.hashvalues
    family = family_name.encode()
    return tuple(
        _signed64(
            hashlib.blake2b(
                family + b"|" + bytes([band]) + values[band * ROWS : (band + 1) * ROWS].tobytes(),
                digest_size=8,
            ).digest()
        )
        for band in range(BANDS)
    )


def band_rows(account_id: int, lessons: Iterable[tuple[int, str, str, str]]) -> list[LessonBand]:
    """LessonBand objects for (id, scope, key, content) rows."""
    return [
        LessonBand(account_id=account_id, lesson_id=pk, hash=value)
        for pk, scope, key, content in lessons
        for value in band_hashes(scope, key, content)
    ]


def signatures_sync(account: Account, lessons: Sequence[Lesson]) -> None:
    """Make these lessons' bands match their current text: one DELETE and one INSERT for the batch."""
    if not lessons:
        return
    LessonBand.objects.filter(lesson_id__in=[lesson.pk for lesson in lessons]).delete()
    LessonBand.objects.bulk_create(
        band_rows(account.pk, ((x.pk, x.scope, x.key, x.content) for x in lessons)), batch_size=5000
    )


def claims_sync(account: Account, claims_by_lesson: Mapping[int, Sequence[Address]]) -> None:
    """Make each lesson's explicit `supersedes` claims the ones it was last written with."""
    if not claims_by_lesson:
        return
    SupersedesClaim.objects.filter(lesson_id__in=list(claims_by_lesson)).delete()
    SupersedesClaim.objects.bulk_create(
        [
            SupersedesClaim(account=account, lesson_id=lesson_id, scope=address.scope, key=address.key)
            for lesson_id, addresses in claims_by_lesson.items()
            for address in dict.fromkeys(addresses)
        ]
    )
