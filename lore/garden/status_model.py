"""A second reader for statuses, learned: a logistic regression over a lesson's words, the shapes of its numbers
and names, its kind and tags, and what the grammar (`lore.garden.status_grammar`) read in its sentences.

The grammar finds about four statuses in five on lore nobody here wrote (docs/gardener.md, "Evaluation") and no
longer gains from more hand-written rules. What it misses are mostly sentences it reads and then refuses: a status
beside an imperative ("… running concurrently on prod, don't deploy"), a status with no subject it knows ("feature
flag new_checkout_flow ON in staging for QA pass"), a status in a fragment. The model reads a lesson the grammar
refused, and calls it a status when it is at least `threshold` sure; and it reads a lesson the grammar accepted,
and overrules it when it is less than `veto` sure (a how-to the grammar misread: "Replay dead-lettered webhooks
with …").

It is trained on the development corpus only (`lore.garden.status_training`, `make status-model`), never on a
held-out set, and ships as `status_model.json` beside this module: words and weights, with the files it was
trained on and their digests. Reading a lesson needs no library: a few regular expressions and dictionary
lookups, about 20 µs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

MODEL_PATH = Path(__file__).with_name("status_model.json")

# Words: a run of word characters that may hold dots, slashes, colons, dashes and apostrophes inside
# ("v0.91.0", "fix/empty-config", "14:05", "don't"); an issue or PR number; a mention; a few punctuation marks.
_TOKENS = re.compile(r"#\d+|!\d+|@\w+|\w(?:[\w.'/:%-]*\w)?%?|[!?;:()—–]")
# What a token is when it is a number or an identifier rather than a word: its shape, not its spelling.
_SHAPES = (
    (re.compile(r"(?=[a-f]*\d)(?=\d*[a-f])[0-9a-f]{7,40}"), "<sha>"),
    (re.compile(r"\d{1,2}:\d{2}(?::\d{2})?"), "<time>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}"), "<date>"),
    (re.compile(r"\d+(?:\.\d+)?%"), "<percent>"),
    (re.compile(r"\d[\d,]*"), "<number>"),
    (re.compile(r"v?\d+(?:\.\d+)+\w*"), "<version>"),
    (re.compile(r"[#!]\d+"), "<ref>"),
    (re.compile(r"@\w+"), "<mention>"),
    (re.compile(r".*\d.*"), "<id>"),
)


def shape_of(token: str) -> str | None:
    """The shape a number, a hash, a time, a reference or an identifier holding a digit stands for; None for a
    word."""
    if token.isalpha() or "'" in token:
        return None
    for pattern, shape in _SHAPES:
        if pattern.fullmatch(token.lower()):
            return shape
    return None


@lru_cache(maxsize=8_192)
def _token(token: str) -> tuple[str, str, bool]:
    """What a token gives: its word (lowercased) or shape, its ending's feature ("end:ing") for a longer word,
    and whether it is a capitalised word (a name, inside a sentence)."""
    shape = shape_of(token)
    if shape is not None:
        return shape, "", False
    word = token.lower()
    return word, "end:" + word[-3:] if len(token) > 4 else "", token[0].isupper() and token[1:].islower()


@dataclass(frozen=True)
class GrammarReading:
    """What the grammar read in a lesson's sentences: how many state a status, and whether any of the others
    states a rule, is weak (a condition or advice) or a plan."""

    sentences: int
    statuses: int
    rule: bool
    weak: bool
    plan: bool


def features(content: str, kind: str, tags: Sequence[str], reading: GrammarReading) -> set[str]:
    """The features the model weighs: each word (lowercased) or shape, each pair of neighbours, each longer word's
    last three letters, capitalised words inside a sentence (names), the kind, the tags, the grammar's reading,
    whether the text ends as a sentence does, and its length in words (bucketed)."""
    found: set[str] = set()
    words: list[str] = []
    for at, token in enumerate(_TOKENS.findall(content)):
        word, ending, capitalised = _token(token)
        words.append(word)
        if ending:
            found.add(ending)
        if capitalised and at > 0:
            found.add("<name>")
    found.update("w:" + word for word in words)
    found.update(f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False))
    found.add("kind:" + kind.lower())
    found.update("tag:" + tag.lower() for tag in tags)
    found.add(f"words:{min(6, len(words) // 8)}")
    found.add(f"sentences:{min(4, reading.sentences)}")
    for name, value in (
        ("grammar:status", reading.statuses > 0),
        ("grammar:rule", reading.rule),
        ("grammar:weak", reading.weak),
        ("grammar:plan", reading.plan),
        ("ends-as-sentence", content.rstrip().endswith((".", "!", "?"))),
    ):
        if value:
            found.add(name)
    return found


@dataclass(frozen=True)
class StatusModel:
    weights: dict[str, float]
    bias: float
    threshold: float  # a lesson the grammar refused is a status from this sureness on
    veto: float = 0.0  # a status the grammar found is not one below this sureness

    def score(self, found: Iterable[str]) -> float:
        """How sure the model is that a lesson with these features states a status (0–1)."""
        z = self.bias + sum(self.weights.get(feature, 0.0) for feature in found)
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def reasons(self, found: Iterable[str], count: int = 3) -> list[str]:
        """What in the lesson's words weighed most toward a status, as a person reads it ("still", "a commit
        hash", "waiting on"); the kind, the length and the grammar's reading only when its words weighed nothing."""
        weighed = sorted(((self.weights.get(f, 0.0), f) for f in found), reverse=True)
        toward = [f for w, f in weighed if w > 0]
        wording = [f for f in toward if f.startswith(("w:", "b:", "end:")) or f == "<name>"]
        return [_readable(feature) for feature in (wording or toward)[:count]]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StatusModel:
        return cls(
            weights=dict(data["weights"]),
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
            veto=float(data.get("veto", 0.0)),
        )


_SHAPE_NAMES = {
    "<sha>": "a commit hash",
    "<time>": "a time of day",
    "<date>": "a date",
    "<percent>": "a percentage",
    "<number>": "a number",
    "<version>": "a version",
    "<ref>": "a PR or issue number",
    "<mention>": "an @mention",
    "<id>": "an identifier",
    "<name>": "a name",
}


def _readable(feature: str) -> str:
    """A feature as a person reads it: a word or two in quotes (a shape by what it stands for), a word's ending,
    or what the feature says ("kind:note")."""
    prefix, rest = ([*feature.split(":", 1), ""])[:2]
    if prefix in ("w", "b"):
        words = rest.split(" ")
        if len(words) == 1 and words[0] in _SHAPE_NAMES:
            return _SHAPE_NAMES[words[0]]
        return "“" + " ".join(f"[{_SHAPE_NAMES[w]}]" if w in _SHAPE_NAMES else w for w in words) + "”"
    if prefix == "end":
        return f"a word ending in “{rest}”"
    return _SHAPE_NAMES.get(feature, feature)


@cache
def status_model() -> StatusModel:
    """The shipped model, read once per process."""
    return StatusModel.from_json(json.loads(MODEL_PATH.read_text()))
