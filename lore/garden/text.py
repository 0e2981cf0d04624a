"""How the gardener reads a lesson: its normalised words, its shingles and the exact similarity of two lessons.

A lesson's "title" is its key with separators turned into spaces and counter-like all-digit words dropped
(`use-uv-000123` reads as "use uv"). Shingles are the words and the pairs of adjacent words, so that two lessons
using the same words in a different order ("use uv instead of pip" / "use pip instead of uv") stay apart.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lore.scopes import repo_of

WORD = re.compile(r"[a-z0-9][a-z0-9+#]*(?:[._/'][a-z0-9+#]+)*")
NUMBER = re.compile(r"\d")
# Words too common to tell two lessons apart.
STOPWORDS = frozenset(
    "a an the and or of to in on at for by with from as is are was were be been it its this that these those "
    "we you they i our your their so than then there here into over under".split()
)


def family_of(scope: str) -> str:
    """The scope family a lesson belongs to: a repo and its branches are one family, any other scope its own."""
    return repo_of(scope) or scope


def words_of(text: str) -> list[str]:
    """Lower-cased words of `text`, stop words dropped."""
    return [w for w in WORD.findall(text.lower()) if w not in STOPWORDS]


def title_words(key: str) -> list[str]:
    """The key as words, all-digit words (counters, dates in slugs) dropped."""
    return [w for w in words_of(re.sub(r"[-_]+", " ", key)) if not w.isdigit()]


def title_of(key: str) -> str:
    """The normalised title: the key's words, counters dropped."""
    return " ".join(title_words(key))


def shingles(key: str, content: str) -> frozenset[str]:
    """Words and adjacent word pairs of the normalised title and content."""
    return shingles_of_title(title_of(key), content)


@lru_cache(maxsize=8192)
def shingles_of_title(title: str, content: str) -> frozenset[str]:
    """`shingles` of an already normalised title (cached: bulk loaders repeat texts)."""
    words = title.split() + words_of(content)
    return frozenset(words) | frozenset(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))


def numbers_of(content: str) -> frozenset[str]:
    """The words of the content that hold a digit (versions, limits, ids): two lessons that differ in one state
    different facts ("Python 3.11" / "Python 3.12"), so they are never near duplicates."""
    return frozenset(w for w in words_of(content) if NUMBER.search(w))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def containment(part: frozenset[str], whole: frozenset[str]) -> float:
    """How much of `part` is in `whole`: |part ∩ whole| / |part|."""
    return len(part & whole) / len(part) if part else 0.0
