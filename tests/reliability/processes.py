"""Real processes for the crash tests: a web server on the test database, killed with SIGKILL (no cleanup
handlers run, exactly as with an OOM kill or a lost host)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def database_url_of_this_test() -> str:
    """The DATABASE_URL of the database this test is using (pytest-django's test_… database)."""
    s = connection.settings_dict
    user = s.get("USER") or "postgres"
    password = f":{s['PASSWORD']}" if s.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{s.get('HOST') or '127.0.0.1'}:{s.get('PORT') or 5432}/{s['NAME']}"


def process_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LOREKIT_", "CELERY_"))}
    env.update(
        DATABASE_URL=database_url_of_this_test(),
        CELERY_TASK_ALWAYS_EAGER="1",
        DEBUG="0",
        PYTHONUNBUFFERED="1",
        **extra,
    )
    return env


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A process in its own process group (so a kill takes its children too), output to `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def kill(process: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process and its group, and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def web_server(port: int, log: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
    process = start(command, process_env(), log)
    wait_until(lambda: _port_open(port), f"the web server on port {port} (log: {log})", process=process)
    return process


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def wait_until(
    ready: Callable[[], bool],
    what: str,
    *,
    timeout: float = 60,
    every: float = 0.02,
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Poll `ready()` (state, never wall-clock assertions: the timeout only stops a hung test)."""
    deadline = time.monotonic() + timeout
    while not ready():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what}: the process exited with {process.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(every)


def until_answered(send: Callable[[], Any], tries: int = 5, pause: float = 1.0) -> Any:
    """`send()` again while it answers 503, the statement timeout's "try again" (Retry-After), as an agent does: on
    a loaded machine sixteen writers of one lesson can queue past the 10 s limit. A 503 must change nothing, so a
    retried call is counted once: the callers' counts check that."""
    for _ in range(tries - 1):
        response = send()
        if response.status_code != 503:
            return response
        time.sleep(pause)  # out of the queue it timed out in, as Retry-After asks
    return send()
