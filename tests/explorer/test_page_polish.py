"""The Explorer as a person reads it (issue 17, point 7): notices, the archived view's cards, the one-run view,
the favicon."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from lore.conditions import Rule
from lore.models import Lesson
from policies import grooming
from policies.models import PolicyRun
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db


def text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def card(html: str, name: str) -> int:
    block = re.search(rf'data-card="{name}".*?class="card-value">([\d,]+)<', html, flags=re.S)
    assert block, name
    return int(block.group(1).replace(",", ""))


def test_a_success_notice_looks_like_a_success_and_is_announced(logged_in: Client, account) -> None:  # noqa: ANN001
    lesson = LessonFactory(account=account, archived_at=timezone.now())
    response = logged_in.post(
        reverse("explorer:restore"), {"ids": [lesson.pk], "state": "archived=1"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    success = re.search(r'<div class="notices notices-success" role="status">.*?</div>', html, flags=re.S)
    assert success and "Restored 1 lesson." in success.group(0)
    assert 'class="notice notice-success"' in success.group(0)
    warning = logged_in.get("/explorer/?retention=bogus:1").content.decode()
    assert "notice-success" not in warning and 'class="notice"' in warning


def test_the_archived_views_protected_card_counts_archived_lessons_not_active_ones(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    for _ in range(3):
        LessonFactory(account=account, protected=True)  # active, pinned
    LessonFactory(account=account, protected=True, archived_at=timezone.now())
    LessonFactory(account=account, archived_at=timezone.now())
    for url in ("/explorer/?archived=1", "/explorer/stats/?archived=1"):
        html = logged_in.get(url).content.decode()
        assert card(html, "protected") == 1, url
        assert card(html, "lessons") == 2, url
    assert card(logged_in.get("/explorer/").content.decode(), "protected") == 3


def test_the_one_run_view_shows_its_run_as_a_filter_that_can_be_cleared(logged_in: Client, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, created_at=timezone.now() - timedelta(days=200))
    policy = policy_create(account=account, rule=Rule(conditions={"min_age_days": 90}), name="stale")
    run = grooming.run_start(account=account, policy=policy, trigger=PolicyRun.Trigger.MANUAL)
    grooming.run_execute(run.pk)
    assert Lesson.objects.filter(archived_by_run=run).count() == 1
    html = logged_in.get(f"/explorer/?archived=1&run={run.pk}").content.decode()
    assert "No filters" not in text(html)
    chip = re.search(r'<span class="pill pill-run".*?</a>\s*</span>', html, flags=re.S)
    assert chip and f"run #{run.pk}" in text(chip.group(0))
    clear = re.search(r'class="pill-remove" href="([^"]+)"', chip.group(0))
    assert clear and "run=" not in clear.group(1) and "archived=1" in clear.group(1)


def test_every_page_names_a_favicon_that_is_served(logged_in: Client, client: Client) -> None:
    html = logged_in.get("/explorer/").content.decode()
    icon = re.search(r'<link rel="icon" href="([^"]+)"', html)
    assert icon and icon.group(1).endswith(".svg")
    response = client.get("/favicon.ico")
    assert response.status_code in (301, 302) and response["Location"] == icon.group(1)
