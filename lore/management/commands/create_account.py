"""`manage.py create_account NAME --admin USERNAME`: the first run without the admin site or a shell."""

from __future__ import annotations

import getpass
import sys
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.urls import reverse

from lore.accounts import account_create, membership_add
from lore.activity import command
from lore.models import Account
from lore.roles import Role


class Command(BaseCommand):
    help = "Create an account and its admin (password from a prompt or --password-stdin); prints the sign-in URL."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("name", help="the account's name (its URL slug is made from it)")
        parser.add_argument("--admin", required=True, help="the admin's username (created if new)")
        parser.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
        parser.add_argument("--url", default="", help="the site's address (default: LORE_BASE_URL)")

    def handle(self, *args: Any, **opts: Any) -> None:
        name, username = str(opts["name"]).strip(), str(opts["admin"]).strip()
        if not name or not username:
            raise CommandError("the account name and the admin's username must not be empty")
        if Account.objects.filter(name=name).exists():
            raise CommandError(f"an account named {name!r} already exists")
        users = get_user_model().objects
        user = users.filter(username=username).first()
        password = None if user is not None else self._password(username, bool(opts["password_stdin"]))
        with transaction.atomic():
            if user is None:
                user = users.create_user(username=username, password=password)
            account = account_create(name=name)
            membership_add(account=account, user=user, role=Role.ADMIN, actor=command("create_account"))
        base = str(opts["url"] or settings.LORE_BASE_URL).rstrip("/")
        self.stdout.write(
            f"Created the account {account.name} (/a/{account.slug}/) with {username} as its admin."
        )
        self.stdout.write(f"Sign in at {base}{reverse('login')}")

    def _password(self, username: str, from_stdin: bool) -> str:
        if from_stdin:
            password = sys.stdin.readline().rstrip("\n")
        else:
            password = getpass.getpass(f"Password for {username}: ")
            if password != getpass.getpass("The same password again: "):
                raise CommandError("the passwords differ")
        try:
            validate_password(password, get_user_model()(username=username))
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        return password
