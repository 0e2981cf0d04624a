"""`lorekit`: the command line of Lore Explorer (DESIGN.md §11). Talks HTTP to the REST API; never imports Django.

    export LOREKIT_URL=http://localhost:8000
    export LOREKIT_TOKEN=lk_…            # manage.py create_token --account NAME
    lorekit groom --scope repo::acme/app --unseen-days 90

Exit codes: 0 ok · 1 the server refused or failed (validation, conflict, declined run) · 2 usage or configuration ·
3 not found · 4 authentication failed · 5 server unreachable. Human tables by default, `--json` for scripts;
progress of long imports and exports goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from typing import IO, Any

from lorekit import output
from lorekit.client import EXIT_ERROR, EXIT_OK, EXIT_USAGE, LoreClient, LoreError, dumps
from lorekit.flags import (
    add_clear_flags,
    add_condition_flags,
    add_dimension_flags,
    add_option,
    bounded,
    clears,
    rule_body,
)
from lorekit.registry import (
    DIMENSIONS,
    GARDEN_OPTION,
    OPTION,
    PARAMS,
    POLICY_DIMENSIONS,
    RETENTION_PARAMS,
)

Handler = Callable[[LoreClient, argparse.Namespace], int]


class UsageError(Exception):
    """A command line that parses but cannot be run as given (exit 2)."""


def emit(args: argparse.Namespace, data: Any, human: str) -> None:
    print(dumps(data) if args.json else output.terminal_safe(human))


def address_arg(text: str) -> str:
    if "::" not in text:
        raise argparse.ArgumentTypeError("an address is SCOPE::KEY, e.g. repo::acme/app::use-uv")
    return text


# ---------------------------------------------------------------- groom


def groom_body(args: argparse.Namespace) -> dict[str, Any]:
    rule = rule_body(args, RETENTION_PARAMS, POLICY_DIMENSIONS)
    if args.policy_id is not None:
        if rule or args.scope:
            raise UsageError("--policy-id grooms the saved rule: leave out --scope and the condition flags")
        return {"policy_id": args.policy_id}
    if not args.scope:
        raise UsageError("give --scope (global for the whole account) or --policy-id")
    return {"scope": args.scope, **rule}


def confirm(question: str) -> bool:
    sys.stderr.write(f"{question} [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    return answer in ("y", "yes")


def cmd_groom(client: LoreClient, args: argparse.Namespace) -> int:
    body = groom_body(args)
    if not args.run:
        preview = client.groom_preview(body)
        human = f"{output.lessons(preview['count'])} would be archived (a preview changes nothing)."
        if preview["keys"]:
            human += "\n" + output.keys_table(preview["keys"], args.limit)
        emit(args, preview, human)
        return EXIT_OK
    as_of = None
    if not args.yes:
        if not sys.stdin.isatty():
            raise UsageError("--run archives lessons: confirm at a terminal, or pass --yes")
        preview, as_of = client.groom_preview_taken(body)
        if not preview["count"]:
            emit(args, {**preview, "run_id": None}, "Nothing to archive.")
            return EXIT_OK
        print(output.terminal_safe(output.keys_table(preview["keys"], args.limit)), file=sys.stderr)
        if not confirm(
            f"Archive {'this lesson' if preview['count'] == 1 else 'these ' + output.lessons(preview['count'])}?"
            " They stay restorable (lorekit restore)."
        ):
            print("Nothing archived.", file=sys.stderr)
            return EXIT_ERROR
    # What was confirmed, not what matches by the time of the answer.
    result = client.groom_run(body, as_of=as_of)
    human = f"Archived {output.lessons(result['count'])} (run {result['run_id']})."
    if result["keys"]:
        human += "\n" + output.keys_table(result["keys"], args.limit)
        human += "\nUndo one with: lorekit restore SCOPE::KEY"
    emit(args, result, human)
    return EXIT_OK


# ---------------------------------------------------------------- policies


def cmd_policy_create(client: LoreClient, args: argparse.Namespace) -> int:
    body: dict[str, Any] = {"name": args.name, "scope": args.scope, "mode": args.mode}
    body.update(rule_body(args, RETENTION_PARAMS, POLICY_DIMENSIONS))
    if args.enabled is not None:
        body["enabled"] = args.enabled
    policy = client.policy_create(body)
    emit(args, policy, f"Created {output.policy_detail(policy)}")
    return EXIT_OK


def cmd_policy_update(client: LoreClient, args: argparse.Namespace) -> int:
    changes = rule_body(args, RETENTION_PARAMS, POLICY_DIMENSIONS)
    cleared = clears(args, RETENTION_PARAMS, POLICY_DIMENSIONS)
    both = sorted(set(changes) & set(cleared))
    if both:
        raise UsageError(f"--{both[0].replace('_', '-')} and its --clear-* form contradict each other")
    changes.update(cleared)
    for name in ("name", "scope", "mode", "enabled"):
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    if not changes:
        raise UsageError(
            "nothing to change: give a flag, a --clear-* flag, --name, --scope, --mode or --enabled"
        )
    policy = client.policy_update(args.id, changes)
    emit(args, policy, f"Updated {output.policy_detail(policy)}")
    return EXIT_OK


def cmd_policy_list(client: LoreClient, args: argparse.Namespace) -> int:
    policies = client.policy_list()
    emit(args, policies, output.policies_table(policies))
    return EXIT_OK


def cmd_policy_show(client: LoreClient, args: argparse.Namespace) -> int:
    policy = client.policy_show(args.id)
    emit(args, policy, output.policy_detail(policy))
    return EXIT_OK


def cmd_policy_delete(client: LoreClient, args: argparse.Namespace) -> int:
    client.policy_delete(args.id)
    emit(args, {"deleted": args.id}, f"Deleted policy {args.id} (the rule only: no lesson was touched).")
    return EXIT_OK


# ---------------------------------------------------------------- lessons


def cmd_protect(client: LoreClient, args: argparse.Namespace) -> int:
    protected = not args.off
    lesson = client.memory_protect(args.address, protected)
    if protected:
        human = f"Pinned {lesson['address']}: no policy or groom run will archive it."
    else:
        human = f"Unpinned {lesson['address']}: policies can reach it again."
    emit(args, lesson, human)
    return EXIT_OK


def cmd_restore(client: LoreClient, args: argparse.Namespace) -> int:
    lesson = client.memory_restore(args.address)
    emit(args, lesson, f"Restored {lesson['address']}.")
    return EXIT_OK


def cmd_read(client: LoreClient, args: argparse.Namespace) -> int:
    lesson = client.memory_read(args.address)
    emit(args, lesson, output.lesson_detail(lesson))
    return EXIT_OK


def filters_body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = rule_body(args, PARAMS, DIMENSIONS)
    for name in ("scope", "retention", "cursor"):
        if getattr(args, name):
            body[name] = getattr(args, name)
    body.update(sort=args.sort, limit=args.limit, archived=args.archived)
    return body


def show_page(args: argparse.Namespace, page: dict[str, Any]) -> int:
    emit(args, page, output.lessons_table(page["items"]))
    if page.get("next_cursor") and not args.json:
        print(f"more: --cursor {page['next_cursor']}", file=sys.stderr)
    return EXIT_OK


def cmd_list(client: LoreClient, args: argparse.Namespace) -> int:
    return show_page(args, client.memory_list(filters_body(args)))


def cmd_search(client: LoreClient, args: argparse.Namespace) -> int:
    return show_page(args, client.memory_search(args.query, filters_body(args)))


def cmd_write(client: LoreClient, args: argparse.Namespace) -> int:
    scope, _, key = args.address.rpartition("::")
    if args.content is None and sys.stdin.isatty():
        raise UsageError("give the content as an argument, or pipe it in (lorekit write ADDRESS - < file)")
    content = args.content if args.content not in (None, "-") else sys.stdin.read()
    body: dict[str, Any] = {"scope": scope, "key": key, "content": content}
    for dim in POLICY_DIMENSIONS:
        raw = getattr(args, dim.name, None)
        if raw is not None:
            body[dim.name] = raw  # tags may be comma-separated: the server splits them
    if args.supersedes:
        body["supersedes"] = args.supersedes
    lesson = client.memory_write(body)
    what = "new" if lesson["seen_count"] == 1 else f"recurrence {lesson['seen_count']}"
    emit(args, lesson, f"Wrote {lesson['address']} ({what}).")
    return EXIT_OK


class Progress:
    """`exported 12,000 lines…` on stderr, never stdout (the data stream): redrawn in place when stderr is a
    terminal, a line per step with --progress otherwise, nothing else. The closing summary is always printed."""

    def __init__(self, verb: str, *, forced: bool = False, every: int = 1000) -> None:
        self.verb, self.every, self.count = verb, every, 0
        self.tty = sys.stderr.isatty()
        self.shown = self.tty or forced

    def tick(self) -> None:
        self.count += 1
        if self.shown and self.count % self.every == 0:
            end = "\r" if self.tty else "\n"
            sys.stderr.write(f"{self.verb} {self.count:,} lines…{end}")
            sys.stderr.flush()

    def done(self, message: str) -> None:
        sys.stderr.write(("\r\033[K" if self.tty else "") + message + "\n")


def cmd_export(client: LoreClient, args: argparse.Namespace) -> int:
    """With --output, lines go to a temporary file beside it, renamed over FILE only once the export is complete:
    an export that stops early leaves no partial FILE (and exits non-zero)."""
    progress = Progress("exported", forced=args.progress)
    partial = f"{args.output}.partial-{os.getpid()}" if args.output else ""
    target: IO[bytes] = open(partial, "wb") if args.output else sys.stdout.buffer  # noqa: SIM115
    complete = False
    try:
        for line in client.memory_export(tombstones=args.tombstones):
            target.write(line)
            if not line.startswith(b'{"export":'):
                progress.tick()  # lessons and tombstones, not the trailer
        complete = True
    finally:
        if args.output:
            target.close()
            if complete:
                os.replace(partial, args.output)
            else:
                os.unlink(partial)
        else:
            target.flush()
    progress.done(
        f"exported {output.lessons(progress.count)}" + (f" to {args.output}" if args.output else "")
    )
    return EXIT_OK


def upload_batches(source: IO[bytes], progress: Progress, lines_per_batch: int = 2000) -> Iterator[bytes]:
    chunk: list[bytes] = []
    for line in source:
        chunk.append(line if line.endswith(b"\n") else line + b"\n")
        if not line.startswith(b'{"export":'):  # an export's trailer rides along but is not a lesson
            progress.tick()
        if len(chunk) >= lines_per_batch:
            yield b"".join(chunk)
            chunk = []
    if chunk:
        yield b"".join(chunk)


def cmd_import(client: LoreClient, args: argparse.Namespace) -> int:
    progress = Progress("sent", forced=args.progress)  # lessons sent, the trailer not counted
    try:
        source: IO[bytes] = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from exc
    with source:
        report = client.memory_import(upload_batches(source, progress))
    failed = report["failed"]
    failed_total = report.get("failed_total", len(failed))
    progress.done(f"sent {progress.count:,} lines of lessons")
    human = f"Imported: {report['created']} created, {report['updated']} updated, {failed_total} failed."
    for failure in failed[:20]:
        human += f"\n  line {failure['line']}: {failure.get('field')}: {failure['message']}"
    emit(args, report, human)
    return EXIT_ERROR if failed_total else EXIT_OK


def _finding_line(finding: dict[str, Any]) -> str:
    retire = [m["address"] for m in finding["members"] if m["action"] == "retire"]
    keep = [m["address"] for m in finding["members"] if m["action"] == "keep"]
    review = [f"{m['address']} (id {m['id']})" for m in finding["members"] if m["action"] == "review"]
    kept = f" · keep {', '.join(keep)}" if keep else ""
    head = f"#{finding['id']} {finding['kind']} in {finding['family']}: {finding['summary']}"
    if review:
        return f"{head}\n  review {', '.join(review)}{kept}\n  apply with --apply {finding['id']} --keep LESSON_ID"
    return f"{head}\n  retire {', '.join(retire)}{kept}"


def _run_line(run: dict[str, Any]) -> str:
    if run["status"] == "done":
        return f"Inventory #{run['id']} done: {run['examined']:,} lessons examined, {run['found']:,} new findings."
    if run["status"] == "failed":
        return f"Inventory #{run['id']} failed: {run['error']}"
    pending = " (already pending)" if run.get("already_pending") else ""
    phase = f" ({run['phase']})" if run.get("phase") else ""
    return (
        f"Inventory #{run['id']} is {run['status']}{phase}{pending}: the findings below are from before it; "
        "wait for it with --wait SECONDS."
    )


def cmd_garden(client: LoreClient, args: argparse.Namespace) -> int:
    """The gardener's report (after an inventory with --run); --apply ID… retires those findings, each at most
    the account's apply cap, each undoable as one run (--undo ID); a possible duplicate's lesson to keep is --keep."""
    if args.keep is not None and len(args.apply or ()) != 1:
        raise UsageError("--keep goes with exactly one --apply ID (a possible duplicate's lesson to keep)")
    if args.undo is not None:
        undone = client.finding_undo(args.undo)
        human = (
            f"Undid finding {undone['finding']}: {output.lessons(undone['restored'])} restored; "
            "the finding is dismissed."
        )
        emit(args, undone, human)
        return EXIT_OK
    if args.apply:
        results = []
        for finding_id in args.apply:
            results.append(client.finding_apply(finding_id, keep=args.keep))
        human = "\n".join(
            f"Applied finding {r['finding']}: {output.lessons(r['archived'])} retired (run {r['run_id']})."
            for r in results
        )
        emit(args, {"applied": results}, human)
        return EXIT_OK
    run = client.garden_run(full=args.full, wait=args.wait) if args.run else None
    report = client.findings({"kind": args.kind, "scope": args.scope, "status": args.status})
    lines = [_finding_line(f) for f in report["items"]]
    human = "\n".join(lines) if lines else "No findings: nothing to review."
    if run is not None:
        report = {**report, "run": run}
        human = _run_line(run) + "\n" + human
    if lines:
        human += f"\nApply one with: lorekit garden --apply ID (at most {report['apply_cap']} lessons each)"
    emit(args, report, human)
    return EXIT_OK


def cmd_mcp(client: LoreClient, args: argparse.Namespace) -> int:
    from lorekit.mcp_server import serve

    serve(client)
    return EXIT_OK


# ---------------------------------------------------------------- the parser


class Commands:
    """Adds sub-commands that share the --json/--url/--token options and dispatch to a handler."""

    def __init__(self, subparsers: Any, common: argparse.ArgumentParser) -> None:
        self.subparsers, self.common = subparsers, common

    def add(self, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        sub = self.subparsers.add_parser(name, parents=[self.common], help=help_text, description=help_text)
        sub.set_defaults(handler=handler)
        return sub

    def add_with_address(self, name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        sub = self.add(name, handler, help_text)
        sub.add_argument("address", type=address_arg, metavar="SCOPE::KEY")
        return sub


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the server's JSON answer (for scripts)")
    common.add_argument("--url", help="server URL (default: $LOREKIT_URL)")
    common.add_argument("--token", help="API token (default: $LOREKIT_TOKEN)")
    parser = argparse.ArgumentParser(
        prog="lorekit",
        description="Read, write and groom the lessons in a Lore Explorer store.",
        epilog="Configuration: LOREKIT_URL and LOREKIT_TOKEN. Exit codes: 0 ok, 1 refused/failed, 2 usage, "
        "3 not found, 4 authentication, 5 unreachable.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands = Commands(subparsers, common)
    add_groom_command(commands)
    policy = subparsers.add_parser("policy", help="Create, update, list, show and delete retention policies.")
    add_policy_commands(
        Commands(policy.add_subparsers(dest="action", required=True, metavar="ACTION"), common)
    )
    add_lesson_commands(commands)
    add_listing_commands(commands)
    add_transfer_commands(commands)
    add_garden_command(commands)
    commands.add("mcp", cmd_mcp, "Serve the MCP tools over stdio (memory.*, policy.*, groom.*).")
    return parser


def add_garden_command(commands: Commands) -> None:
    garden = commands.add(
        "garden",
        cmd_garden,
        "The gardener's findings (near duplicates, superseded, expired ephemera); --apply ID…, --undo ID",
    )
    finding = GARDEN_OPTION["id"]
    decide = garden.add_mutually_exclusive_group()
    decide.add_argument(
        "--apply",
        type=bounded(finding.name, finding.low, finding.high),
        nargs="+",
        metavar="ID",
        help="apply these findings (retire)",
    )
    decide.add_argument(
        "--undo",
        type=bounded(finding.name, finding.low, finding.high),
        metavar="ID",
        help="undo an applied finding: restore every lesson it retired (the finding is then dismissed)",
    )
    add_option(garden, GARDEN_OPTION["keep"], metavar="LESSON_ID")
    add_option(garden, GARDEN_OPTION["run"])
    add_option(garden, GARDEN_OPTION["wait"], metavar="SECONDS")
    garden.add_argument("--full", action="store_true", help="with --run: examine every lesson")
    for name in ("kind", "scope", "status"):
        add_option(garden, GARDEN_OPTION[name])


def add_groom_command(commands: Commands) -> None:
    groom = commands.add(
        "groom", cmd_groom, "Preview what a rule or a saved policy would archive; --run archives it."
    )
    add_option(groom, OPTION["scope"])
    add_option(groom, OPTION["policy_id"], help="groom with a saved policy's rule")
    groom.add_argument("--run", action="store_true", help="archive the matches (asks for confirmation)")
    groom.add_argument("--yes", "-y", action="store_true", help="do not ask (needed without a terminal)")
    groom.add_argument("--limit", type=int, default=20, help="keys to show (0: all; --json shows all)")
    add_condition_flags(groom, RETENTION_PARAMS)
    add_dimension_flags(groom, POLICY_DIMENSIONS)


def add_policy_rule_flags(parser: argparse.ArgumentParser, *, creating: bool) -> None:
    add_option(parser, OPTION["name"], required=creating)
    add_option(parser, OPTION["scope"], required=creating, help="global (every scope) or a scope")
    mode = OPTION["mode"]
    add_option(parser, mode, default=mode.default if creating else None)
    enabled = parser.add_mutually_exclusive_group()
    add_option(enabled, OPTION["enabled"], action="store_const", const=True, default=None)
    enabled.add_argument("--disabled", dest="enabled", action="store_const", const=False)
    add_condition_flags(parser, RETENTION_PARAMS)
    add_dimension_flags(parser, POLICY_DIMENSIONS)


def add_policy_commands(actions: Commands) -> None:
    create = actions.add("create", cmd_policy_create, "Save a retention policy (name and scope required).")
    add_policy_rule_flags(create, creating=True)
    update = actions.add(
        "update", cmd_policy_update, "Change a policy; --clear-* removes a condition or filter."
    )
    add_option(update, OPTION["id"], positional=True)
    add_policy_rule_flags(update, creating=False)
    add_clear_flags(update, RETENTION_PARAMS, POLICY_DIMENSIONS)
    actions.add("list", cmd_policy_list, "List policies.")
    add_option(actions.add("show", cmd_policy_show, "Show one policy."), OPTION["id"], positional=True)
    delete = actions.add(
        "delete", cmd_policy_delete, "Delete a policy (the rule only: its lessons are not touched)."
    )
    add_option(delete, OPTION["id"], positional=True)


def add_lesson_commands(commands: Commands) -> None:
    commands.add_with_address(
        "pin", cmd_protect, "Protect a lesson: no policy or groom run archives it."
    ).set_defaults(off=False)
    commands.add_with_address("unpin", cmd_protect, "Remove a lesson's protection.").set_defaults(off=True)
    protect = commands.add_with_address(
        "protect", cmd_protect, "Protect a lesson (--off removes the protection)."
    )
    protect.add_argument("--off", action="store_true", help="remove the protection")
    commands.add_with_address("restore", cmd_restore, "Restore an archived lesson.")
    for name in ("read", "show"):
        commands.add_with_address(
            name, cmd_read, "Open one lesson (a deliberate open: Chosen +1, Last agent open now)."
        )
    write = commands.add_with_address(
        "write", cmd_write, "Write a lesson (a rewrite of the same address counts as a recurrence)."
    )
    write.add_argument("content", nargs="?", help="the lesson text (default or '-': read stdin)")
    write.add_argument(
        "--supersedes",
        action="append",
        type=address_arg,
        metavar="SCOPE::KEY",
        help="an older lesson this one replaces (repeatable): the gardener proposes retiring it",
    )
    add_dimension_flags(write, POLICY_DIMENSIONS, modes=False)


def add_listing_commands(commands: Commands) -> None:
    for name, handler, help_text in (
        ("list", cmd_list, "List lessons (every lesson on the page counts as delivered)."),
        ("search", cmd_search, "Search lessons by words in the key or content (delivers the page)."),
    ):
        sub = commands.add(name, handler, help_text)
        if name == "search":
            add_option(sub, OPTION["query"], positional=True)
        add_option(sub, OPTION["scope"], help="default: global (the whole account)")
        for option in ("retention", "sort", "limit"):
            add_option(sub, OPTION[option])
        add_option(sub, OPTION["cursor"], help="the next page (printed after a page)")
        add_option(sub, OPTION["archived"])
        add_condition_flags(sub, PARAMS)
        add_dimension_flags(sub, DIMENSIONS)


PROGRESS_HELP = "progress on stderr even when it is not a terminal (on a terminal it is always shown)"


def add_transfer_commands(commands: Commands) -> None:
    export = commands.add("export", cmd_export, "Export every lesson as NDJSON (stdout or --output).")
    export.add_argument("--output", "-o", help="file to write (default: stdout)")
    export.add_argument(
        "--tombstones", action="store_true", help="also one line per purged lesson (an import skips them)"
    )
    export.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    imp = commands.add(
        "import", cmd_import, "Import NDJSON (upsert on scope+key, keeps counters and timestamps)."
    )
    imp.add_argument("file", help="NDJSON file, or - for stdin")
    imp.add_argument("--progress", action="store_true", help=PROGRESS_HELP)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        surface = "mcp" if args.command == "mcp" else "cli"  # recorded on every read the server counts
        client = LoreClient.from_env(surface=surface, url=args.url, token=args.token)
    except LoreError as exc:
        print(output.terminal_safe(f"lorekit: {exc.message}"), file=sys.stderr)
        return exc.exit_code
    try:
        return int(args.handler(client, args))
    except UsageError as exc:
        print(f"lorekit {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LoreError as exc:
        if args.json:
            print(dumps(exc.as_dict()))
        where = f" ({exc.field})" if exc.field else ""
        print(output.terminal_safe(f"lorekit: {exc.message}{where}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("lorekit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `lorekit export | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    finally:
        client.close()


if __name__ == "__main__":
    sys.exit(main())
