"""The decay score's kept cells, read through a split kept for an hour (lore.decay_cells, issue 28): every read equals
the score counted per lesson, whichever cells moved, were folded or were crossed by a cut since the split was made."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

import pytest
from django.http import QueryDict
from django.utils import timezone

from explorer.queries import condition_base
from explorer.state import ExplorerState
from lore import decay_cells
from lore.bins import EPOCH, distribution, kept_distribution
from lore.conditions import CONDITIONS_BY_KEY, PARAMS
from lore.decay import half_life_days
from lore.models import Account, Lesson
from lore.reads import reads_record, reads_settle
from lore.value_counts import value_counts_fold
from tests.factories import AccountFactory, LessonFactory
from tests.services import require_postgres

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
DECAY = CONDITIONS_BY_KEY["decay"]


@pytest.fixture(autouse=True)
def _postgres() -> None:
    require_postgres()
    decay_cells.splits_forget()


def _exact(account: Account, at: datetime, extra: list[int] | None = None):  # noqa: ANN202
    """The kept bins at `at`, asserted equal to the score counted per lesson."""
    extra = extra or [50]
    kept = kept_distribution(account.pk, DECAY, archived=False, now=at, extra=extra)
    base = condition_base(account, ExplorerState.from_query(QueryDict("")), DECAY, now=at)
    assert kept == distribution(base, DECAY, now=at, extra=extra)
    return kept


def _split(account: Account) -> decay_cells.CellSplit:
    (split,) = [s for key, s in decay_cells._splits.items() if key[2] == account.pk]
    return split


def _never_opened(account: Account, key: str, created: datetime, *, chosen: int = 0, seen: int = 1) -> Lesson:
    lesson = LessonFactory(account=account, key=key)
    Lesson.objects.filter(pk=lesson.pk).update(
        created_at=created, last_opened_at=None, opened_count=chosen, seen_count=seen
    )
    return lesson


def _spread(account: Account, now: datetime, n: int = 80) -> None:
    """Lessons over products and last opens, their cells kept (folded), so a split is made from them."""
    import random

    rng = random.Random(2804)
    for i in range(n):
        ago = timedelta(days=rng.uniform(0, 300), hours=rng.uniform(0, 24))
        _never_opened(
            account, f"s{i}", now - ago, chosen=rng.choice([0, 1, 5, 40]), seen=rng.choice([1, 2, 9])
        )
    value_counts_fold(account.pk)


def test_a_split_answers_for_the_hour_after_it_was_made_even_where_a_cut_enters_a_cell_during_it(
    account: Account,
) -> None:
    """A cell no cut crosses when the split is made but one enters within the hour is kept apart: read half an
    hour later, its lessons older than the cut by then score 50 or less, the newer ones more."""
    cut = timedelta(
        days=half_life_days() * math.log2(100 / 50.5)
    )  # product 1 (strength 1) scores 50 or less past it
    day_start = (timezone.now() - timedelta(days=60)).replace(hour=0, minute=0, second=0, microsecond=0)
    now = day_start + cut - timedelta(minutes=10)  # the cut lies 10 minutes before the cell's day begins
    for i, minutes in enumerate([5, 15, 25, 180]):
        _never_opened(account, f"c{i}", day_start + timedelta(minutes=minutes))
    _spread(account, now)  # folds these four too
    at_50 = PARAMS[DECAY.retention]

    first = _exact(account, now)
    split = _split(account)
    assert sum(split.ns) + sum(split.by_w.values()) == 84  # every lesson's cell is kept
    half_hour = _exact(account, now + timedelta(minutes=30))
    assert _split(account) is split  # read from the same split
    assert half_hour.kept(at_50, 50) == first.kept(at_50, 50) + 2  # the lessons opened 5 and 15 minutes in
    _exact(account, now + timedelta(minutes=59))
    assert _split(account) is split
    _exact(account, now + timedelta(minutes=61))
    assert _split(account) is not split  # past its hour: made again


def test_changes_not_yet_folded_are_read_beside_the_split(account: Account) -> None:
    now = timezone.now()
    _spread(account, now)
    _exact(account, now)
    split = _split(account)
    assert sum(split.by_w.values()) > 60  # kept cells, summed
    ids = list(Lesson.objects.filter(account=account).order_by("pk").values_list("pk", flat=True))
    reads_record(account=account, lesson_ids=ids[:30], at=now, opened=True)  # products and last opens move
    assert reads_settle(account) > 0
    _never_opened(account, "new", now - timedelta(days=20), chosen=3)
    moved = _exact(account, now + timedelta(seconds=5))
    assert _split(account) is split  # the kept cells did not change: the changes were read beside them
    assert moved.total == Lesson.objects.filter(account=account, archived_at__isnull=True).count()


def test_a_split_made_from_other_kept_cells_is_never_used(account: Account) -> None:
    """The fold rewrites the kept cells: the next read sees the fingerprint differ and makes its split again. A
    fold of another account's counts leaves the split alone."""
    now = timezone.now()
    _spread(account, now)
    _exact(account, now)
    split = _split(account)
    ids = list(Lesson.objects.filter(account=account).order_by("pk").values_list("pk", flat=True))
    reads_record(account=account, lesson_ids=ids[:40], at=now, opened=True)
    reads_settle(account)
    assert value_counts_fold(account.pk) > 0
    _exact(account, now + timedelta(seconds=5))
    again = _split(account)
    assert again is not split and again.fingerprint != split.fingerprint

    other = AccountFactory(name="globex")
    _spread(other, now, n=10)  # folds the other account's cells
    _exact(account, now + timedelta(seconds=10))
    assert _split(account) is again


def test_a_process_keeps_at_most_decay_cells_cached_splits(settings) -> None:  # noqa: ANN001
    settings.LORE_DECAY_CELLS_CACHED = 2
    now = timezone.now()
    accounts = [AccountFactory(name=f"a{i}") for i in range(3)]
    for account in accounts:
        _spread(account, now, n=5)
        _exact(account, now)
    kept = {key[2] for key in decay_cells._splits}
    assert kept == {accounts[1].pk, accounts[2].pk}  # the least recently read dropped


def test_the_split_is_made_for_the_moment_read_and_its_hour(account: Account) -> None:
    now = timezone.now()
    _spread(account, now, n=10)
    _exact(account, now)
    split = _split(account)
    assert split.since == pytest.approx((now - EPOCH).total_seconds() / 86_400)
    assert split.answers(split.since + decay_cells.WINDOW_DAYS) and not split.answers(split.since - 1e-6)


def test_when_the_kept_cells_change_under_every_split_made_every_cell_is_read_as_it_is(
    account: Account, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two splits in a row that the fold outdated before they were read (here: fingerprints that never match):
    the read falls back to every kept cell and change, in one statement, and is still exact."""
    import dataclasses

    made = []
    split_of = decay_cells.CellSplit

    def outdated(*args: object) -> decay_cells.CellSplit:
        split = dataclasses.replace(split_of(*args), fingerprint="outdated")  # type: ignore[arg-type]
        made.append(split)
        return split

    monkeypatch.setattr(decay_cells, "CellSplit", outdated)
    now = timezone.now()
    _spread(account, now)
    _never_opened(account, "unfolded", now - timedelta(days=3), chosen=2)
    assert _exact(account, now).total == 81
    assert len(made) == 2
