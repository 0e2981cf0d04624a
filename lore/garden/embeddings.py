"""Semantic embeddings of lessons, for the possible-duplicate detector (lore.garden.semantic, docs/gardener.md).

The model is WordLlama's `l2_supercat` at 256 dimensions: static token embeddings whose weights and tokenizer ship
inside its PyPI wheel (the optional extra `lore-explorer[semantic]`). They are loaded from the package's own files
with downloads disabled, so nothing is fetched at run time. Only the inventory worker embeds (never a request);
each lesson's unit vector is stored as float16 bytes in LessonEmbedding with the hash of the text it was computed
from, so a nightly run embeds only lessons written since. Nothing here imports the model until it is asked for:
the default install never loads it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Exists, OuterRef

from lore.garden.text import family_of, title_of
from lore.limits import GARDEN_BATCH
from lore.models import Account, Lesson, LessonEmbedding

# Named with its variant and size: a stored vector from another model is re-embedded, never compared.
MODEL_NAME = "wordllama-l2_supercat-256"
DIMENSIONS = 256
EXTRA = "lore-explorer[semantic]"
# Lessons embedded and stored per second by the inventory worker, measured by bench/semantic.py on a 2-core
# machine shared with other jobs (docs/gardener.md: 1,281/s on PostgreSQL; the model alone ~12,000/s): the
# estimate a semantic inventory announces before it starts embedding, rounded down.
LESSONS_PER_SECOND = 1000


class SemanticUnavailable(RuntimeError):
    """The semantic gardener is on but its extra is not installed."""


def semantic_enabled() -> bool:
    """Whether inventories also look for possible duplicates (LORE_GARDEN_SEMANTIC, off by default)."""
    return bool(getattr(settings, "LORE_GARDEN_SEMANTIC", False))


def model_installed() -> bool:
    """Whether the `semantic` extra is installed (found, not imported)."""
    import importlib.util

    return importlib.util.find_spec("wordllama") is not None


@lru_cache(maxsize=1)
def _model() -> Any:
    try:
        import wordllama
        from wordllama import WordLlama
    except ImportError as exc:
        raise SemanticUnavailable(
            f"the semantic gardener is on (LORE_GARDEN_SEMANTIC) but its model is not installed: "
            f"pip install '{EXTRA}', or turn LORE_GARDEN_SEMANTIC off"
        ) from exc
    # The wheel ships weights/ and tokenizers/ beside the code; as cache_dir they are found without a download.
    return WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)


def semantic_check() -> None:
    """Load the model now: SemanticUnavailable (naming the extra) when it is not installed."""
    _model()


def text_of(key: str, content: str) -> str:
    """What is embedded: the normalised title, then the content."""
    return f"{title_of(key)}. {content}"


def text_hash(key: str, content: str) -> str:
    return hashlib.sha256(text_of(key, content).encode()).hexdigest()


def embed(texts: Sequence[str]) -> np.ndarray:
    """Unit vectors (float32, one row per text)."""
    if not texts:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    vectors = np.asarray(_model().embed(list(texts), norm=True, batch_size=64), dtype=np.float32)
    return _unit(vectors)


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1, norms)


def vector_bytes(vector: np.ndarray) -> bytes:
    """A vector as stored: little-endian float16 (512 bytes at 256 dimensions)."""
    return np.asarray(vector, dtype="<f2").tobytes()


def vectors_of(blobs: Iterable[bytes | memoryview]) -> np.ndarray:
    """Stored vectors back as float32 unit rows."""
    joined = b"".join(bytes(blob) for blob in blobs)
    return _unit(np.frombuffer(joined, dtype="<f2").reshape(-1, DIMENSIONS).astype(np.float32))


def embeddings_pending(account: Account) -> list[int]:
    """Active lessons without an embedding of their current write by the current model (one anti-join)."""
    current = LessonEmbedding.objects.filter(
        lesson_id=OuterRef("pk"), updated_at=OuterRef("updated_at"), model=MODEL_NAME
    )
    return list(
        Lesson.objects.filter(account=account, archived_at__isnull=True)
        .filter(~Exists(current))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def embeddings_sync(account: Account, lesson_ids: Sequence[int]) -> set[int]:
    """Embed these lessons, GARDEN_BATCH at a time (one DELETE and one INSERT per batch); a lesson whose text is
    unchanged since its stored vector (a rewrite of the same words) is not embedded again. Answers the ids whose
    vector is new."""
    fresh: set[int] = set()
    for start in range(0, len(lesson_ids), GARDEN_BATCH.value):
        fresh |= _batch_sync(account, lesson_ids[start : start + GARDEN_BATCH.value])
    return fresh


def _batch_sync(account: Account, ids: Sequence[int]) -> set[int]:
    rows = list(
        Lesson.objects.filter(account=account, pk__in=ids).values_list(
            "pk", "scope", "key", "content", "updated_at"
        )
    )
    stored = dict(
        LessonEmbedding.objects.filter(lesson_id__in=ids, model=MODEL_NAME).values_list(
            "lesson_id", "text_hash"
        )
    )
    kept = {pk for pk, _, key, content, _ in rows if stored.get(pk) == text_hash(key, content)}
    changed = [row for row in rows if row[0] not in kept]
    vectors = embed([text_of(key, content) for _, _, key, content, _ in changed])
    written = {pk: updated_at for pk, _, _, _, updated_at in rows}
    same_words = list(LessonEmbedding.objects.filter(lesson_id__in=kept).only("pk", "lesson_id"))
    for embedding in same_words:  # a rewrite of the same words: only the write it stands for moves on
        embedding.updated_at = written[embedding.lesson_id]
    LessonEmbedding.objects.bulk_update(same_words, ["updated_at"], batch_size=1000)
    LessonEmbedding.objects.filter(lesson_id__in=[row[0] for row in changed]).delete()
    LessonEmbedding.objects.bulk_create(
        [
            LessonEmbedding(
                account=account,
                lesson_id=pk,
                family=family_of(scope)[:600],
                text_hash=text_hash(key, content),
                model=MODEL_NAME,
                vector=vector_bytes(vector),
                updated_at=updated_at,
            )
            for (pk, scope, key, content, updated_at), vector in zip(changed, vectors, strict=True)
        ],
        batch_size=1000,
    )
    return {row[0] for row in changed}


def embedding_estimate(count: int) -> str:
    """How long embedding `count` lessons takes at the measured rate, in words."""
    seconds = count / LESSONS_PER_SECOND
    if seconds < 60:
        return f"about {max(round(seconds), 1)} s"
    return f"about {round(seconds / 60)} min"
