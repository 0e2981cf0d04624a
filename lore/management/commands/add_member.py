"""`manage.py add_member ACCOUNT USERNAME --role editor`: add a person to an account (or change their role)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from lore.accounts import MembershipError, membership_add, set_password_token
from lore.activity import command
from lore.models import Account
from lore.roles import Role


class Command(BaseCommand):
    help = "Add a person to an account with a role; a new person gets a one-time set-password link."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("account", help="the account's name or slug")
        parser.add_argument("username")
        parser.add_argument("--role", choices=Role.values, default=Role.VIEWER)
        parser.add_argument("--url", default="", help="the site's address (default: LORE_BASE_URL)")

    def handle(self, *args: Any, **opts: Any) -> None:
        wanted = str(opts["account"])
        account = Account.objects.filter(name=wanted).first() or Account.objects.filter(slug=wanted).first()
        if account is None:
            raise CommandError(f"no account named {wanted!r}")
        users = get_user_model().objects
        username = str(opts["username"]).strip()
        user = users.filter(username=username).first()
        if user is None:
            user = users.create_user(username=username)
            user.set_unusable_password()
            user.save(update_fields=["password"])
        try:
            membership = membership_add(
                account=account, user=user, role=str(opts["role"]), actor=command("add_member")
            )
        except MembershipError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"{username} is {membership.role} in {account.name}.")
        if not user.has_usable_password():
            base = str(opts["url"] or settings.LORE_BASE_URL).rstrip("/")
            uid, _, secret = set_password_token(user).partition("/")
            link = base + reverse("password_reset_confirm", args=[uid, secret])
            self.stdout.write(f"They choose a password (once) at {link}")
