"""Train the gardener's learned status reader (`lore.garden.status_model`) on the development corpus, measure it
by leave-one-file-out cross-validation, and write `lore/garden/status_model.json`.

The model is a logistic regression (L2, fitted with L-BFGS) over the features `lore.garden.status_model.features`
reads, on every development lesson not of a durable kind: a status is a lesson labelled `ephemera`. Only the
development files of `bench.garden_eval.CORPORA` are read; a held-out file is never opened here.

Cross-validation says what the model does on a writer it has not seen: each development file is left out in
turn, a model is fitted on the others and reads the left-out file's lessons. The threshold (what the model adds
among the lessons the grammar refused) and the veto (what it overrules among those the grammar accepted) are chosen
from those figures by the rules of `threshold_of` and `veto_of`. (The grammar itself was written with every
development file in view, so its own part of these figures is a training score.)

    .venv/bin/python bench/status_model_train.py          # fit, cross-validate, write the model (make status-model)
    .venv/bin/python bench/status_model_train.py --check  # fit and compare with the shipped model
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # pragma: no cover - run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import os

    os.environ.update(DJANGO_SETTINGS_MODULE="config.settings", DATABASE_URL="sqlite://:memory:")
    os.environ.setdefault("DEBUG", "1")
    import django

    django.setup()

from bench.garden_eval import CORPORA, corpus_rows, expired_status
from lore.account_settings import ACCOUNT_SETTINGS_BY_NAME
from lore.garden.detect import says_it_replaces
from lore.garden.ephemera import DURABLE_KINDS, grammar_match, learned_reads, read_grammar
from lore.garden.status_model import MODEL_PATH, StatusModel, features

# The regularisation (inverse strength) and the least number of training lessons a feature must occur in.
C = 1.0
MIN_COUNT = 2
# The thresholds tried, lowest first: the model ships with the lowest at which cross-validation flags no durable
# look-alike and what it adds is at least ADDED_PRECISION statuses (threshold_of).
THRESHOLDS = (0.8, 0.85, 0.9, 0.93, 0.95, 0.97)
ADDED_PRECISION = 0.99
# The vetoes tried: the model ships with the highest at which cross-validation overrules no status the grammar
# found (veto_of).
VETOES = (0.02, 0.05, 0.1, 0.2, 0.3)
# Statuses count as expired from this age on, as the evaluation counts them (the account setting's default).
EXPIRED_DAYS = ACCOUNT_SETTINGS_BY_NAME["garden_ephemera_days"].default
WEIGHT_DIGITS = 4


@dataclass(frozen=True)
class Example:
    file: str
    row: dict[str, Any]
    found: frozenset[str]
    grammar: bool  # the grammar alone calls it a status
    asked: bool  # the grammar refused it and the learned reader is asked (lore.garden.ephemera.learned_reads)
    status: bool  # labelled a status


def examples(files: Iterable[Path]) -> list[Example]:
    """Every lesson of `files` not of a durable kind, with its features and the grammar's verdict."""
    found: list[Example] = []
    for path in files:
        for row in corpus_rows([path]):
            if row["kind"].lower() in DURABLE_KINDS:
                continue
            statuses, reading = read_grammar(row["content"], whole=True)
            grammar = grammar_match(statuses, reading, row["kind"], row["tags"]) is not None
            asked = not grammar and learned_reads(row["content"], reading)
            found.append(
                Example(
                    file=path.name,
                    row=row,
                    found=frozenset(features(row["content"], row["kind"], row["tags"], reading)),
                    grammar=grammar,
                    asked=asked,
                    status=bool(row["label"].get("ephemera")),
                )
            )
    return found


def fit(train: Sequence[Example]) -> StatusModel:
    """A logistic regression on `train`: features seen in fewer than MIN_COUNT lessons are left out."""
    import numpy as np
    from scipy import sparse
    from scipy.optimize import minimize

    counts = Counter(feature for example in train for feature in example.found)
    vocabulary = sorted(feature for feature, count in counts.items() if count >= MIN_COUNT)
    column = {feature: at for at, feature in enumerate(vocabulary)}
    rows, cols = [], []
    for at, example in enumerate(train):
        for feature in example.found:
            if feature in column:
                rows.append(at)
                cols.append(column[feature])
        rows.append(at)
        cols.append(len(vocabulary))  # the bias
    x = sparse.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(train), len(vocabulary) + 1))
    y = np.array([example.status for example in train], dtype=float)

    def loss(w: Any) -> tuple[float, Any]:
        z = x @ w
        gradient = x.T @ (1.0 / (1.0 + np.exp(-z)) - y)
        gradient[:-1] += w[:-1] / C
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 / C * w[:-1] @ w[:-1]), gradient

    w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B", options={"maxiter": 1000}).x
    # Every feature of the vocabulary is kept, a weight that rounds to 0 too: which features the model knows
    # depends on the corpus alone, not on the last digit of a fit.
    weights = {f: round(float(w[column[f]]), WEIGHT_DIGITS) for f in vocabulary}
    return StatusModel(weights=weights, bias=round(float(w[-1]), WEIGHT_DIGITS), threshold=0.0)


