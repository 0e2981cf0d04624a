"""factory_boy factories: the one place tests build objects directly (state set-up, not behaviour)."""

from __future__ import annotations

import hashlib

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.text import slugify

from lore.models import Account, Finding, FindingMember, Lesson, Membership
from lore.roles import Role
from lore.services import tags_sync


class AccountFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Account
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"account-{n}")
    slug = factory.LazyAttribute(lambda account: slugify(account.name)[:40])


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.PostGenerationMethodCall("set_password", "pw-for-tests")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    account = factory.SubFactory(AccountFactory)
    role = Role.ADMIN  # tests of what a lesser role may not do say so


class LessonFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lesson
        skip_postgeneration_save = True

    account = factory.SubFactory(AccountFactory)
    scope = "repo::acme/app"
    key = factory.Sequence(lambda n: f"lesson-{n}")
    content = factory.LazyAttribute(lambda o: f"content of {o.key}")
    kind = "lesson"
    tags: list[str] = []
    host = "claude-code"
    seen_count = 1
    read_count = 100
    opened_count = 0
    created_at = factory.LazyFunction(timezone.now)
    updated_at = factory.LazyAttribute(lambda o: o.created_at)

    @factory.post_generation
    def sync_tags(obj: Lesson, create: bool, extracted: object, **kwargs: object) -> None:  # noqa: N805
        if create:
            tags_sync(obj.account, {obj.pk: obj.tags})


def finding_open(
    keeper: Lesson | None, retire: list[Lesson], *, kind: str = Finding.Kind.NEAR_DUPLICATE
) -> Finding:
    """An open finding as an inventory records it: `keeper` kept (None for ephemera), `retire` proposed for
    retirement, each member as it is now (its `updated_at`), the keeper in the evidence."""
    lessons = [keeper, *retire] if keeper is not None else retire
    account = lessons[0].account
    finding = Finding.objects.create(
        account=account,
        kind=kind,
        family=lessons[0].scope,
        fingerprint=hashlib.sha256(f"{kind} {[lesson.pk for lesson in lessons]}".encode()).hexdigest(),
        evidence={"superseded_by": keeper.pk if keeper is not None else None},
        created_at=timezone.now(),
    )
    FindingMember.objects.bulk_create(
        FindingMember(
            finding=finding,
            lesson=lesson,
            action=FindingMember.Action.KEEP if lesson is keeper else FindingMember.Action.RETIRE,
            updated_at=lesson.updated_at,
        )
        for lesson in lessons
    )
    return finding
