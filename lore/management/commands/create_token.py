from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lore.accounts import ScopeNotAllowed, token_create
from lore.models import Account
from lore.roles import ALL_SCOPES, DEFAULT_TOKEN_SCOPES


class Command(BaseCommand):
    help = "Create an API token for an account and print it (it is shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True, help="the account's name or slug")
        parser.add_argument("--name", default="cli")
        parser.add_argument("--owner", default="personal")
        parser.add_argument(
            "--scopes",
            default=",".join(DEFAULT_TOKEN_SCOPES),
            help=f"comma-separated, of {', '.join(ALL_SCOPES)} (default: %(default)s)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        wanted = str(opts["account"])
        account = Account.objects.filter(name=wanted).first() or Account.objects.filter(slug=wanted).first()
        if account is None:
            raise CommandError(f"no account named {wanted!r}")
        scopes = [s.strip() for s in str(opts["scopes"]).split(",") if s.strip()]
        try:
            _, raw = token_create(
                account=account, name=str(opts["name"]), owner=str(opts["owner"]), scopes=scopes
            )
        except (ScopeNotAllowed, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(raw)
