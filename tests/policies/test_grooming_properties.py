"""Property tests (hypothesis) of grooming over random small stores and random rules.

Every age sits half a day away from a whole-day threshold, so the milliseconds between a preview and a run
can never move a lesson across a boundary.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings, target
from hypothesis import strategies as st

from lore.accounts import account_create
from lore.candidates import candidates
from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS, DimFilter, Rule
from lore.models import Account, Lesson
from lore.scopes import scope_covers
from lore.services import tags_sync
from policies import grooming
from policies.models import PolicyRun

pytestmark = pytest.mark.django_db

SCOPES = [
    "global",
    "project::onboarding",
    "repo::acme/app",
    "branch::acme/app::main",
    "branch::acme/app::feat/x",
    "repo::acme/app2",
    "branch::acme/app2::main",
    "repo::acme/a_p",
]
VALUES = {
    "tags": ["ci::pr-review-state", "lang::python", "flaky"],
    "kind": ["lesson", "bus", "gotcha", ""],
    "host": ["aw", "reviewer", "codex", ""],
    "trigger": ["ci-failure", "manual", ""],
    "source_agent": ["claude", "codex", ""],
    "origin_repo": ["acme/app", ""],
    "origin_branch": ["main", "feat/x", ""],
    "origin_pr": ["482", "17", ""],
}
THRESHOLDS = {"days": [1, 7, 30, 90, 365, 500], "count": [0, 1, 2, 5, 26, 100, 400]}
PROPERTY_SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
_accounts = itertools.count()


@dataclass(frozen=True)
class Spec:
    scope: str
    dims: dict[str, str]
    tags: tuple[str, ...]
    seen: int
    read: int
    opened: int
    age_days: int
    opened_days_ago: int | None
    protected: bool
    archived: bool


@st.composite
def lesson_specs(draw: st.DrawFn) -> Spec:
    read = draw(st.integers(0, 600))
    age = draw(st.integers(0, 800))
    return Spec(
        scope=draw(st.sampled_from(SCOPES)),
        dims={name: draw(st.sampled_from(values)) for name, values in VALUES.items() if name != "tags"},
        tags=tuple(draw(st.lists(st.sampled_from(VALUES["tags"]), max_size=3, unique=True))),
        seen=draw(st.integers(1, 6)),
        read=read,
        opened=draw(st.integers(0, read)),
        age_days=age,
        opened_days_ago=draw(st.none() | st.integers(0, age)),
        protected=draw(st.sampled_from([False] * 4 + [True])),
        archived=draw(st.sampled_from([False] * 5 + [True])),
    )


@st.composite
def rules(draw: st.DrawFn) -> Rule:
    params = draw(st.lists(st.sampled_from(RETENTION_PARAMS), max_size=2, unique_by=lambda p: p.name))
    conditions = {p.name: draw(st.sampled_from(THRESHOLDS[p.condition.unit])) for p in params}
    dims = draw(
        st.lists(st.sampled_from(POLICY_DIMENSIONS), max_size=1 if params else 2, unique_by=lambda d: d.name)
    )
    dimensions = {
        d.name: DimFilter(
            tuple(
                draw(
                    st.lists(
                        st.sampled_from([v for v in VALUES[d.name] if v]), min_size=1, max_size=2, unique=True
                    )
                )
            ),
            draw(st.sampled_from(d.modes)),
        )
        for d in dims
    }
    scope = draw(st.sampled_from(["global", "global", "repo::acme/app", *SCOPES]))
    rule = Rule(scope=scope, conditions=conditions, dimensions=dimensions)
    return rule if not rule.is_empty else Rule(scope=rule.scope, conditions={"max_opened_count": 0})


def store_create(specs: list[Spec], now: datetime) -> Account:
    account = account_create(name=f"prop-{next(_accounts)}")
    half = timedelta(hours=12)
    lessons = Lesson.objects.bulk_create(
        [
            Lesson(
                account=account,
                scope=spec.scope,
                key=f"k{i}",
                content="x",
                tags=list(spec.tags),
                **spec.dims,
                seen_count=spec.seen,
                read_count=spec.read,
                opened_count=spec.opened,
                last_opened_at=None
                if spec.opened_days_ago is None
                else now - timedelta(days=spec.opened_days_ago) - half,
                created_at=now - timedelta(days=spec.age_days) - half,
                updated_at=now - timedelta(days=spec.age_days) - half,
                protected=spec.protected,
                archived_at=now - timedelta(days=1) if spec.archived else None,
            )
            for i, spec in enumerate(specs)
        ]
    )
    tags_sync(account, {lesson.pk: lesson.tags for lesson in lessons})
    return account


def expected_matches(lesson: Lesson, rule: Rule, now: datetime) -> bool:
    """The rule's meaning, spelled out independently of the SQL (the oracle)."""
    if lesson.archived_at is not None or lesson.protected or not scope_covers(rule.scope, lesson.scope):
        return False
    fields = {"created": lesson.created_at, "last_open": lesson.last_opened_at or lesson.created_at}
    for name, value in rule.conditions.items():
        param = next(p for p in RETENTION_PARAMS if p.name == name)
        if param.condition.unit == "days":
            if not fields[param.condition.key] < now - timedelta(days=value):
                return False
        elif not getattr(lesson, param.condition.field) <= value:
            return False
    for name, flt in rule.dimensions.items():
        if name == "tags":
            have = set(lesson.tags) & set(flt.values)
            ok = {"any": bool(have), "all": have == set(flt.values), "none": not have}[flt.mode]
        else:
            ok = (getattr(lesson, name) in flt.values) == (flt.mode == "in")
        if not ok:
            return False
    return True


