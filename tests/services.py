"""Real services for tests: which ones this machine has, and the rule that CI never skips a missing one."""

from __future__ import annotations

import os
import shutil
import socket

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")


def _port_open(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def require(available: bool, reason: str) -> None:
    """Skip with a reason, except under CI=true where a missing service is a failure."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"CI=true and {reason}")
    pytest.skip(reason)


def using_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


def require_postgres() -> None:
    """Tests that need PostgreSQL run in the PostgreSQL pass of the suite (DATABASE_URL set)."""
    if not using_postgres():
        pytest.skip("needs PostgreSQL: this pass of the suite runs on SQLite (set DATABASE_URL)")


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/14"


def require_redis() -> None:
    require(_port_open("127.0.0.1", 6379), "Redis is not running on 127.0.0.1:6379")


def require_chromium() -> None:
    require(
        shutil.which(CHROMIUM) is not None or os.path.exists(CHROMIUM), f"Chromium not found at {CHROMIUM}"
    )
