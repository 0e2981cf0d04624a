"""docker-compose.yml is the production shape: every setting reaches web, worker and beat from one env file, the
web healthcheck is /healthz, everything restarts, and worker and beat start only after migrations."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
APP_SERVICES = ("web", "worker", "beat", "migrate")
LONG_RUNNING = ("postgres", "redis", "web", "worker", "beat")


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]


def example_env() -> dict[str, str]:
    pairs = {}
    for line in (ROOT / ".env.production.example").read_text().splitlines():
        line = line.strip().removeprefix("# ")
        if re.fullmatch(r"[A-Z][A-Z0-9_]*=.*", line):
            name, _, value = line.partition("=")
            pairs[name] = value
    return pairs


def test_web_worker_beat_and_migrate_read_the_production_env_file_and_restate_nothing() -> None:
    services = compose()
    for name in APP_SERVICES:
        assert services[name]["env_file"] == ".env.production", name
        assert "environment" not in services[name], f"{name} restates settings the env file should hold"


def test_every_variable_the_settings_read_is_documented_in_the_example_env() -> None:
    source = (ROOT / "config" / "settings.py").read_text()
    read = set(re.findall(r'\benv(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]*)"', source))
    assert {"SECRET_KEY", "DATABASE_URL", "REDIS_URL", "SESSION_COOKIE_AGE"} <= read  # the pattern finds them
    missing = read - set(example_env())
    assert not missing, f"add these to .env.production.example: {sorted(missing)}"


def test_the_web_healthcheck_asks_healthz() -> None:
    check = compose()["web"]["healthcheck"]
    assert "/healthz" in " ".join(check["test"])


def test_every_long_running_service_restarts() -> None:
    services = compose()
    for name in LONG_RUNNING:
        assert services[name]["restart"] in ("unless-stopped", "always"), name
    assert services["migrate"]["restart"] == "no"


def test_web_worker_and_beat_start_only_after_migrations_succeed() -> None:
    services = compose()
    assert "migrate" in services["migrate"]["command"]
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, (
            name
        )
        assert "migrate" not in services[name]["command"], f"{name} must not migrate on its own"
