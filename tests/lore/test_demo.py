"""seed_demo: a realistic store, written by the bulk path of each database."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, F, Min

from lore.models import Account, Lesson, LessonEventBatch, LessonTag
from lore.services import lessons_archive

pytestmark = pytest.mark.django_db


def seed(*args: str) -> str:
    out = io.StringIO()
    call_command("seed_demo", "--account", "demo", *args, stdout=out)
    return out.getvalue()


def test_seed_demo_writes_the_lessons_their_tag_rows_and_a_login() -> None:
    seed("--lessons", "2500")
    account = Account.objects.get(name="demo")
    lessons = Lesson.objects.filter(account=account)
    assert lessons.count() == 2500
    assert account.memberships.get().user.check_password("lore-demo")
    expected_tags = sum(len(tags) for tags in lessons.values_list("tags", flat=True))
    assert LessonTag.objects.filter(account=account).count() == expected_tags
    sample = lessons.annotate(n=Count("tag_rows")).order_by("pk")[:200]
    assert all(lesson.n == len(lesson.tags) for lesson in sample)


def test_the_demo_store_has_counters_shaped_like_a_real_one() -> None:
    seed("--lessons", "3000")
    lessons = Lesson.objects.filter(account__name="demo")
    assert lessons.aggregate(m=Min("read_count"))["m"] >= 26  # every lesson rode along in list pages
    assert not lessons.filter(opened_count__gt=F("read_count")).exists()
    assert not lessons.filter(last_opened_at__gt=F("last_read_at")).exists()
    assert not lessons.filter(updated_at__lt=F("created_at")).exists()
    never_opened = lessons.filter(opened_count=0).count() / 3000
    assert 0.4 < never_opened < 0.7
    assert lessons.filter(read_count__gte=100).count() / 3000 > 0.5  # most in the hundreds
    assert lessons.filter(opened_count__gte=80).exists()  # a few opened very often
    assert lessons.filter(protected=True).exists() and lessons.filter(archived_at__isnull=False).exists()
    assert lessons.values("scope").distinct().count() > 15


def test_the_same_seed_makes_the_same_store() -> None:
    seed("--lessons", "200", "--seed", "11")
    first = list(Lesson.objects.order_by("key").values_list("key", "kind", "read_count", "tags"))
    seed("--lessons", "200", "--seed", "11", "--reset")
    assert list(Lesson.objects.order_by("key").values_list("key", "kind", "read_count", "tags")) == first


def test_seed_demo_does_not_pile_onto_an_existing_store() -> None:
    seed("--lessons", "100")
    with pytest.raises(CommandError, match="--reset"):
        seed("--lessons", "100")
    assert "left as it is" in seed("--lessons", "100", "--if-empty")
    seed("--lessons", "40", "--reset")
    assert Lesson.objects.filter(account__name="demo").count() == 40


def test_a_reset_leaves_no_audit_batch_of_the_lessons_it_replaced() -> None:
    seed("--lessons", "30")
    account = Account.objects.get(name="demo")
    lessons_archive(
        account=account, lesson_ids=list(Lesson.objects.filter(account=account).values_list("pk", flat=True))
    )
    assert LessonEventBatch.objects.filter(account=account).exists()
    seed("--lessons", "30", "--reset")
    assert not LessonEventBatch.objects.filter(account=account).exists()
