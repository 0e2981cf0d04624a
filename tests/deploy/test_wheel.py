"""`pip install .` builds a wheel that carries every template and static file: built here, installed into a fresh
virtualenv outside the checkout, and run from there (`django-admin check` as `python -m django check`, the sign-in page rendered, a static
file found). Slow: it builds a wheel and a virtualenv."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

RENDER_SIGN_IN = """
import django
django.setup()
from django.test import Client
import config
response = Client().get("/login/")
print("CONFIG_AT", config.__file__)
print("STATUS", response.status_code)
print(response.content.decode())
"""


def run(args: list[str], *, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def fresh_venv(where: Path) -> Path:
    """A new virtualenv that sees this environment's dependencies (Django, …) through a .pth line, but not the
    project itself: a .pth path line adds a folder without running the editable install's hooks inside it."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    site = Path(
        subprocess.run(
            [str(where / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    (site / "dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    return where / "bin"


GARDEN_DATA = (
    "from lore.garden.status_model import MODEL_PATH, status_model; "
    "from lore.garden.figures import FIGURES_PATH; "
    "print('MODEL', MODEL_PATH if status_model().weights else None); print('FIGURES', FIGURES_PATH.is_file())"
)


def test_the_wheel_carries_templates_and_static_files_and_runs_outside_the_checkout(tmp_path: Path) -> None:
    env = {
        k: v
        for k, v in os.environ.items()
        if k in ("PATH", "HOME", "LANG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL")
    }
    wheels = tmp_path / "wheels"
    run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(wheels)],
        cwd=tmp_path,
        env=env,
    )
    (wheel,) = wheels.glob("lore_explorer-*.whl")
    bin_dir = fresh_venv(tmp_path / "venv")
    run([str(bin_dir / "pip"), "install", "--no-deps", "-q", str(wheel)], cwd=tmp_path, env=env)

    django_admin = [str(bin_dir / "python"), "-m", "django"]  # django-admin, from the venv's own Python
    elsewhere = tmp_path / "site"
    elsewhere.mkdir()
    env |= {
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'lore.sqlite3'}",
        "DEBUG": "1",
        "SECRET_KEY": "wheel-test-" + "k" * 40,
    }
    assert "no issues" in run([*django_admin, "check"], cwd=elsewhere, env=env)
    run([*django_admin, "migrate", "--noinput", "-v0"], cwd=elsewhere, env=env)
    found = run([*django_admin, "findstatic", "css/app.css", "js/app.js"], cwd=elsewhere, env=env)
    assert str(tmp_path / "venv") in found and str(ROOT) not in found

    page = run([str(bin_dir / "python"), "-c", RENDER_SIGN_IN], cwd=elsewhere, env=env)
    assert f"CONFIG_AT {tmp_path / 'venv'}" in page, page[:300]
    assert "STATUS 200" in page
    assert 'name="password"' in page and "/static/css/app.css" in page
    # The gardener's data files: the learned status reader's weights and the evaluation's figures.
    data = run([str(bin_dir / "python"), "-c", GARDEN_DATA], cwd=elsewhere, env=env)
    assert f"MODEL {tmp_path / 'venv'}" in data and "FIGURES True" in data, data
