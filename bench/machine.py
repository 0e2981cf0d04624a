"""The machine a run happened on, for the report: cores, memory, CPU, PostgreSQL, versions, commit."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _meminfo_gb() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        return None
    return None


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


# The server settings a reader needs to compare two runs: memory, checkpoints (an archive run writes much WAL) and
# autovacuum (index-only scans rely on the visibility map it keeps).
SETTINGS = (
    "shared_buffers",
    "work_mem",
    "maintenance_work_mem",
    "effective_cache_size",
    "max_wal_size",
    "checkpoint_timeout",
    "autovacuum",
    "random_page_cost",
    "jit",
)


def _postgres(server: str) -> dict[str, str]:
    try:
        import psycopg

        url = server.rstrip("/") + "/postgres"
        with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
            out = {"version": str(conn.execute("SHOW server_version").fetchone()[0])}
            for name in SETTINGS:
                out[name] = str(conn.execute(f"SHOW {name}").fetchone()[0])
            return out
    except Exception as exc:  # noqa: BLE001 — the report says what went wrong instead of failing the run
        return {"error": str(exc)[:200]}


def _git(*args: str) -> str:
    try:
        return subprocess.check_output(["git", *args], cwd=ROOT, text=True, stderr=subprocess.DEVNULL).strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine_describe(server: str) -> dict[str, object]:
    import django

    return {
        "nproc": os.cpu_count(),
        "memory_gb": _meminfo_gb(),
        "cpu": _cpu_model(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "postgres": _postgres(server),
        "commit": _git("rev-parse", "--short", "HEAD") + ("+dirty" if _git("status", "--porcelain") else ""),
    }
