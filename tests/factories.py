"""factory_boy factories: the one place tests build objects directly (state set-up, not behaviour)."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model
from django.utils import timezone
from django.utils.text import slugify

from lore.models import Account, Lesson, Membership
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
