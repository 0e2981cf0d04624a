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


def test_postgres_is_given_shared_buffers_wal_room_and_a_shm_for_parallel_queries() -> None:
    """docs/scaling.md, "Give PostgreSQL the machine first": the image's defaults (128 MB of shared buffers, 1 GB of
    WAL between checkpoints, Docker's 64 MB /dev/shm) are what the archive and undo were measured slower with."""
    postgres = compose()["postgres"]
    settings = dict(arg.split("=", 1) for arg in postgres["command"] if "=" in arg)
    assert postgres["command"][0] == "postgres"
    assert int(settings["shared_buffers"].removesuffix("GB")) >= 1
    assert int(settings["max_wal_size"].removesuffix("GB")) > 1
    assert postgres["shm_size"] == "1gb"
    assert "autovacuum=off" not in postgres["command"]


def test_web_runs_gunicorn_with_the_settings_that_let_metrics_add_up_every_worker() -> None:
    """config/gunicorn_conf.py keeps the request metrics in prometheus-client's multiprocess mode (README,
    "Metrics"); the image's own command and compose's say the same."""
    assert "--config config/gunicorn_conf.py" in compose()["web"]["command"]
    assert '"--config", "config/gunicorn_conf.py"' in (ROOT / "Dockerfile").read_text()
    assert (ROOT / "config" / "gunicorn_conf.py").exists()
