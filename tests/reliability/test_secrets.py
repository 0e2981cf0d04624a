"""No default secret: with DEBUG off and no SECRET_KEY, every process refuses to start with a one-line reason."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.urls import in_account

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


DEVELOPMENT_KEY = "django-insecure-development-only-" + "x" * 40  # public: it is in config/settings.py
FORGED_HTML = '<img src=x id="forged-by-cookie">'


@pytest.mark.django_db
def test_a_forged_messages_cookie_signed_with_the_development_key_never_renders_raw_html(
    client,  # noqa: ANN001
    account,  # noqa: ANN001
    user,  # noqa: ANN001
    settings,  # noqa: ANN001
) -> None:
    """Issue 14, point 4: whoever knows the key can sign a `messages` cookie whose message Django's cookie storage
    would mark safe. Messages live in the (database) session instead, so such a cookie is never read."""
    from django.contrib.messages.storage.base import Message
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.test import RequestFactory
    from django.utils.safestring import mark_safe

    settings.SECRET_KEY = DEVELOPMENT_KEY
    client.force_login(user)
    forged = CookieStorage(RequestFactory().get("/"))._encode([Message(40, mark_safe(FORGED_HTML))])
    assert forged
    client.cookies[CookieStorage.cookie_name] = forged
    page = client.get(in_account(account, "/settings/policies/"))
    assert page.status_code == 200
    assert FORGED_HTML not in page.content.decode()
