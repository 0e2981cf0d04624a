"""gunicorn's settings for the production image (Dockerfile, docker-compose.yml: `--config config/gunicorn_conf.py`).

One job: the request latency /metrics reports (config/metrics.py) is kept in prometheus-client's multiprocess
mode, so a scrape that reaches any one worker answers the samples of all of them. Each worker writes its samples
to files in PROMETHEUS_MULTIPROC_DIR; the folder starts empty at every start (samples of a previous run would be
added to this one's), and a worker that exits is marked dead.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

# Set before prometheus-client is imported by any process: it picks multiprocess mode from this at import. The
# workers inherit it (they import the application after they fork).
if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="lore-metrics-")


def on_starting(server: Any) -> None:
    """Empty the folder of the samples of a previous run."""
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()


def child_exit(server: Any, worker: Any) -> None:
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)
