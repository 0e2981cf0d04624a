"""Event tables that stay bounded (issue 28, part 3): a simulated year of reads and lesson events, then the nightly
rollup, with the tables' rows and sizes before and after.

    DEBUG=1 .venv/bin/python bench/rollups.py [--lessons 100000] [--days 365] [--reads-per-day 10000]
        [--hot-share 0.02] [--db postgres://postgres@127.0.0.1:5432/lore_rollups_bench]

In its own PostgreSQL database (created on first use; the demo store of `--lessons` lessons loaded by
bench.store), it fabricates with `generate_series`:
- `--reads-per-day` ReadEvent rows a day for `--days` days, over the store's scopes and the four surfaces
  (an agent fleet's list/search pages, fetches and opens);
- for a "hot" share of the lessons (`--hot-share`), one `written` LessonEvent a day (a lesson an agent rewrites
  daily), the churn that grows the event log; every other lesson keeps the few events it has.
Then it runs `lore.rollups.rollups_nightly` once and reports, per table, rows and pg_total_relation_size before,
right after (the DELETEs leave dead rows: same size), after a plain VACUUM (space reusable: the table stops
growing) and after VACUUM FULL (what a table of those rows takes). The Read card of a year-long custom range and
of the presets is compared before and after: they must be equal.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

TABLES = ("lore_readevent", "lore_lessonevent", "lore_dailyreads", "lore_dailyrollup")
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/lore_rollups_bench"


def arguments(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="bench/rollups.py", description=__doc__.split("\n")[0])
    parser.add_argument("--lessons", type=int, default=100_000)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--reads-per-day", type=int, default=10_000)
    parser.add_argument("--hot-share", type=float, default=0.02, help="share of lessons rewritten every day")
    parser.add_argument("--db", default=os.environ.get("BENCH_ROLLUPS_DB", DEFAULT_DB))
    return parser.parse_args(argv)


def _execute(sql: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall() if cursor.description else []


def _sizes(account_id: int) -> dict[str, dict[str, int]]:
    return {
        table: {
            "rows": int(_execute(f"SELECT count(*) FROM {table} WHERE account_id = %s", [account_id])[0][0]),  # type: ignore[arg-type]
            "bytes": int(_execute("SELECT pg_total_relation_size(%s)", [table])[0][0]),  # type: ignore[arg-type]
        }
        for table in TABLES
    }


def _fabricate(account_id: int, args: argparse.Namespace, now: object) -> dict[str, float]:
    """A year of reads and of daily rewrites of the hot lessons, ending now. Seconds each insert took."""
    timings = {}
    started = time.monotonic()
    _execute(
        """
        INSERT INTO lore_readevent (account_id, scope, surface, lesson_count, at)
        SELECT %s, scopes[1 + (i %% array_length(scopes, 1))], surfaces[1 + (i %% 4)], (ARRAY[1, 1, 20, 20, 50])[1 + (i %% 5)],
               %s::timestamptz - make_interval(secs => (i::float8 / %s) * 86400)
        FROM generate_series(1, %s) AS i,
             (SELECT array_agg(DISTINCT scope) AS scopes FROM lore_lesson WHERE account_id = %s) AS s,
             (SELECT ARRAY['api', 'cli', 'mcp', 'dashboard'] AS surfaces) AS f
        """,
        [account_id, now, args.reads_per_day, args.reads_per_day * args.days, account_id],
    )
    timings["insert_reads_s"] = round(time.monotonic() - started, 1)
    started = time.monotonic()
    _execute(
        """
        INSERT INTO lore_lessonevent (account_id, lesson_id, action, actor, run_id, detail, at)
        SELECT %s, l.id, 'written', 'bench', NULL, 'bench-year', %s::timestamptz - make_interval(days => d)
        FROM (SELECT id FROM lore_lesson WHERE account_id = %s ORDER BY id LIMIT %s) AS l,
             generate_series(0, %s - 1) AS d
        """,
        [account_id, now, account_id, int(args.lessons * args.hot_share), args.days],
    )
    timings["insert_events_s"] = round(time.monotonic() - started, 1)
    _execute("ANALYZE lore_readevent")
    _execute("ANALYZE lore_lessonevent")
    return timings


def _read_cards(account, now) -> dict[str, int]:  # noqa: ANN001
    """The Read card at one moment (a preset's window slides with `now`), for the presets and a year-long range."""
    from django.http import QueryDict

    from explorer.queries import read_card
    from explorer.state import ExplorerState

    year = f"{(now - timedelta(days=400)).date()}..{now.date()}"
    return {
        query: read_card(account, ExplorerState.from_query(QueryDict(query)), now=now).delivered
        for query in ("", "range=7d", "range=90d", f"range={year}")
    }


def main(argv: list[str] | None = None) -> int:
    args = arguments(argv)
    from bench.pg import database_ensure

    database_ensure(args.db)
    os.environ["DATABASE_URL"] = args.db
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from bench.store import store_ensure
    from lore.models import Account, DailyReads, DailyRollup, LessonEvent, ReadEvent, RollupState
    from lore.rollups import horizon_days, rollups_nightly

    call_command("migrate", verbosity=0, interactive=False)
    account, _ = store_ensure(args.lessons)
    # Start from the store as loaded: no fabricated year, no rollups.
    ReadEvent.objects.filter(account=account).delete()
    LessonEvent.objects.filter(account=account, detail="bench-year").delete()
    for model in (DailyReads, DailyRollup, RollupState):
        model.objects.filter(account=account).delete()
    _execute("VACUUM FULL lore_readevent")
    _execute("VACUUM FULL lore_lessonevent")
    now = timezone.now()  # one moment for the fabricated year, the cards and the rollup
    Account.objects.filter(pk=account.pk).update(created_at=now - timedelta(days=args.days))
    account.refresh_from_db()

    result: dict[str, object] = {"args": vars(args), "horizon_days": horizon_days()}
    result["fabricate"] = _fabricate(account.pk, args, now)
    result["before"] = _sizes(account.pk)
    cards = _read_cards(account, now)
    started = time.monotonic()
    report = rollups_nightly(now=now, accounts=[account])
    result["rollup_s"] = round(time.monotonic() - started, 1)
    result["rollup"] = {
        "days": report.days,
        "reads_rolled": report.reads_rolled,
        "events_pruned": report.events_pruned,
    }
    result["after_delete"] = _sizes(account.pk)
    for table in TABLES:
        _execute(f"VACUUM {table}")
    result["after_vacuum"] = _sizes(account.pk)
    for table in TABLES:
        _execute(f"VACUUM FULL {table}")
    result["after_vacuum_full"] = _sizes(account.pk)
    after = _read_cards(account, now)
    result["read_cards_equal"] = after == cards
    result["read_cards"] = {"before": cards, "after": after}
    print(json.dumps(result, indent=2))
    print(_markdown(result))
    return 0 if result["read_cards_equal"] else 1


def _markdown(result: dict) -> str:  # noqa: ANN001
    mb = 1024 * 1024
    lines = [
        "| table | rows before | MB before | rows after | MB after DELETE | MB after VACUUM | MB after VACUUM FULL |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for table in TABLES:
        b, d, v, f = (
            result[k][table] for k in ("before", "after_delete", "after_vacuum", "after_vacuum_full")
        )
        lines.append(
            f"| `{table}` | {b['rows']:,} | {b['bytes'] / mb:,.1f} | {d['rows']:,} | {d['bytes'] / mb:,.1f} | "
            f"{v['bytes'] / mb:,.1f} | {f['bytes'] / mb:,.1f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
