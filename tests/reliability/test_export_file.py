"""`lorekit export -o FILE` writes a temporary file and renames it only when the export is complete: an export
that stops early exits non-zero and leaves no partial FILE (an earlier complete FILE is kept as it was)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.factories import LessonFactory
from tests.lorekit.conftest import lorekit, lorekit_env  # noqa: F401 (fixtures)


@pytest.mark.django_db(transaction=True)
def test_a_complete_export_replaces_the_file_and_leaves_no_temporary_file(
    lorekit,  # noqa: ANN001, F811
    account,  # noqa: ANN001
    tmp_path: Path,
) -> None:
    LessonFactory(account=account, key="one")
    target = tmp_path / "store.ndjson"
    target.write_text("an older export\n")
    done = lorekit("export", "-o", str(target))
    assert done.returncode == 0, done.stderr
    assert '"key":"one"' in target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["store.ndjson"]


@pytest.mark.django_db(transaction=True)
def test_an_export_that_fails_exits_non_zero_and_leaves_no_partial_file(
    lorekit,  # noqa: ANN001, F811
    lorekit_env,  # noqa: ANN001, F811
    tmp_path: Path,
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    target = tmp_path / "store.ndjson"
    target.write_text("an older export\n")
    failed = lorekit(
        "export", "-o", str(target), env={**lorekit_env, "LOREKIT_URL": f"http://127.0.0.1:{dead}"}
    )
    assert failed.returncode == 5
    assert target.read_text() == "an older export\n"
    assert [p.name for p in tmp_path.iterdir()] == ["store.ndjson"]
