"""The gardener in `make bench`: precision and recall on the labelled corpus (tests/data/garden_corpus.jsonl),
and the inventory's time and peak RSS over the bench store (a full inventory, then a nightly re-run that
examines only what changed).

The targets (docs/gardener.md): precision ≥ 0.95 for every finding kind, recall ≥ 0.8 for near-verbatim
duplicates and for expired ephemera; at 1M lessons on PostgreSQL the inventory within 2 minutes, RSS < 300 MB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from django.db import connection
from django.utils import timezone

from lore.garden.inventory import garden_inventory
from lore.inputs import LessonInput
from lore.models import Account, Finding, FindingMember, Lesson
from lore.services import lesson_write

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "garden_corpus.jsonl"
PRECISION_MIN = 0.95
RECALL_MIN = 0.8


def corpus_rows() -> Iterator[dict[str, Any]]:
    with CORPUS.open() as lines:
        for line in lines:
            yield json.loads(line)


def corpus_load(account: Account) -> dict[str, dict[str, Any]]:
    """Write the corpus into `account` through lesson_write (so signatures and claims are kept as in real
    use), then set each lesson's age and Chosen. Answers {address: label}. Older lessons are written first."""
    now = timezone.now()
    labels: dict[str, dict[str, Any]] = {}
    for row in sorted(corpus_rows(), key=lambda r: -r["age_days"]):
        data = {k: row[k] for k in ("scope", "key", "content", "kind", "tags", "supersedes")}
        lesson, _ = lesson_write(account=account, data=LessonInput.from_data(data), actor="corpus")
        at = now - timedelta(days=row["age_days"])
        Lesson.objects.filter(pk=lesson.pk).update(
            created_at=at, updated_at=at, opened_count=row["opened_count"]
        )
        labels[lesson.address] = row["label"]
    return labels


def _ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def corpus_evaluate(account: Account, labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Precision per kind and recall for near-verbatim duplicates and ephemera, from the open findings."""
    retired: dict[str, list[tuple[dict[str, Any], dict[str, Any] | None]]] = {
        k: []
        for k in Finding.Kind.values
        if k != Finding.Kind.POSSIBLE_DUPLICATE  # review-only: bench/semantic.py
    }
    for finding in Finding.objects.filter(account=account).prefetch_related("members__lesson"):
        keep = next(
            (m for m in finding.members.all() if m.lesson_id == finding.evidence.get("superseded_by")), None
        )
        keeper = labels[keep.lesson.address] | {"address": keep.lesson.address} if keep else None
        for member in finding.members.all():
            if member.action == FindingMember.Action.RETIRE:
                retired[finding.kind].append(
                    (labels[member.lesson.address] | {"address": member.lesson.address}, keeper)
                )
    dup_ok = [bool(k and m.get("dup") and m.get("dup") == k.get("dup")) for m, k in retired["near_duplicate"]]
    sup_ok = [bool(k and k.get("supersedes_target") == m["address"]) for m, k in retired["superseded"]]
    eph_ok = [bool(m.get("ephemera") and not m.get("fresh")) for m, _ in retired["expired_ephemera"]]
    # Recall: of each group's original + near-verbatim copies, all but one should be retired.
    groups: dict[str, list[str]] = {}
    for address, label in labels.items():
        if label.get("variant") in ("original", "verbatim"):
            groups.setdefault(label["dup"], []).append(address)
    expected = sum(len(members) - 1 for members in groups.values())
    retired_dups = {m["address"] for (m, k), ok in zip(retired["near_duplicate"], dup_ok, strict=True) if ok}
    found = sum(min(len(ms) - 1, len(set(ms) & retired_dups)) for ms in groups.values())
    old_ephemera = [a for a, label in labels.items() if label.get("ephemera") and not label.get("fresh")]
    retired_eph = {m["address"] for m, _ in retired["expired_ephemera"]}
    return {
        "lessons": len(labels),
        "retired": {kind: len(rows) for kind, rows in retired.items()},
        "precision": {
            "near_duplicate": _ratio(sum(dup_ok), len(dup_ok)),
            "superseded": _ratio(sum(sup_ok), len(sup_ok)),
            "expired_ephemera": _ratio(sum(eph_ok), len(eph_ok)),
        },
        "recall": {
            "near_verbatim_duplicates": _ratio(found, expected),
            "expired_ephemera": _ratio(len(retired_eph & set(old_ephemera)), len(old_ephemera)),
            "superseded": _ratio(
                sum(sup_ok), sum(1 for lb in labels.values() if lb.get("supersedes_target"))
            ),
        },
        "wrong": [
            m["address"]
            for kind in retired
            for (m, k), ok in _judged(kind, retired, dup_ok, sup_ok, eph_ok)
            if not ok
        ],
    }


def _judged(kind: str, retired: dict[str, Any], *verdicts: list[bool]) -> Any:
    index = list(Finding.Kind.values).index(kind)
    return zip(retired[kind], verdicts[index], strict=True)


def corpus_bench() -> dict[str, Any]:
    """Load the corpus into a fresh account, inventory it, evaluate (the `garden_eval` section of make bench)."""
    account, _ = Account.objects.get_or_create(name="garden-corpus")
    Lesson.objects.filter(account=account).delete()
    Finding.objects.filter(account=account).delete()
    labels = corpus_load(account)
    started = time.monotonic()
    garden_inventory(account, full=True, trigger="bench")
    result = corpus_evaluate(account, labels)
    result["inventory_s"] = round(time.monotonic() - started, 3)
    return result


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# The fresh process: Django is set up before bench.garden (which imports models) is imported.
INVENTORY_PROCESS = (
    "import json, sys, django; django.setup(); from bench.garden import inventory_bench; "
    "from lore.models import Account; print(json.dumps(inventory_bench(Account.objects.get(pk=int(sys.argv[1])))))"
)


def inventory_bench_process(account: Account) -> dict[str, Any]:
    """`inventory_bench` in a fresh process (as a worker runs it), so its peak RSS is the inventory's alone. On
    SQLite (the smoke test's in-memory database cannot be shared) it runs here instead."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        return inventory_bench(account) | {"rss_of": "the bench process"}
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    done = subprocess.run(
        [sys.executable, "-c", INVENTORY_PROCESS, str(account.pk)],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url},
        check=True,
        timeout=3600,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def inventory_bench(account: Account) -> dict[str, Any]:
    """A full inventory of the bench store, then a nightly re-run after a few rewrites: time, examined, RSS."""
    Finding.objects.filter(account=account).delete()
    started = time.monotonic()
    full = garden_inventory(account, full=True, trigger="bench")
    full_s = time.monotonic() - started
    changed = list(Lesson.objects.filter(account=account, archived_at__isnull=True).order_by("-pk")[:100])
    for lesson in changed:  # a night's worth of rewrites: a hundred lessons written again
        data = {"scope": lesson.scope, "key": lesson.key, "content": lesson.content + " (seen again)"}
        lesson_write(account=account, data=LessonInput.from_data(data), actor="bench")
    started = time.monotonic()
    nightly = garden_inventory(account, trigger="bench")
    nightly_s = time.monotonic() - started
    return {
        "lessons": Lesson.objects.filter(account=account).count(),
        "full_s": round(full_s, 2),
        "full_examined": full.examined,
        "full_found": full.found,
        "nightly_s": round(nightly_s, 2),
        "nightly_examined": nightly.examined,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
