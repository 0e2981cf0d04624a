"""`make run`: the dashboard plus a Celery worker with embedded beat, stopped together with Ctrl-C."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _stop(signum: int, frame: object) -> None:
    """SIGTERM and SIGHUP stop everything the way Ctrl-C does (the worker is not left running on its own)."""
    raise KeyboardInterrupt


def main() -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGHUP, _stop)
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=8000)
    args = parser.parse_args()
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1"), "PYTHONUNBUFFERED": "1"}
    for folder in ("var/broker/queue", "var/broker/processed", "var/broker/control"):
        (ROOT / folder).mkdir(parents=True, exist_ok=True)
    token_file = ROOT / "var" / "demo-token"
    token = (
        token_file.read_text().strip()
        if token_file.exists()
        else "(run `manage.py create_token --account demo`)"
    )
    url = f"http://127.0.0.1:{args.port}"
    broker = env.get("CELERY_BROKER_URL") or env.get("REDIS_URL") or "filesystem (var/broker)"
    print(
        f"\n  Lore Explorer   {url}/explorer/\n"
        f"  login           demo / lore-demo\n"
        f"  Celery          worker + beat on {broker}\n\n"
        f"  For lorekit:\n    export LOREKIT_URL={url}\n    export LOREKIT_TOKEN={token}\n",
        flush=True,
    )
    celery = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "-B",
            "--loglevel=INFO",
            "--concurrency=1",
            "--schedule",
            str(ROOT / "var" / "celerybeat-schedule"),
        ],
        cwd=ROOT,
        env=env,
    )
    web = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{args.port}"], cwd=ROOT, env=env
    )
    try:
        return web.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        for proc in (web, celery):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in (web, celery):
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


if __name__ == "__main__":
    sys.exit(main())
