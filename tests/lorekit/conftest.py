"""lorekit runs as a real process against pytest-django's live server: the CLI as a user types it."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

LOREKIT = Path(sys.executable).with_name("lorekit")


def lorekit_command() -> list[str]:
    return [str(LOREKIT)] if LOREKIT.exists() else [sys.executable, "-m", "lorekit.cli"]


@pytest.fixture
def lorekit_env(live_server, raw_token) -> dict[str, str]:  # noqa: ANN001
    env = {k: v for k, v in os.environ.items() if not k.startswith("LOREKIT_")}
    env.update(LOREKIT_URL=live_server.url, LOREKIT_TOKEN=raw_token)
    return env


Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def lorekit(lorekit_env) -> Run:  # noqa: ANN001
    """`lorekit("groom", "--scope", …)` → the finished process (stdin is not a terminal)."""

    def run(
        *args: str, stdin: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*lorekit_command(), *args],
            env=env or lorekit_env,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )

    return run
