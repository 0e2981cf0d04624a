"""`manage.py seed_demo`: a demo account, a login, a token and a realistic store."""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from lore.accounts import account_create, token_create
from lore.demo import demo_store_create
from lore.models import Account, Lesson, LessonEventBatch, Membership
from lore.roles import ALL_SCOPES, Role
from lore.transfer import analyze_lessons


class Command(BaseCommand):
    help = "Create a demo account with a login and fill it with a realistic store of lessons."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--lessons", type=int, default=20_000)
        parser.add_argument("--seed", type=int, default=7)
        parser.add_argument("--account", default="demo")
        parser.add_argument("--user", default="demo")
        parser.add_argument("--password", default="lore-demo")
        parser.add_argument("--reset", action="store_true", help="delete the account's lessons first")
        parser.add_argument("--if-empty", action="store_true", help="do nothing if the account has lessons")
        parser.add_argument("--token-file", default="", help="write a fresh API token to this file")

    def handle(self, *args: Any, **opts: Any) -> None:
        lessons = int(opts["lessons"])
        if lessons < 0 or lessons > 5_000_000:
            raise CommandError("--lessons must be between 0 and 5,000,000")
        with transaction.atomic():
            account = Account.objects.filter(name=str(opts["account"])).first() or account_create(
                name=str(opts["account"])
            )
            User = get_user_model()
            user = User.objects.filter(username=opts["user"]).first()
            if user is None:
                user = User.objects.create_user(username=str(opts["user"]), password=str(opts["password"]))
            Membership.objects.get_or_create(user=user, account=account, defaults={"role": Role.ADMIN})
        if opts["token_file"]:
            _, raw = token_create(
                account=account, name="demo token (make run)", created_by=user, scopes=ALL_SCOPES
            )
            with open(str(opts["token_file"]), "w") as fh:
                fh.write(raw)
        existing = Lesson.objects.filter(account=account).count()
        if opts["if_empty"] and existing:
            self.stdout.write(f"{account.name}: already holds {existing:,} lessons; left as it is.")
            return
        if existing and not opts["reset"]:
            raise CommandError(
                f"{account.name} already holds {existing:,} lessons: pass --reset to replace them "
                "(or --if-empty to leave them)"
            )
        if existing:
            Lesson.objects.filter(account=account).delete()  # with their per-lesson events
            LessonEventBatch.objects.filter(
                account=account
            ).delete()  # the batches' audit rows held only them
        started = time.monotonic()

        def progress(made: int) -> None:
            self.stdout.write(f"\r  {made:,}/{lessons:,} lessons", ending="")
            self.stdout.flush()

        made = demo_store_create(account, lessons=lessons, seed=int(opts["seed"]), progress=progress)
        analyze_lessons()  # fresh planner statistics for the new store (PostgreSQL)
        self.stdout.write(f"\n{account.name}: {made:,} lessons in {time.monotonic() - started:.1f}s")
