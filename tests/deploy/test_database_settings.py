"""Issue 16 #25: the app's PostgreSQL connections price parallel workers so that only full passes run in parallel
(LORE_PG_PARALLEL_SETUP_COST, docs/scaling.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tests.services import require_postgres

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_apps_postgresql_connections_carry_the_parallel_setup_cost_setting() -> None:
    require_postgres()
    with connection.cursor() as cursor:
        cursor.execute("SHOW parallel_setup_cost")
        assert float(cursor.fetchone()[0]) == settings.PG_PARALLEL_SETUP_COST == 10_000


def _options(env: dict[str, str]) -> str:
    code = "from django.conf import settings; print(repr(settings.DATABASES['default'].get('OPTIONS', {})))"
    done = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {code}"],
        cwd=ROOT,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "true", **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_zero_keeps_the_servers_setting_and_other_options_in_the_url_are_kept() -> None:
    url = "postgres://u@127.0.0.1:5432/x"
    assert "parallel_setup_cost=10000" in _options({"DATABASE_URL": url})
    assert "parallel_setup_cost" not in _options({"DATABASE_URL": url, "LORE_PG_PARALLEL_SETUP_COST": "0"})
    kept = _options({"DATABASE_URL": url + "?options=-c%20work_mem%3D8MB"})
    assert "work_mem=8MB" in kept and "parallel_setup_cost=10000" in kept


def test_sqlite_has_no_postgresql_options() -> None:
    assert "parallel_setup_cost" not in _options({"DATABASE_URL": "sqlite:////tmp/lore-options-test.sqlite3"})