def _expired_status(example: Example) -> bool:
    return expired_status(example.row["label"])


def cross_validate(found: Sequence[Example]) -> dict[str, Any]:
    """Leave one file out at a time; the grammar's and the model's verdicts on what the evaluation judges
    (lessons at least EXPIRED_DAYS old, not claiming to replace another): what the model adds at each of
    THRESHOLDS among the lessons the grammar refused, and what it takes away at each of VETOES among those the
    grammar accepted."""
    files = sorted({example.file for example in found})
    scored: list[tuple[Example, float]] = []
    for left_out in files:
        model = fit([example for example in found if example.file != left_out])
        scored.extend(
            (example, model.score(example.found))
            for example in found
            if example.file == left_out and example.row["age_days"] >= EXPIRED_DAYS
        )
    judged = [(e, s) for e, s in scored if not says_it_replaces(e.row["content"])]
    statuses = sum(1 for e, _ in judged if _expired_status(e))
    grammar = [(e, s) for e, s in judged if e.grammar]
    by_threshold = {}
    for threshold in THRESHOLDS:
        added = [e for e, s in judged if e.asked and s >= threshold]
        by_threshold[str(threshold)] = {
            "added": sum(1 for e in added if _expired_status(e)),
            "false": sum(1 for e in added if not _expired_status(e)),
            "lookalikes": sum(1 for e in added if e.row["label"].get("lookalike")),
        }
    by_veto = {}
    for veto in VETOES:
        overruled = [e for e, s in grammar if s < veto]
        by_veto[str(veto)] = {
            "lost": sum(1 for e in overruled if _expired_status(e)),
            "false_removed": sum(1 for e in overruled if not _expired_status(e)),
        }
    return {
        "files": len(files),
        "statuses": statuses,
        "grammar": sum(1 for e, _ in grammar if _expired_status(e)),
        "grammar_false": sum(1 for e, _ in grammar if not _expired_status(e)),
        "by_threshold": by_threshold,
        "by_veto": by_veto,
    }


def threshold_of(figures: dict[str, Any]) -> float:
    """The lowest threshold at which cross-validation flagged no durable look-alike and what the model added was
    at least ADDED_PRECISION statuses."""
    return next(
        float(t)
        for t, v in figures["by_threshold"].items()
        if v["lookalikes"] == 0 and v["added"] >= ADDED_PRECISION * (v["added"] + v["false"])
    )


def veto_of(figures: dict[str, Any]) -> float:
    """The highest veto at which cross-validation overruled no status the grammar found."""
    return max((float(v) for v, f in figures["by_veto"].items() if f["lost"] == 0), default=0.0)


def digests(files: Iterable[Path]) -> list[dict[str, str]]:
    return [{"file": p.name, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in files]


def train(*, validate: bool = True) -> dict[str, Any]:
    """The model as it is written to MODEL_PATH (without cross-validation: the shipped threshold and figures)."""
    files = CORPORA["development"]
    found = examples(files)
    shipped = json.loads(MODEL_PATH.read_text()) if MODEL_PATH.exists() else {}
    figures = cross_validate(found) if validate else shipped.get("cross_validation", {})
    model = fit(found)
    return {
        "about": "lore.garden.status_model, written by bench/status_model_train.py from the development corpus",
        "trained_on": digests(files),
        "c": C,
        "min_count": MIN_COUNT,
        "threshold": threshold_of(figures) if validate else shipped.get("threshold"),
        "veto": veto_of(figures) if validate else shipped.get("veto"),
        "cross_validation": figures,
        "bias": model.bias,
        "weights": dict(sorted(model.weights.items())),
    }


def main(argv: list[str]) -> int:  # pragma: no cover - a script
    if "--check" in argv:
        fresh, shipped = train(validate=False), json.loads(MODEL_PATH.read_text())
        same = (
            fresh["trained_on"] == shipped["trained_on"]
            and fresh["weights"].keys() == shipped["weights"].keys()
        )
        print(
            "the shipped model is what the development corpus gives" if same else "retrain: make status-model"
        )
        return 0 if same else 1
    model = train()
    figures = model["cross_validation"]
    print(
        f"leave-one-file-out over {figures['files']} development files, {figures['statuses']} expired statuses:"
    )
    print(
        f"  the grammar alone finds {figures['grammar']} ({figures['grammar'] / figures['statuses']:.3f}) "
        f"and flags {figures['grammar_false']} that are not"
    )
    for threshold, v in figures["by_threshold"].items():
        found = figures["grammar"] + v["added"]
        print(
            f"  the model adds from {threshold}: +{v['added']} → {found / figures['statuses']:.3f}; "
            f"{v['false']} flagged that are not statuses ({v['lookalikes']} look-alikes)"
        )
    for veto, v in figures["by_veto"].items():
        print(
            f"  the model overrules below {veto}: {v['false_removed']} wrongly flagged, {v['lost']} statuses"
        )
    print(
        f"threshold {model['threshold']}, veto {model['veto']}; {len(model['weights'])} weights → {MODEL_PATH}"
    )
    MODEL_PATH.write_text(json.dumps(model, indent=0, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
