"""`make run` (scripts/run.py) as a real process: stopping it stops the dashboard and the Celery worker with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.reliability import processes


def children_of(pid: int) -> set[int]:
    """The live child processes of `pid`, from /proc."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _alive(int(entry.name)):
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    """Running and not a zombie."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_stopping_make_run_with_sigterm_stops_its_server_and_worker(tmp_path: Path) -> None:
    port = processes.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOREKIT_", "CELERY_", "REDIS_"))}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'lore.sqlite3'}", PYTHONUNBUFFERED="1")
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        runner = subprocess.Popen(
            [sys.executable, "scripts/run.py", "--port", str(port)],
            cwd=processes.ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        processes.wait_until(
            lambda: processes._port_open(port) and len(children_of(runner.pid)) == 2,
            f"the dashboard on port {port} and the worker (log: {log})",
            process=runner,
        )
        started = children_of(runner.pid)
        runner.send_signal(signal.SIGTERM)  # `kill PID`, a service manager, `timeout make run`: not Ctrl-C
        runner.wait(timeout=30)
        processes.wait_until(
            lambda: not any(_alive(pid) for pid in started), f"{sorted(started)} to stop (log: {log})"
        )
    finally:
        try:
            os.killpg(runner.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
