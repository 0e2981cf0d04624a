from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lore.accounts import token_create
from lore.models import Account


class Command(BaseCommand):
    help = "Create an API token for an account and print it (it is shown once)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True)
        parser.add_argument("--name", default="cli")
        parser.add_argument("--owner", default="personal")

    def handle(self, *args: Any, **opts: Any) -> None:
        account = Account.objects.filter(name=opts["account"]).first()
        if account is None:
            raise CommandError(f"no account named {opts['account']!r}")
        _, raw = token_create(account=account, name=str(opts["name"]), owner=str(opts["owner"]))
        self.stdout.write(raw)
