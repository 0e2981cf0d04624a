"""`manage.py groom`: preview what a policy or an ad-hoc rule would archive, and archive it with --run.

Every condition and dimension flag comes from the registry (lore.conditions), exactly like lorekit's.
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS
from lore.models import Account, PolicyRun
from lore.rules.codec import RuleError, rule_parse_strict
from lore.rules.rule import Rule
from policies import grooming
from policies.models import RetentionPolicy


class Command(BaseCommand):
    help = (
        "Preview what a retention policy (--policy-id) or an ad-hoc rule (--scope and condition/filter flags) "
        "would archive; --run archives it after confirmation (--yes skips it); --undo RUN restores a run."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--account", required=True, help="the account's name")
        parser.add_argument("--policy-id", type=int, help="groom with a saved policy's rule")
        parser.add_argument(
            "--scope", help="global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH"
        )
        for param in RETENTION_PARAMS:
            parser.add_argument(param.flag, dest=param.name, metavar="N", help=param.condition.help)
        for dim in POLICY_DIMENSIONS:
            parser.add_argument(dim.flag, dest=dim.name, metavar="V1,V2", help=f"{dim.label} values")
            parser.add_argument(f"{dim.flag}-mode", dest=dim.mode_param, choices=dim.modes)
        parser.add_argument("--run", action="store_true", help="archive the matches (asks for confirmation)")
        parser.add_argument("--yes", action="store_true", help="do not ask for confirmation")
        parser.add_argument("--undo", type=int, metavar="RUN_ID", help="restore every lesson a run archived")
        parser.add_argument("--limit", type=int, default=50, help="how many keys to list (default 50)")
        parser.add_argument("--json", action="store_true", help='print {"count", "keys"} as JSON')

    def handle(self, *args: Any, **opts: Any) -> None:
        account = Account.objects.filter(name=opts["account"]).first()
        if account is None:
            raise CommandError(f"no account named {opts['account']!r}")
        if opts["undo"] is not None:
            return self._undo(account, opts["undo"])
        policy, rule = self._policy_and_rule(account, opts)
        try:
            found = grooming.preview(account, rule, keys_limit=max(0, opts["limit"]))
        except RuleError as exc:
            raise CommandError(f"{exc.field}: {exc.message}") from exc
        self._print_preview(found, opts)
        if opts["run"]:
            self._run(account, policy, rule, found.count, yes=opts["yes"], as_of=found.taken_at)
        return None

    def _policy_and_rule(self, account: Account, opts: dict[str, Any]) -> tuple[RetentionPolicy | None, Rule]:
        rule_flags = ["scope"] + [p.name for p in RETENTION_PARAMS] + [d.name for d in POLICY_DIMENSIONS]
        given = [name for name in rule_flags if opts.get(name) not in (None, "")]
        if opts["policy_id"] is not None:
            if given:
                raise CommandError(
                    f"--policy-id takes the policy's own rule: drop --{given[0].replace('_', '-')}"
                )
            policy = RetentionPolicy.objects.filter(account=account, pk=opts["policy_id"]).first()
            if policy is None:
                raise CommandError(f"no policy {opts['policy_id']} in account {account.name!r}")
            return policy, policy.rule
        if opts.get("scope") in (None, ""):
            raise CommandError("pass --policy-id, or --scope with at least one condition or filter")
        try:
            rule = rule_parse_strict(opts)
            grooming.rule_validate_for_policy(rule)
        except RuleError as exc:
            raise CommandError(f"{exc.field}: {exc.message}") from exc
        return None, rule

    def _print_preview(self, found: grooming.Preview, opts: dict[str, Any]) -> None:
        if opts["json"]:
            self.stdout.write(json.dumps({"count": found.count, "keys": found.keys}))
            return
        self.stdout.write(f"{found.count:,} lesson(s) match")
        for key in found.keys:
            self.stdout.write(f"  {key['scope']}::{key['key']}")
        if found.count > len(found.keys):
            self.stdout.write(f"  … and {found.count - len(found.keys):,} more")

    def _confirm(self, count: int, yes: bool) -> bool:
        if yes:
            return True
        if not sys.stdin or not sys.stdin.isatty():
            raise CommandError(
                f"--run would archive {count:,} lesson(s): confirm on a terminal or pass --yes"
            )
        what = "this lesson" if count == 1 else f"these {count:,} lessons"
        self.stdout.write(f"Archive {what}? They stay restorable (--undo). [y/N] ", ending="")
        self.stdout.flush()
        return sys.stdin.readline().strip().lower() in ("y", "yes")

    def _run(
        self,
        account: Account,
        policy: RetentionPolicy | None,
        rule: Rule,
        count: int,
        *,
        yes: bool,
        as_of: datetime,
    ) -> None:
        """Archive what the preview printed (as of its time), not what matches by the time of the answer."""
        if count == 0:
            self.stdout.write("Nothing to archive.")
            return
        if not self._confirm(count, yes):
            raise CommandError("not confirmed: nothing was archived")
        try:
            run = grooming.run_start(
                account=account,
                policy=policy,
                rule=rule,
                trigger=PolicyRun.Trigger.CLI,
                actor="manage.py groom",
                as_of=as_of,
            )
        except grooming.PreviewOutdated as exc:
            raise CommandError(f"nothing was archived: {exc}; run the command again") from exc
        if run is None:
            raise CommandError("this policy already has a run going; try again when it has finished")
        run = grooming.run_execute(
            run.pk, on_batch=lambda r: self.stderr.write(f"\r  archived {r.archived:,}", ending="")
        )
        self.stderr.write("")
        if run.status != PolicyRun.Status.DONE:
            raise CommandError(f"run {run.pk} ended {run.status}: {run.error or 'see the run history'}")
        self.stdout.write(
            f"Archived {run.archived:,} of {run.matched:,} matched (run {run.pk}). "
            f"Undo: manage.py groom --account {account.name} --undo {run.pk}"
        )

    def _undo(self, account: Account, run_id: int) -> None:
        run = PolicyRun.objects.filter(account=account, pk=run_id).first()
        if run is None:
            raise CommandError(f"no run {run_id} in account {account.name!r}")
        self.stdout.write(
            f"Restored {grooming.run_undo(run, actor='manage.py groom'):,} lesson(s) of run {run.pk}."
        )
