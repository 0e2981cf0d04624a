import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lore.accounts import account_create
from lore.models import Account
from lore.transfer import import_stream


class Command(BaseCommand):
    help = "Import NDJSON lessons into an account (upsert on scope+key; counters and timestamps kept)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True)
        parser.add_argument("--input", "-i", default="-")
        parser.add_argument("--create-account", action="store_true")

    def handle(self, *args: Any, **opts: Any) -> None:
        name = str(opts["account"])
        account = Account.objects.filter(name=name).first()
        if account is None:
            if not opts["create_account"]:
                raise CommandError(f"no account named {name!r} (pass --create-account to create it)")
            account = account_create(name=name)
        try:
            src = sys.stdin.buffer if opts["input"] == "-" else open(str(opts["input"]), "rb")  # noqa: SIM115
        except OSError as exc:
            raise CommandError(f"cannot read {opts['input']}: {exc.strerror}") from exc
        with src:
            report = import_stream(
                account,
                src.read,
                actor="import_lessons",
                progress=lambda r: self.stderr.write(f"\r  {r.created + r.updated:,} lines", ending=""),
            )
        self.stderr.write(
            f"\ncreated {report.created:,}, updated {report.updated:,}, failed {report.failed_total:,}"
        )
        for failure in report.failed[:50]:
            self.stderr.write(f"  line {failure['line']}: {failure['field']}: {failure['message']}")
        if report.failed_total:
            raise CommandError(f"{report.failed_total:,} line(s) failed")
