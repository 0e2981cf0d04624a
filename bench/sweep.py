"""Sweep benchmark: seed a store into a fresh account, run a policy that archives most of it, undo the run.

Prints rows/s of the sweep, the peak RSS growth of the process doing it (constant memory: batches), and the undo
rate. Run against PostgreSQL:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/lore_bench .venv/bin/python bench/sweep.py
    .venv/bin/python bench/sweep.py --lessons 10000,100000 --batch-size 2000 --json

Each size is seeded and swept in a fresh child process, so one measurement's memory never colours the next.
The functions are importable (`from bench.sweep import sweep_measure`) for the full `make bench`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SWEEP_CONDITIONS = {"max_read_count": 400}  # the seed: "400 matched essentially everything"


def django_setup() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


class PeakRss:
    """Peak resident memory growth over a block: VmHWM is reset to the current RSS on entry (Linux)."""

    def __enter__(self) -> PeakRss:
        try:
            Path("/proc/self/clear_refs").write_text("5")
        except OSError:
            pass  # without the reset the figure is an upper bound: the process's lifetime peak
        self.start_kb = _status_kb("VmRSS")
        return self

    def __exit__(self, *exc: object) -> None:
        self.delta_kb = max(0, _status_kb("VmHWM") - self.start_kb)


def seed_store(account_name: str, lessons: int, seed: int = 7) -> int:
    """A fresh account holding `lessons` demo lessons; returns its id."""
    django_setup()
    from lore.accounts import account_create
    from lore.demo import demo_store_create

    account = account_create(name=account_name)
    demo_store_create(account, lessons=lessons, seed=seed)
    return account.pk


def sweep_measure(account_name: str, *, batch_size: int = 2000) -> dict[str, Any]:
    """Run a policy over the account's store, then undo it; timings, counts and peak RSS growth."""
    django_setup()
    from lore.conditions import Rule
    from lore.models import Account
    from policies import grooming
    from policies.models import PolicyRun

    account = Account.objects.get(name=account_name)
    rule = Rule(scope="global", conditions=SWEEP_CONDITIONS)
    run = grooming.run_start(account=account, rule=rule, trigger=PolicyRun.Trigger.MANUAL, actor="bench")
    assert run is not None
    with PeakRss() as memory:
        started = time.perf_counter()
        run = grooming.run_execute(run.pk, batch_size=batch_size)
        sweep_seconds = time.perf_counter() - started
    started = time.perf_counter()
    restored = grooming.run_undo(run, actor="bench")
    undo_seconds = time.perf_counter() - started
    return {
        "lessons": account.lessons.count(),
        "batch_size": batch_size,
        "matched": run.matched,
        "archived": run.archived,
        "status": run.status,
        "sweep_seconds": round(sweep_seconds, 3),
        "sweep_rows_per_s": round(run.archived / sweep_seconds) if sweep_seconds else None,
        "peak_rss_delta_kib": memory.delta_kb,
        "restored": restored,
        "undo_seconds": round(undo_seconds, 3),
        "undo_rows_per_s": round(restored / undo_seconds) if undo_seconds else None,
    }


def account_drop(account_name: str) -> None:
    """Delete the benchmark account and everything in it, set-based (no per-row ORM cascade)."""
    django_setup()
    from django.db import connection, transaction

    from lore.models import Account, LessonEvent, LessonTag, ReadEvent
    from policies.models import PolicyRun

    account = Account.objects.filter(name=account_name).first()
    if account is None:
        return
    with transaction.atomic():
        for model in (LessonEvent, LessonTag, ReadEvent):
            model.objects.filter(account=account)._raw_delete(connection.alias)
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM lore_lesson WHERE account_id = %s", [account.pk])
        PolicyRun.objects.filter(account=account).delete()
        account.delete()


def _child(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, __file__, *args], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"bench/sweep.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
    return done.stdout


def measure(lessons: int, *, batch_size: int, keep: bool = False) -> dict[str, Any]:
    """Seed and sweep `lessons` in child processes; the account is dropped afterwards unless `keep`."""
    name = f"bench-sweep-{lessons}-{int(time.time())}"
    started = time.perf_counter()
    _child("--child-seed", name, str(lessons))
    seed_seconds = time.perf_counter() - started
    try:
        result = json.loads(_child("--child-sweep", name, str(batch_size)).strip().splitlines()[-1])
    finally:
        if not keep:
            _child("--child-drop", name)
    return {"account": name, "seed_seconds": round(seed_seconds, 1), **result}


def _table(results: list[dict[str, Any]]) -> str:
    head = (
        f"{'lessons':>9} {'archived':>9} {'sweep s':>8} {'rows/s':>8} {'peak RSS Δ':>11} {'undo rows/s':>12}"
    )
    rows = [
        f"{r['lessons']:>9,} {r['archived']:>9,} {r['sweep_seconds']:>8.2f} {r['sweep_rows_per_s']:>8,} "
        f"{r['peak_rss_delta_kib'] / 1024:>8.1f} MiB {r['undo_rows_per_s']:>12,}"
        for r in results
    ]
    return "\n".join([head, *rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lessons", default="100000", help="store sizes, comma-separated (default 100000)")
    parser.add_argument("--batch-size", type=int, default=2000)
    parser.add_argument("--keep", action="store_true", help="keep the benchmark accounts")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--child-seed", nargs=2, metavar=("ACCOUNT", "LESSONS"), help=argparse.SUPPRESS)
    parser.add_argument("--child-sweep", nargs=2, metavar=("ACCOUNT", "BATCH"), help=argparse.SUPPRESS)
    parser.add_argument("--child-drop", metavar="ACCOUNT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_seed:
        seed_store(args.child_seed[0], int(args.child_seed[1]))
        return 0
    if args.child_sweep:
        print(json.dumps(sweep_measure(args.child_sweep[0], batch_size=int(args.child_sweep[1]))))
        return 0
    if args.child_drop:
        account_drop(args.child_drop)
        return 0
    django_setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    sizes = [int(size.replace("_", "")) for size in args.lessons.split(",") if size.strip()]
    results = [measure(size, batch_size=args.batch_size, keep=args.keep) for size in sizes]
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(
            f"sweep of {SWEEP_CONDITIONS} on {connection.vendor} ({connection.settings_dict['NAME']}), "
            f"batch {args.batch_size}"
        )
        print(_table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
