"""How the gardener reads a lesson: its normalised words, its shingles, the facts its numbers state, and the exact
similarity of two lessons.

A lesson's "title" is its key with separators turned into spaces and counter-like all-digit words dropped
(`use-uv-000123` reads as "use uv"). Shingles are the words and the pairs of adjacent words, so that two lessons
using the same words in a different order ("use uv instead of pip" / "use pip instead of uv") stay apart.

A date that only says when a lesson was written or checked — a leading "as of 2026-07-03:", a trailing "(checked
14 March 2026)" — is provenance, not part of the fact (seed 002 asks for it on every retain): it is left out of
both the shingles and the numbers. Every other number (a version, a port, a limit, a count) is a fact.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lore.scopes import repo_of

WORD = re.compile(r"[a-z0-9][a-z0-9+#]*(?:[._/'][a-z0-9+#]+)*")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# Words too common to tell two lessons apart.
STOPWORDS = frozenset(
    "a an the and or of to in on at for by with from as is are was were be been it its this that these those "
    "we you they i our your their so than then there here into over under".split()
)
# "don't" and "do not" state the same thing.
CONTRACTIONS = {"n't": " not", "'re": " are", "'ll": " will", "'ve": " have"}
_CONTRACTION = re.compile(r"(?:can't|won't|n't|'re|'ll|'ve)\b")

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
# A calendar date: 2026-07-03, 2026/07/03, 3 July 2026, July 3rd, 2026, July 2026.
DATE = (
    rf"(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{4}}/\d{{1,2}}/\d{{1,2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH},?\s+\d{{4}}|"
    rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|{_MONTH}\s+\d{{4}})"
)
# The words that make a date provenance: when the lesson was stated or checked, not what it states.
_AS_OF = r"(?:as\s+of|as\s+at)"
_STAMP = (
    rf"(?:{_AS_OF}|on|checked|verified|confirmed|updated|reviewed|noted|written|"
    r"last\s+(?:checked|verified|confirmed|updated|reviewed))"
)
_DATED = rf"(?:{_STAMP}\s+(?:{DATE})|{_AS_OF}\s+\d{{4}})"
# At the start: "as of 2026-07-03:", "As of 14 March 2026,", "[checked 2026-05-02]", "2026-07-03:".
LEADING_PROVENANCE = re.compile(
    rf"^\s*[\[(]?\s*(?:{_DATED}|{DATE}(?=\s*[\])]?\s*[:—–-]))\s*[\])]?\s*[:,;—–-]*\s*", re.I
)
# At the end: "… (checked 2026-05-02).", "… on 2026-02-01", "… — verified April 2026", "… (2026-05-02)".
TRAILING_PROVENANCE = re.compile(
    rf"[\s,;:—–-]*(?:[\[(]\s*(?:{_DATED}|{DATE})\s*[\])]|{_DATED})\s*[.!]?\s*$", re.I
)


def family_of(scope: str) -> str:
    """The scope family a lesson belongs to: a repo and its branches are one family, any other scope its own."""
    return repo_of(scope) or scope


def without_provenance(content: str) -> str:
    """The content without a leading or trailing date that says when it was stated or checked."""
    stripped = LEADING_PROVENANCE.sub("", content, count=1)
    return TRAILING_PROVENANCE.sub("", stripped, count=1)


def _stem(word: str) -> str:
    """Plural and third-person -s dropped ("checks" reads as "check"), nothing more: cheap and predictable."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word.isalpha():
        return word[:-1]
    return word


def words_of(text: str) -> list[str]:
    """Lower-cased words of `text`, contractions spelt out, stop words dropped, a plural -s dropped."""
    spelt = _CONTRACTION.sub(
        lambda m: {"can't": "can not", "won't": "will not"}.get(m.group(0), CONTRACTIONS.get(m.group(0), "")),
        text.lower(),
    )
    return [_stem(w) for w in WORD.findall(spelt) if w not in STOPWORDS]


