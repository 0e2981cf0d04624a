"""`lorekit export -o FILE` writes a temporary file and renames it only when the export is complete: an export
that stops early exits non-zero and leaves no partial FILE (an earlier complete FILE is kept as it was). A
complete export ends with a trailer counting its lines, so one cut off even under a 200 is detected."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
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


class CutOffExport(BaseHTTPRequestHandler):
    """What a proxy or a killed web worker can leave: 200, a well-formed body, but the export stops early."""

    body = b""

    def do_GET(self) -> None:  # noqa: N802 — http.server's name
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serving(body: bytes) -> Iterator[str]:
    handler = type("Handler", (CutOffExport,), {"body": body})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


LESSON_LINES = b'{"scope":"global","key":"a","content":"x"}\n{"scope":"global","key":"b","content":"y"}\n'


@pytest.mark.parametrize(
    "body",
    [LESSON_LINES, LESSON_LINES + b'{"export":"complete","lessons":3,"tombstones":0}\n'],
    ids=["no trailer", "a trailer counting more lines than came"],
)
def test_an_export_answered_200_but_cut_off_is_detected_exits_non_zero_and_leaves_no_file(
    lorekit,  # noqa: ANN001, F811
    lorekit_env,  # noqa: ANN001, F811
    tmp_path: Path,
    body: bytes,
) -> None:
    target = tmp_path / "store.ndjson"
    with serving(body) as url:
        env = {**lorekit_env, "LOREKIT_URL": url}
        to_file = lorekit("export", "-o", str(target), env=env)
        to_stdout = lorekit("export", env=env)
    assert to_file.returncode == 5 and "stopped early after 2 lines" in to_file.stderr
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert to_stdout.returncode == 5 and "stopped early" in to_stdout.stderr
    assert '"export":"complete","lessons":2' not in to_stdout.stdout  # the reader of stdout can tell too


@pytest.mark.django_db(transaction=True)
def test_a_complete_export_ends_with_a_trailer_counting_its_lines(
    lorekit,  # noqa: ANN001, F811
    account,  # noqa: ANN001
    tmp_path: Path,
) -> None:
    for key in ("one", "two", "three"):
        LessonFactory(account=account, key=key)
    target = tmp_path / "store.ndjson"
    assert lorekit("export", "-o", str(target)).returncode == 0
    *lessons, trailer = target.read_text().splitlines()
    assert len(lessons) == 3
    assert json.loads(trailer) == {"export": "complete", "lessons": 3, "tombstones": 0}


@pytest.mark.django_db(transaction=True)
def test_lorekit_import_and_export_show_progress_on_stderr_only_with_progress_or_a_terminal(
    lorekit,  # noqa: ANN001, F811
    tmp_path: Path,
) -> None:
    source = tmp_path / "lessons.ndjson"
    source.write_text("".join(f'{{"scope":"global","key":"k{i}","content":"c"}}\n' for i in range(2500)))
    quiet = lorekit("import", str(source))
    loud = lorekit("import", str(source), "--progress")
    assert quiet.returncode == loud.returncode == 0, (quiet.stderr, loud.stderr)
    assert "lines…" not in quiet.stderr
    assert loud.stderr.splitlines()[:2] == ["sent 1,000 lines…", "sent 2,000 lines…"]

    exported = lorekit("export", "--progress")
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr.splitlines()[:2] == ["exported 1,000 lines…", "exported 2,000 lines…"]
    assert "lines…" not in exported.stdout and len(exported.stdout.splitlines()) == 2500 + 1
    assert "lines…" not in lorekit("export").stderr
