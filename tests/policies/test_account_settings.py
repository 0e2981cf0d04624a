"""Settings → Account (issue 15 part 3): a form over the declared account settings, starting with
purge_after_days (0 = never), and the purge schedule shown so that nothing disappears unannounced."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from lore.account_settings import ACCOUNT_SETTINGS, account_settings_update
from lore.models import Account, Activity, LessonEvent
from lore.services import lessons_archive
from tests.factories import AccountFactory, LessonFactory

pytestmark = pytest.mark.django_db

URL = "/settings/account/"


def archived(account: Account, days_ago: float, n: int = 1) -> None:
    lessons = [LessonFactory(account=account) for _ in range(n)]
    lessons_archive(
        account=account,
        lesson_ids=[x.pk for x in lessons],
        reason="by hand",
        now=timezone.now() - timedelta(days=days_ago),
    )


def test_the_account_settings_are_declared_once_and_purge_after_days_is_one_of_them() -> None:
    names = [s.name for s in ACCOUNT_SETTINGS]
    assert "purge_after_days" in names
    purge = next(s for s in ACCOUNT_SETTINGS if s.name == "purge_after_days")
    assert (purge.low, purge.default) == (0, 180) and "0" in purge.help


def test_the_account_page_shows_every_declared_setting_with_its_value(logged_in: Client, account) -> None:  # noqa: ANN001
    html = logged_in.get(URL).content.decode()
    for setting in ACCOUNT_SETTINGS:
        assert f'name="{setting.name}"' in html and setting.label in html
    assert 'value="180"' in html


def test_the_account_page_shows_the_purge_schedule(logged_in: Client, account) -> None:  # noqa: ANN001
    archived(account, 175, n=3)
    html = logged_in.get(URL).content.decode()
    assert "Archived lessons are purged 180 days after they were archived" in html
    assert "3 lessons will be purged on" in html


def test_setting_purge_after_days_saves_it_and_zero_turns_purging_off(logged_in: Client, account) -> None:  # noqa: ANN001
    archived(account, 175)
    response = logged_in.post(URL, {"purge_after_days": "0"})
    assert response.status_code == 302
    account.refresh_from_db()
    assert account.purge_after_days == 0
    html = logged_in.get(URL).content.decode()
    assert "Archived lessons are never purged" in html and "will be purged on" not in html


def test_saving_a_shorter_purge_delay_says_what_the_next_purge_will_take(logged_in: Client, account) -> None:  # noqa: ANN001
    archived(account, 40, n=2)
    response = logged_in.post(URL, {"purge_after_days": "30"}, follow=True)
    assert "Saved. 2 lessons will be purged on" in response.content.decode()


def test_an_out_of_range_value_is_refused_with_a_message_and_changes_nothing(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    for bad in ("-1", "99999999", "soon", ""):
        response = logged_in.post(URL, {"purge_after_days": bad})
        assert response.status_code == 400, bad
        assert 'aria-invalid="true"' in response.content.decode()
    account.refresh_from_db()
    assert account.purge_after_days == 180


def test_changing_a_setting_is_recorded_and_touches_only_this_account(account) -> None:  # noqa: ANN001
    other = AccountFactory()
    changed = account_settings_update(account=account, values={"purge_after_days": 30}, actor="user:alice")
    assert changed == {"purge_after_days": (180, 30)}
    other.refresh_from_db()
    assert other.purge_after_days == 180
    assert account_settings_update(account=account, values={"purge_after_days": 30}, actor="user:alice") == {}
    assert not LessonEvent.objects.exists()  # an account change is no lesson's event
    row = Activity.objects.get(account=account)
    assert (row.action, row.actor, row.detail) == (
        "account.changed",
        "user:alice",
        "purge_after_days: 180 → 30",
    )


def test_the_account_page_needs_a_signed_in_member(client: Client, account) -> None:  # noqa: ANN001
    response = client.get(URL)
    assert response.status_code == 302 and "/login" in response["Location"]