def title_words(key: str) -> list[str]:
    """The key as words, all-digit words (counters, dates in slugs) dropped."""
    return [w for w in words_of(re.sub(r"[-_]+", " ", key)) if not w.isdigit()]


def title_of(key: str) -> str:
    """The normalised title: the key's words, counters dropped."""
    return " ".join(title_words(key))


# Below this many words of content, the key's words count too: a short lesson's slug says what it is about, a
# longer one's slug is whatever its writer chose (two agents stating one fact rarely pick one slug).
TITLE_WORDS_BELOW = 6


def shingles(key: str, content: str) -> frozenset[str]:
    """Words and adjacent word pairs of the content (and of the normalised title, for a short lesson)."""
    return shingles_of_title(title_of(key), content)


@lru_cache(maxsize=8192)
def shingles_of_title(title: str, content: str) -> frozenset[str]:
    """`shingles` of an already normalised title (cached: bulk loaders repeat texts)."""
    words = words_of(without_provenance(content))
    if len(words) < TITLE_WORDS_BELOW:
        words = title.split() + words
    return frozenset(words) | frozenset(f"{a} {b}" for a, b in zip(words, words[1:], strict=False))


def root_of(word: str) -> str:
    """A word without its inflection ("require", "required", "requires", "requiring" all read as "requir"), for
    the wording of a reworded copy: cruder than a stemmer, and the same on every run."""
    if not word.isalpha():
        return word
    for ending in ("ing", "ed", "es", "s"):
        if len(word) - len(ending) >= 3 and word.endswith(ending) and not word.endswith(("ss", "us", "is")):
            word = word[: -len(ending)]
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


@lru_cache(maxsize=8192)
def wording_of_title(title: str, content: str) -> frozenset[str]:
    """The roots of the content's words, order left out (and the title's, for a short lesson): what a copy keeps
    when it is reworded — "X needs Y" / "X requires Y, since …" share their words, not their word pairs."""
    words = words_of(without_provenance(content))
    if len(words) < TITLE_WORDS_BELOW:
        words = title.split() + words
    return frozenset(root_of(word) for word in words)


def wording(key: str, content: str) -> frozenset[str]:
    """`wording_of_title` of a lesson."""
    return wording_of_title(title_of(key), content)


@lru_cache(maxsize=8192)
def numbers_of(content: str) -> frozenset[str]:
    """The numbers the content states as facts (versions, ports, limits, counts, ids), its provenance date left
    out: two lessons that differ in one state different facts ("Python 3.11" / "Python 3.12"), so they are never
    duplicates, while "as of 2026-07-03: …" and "…" state the same one. "v1.2", "1.2" and "1.2," are one number."""
    return frozenset(n.replace(",", "") for n in NUMBER.findall(without_provenance(content)))


# A name: a word holding a joiner (detect_boxes, project.godot, fleet-telemetry-v2, 01:30), an inner capital (SaveGame,
# bit.band) or a digit (i64, 90).
NAME = re.compile(r"[\w$]+(?:[_./:@-][\w$]+)+|\b\w*[a-z][A-Z]\w*|\b\w*\d\w*")


def names_of(content: str) -> frozenset[str]:
    """The names a lesson mentions (files, identifiers, versions, numbers), lower-cased: what a paraphrase keeps
    however it rewords the rest."""
    return frozenset(name.lower() for name in NAME.findall(content))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / |a ∪ b| (0 for two empty sets)."""
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """How much of the smaller set is in the other: |a ∩ b| / min(|a|, |b|) (0 when one is empty)."""
    smaller = min(len(a), len(b))
    return len(a & b) / smaller if smaller else 0.0


def containment(part: frozenset[str], whole: frozenset[str]) -> float:
    """How much of `part` is in `whole`: |part ∩ whole| / |part|."""
    return len(part & whole) / len(part) if part else 0.0
