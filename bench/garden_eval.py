"""The gardener's evaluation: precision and recall on two labelled corpora (tests/data/garden/README.md).

- **development** (development-generated.jsonl + development-written.jsonl): the rules were tuned on it; its
  figures are a training score.
- **held-out** (heldout-10, -11, -18 and -19.jsonl): written apart from the rules by an author who never read them, and never tuned on.
  Its figures are the headline: what a team should expect on lore nobody here wrote.

Each corpus is written into an account of its own through `lesson_write` (so signatures and claims are kept as in
real use), inventoried once, and judged from the findings it left open. TARGETS are declared once here; the test
(tests/lore/test_garden_evaluation.py), `make bench` and the Findings page read them from here.

    .venv/bin/python bench/garden_eval.py [--write]   # print both evaluations; --write updates the page's figures
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # pragma: no cover - run as a script, on a database of its own in memory
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import os

    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL="sqlite://:memory:")
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from bench.garden_targets import SEMANTIC_TARGETS, TARGETS
from lore.accounts import account_create
from lore.garden.embeddings import model_installed
from lore.garden.figures import FIGURES_PATH
from lore.garden.inventory import garden_inventory
from lore.inputs import LessonInput
from lore.models import Account, Finding, FindingMember, Lesson
from lore.scopes import parse_scope
from lore.services import lesson_write

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "garden"
CORPORA = {
    "heldout": (
        DATA / "heldout-10.jsonl",
        DATA / "heldout-11.jsonl",
        DATA / "heldout-18.jsonl",
        DATA / "heldout-19.jsonl",
    ),
    "development": (
        DATA / "development-generated.jsonl",
        DATA / "development-written.jsonl",
        DATA / "development-ephemera.jsonl",
        DATA / "development-ephemera-2.jsonl",
        DATA / "development-lookalikes.jsonl",
        DATA / "development-mixed.jsonl",
        DATA / "development-lookalikes-2.jsonl",
        DATA / "development-ephemera-3.jsonl",
        DATA / "development-lookalikes-3.jsonl",
        DATA / "development-heldout-1.jsonl",
        DATA / "development-heldout-2.jsonl",
        DATA / "development-heldout-3.jsonl",
        DATA / "development-heldout-4.jsonl",
        DATA / "development-heldout-5.jsonl",
        DATA / "development-heldout-6.jsonl",
        DATA / "development-heldout-7.jsonl",
        DATA / "development-heldout-8.jsonl",
        DATA / "development-heldout-9.jsonl",
        DATA / "development-heldout-12.jsonl",
        DATA / "development-heldout-13.jsonl",
        DATA / "development-heldout-14.jsonl",
        DATA / "development-heldout-15.jsonl",
        DATA / "development-heldout-16.jsonl",
        DATA / "development-heldout-17.jsonl",
        DATA / "development-train-1.jsonl",
        DATA / "development-train-2.jsonl",
        DATA / "development-train-3.jsonl",
        DATA / "development-train-4.jsonl",
        DATA / "development-train-5.jsonl",
        DATA / "development-train-6.jsonl",
        DATA / "development-train-7.jsonl",
        DATA / "development-train-8.jsonl",
        DATA / "development-train-9.jsonl",
        DATA / "development-train-10.jsonl",
    ),
}
# Finding kinds that propose retirement, and the review-only kind a person confirms.
RETIRING = ("near_duplicate", "superseded", "expired_ephemera")
REVIEW_ONLY = ("possible_duplicate",)


def corpus_rows(files: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """The lessons of the files, each group and pair id named by its file ("development-written:P15"): each file's
    author numbered its own groups."""
    for path in files:
        with path.open() as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    for part in ("dup", "pair"):
                        if part in row["label"]:
                            row["label"] = {**row["label"], part: f"{path.stem}:{row['label'][part]}"}
                    for part in ("supersedes_target", "superseded"):  # as the store spells the address
                        if isinstance(row["label"].get(part), str) and "::" in row["label"][part]:
                            scope, key = row["label"][part].rsplit("::", 1)
                            row["label"] = {**row["label"], part: f"{parse_scope(scope)}::{key}"}
                    yield row


def corpus_load(
    account: Account, files: Iterable[Path] = CORPORA["development"]
) -> dict[str, dict[str, Any]]:
    """Write the corpus into `account` through lesson_write, then set each lesson's age and Chosen. Answers
    {address: label}. Older lessons are written first, as they were in the store the corpus stands for."""
    now = timezone.now()
    labels: dict[str, dict[str, Any]] = {}
    with transaction.atomic():
        for row in sorted(corpus_rows(files), key=lambda r: -r["age_days"]):
            data = {k: row.get(k, []) for k in ("scope", "key", "content", "kind", "tags", "supersedes")}
            lesson, _ = lesson_write(account=account, data=LessonInput.from_data(data), actor="corpus")
            at = now - timedelta(days=row["age_days"])
            Lesson.objects.filter(pk=lesson.pk).update(
                created_at=at, updated_at=at, opened_count=row["opened_count"]
            )
            labels[lesson.address] = row["label"]
    return labels


def expired_status(label: dict[str, Any]) -> bool:
    """A label of a status old enough to expire: what the gardener should propose for retirement."""
    return bool(label.get("ephemera")) and not label.get("fresh")


def _ratio(hits: int, total: int) -> float | None:
    return round(hits / total, 3) if total else None


def _findings(account: Account) -> list[tuple[str, str | None, list[tuple[str, str]]]]:
    """(kind, the keeper's address or None, [(address, action)]) of every finding."""
    found: list[tuple[str, str | None, list[tuple[str, str]]]] = []
    # One join, not a prefetch: a prefetch's IN list of thousands of findings is too deep for SQLite.
    by_finding: dict[int, list[FindingMember]] = {}
    for member in FindingMember.objects.filter(finding__account=account).select_related("lesson"):
        by_finding.setdefault(member.finding_id, []).append(member)
    for finding in Finding.objects.filter(account=account):
        evidence = finding.evidence or {}
        keeper = evidence.get("superseded_by") or evidence.get("suggested_keeper")
        members = by_finding.get(finding.pk, [])
        keeper_address = next((m.lesson.address for m in members if m.lesson_id == keeper), None)
        found.append((finding.kind, keeper_address, [(m.lesson.address, m.action) for m in members]))
    return found


def _same_group(labels: dict[str, dict[str, Any]], a: str, b: str | None) -> bool:
    return b is not None and bool(labels[a].get("dup")) and labels[a].get("dup") == labels[b].get("dup")


def corpus_evaluate(account: Account, labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Precision per finding kind, recall per duplicate variant and for ephemera and supersession, and the
    must-not-flag set, from the account's open findings."""
    findings = _findings(account)
    verdicts: dict[str, list[bool]] = {kind: [] for kind in (*RETIRING, *REVIEW_ONLY)}
    wrong: list[str] = []
    together: dict[str, set[str]] = {"near_duplicate": set(), "possible_duplicate": set()}
    retired: set[str] = set()
    for kind, keeper, members in findings:
        others = [a for a, _ in members if a != keeper]
        for address, action in members:
            if kind in together and any(_same_group(labels, address, o) for o, _ in members if o != address):
                together[kind].add(address)
            if address == keeper or (kind in RETIRING and action != FindingMember.Action.RETIRE):
                continue
            if kind in RETIRING:
                retired.add(address)
            if kind in ("near_duplicate", "possible_duplicate"):
                ok = _same_group(labels, address, keeper or next((o for o in others if o != address), None))
            elif kind == "superseded":
                ok = keeper is not None and labels[keeper].get("supersedes_target") == address
            else:
                ok = expired_status(labels[address])
            verdicts.setdefault(kind, []).append(ok)
            if not ok:
                wrong.append(f"{kind}: {address}")

    def variant_recall(variant: str, kinds: tuple[str, ...]) -> float | None:
        members = [a for a, label in labels.items() if label.get("variant") == variant]
        return _ratio(sum(1 for a in members if any(a in together[k] for k in kinds)), len(members))

    old_ephemera = [a for a, label in labels.items() if expired_status(label)]
    targets = [a for a, label in labels.items() if label.get("supersedes_target")]
    lookalikes = [a for a, label in labels.items() if label.get("lookalike")]
    flagged = sorted(a for a in lookalikes if a in retired)
    return {
        "lessons": len(labels),
        "retired": {kind: len(v) for kind, v in verdicts.items()},
        "precision": {kind: _ratio(sum(v), len(v)) for kind, v in verdicts.items()},
        "recall": {
            "verbatim": variant_recall("verbatim", ("near_duplicate",)),
            "edited": variant_recall("edited", ("near_duplicate",)),
            "paraphrase": variant_recall("paraphrase", ("near_duplicate", "possible_duplicate")),
            "expired_ephemera": _ratio(len(retired & set(old_ephemera)), len(old_ephemera)),
            "superseded": _ratio(
                sum(1 for a in targets if labels[a]["supersedes_target"] in retired), len(targets)
            ),
        },
        "counts": {
            "verbatim": sum(1 for lb in labels.values() if lb.get("variant") == "verbatim"),
            "edited": sum(1 for lb in labels.values() if lb.get("variant") == "edited"),
            "paraphrase": sum(1 for lb in labels.values() if lb.get("variant") == "paraphrase"),
            "expired_ephemera": len(old_ephemera),
        },
        "must_not_flag": {
            "lookalikes": len(lookalikes),
            "ephemera_lookalikes": sum(1 for a in lookalikes if labels[a]["lookalike"] == "ephemera"),
            "flagged": len(flagged),
            "addresses": flagged,
        },
        "wrong": wrong,
    }


def _figure(result: dict[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = result
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def targets_missed(result: dict[str, Any], *, semantic: bool) -> list[str]:
    """The targets a result misses, each as "name: figure (target)"; a figure that was not measured misses."""
    missed = []
    for name, (path, bound, side) in {**TARGETS, **(SEMANTIC_TARGETS if semantic else {})}.items():
        value = _figure(result, path)
        if value is None or (value < bound if side == "min" else value > bound):
            missed.append(f"{name}: {value} ({'≥' if side == 'min' else '≤'} {bound})")
    return missed


def corpus_account(name: str) -> str:
    """The name of the account corpus `name` is loaded into."""
    return f"garden-{name}"


def corpus_run(name: str) -> dict[str, Any]:
    """Load corpus `name` into a fresh account of its own, inventory it in full, evaluate. Possible duplicates are
    looked for when the optional semantic extra is installed (its figures are then measured too)."""
    account = Account.objects.filter(name=corpus_account(name)).first() or account_create(
        name=corpus_account(name)
    )
    Finding.objects.filter(account=account).delete()
    Lesson.objects.filter(account=account).delete()
    labels = corpus_load(account, CORPORA[name])
    semantic = model_installed()
    with override_settings(LORE_GARDEN_SEMANTIC=semantic):
        garden_inventory(account, full=True, trigger="bench")
    result = corpus_evaluate(account, labels)
    result["semantic"] = semantic
    return result


def figures_only(result: dict[str, Any]) -> dict[str, Any]:
    """A held-out result without the addresses of what it got wrong: nobody reads its misses, not even in a results
    file."""
    shown = {k: v for k, v in result.items() if k != "wrong"}
    shown["must_not_flag"] = {k: v for k, v in result["must_not_flag"].items() if k != "addresses"}
    return shown


def corpus_bench() -> dict[str, Any]:
    """Both evaluations, held-out first (the `garden` section of make bench); the held-out one as figures only."""
    return {"heldout": figures_only(corpus_run("heldout")), "development": corpus_run("development")}


def figures_write(results: dict[str, Any]) -> None:
    """Record the evaluation's figures for the Findings page (lore/garden/figures.py)."""
    kept = {
        name: {
            k: result[k] for k in ("lessons", "precision", "recall", "counts", "must_not_flag", "semantic")
        }
        for name, result in results.items()
    }
    for result in kept.values():
        result["must_not_flag"] = {k: v for k, v in result["must_not_flag"].items() if k != "addresses"}
    FIGURES_PATH.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":  # pragma: no cover
    results = corpus_bench()
    for name, result in results.items():
        missed = targets_missed(result, semantic=result["semantic"])
        shown = {k: result[k] for k in ("precision", "recall", "must_not_flag")}
        print(f"== {name}: {json.dumps(shown)}")
        if name != "heldout":  # the held-out corpus is judged by its figures alone: nobody reads its misses
            print(f"   wrong: {result['wrong']}")
        print(f"   targets missed: {missed or 'none'}")
    if "--write" in sys.argv:
        figures_write(results)
        print(f"wrote {FIGURES_PATH}")
