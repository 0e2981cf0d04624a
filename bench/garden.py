"""The gardener in `make bench`: the inventory's time and peak RSS over the bench store (a full inventory, then a
nightly re-run that examines only what changed). Precision and recall on the labelled corpora are
bench/garden_eval.py's.

Target (docs/gardener.md): at 1M lessons on PostgreSQL the inventory within 2 minutes, RSS < 300 MB.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from typing import Any

from django.db import connection

from lore.garden.inventory import garden_inventory
from lore.inputs import LessonInput
from lore.models import Account, Finding, Lesson
from lore.services import lesson_write


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# The fresh process: Django is set up before bench.garden (which imports models) is imported.
INVENTORY_PROCESS = (
    "import json, sys, django; django.setup(); from bench.garden import inventory_bench; "
    "from lore.models import Account; print(json.dumps(inventory_bench(Account.objects.get(pk=int(sys.argv[1])))))"
)


def inventory_bench_process(account: Account) -> dict[str, Any]:
    """`inventory_bench` in a fresh process (as a worker runs it), so its peak RSS is the inventory's alone. On
    SQLite (the smoke test's in-memory database cannot be shared) it runs here instead."""
    db = connection.settings_dict
    if connection.vendor != "postgresql":
        return inventory_bench(account) | {"rss_of": "the bench process"}
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    done = subprocess.run(
        [sys.executable, "-c", INVENTORY_PROCESS, str(account.pk)],
        capture_output=True,
        text=True,
        env={**os.environ, "DATABASE_URL": url},
        check=True,
        timeout=3600,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def inventory_bench(account: Account) -> dict[str, Any]:
    """A full inventory of the bench store, then a nightly re-run after a few rewrites: time, examined, RSS."""
    Finding.objects.filter(account=account).delete()
    started = time.monotonic()
    full = garden_inventory(account, full=True, trigger="bench")
    full_s = time.monotonic() - started
    changed = list(Lesson.objects.filter(account=account, archived_at__isnull=True).order_by("-pk")[:100])
    for lesson in changed:  # a night's worth of rewrites: a hundred lessons written again
        data = {"scope": lesson.scope, "key": lesson.key, "content": lesson.content + " (seen again)"}
        lesson_write(account=account, data=LessonInput.from_data(data), actor="bench")
    started = time.monotonic()
    nightly = garden_inventory(account, trigger="bench")
    nightly_s = time.monotonic() - started
    return {
        "lessons": Lesson.objects.filter(account=account).count(),
        "full_s": round(full_s, 2),
        "full_examined": full.examined,
        "full_found": full.found,
        "nightly_s": round(nightly_s, 2),
        "nightly_examined": nightly.examined,
        "peak_rss_mb": round(peak_rss_mb(), 1),
    }
