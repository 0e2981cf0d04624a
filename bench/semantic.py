"""The semantic gardener's costs and quality (docs/gardener.md, "Paraphrases"): the installed size of the
`semantic` extra, the time to embed 1,000 lessons (the model alone, in a fresh process, median of repeats) and to
embed and store them (the inventory's rate, on the configured database), the peak RSS of a process that loads the
model and embeds, and the precision and recall of possible duplicates on labelled corpora.

    DEBUG=1 DATABASE_URL=… .venv/bin/python bench/semantic.py [--corpus PATH …] [--store N] [--repeat N]

A corpus is JSON lines with a `label` (`dup`: a duplicate group, `variant`: original | verbatim | edited |
paraphrase). A possible-duplicate pair is right when both lessons carry the same `dup`; a paraphrase is found
when it shares a possible- or near-duplicate finding with another lesson of its group. Say which corpus a figure
comes from: one the threshold was chosen on (development) is not a held-out figure.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
DEFAULT_CORPUS = ROOT / "tests" / "data" / "garden_corpus.jsonl"

# The model alone, in a fresh process: load, embed 1,000 lessons `repeat` times; times and peak RSS.
EMBED_PROCESS = """
import json, resource, statistics, sys, time
t = time.perf_counter()
from lore.garden.embeddings import embed
embed(["warm up"])
load_s = time.perf_counter() - t
texts = json.loads(sys.stdin.read())
times = []
for _ in range(int(sys.argv[1])):
    t = time.perf_counter(); embed(texts); times.append(time.perf_counter() - t)