def archive_state(account: Account) -> dict[int, tuple[object, object]]:
    return {
        pk: (archived_at, run_id)
        for pk, archived_at, run_id in Lesson.objects.filter(account=account).values_list(
            "pk", "archived_at", "archived_by_run_id"
        )
    }


def run(account: Account, rule: Rule) -> PolicyRun:
    started = grooming.run_start(account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL)
    assert started is not None
    return grooming.run_execute(started.pk, batch_size=3)


def keyset(keys: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {(k["scope"], k["key"]) for k in keys}


def archived_by(run_: PolicyRun) -> set[tuple[str, str]]:
    return set(Lesson.objects.filter(archived_by_run=run_).values_list("scope", "key"))


@PROPERTY_SETTINGS
@given(st.lists(lesson_specs(), min_size=3, max_size=25), rules())
def test_preview_and_run_resolve_the_identical_set(specs: list[Spec], rule: Rule) -> None:
    now = timezone.now()
    account = store_create(specs, now)
    previewed = grooming.preview(account, rule)
    oracle = {
        (x.scope, x.key) for x in Lesson.objects.filter(account=account) if expected_matches(x, rule, now)
    }
    target(len(oracle))  # steer towards rules that catch something
    assert keyset(previewed.keys) == oracle and previewed.count == len(oracle)
    done = run(account, rule)
    assert archived_by(done) == oracle
    assert (done.status, done.matched, done.archived) == ("done", len(oracle), len(oracle))


@PROPERTY_SETTINGS
@given(st.lists(lesson_specs(), max_size=25), rules())
def test_a_second_run_archives_nothing(specs: list[Spec], rule: Rule) -> None:
    account = store_create(specs, timezone.now())
    run(account, rule)
    after_first = archive_state(account)
    second = run(account, rule)
    assert (second.matched, second.archived) == (0, 0)
    assert archive_state(account) == after_first
    assert grooming.preview(account, rule).count == 0


@PROPERTY_SETTINGS
@given(st.lists(lesson_specs(), max_size=25), rules())
def test_protected_lessons_are_never_archived(specs: list[Spec], rule: Rule) -> None:
    account = store_create(specs, timezone.now())
    protected_before = {
        pk: state for pk, state in archive_state(account).items() if Lesson.objects.get(pk=pk).protected
    }
    run(account, rule)
    after = archive_state(account)
    assert {pk: after[pk] for pk in protected_before} == protected_before


@PROPERTY_SETTINGS
@given(st.lists(lesson_specs(), max_size=25), rules(), rules())
def test_undo_returns_exactly_what_the_run_archived(specs: list[Spec], rule: Rule, other_rule: Rule) -> None:
    account = store_create(specs, timezone.now())
    before = archive_state(account)
    done = run(account, rule)
    archived = archived_by(done)
    other = run(account, other_rule)  # another run afterwards keeps what it archived
    other_archived = archive_state(account)
    assert grooming.run_undo(done) == len(archived)
    after = archive_state(account)
    for pk, state in after.items():
        if other_archived[pk][1] == other.pk:
            assert state == other_archived[pk]
        else:
            assert state == before[pk]
    assert grooming.run_undo(done) == 0


def test_every_condition_and_filter_means_what_the_registry_says() -> None:
    """Each condition at each threshold, each filter in each mode, against the oracle on one fixed store."""
    now = timezone.now()
    rng = random.Random(4)
    specs = [_random_spec(rng) for _ in range(120)]
    account = store_create(specs, now)
    lessons = list(Lesson.objects.filter(account=account))
    rules_ = [
        Rule(scope="global", conditions={p.name: v})
        for p in RETENTION_PARAMS
        for v in THRESHOLDS[p.condition.unit]
    ]
    rules_ += [
        Rule(scope="global", dimensions={d.name: DimFilter(values, mode)})
        for d in POLICY_DIMENSIONS
        for mode in d.modes
        for values in ([v for v in VALUES[d.name] if v][:1], [v for v in VALUES[d.name] if v][:2])
    ]
    non_empty = 0
    for rule in rules_:
        expected = {x.key for x in lessons if expected_matches(x, rule, now)}
        assert set(candidates(account, rule, now=now).values_list("key", flat=True)) == expected, rule
        non_empty += bool(expected)
    assert non_empty > 0.8 * len(rules_)  # the store is varied enough for the comparison to mean something


def _random_spec(rng: random.Random) -> Spec:
    read = rng.randint(0, 600)
    age = rng.randint(0, 800)
    return Spec(
        scope=rng.choice(SCOPES),
        dims={name: rng.choice(values) for name, values in VALUES.items() if name != "tags"},
        tags=tuple(rng.sample(VALUES["tags"], k=rng.randint(0, 3))),
        seen=rng.randint(1, 6),
        read=read,
        opened=rng.randint(0, read),
        age_days=age,
        opened_days_ago=None if rng.random() < 0.5 else rng.randint(0, age),
        protected=rng.random() < 0.1,
        archived=rng.random() < 0.1,
    )
