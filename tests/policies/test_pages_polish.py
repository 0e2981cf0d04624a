"""Settings pages as a person reads them (issue 17, point 7): counts, times, breadcrumbs, long names."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from lore.models import Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def stale_policy(account, name: str = "stale") -> RetentionPolicy:  # noqa: ANN001
    return policy_create(account=account, rule=Rule(conditions={"min_age_days": 90}), name=name)


def old_lessons(account, n: int) -> list[Lesson]:  # noqa: ANN001
    return [LessonFactory(account=account, created_at=timezone.now() - timedelta(days=200)) for _ in range(n)]


def text(html: bytes) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html.decode()).split())


def test_a_pending_run_shows_the_previews_count_not_0_of_0(logged_in: Client, account) -> None:  # noqa: ANN001
    old_lessons(account, 3)
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    assert run is not None and run.status == PolicyRun.Status.PENDING
    page = text(logged_in.get(reverse("policies:run", args=[run.pk])).content)
    assert "0 of 0" not in page
    assert "3 lessons" in page


def test_the_policy_list_says_just_now_as_the_explorer_does(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    page = text(logged_in.get(reverse("policies:list")).content)
    assert "just now" in page
    assert "minutes ago" not in page


def test_deleting_a_policy_that_archived_nothing_says_nothing_about_0_lessons(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    response = logged_in.post(reverse("policies:delete", args=[policy.pk]), follow=True)
    page = text(response.content)
    assert "Deleted the policy" in page
    assert "0 lessons" not in page


def test_deleting_a_policy_that_archived_one_lesson_says_it_stays_archived(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    old_lessons(account, 1)
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    grooming.run_execute(run.pk)
    page = text(logged_in.get(reverse("policies:delete", args=[policy.pk])).content)
    assert "1 lesson it archived stays archived" in page
    response = logged_in.post(reverse("policies:delete", args=[policy.pk]), follow=True)
    assert "The 1 lesson it archived stays archived" in text(response.content)


def test_breadcrumbs_never_end_in_a_dangling_separator(logged_in: Client, account) -> None:  # noqa: ANN001
    old_lessons(account, 1)
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    for url in (
        reverse("policies:detail", args=[policy.pk]),
        reverse("policies:delete", args=[policy.pk]),
        reverse("policies:run_new", args=[policy.pk]),
        reverse("policies:run", args=[run.pk]),
    ):
        html = logged_in.get(url).content.decode()
        crumbs = re.search(r'<nav class="crumbs"[^>]*>(.*?)</nav>', html, flags=re.S)
        assert crumbs, url
        assert not text(crumbs.group(1).encode()).endswith("›"), url
        assert 'aria-current="page"' in crumbs.group(1), url


def test_a_long_auto_name_is_shortened_in_titles_and_headings_with_the_full_name_kept(
    logged_in: Client,
    account,  # noqa: ANN001
) -> None:
    name = "created >90d ago · " + " · ".join(f"kind is value-{i:03d}" for i in range(12)) + " in all scopes"
    policy = stale_policy(account, name=name[:200])
    html = logged_in.get(reverse("policies:detail", args=[policy.pk])).content.decode()
    title = re.search(r"<title>(.*?)</title>", html, flags=re.S).group(1)
    assert len(title) < 100 and "…" in title
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", html, flags=re.S).group(0)
    assert (
        f'title="{escape(policy.name)}"' in heading
    )  # the whole name, on hover and for assistive technology


def test_the_main_nav_links_inside_the_account_and_marks_the_section_of_the_page(logged_in: Client) -> None:
    for page, current in (
        ("/a/acme/explorer/", "Explorer"),
        ("/a/acme/findings/", "Findings"),
        ("/a/acme/settings/policies/new/", "Retention policies"),
        ("/a/acme/settings/tokens/", "API tokens"),
    ):
        html = logged_in.get(page).content.decode()
        nav = re.search(r'<nav class="topnav"[^>]*>(.*?)</nav>', html, flags=re.S)
        assert nav, page
        links = re.findall(
            r'<a href="([^"]+)"( class="is-current" aria-current="page")?>([^<]+)</a>', nav.group(1)
        )
        assert [label for _, marked, label in links if marked] == [current], page
        assert [href for href, _, _ in links] == [
            "/a/acme/explorer/",
            "/a/acme/findings/",
            "/a/acme/settings/policies/",
            "/a/acme/settings/tokens/",
        ]