print(json.dumps({"load_s": round(load_s, 3), "per_1k_s": [round(x, 4) for x in times],
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def _requirement_names(dist: importlib.metadata.Distribution) -> list[str]:
    names = []
    for requirement in dist.requires or []:
        if "extra ==" in requirement:
            continue
        names.append(re.split(r"[ ;<>=!~\[(]", requirement, maxsplit=1)[0])
    return names


def _closure(name: str) -> dict[str, int]:
    """Bytes on disk of a distribution and everything it requires (extras left out)."""
    sizes: dict[str, int] = {}
    todo = [name]
    while todo:
        current = todo.pop()
        try:
            dist = importlib.metadata.distribution(current)
        except importlib.metadata.PackageNotFoundError:
            continue
        key = dist.metadata["Name"].lower()
        if key in sizes:
            continue
        sizes[key] = sum(f.size or 0 for f in dist.files or [])
        todo.extend(_requirement_names(dist))
    return sizes


def install_size() -> dict[str, Any]:
    """The extra's size: wordllama alone, and with what it requires that the default install does not."""
    extra, default = _closure("wordllama"), _closure("lore-explorer")
    added = {name: size for name, size in extra.items() if name not in default}
    return {
        "wordllama_mb": round(extra.get("wordllama", 0) / 1e6, 1),
        "added_by_the_extra_mb": round(sum(added.values()) / 1e6, 1),
        "added_packages": sorted(added),
    }


def _texts(rows: list[dict[str, Any]], count: int) -> list[str]:
    """`count` lesson texts from the corpora, each made unique (no cache answers for a repeat)."""
    from lore.garden.embeddings import text_of

    return [
        text_of(r["key"], r["content"]) + f" #{i}"
        for i, r in ((i, rows[i % len(rows)]) for i in range(count))
    ]


def embed_bench(rows: list[dict[str, Any]], repeat: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()\n" + EMBED_PROCESS, str(repeat)],
        input=json.dumps(_texts(rows, 1000)),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
        timeout=3600,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["median_per_1k_s"] = round(statistics.median(result["per_1k_s"]), 4)
    return result


def corpus_rows(path: Path) -> list[dict[str, Any]]:
    with path.open() as lines:
        return [json.loads(line) for line in lines if line.strip()]


def corpus_load(account: Any, rows: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Write the rows through lesson_write (oldest first), then set ages and Chosen. Answers {id: label}."""
    from django.utils import timezone

    from lore.inputs import LessonInput
    from lore.models import Lesson
    from lore.services import lesson_write

    now, labels = timezone.now(), {}
    for row in sorted(rows, key=lambda r: -r["age_days"]):
        data: dict[str, Any] = {
            k: row[k] for k in ("scope", "key", "content", "kind", "tags", "supersedes") if k in row
        }
        lesson, _ = lesson_write(account=account, data=LessonInput.from_data(data), actor="corpus")
        at = now - timedelta(days=row["age_days"])
        Lesson.objects.filter(pk=lesson.pk).update(
            created_at=at, updated_at=at, opened_count=row.get("opened_count", 0)
        )
        labels[lesson.pk] = row["label"]
    return labels


def _fresh_account(name: str) -> Any:
    from lore.models import Account

    Account.objects.filter(name=name).delete()
    return Account.objects.create(name=name, slug=re.sub(r"[^a-z0-9-]+", "-", name.lower())[:50])


def quality(path: Path) -> dict[str, Any]:
    """Possible-duplicate precision (pairs within a finding) and paraphrase recall on one labelled corpus."""
    from django.conf import settings

    from lore.garden.inventory import garden_inventory
    from lore.models import Finding

    settings.LORE_GARDEN_SEMANTIC = True
    account = _fresh_account(f"semantic-bench-{path.stem}")
    try:
        labels = corpus_load(account, corpus_rows(path))
        garden_inventory(account, full=True, trigger="bench")
        findings = Finding.objects.filter(account=account).prefetch_related("members")
        pairs = [
            (labels[a].get("dup"), labels[b].get("dup"))
            for f in findings
            if f.kind == Finding.Kind.POSSIBLE_DUPLICATE
            for a, b in combinations([m.lesson_id for m in f.members.all()], 2)
        ]
        right = sum(1 for a, b in pairs if a is not None and a == b)
        together: set[int] = set()
        for f in findings:
            if f.kind in (Finding.Kind.POSSIBLE_DUPLICATE, Finding.Kind.NEAR_DUPLICATE):
                ids = [m.lesson_id for m in f.members.all()]
                together |= {
                    i for i in ids if any(labels[i].get("dup") == labels[j].get("dup") for j in ids if j != i)
                }
        paraphrases = [pk for pk, label in labels.items() if label.get("variant") == "paraphrase"]
        found = sum(1 for pk in paraphrases if pk in together)
        return {
            "corpus": path.name,
            "lessons": len(labels),
            "possible_duplicate_findings": sum(
                1 for f in findings if f.kind == Finding.Kind.POSSIBLE_DUPLICATE
            ),
            "pairs": len(pairs),
            "pairs_right": right,
            "precision": round(right / len(pairs), 3) if pairs else None,
            "paraphrases": len(paraphrases),
            "paraphrases_found": found,
            "recall": round(found / len(paraphrases), 3) if paraphrases else None,
        }
    finally:
        account.delete()


def store_bench(rows: list[dict[str, Any]], count: int) -> dict[str, Any]:
    """Embed and store `count` lessons as the inventory does (embeddings_sync): lessons per second."""
    from django.db import connection

    from lore.garden.embeddings import embeddings_pending, embeddings_sync
    from lore.inputs import LessonInput
    from lore.services import lesson_write

    account = _fresh_account("semantic-bench-store")
    try:
        for i in range(count):
            row = rows[i % len(rows)]
            data = {"scope": row["scope"], "key": f"{row['key']}-{i}", "content": f"{row['content']} ({i})"}
            lesson_write(account=account, data=LessonInput.from_data(data), actor="bench")
        started = time.perf_counter()
        pending = embeddings_pending(account)
        embeddings_sync(account, pending)
        seconds = time.perf_counter() - started
        return {
            "database": connection.vendor,
            "lessons": len(pending),
            "seconds": round(seconds, 2),
            "lessons_per_s": round(len(pending) / seconds),
        }
    finally:
        account.delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", action="append", type=Path, help="a labelled corpus (repeatable)")
    parser.add_argument("--store", type=int, default=2000, help="lessons embedded and stored (0: skip)")
    parser.add_argument("--repeat", type=int, default=5, help="times 1,000 lessons are embedded")
    args = parser.parse_args()
    import django

    django.setup()
    corpora = args.corpus or [DEFAULT_CORPUS]
    rows = [row for path in corpora for row in corpus_rows(path)]
    report: dict[str, Any] = {"install": install_size(), "embed_1k": embed_bench(rows, args.repeat)}
    if args.store:
        report["embed_and_store"] = store_bench(rows, args.store)
    report["quality"] = [quality(path) for path in corpora]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
