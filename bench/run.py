"""`make bench` — Lore Explorer at 100k and 1M lessons, side by side with Django's admin (DESIGN.md §13).

    .venv/bin/python bench/run.py --sizes 100k,1m --rounds 25 [--only explorer,admin,api,svc,archive,garden,reads,agents]
                                  [--explain] [--no-web] [--no-archive] [--archive-rounds 3] [--agents 16 --agent-cycles 20]

Each size runs in its own process against its own PostgreSQL database (lore_bench_<size>, created and loaded
on first use, reused afterwards). Results go to bench/results/<timestamp>.json and the generated part of
bench/RESULTS.md (and bench/EXPLAIN.md with --explain).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, sys.path[0] is bench/ (whose config.py would shadow the project's `config` package):
# import from the repository root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.config import AGENT_CYCLES, AGENTS, ARCHIVE_ROUNDS, DEFAULT_ROUNDS, PG_SERVER, WARMUP, size_parse  # noqa: E402


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/run.py", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100k,1m", help="comma-separated store sizes, e.g. 100k,1m")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="interleaved timed rounds")
    parser.add_argument("--warmup", type=int, default=WARMUP, help="untimed requests per scenario first")
    parser.add_argument(
        "--only",
        default="",
        help="scenario names or groups (explorer, admin, api, svc, archive, garden, reads, agents)",
    )
    parser.add_argument(
        "--explain", action="store_true", help="EXPLAIN (ANALYZE, BUFFERS) into bench/EXPLAIN.md"
    )
    parser.add_argument("--no-web", action="store_true", help="skip the gunicorn peak-RSS drive")
    parser.add_argument("--web-requests", type=int, default=300)
    parser.add_argument(
        "--agents", type=int, default=AGENTS, help="concurrent agents of the agent-load scenario (0: skip it)"
    )
    parser.add_argument("--agent-cycles", type=int, default=AGENT_CYCLES, help="list+search+read cycles each")
    parser.add_argument("--no-archive", action="store_true", help="skip the grooming run and its undo")
    parser.add_argument(
        "--archive-rounds",
        type=int,
        default=ARCHIVE_ROUNDS,
        help="rounds of bare archive UPDATE, run, bare restore UPDATE, undo",
    )
    parser.add_argument(
        "--server", default=os.environ.get("BENCH_PG", PG_SERVER), help="PostgreSQL server URL"
    )
    parser.add_argument("--no-markdown", action="store_true", help="write the JSON only")
    parser.add_argument("--report", default="", help="only re-render the Markdown from a saved results JSON")
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)
    parser.add_argument("--out", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    if args.archive_rounds < 1:
        parser.error("--archive-rounds must be at least 1")
    if args.agents < 0 or args.agent_cycles < 1:
        parser.error("--agents must be 0 or more and --agent-cycles at least 1")
    try:
        args.size_list = [size_parse(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError as exc:
        parser.error(str(exc))
    args.only_list = [w.strip() for w in args.only.split(",") if w.strip()]
    return args


def _child_env(database_url: str) -> dict[str, str]:
    env = os.environ.copy()
    env.update(
        {
            "DATABASE_URL": database_url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "DEBUG": "false",
            # What a run or undo queues (lore.vacuum) goes nowhere: the bench times that work itself.
            "CELERY_BROKER_URL": "memory://",
            "SECRET_KEY": env.get("SECRET_KEY") or "bench-only-secret-key-" + "b" * 40,
            "PYTHONPATH": str(ROOT),
            # WhiteNoise warns when collectstatic has not run; the bench never serves static files.
            "PYTHONWARNINGS": "ignore:No directory at:UserWarning",
        }
    )
    return env


def child_main(args: argparse.Namespace) -> int:
    """One size, in this process (Django is set up here, against DATABASE_URL)."""
    import django

    django.setup()
    from django.core.management import call_command

    from bench.store import NotEnoughDisk
    from bench.suite import bench_size

    call_command("migrate", verbosity=0)
    try:
        result = bench_size(
            size_parse(args.child),
            rounds=args.rounds,
            only=args.only_list,
            warmup=args.warmup,
            web=not args.no_web,
            web_requests=args.web_requests,
            archive=not args.no_archive,
            explain=args.explain,
            agents=args.agents,
            agent_cycles=args.agent_cycles,
            archive_rounds=args.archive_rounds,
        )
    except NotEnoughDisk as exc:
        print(f"refused: {exc}", file=sys.stderr)
        return 2
    Path(args.out).write_text(json.dumps(result, indent=2, default=str))
    return 0


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    if args.child:
        return child_main(args)
    if args.report:
        from bench.report import markdown_write

        for path in markdown_write(json.loads(Path(args.report).read_text())):
            print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
        return 0
    from bench.machine import machine_describe
    from bench.pg import database_ensure
    from bench.report import report_write

    started = time.strftime("%Y%m%dT%H%M%S")
    results = {
        "started": started,
        "command": command_line(argv),
        "machine": machine_describe(args.server),
        "sizes": {},
    }
    results["machine"]["loadavg_start"] = os.getloadavg()
    for size in args.size_list:
        url = f"{args.server.rstrip('/')}/{size.database}"
        if database_ensure(url):
            print(f"created database {size.database}", file=sys.stderr)
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
            out = fh.name
        child = [sys.executable, str(Path(__file__).resolve()), *(argv if argv is not None else sys.argv[1:])]
        child += ["--child", size.label, "--out", out]
        code = subprocess.call(child, env=_child_env(url), cwd=ROOT)
        if code:
            print(f"size {size.label} failed with exit code {code}", file=sys.stderr)
            return code
        results["sizes"][size.label] = json.loads(Path(out).read_text())
        os.unlink(out)
    results["machine"]["loadavg_end"] = os.getloadavg()
    paths = report_write(results, markdown=not args.no_markdown)
    for path in paths:
        print(f"wrote {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


def command_line(argv: list[str] | None) -> str:
    words = argv if argv is not None else sys.argv[1:]
    return " ".join([".venv/bin/python bench/run.py", *words])


if __name__ == "__main__":
    sys.exit(main())
