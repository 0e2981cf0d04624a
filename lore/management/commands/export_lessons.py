import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lore.models import Account
from lore.transfer import export_lines


class Command(BaseCommand):
    help = "Export every lesson of an account as NDJSON (counters and timestamps included)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True)
        parser.add_argument("--output", "-o", default="-")

    def handle(self, *args: Any, **opts: Any) -> None:
        account = Account.objects.filter(name=opts["account"]).first()
        if account is None:
            raise CommandError(f"no account named {opts['account']!r}")
        out = sys.stdout if opts["output"] == "-" else open(str(opts["output"]), "w", encoding="utf-8")
        count = 0
        try:
            for line in export_lines(account):
                out.write(line)
                count += 1
        finally:
            if out is not sys.stdout:
                out.close()
        self.stderr.write(f"exported {count:,} lessons")
