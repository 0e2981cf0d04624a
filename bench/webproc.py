"""Peak RSS of a real web process: gunicorn with one worker against the bench database, driven over HTTP."""

from __future__ import annotations

import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from django.db import connection

from bench.archive import rss_mb
from bench.measure import percentile
from bench.scenarios import Context, Scenario

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _worker_pid(master: int, timeout: float = 30) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        except OSError:
            children = []
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise RuntimeError("gunicorn started no worker")


def _wait_ready(base: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"gunicorn exited with {proc.returncode}")
        try:
            if httpx.get(base + "/login/", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer in time")


def http_client(base: str, ctx: Context, who: str) -> httpx.Client:
    if who == "token":
        return httpx.Client(
            base_url=base, headers={"authorization": f"Bearer {ctx.ids.raw_token}"}, timeout=300
        )
    session = ctx.client(who).cookies["sessionid"].value
    return httpx.Client(base_url=base, cookies={"sessionid": session}, timeout=300)


def _server_env() -> dict[str, str]:
    """This process's environment, pointed at the database this process's Django uses (the bench store, or a
    test database), with DEBUG off as in production."""
    env = os.environ.copy()
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        who = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
        env["DATABASE_URL"] = f"postgres://{who}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    env["DEBUG"] = "false"
    env.setdefault("SECRET_KEY", "bench-only-secret-key-" + "b" * 40)
    # No collectstatic: the bench serves no static file.
    env.setdefault("PYTHONWARNINGS", "ignore:No directory at:UserWarning")
    return env


@contextmanager
def gunicorn_serving(workers: int = 1) -> Iterator[tuple[str, subprocess.Popen]]:
    """A real gunicorn (`workers` sync workers, config.wsgi) on a free port against the bench database, until the
    block ends. Yields (base URL, master process)."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--workers", str(workers)]
    command += ["--bind", f"127.0.0.1:{port}", "--timeout", "600", "--log-level", "warning"]
    proc = subprocess.Popen(command, cwd=ROOT, env=_server_env())
    try:
        _wait_ready(base, proc)
        yield base, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def http_once(client: httpx.Client, scenario: Scenario) -> httpx.Response:
    """One request of an HTTP scenario."""
    if scenario.method == "GET":
        return client.get(scenario.path, headers=scenario.headers)
    return client.post(scenario.path, json=scenario.body, headers=scenario.headers)


def web_drive(scenarios: list[Scenario], ctx: Context, *, requests: int) -> dict[str, object]:
    """Start gunicorn (1 worker), send `requests` requests cycling through `scenarios`, read the worker's VmHWM."""
    http = [s for s in scenarios if s.is_http]
    if not http or not Path("/proc/self/status").exists():
        return {}
    with gunicorn_serving() as (base, proc):
        worker = _worker_pid(proc.pid)
        clients = {who: http_client(base, ctx, who) for who in {s.who for s in http}}
        rss_idle = rss_mb(worker)
        timings: dict[str, list[float]] = {s.name: [] for s in http}
        for number in range(requests):
            scenario = http[number % len(http)]
            started = time.perf_counter()
            response = http_once(clients[scenario.who], scenario)
            timings[scenario.name].append((time.perf_counter() - started) * 1000)
            if response.status_code != 200:
                raise RuntimeError(f"{scenario.name} over HTTP → {response.status_code}")
        return {
            "requests": requests,
            "worker_rss_idle_mb": _round(rss_idle),
            "worker_rss_end_mb": _round(rss_mb(worker)),
            "worker_peak_rss_mb": _round(rss_mb(worker, "VmHWM")),
            "master_rss_mb": _round(rss_mb(proc.pid)),
            "http_ms": {
                name: {
                    "median": round(statistics.median(v), 1),
                    "p95": round(percentile(v, 95), 1),
                    "n": len(v),
                }
                for name, v in timings.items()
                if v
            },
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)
