"""No default secret: with DEBUG off and no SECRET_KEY, every process refuses to start with a one-line reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = {
    "manage.py": [sys.executable, "manage.py", "check"],
    "web (WSGI)": [sys.executable, "-c", "import config.wsgi"],
    "worker": [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool=solo", "--loglevel=ERROR"],
}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG")}
    env.update(extra)
    return env


@pytest.mark.parametrize("name", PROCESSES)
def test_without_a_secret_key_and_debug_off_every_process_refuses_to_start(name: str) -> None:
    done = subprocess.run(
        PROCESSES[name], cwd=ROOT, env=_env(DEBUG="0"), capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0
    reason = [line for line in done.stderr.splitlines() if line.strip()]
    assert reason == [
        "Lore Explorer refuses to start: SECRET_KEY is not set and DEBUG is off (set SECRET_KEY)."
    ]


def test_the_development_key_is_used_only_with_debug_on_and_check_deploy_flags_it() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy"],
        cwd=ROOT,
        env=_env(DEBUG="1"),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "security.W009" in done.stdout + done.stderr  # Django's "insecure SECRET_KEY" warning
