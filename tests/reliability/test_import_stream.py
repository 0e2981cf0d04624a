"""A streaming import: bounded memory and report, every bad line reported by number (never a 500), good lines on
either side of a bad one kept, a body over IMPORT_BODY_MAX refused with a 413 that names it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
from django.test import Client

from lore.accounts import token_create
from lore.limits import IMPORT_ERRORS_MAX
from lore.models import Lesson
from lore.transfer import TOO_LONG, ndjson_lines
from tests.api.conftest import Api, error_of
from tests.factories import AccountFactory
from tests.reliability import processes
from tests.services import require_postgres


def good(n: int) -> bytes:
    return json.dumps({"scope": "global", "key": f"k{n}", "content": f"lesson {n}"}).encode() + b"\n"


HOSTILE = {
    "an integer of 5,000 digits": b'{"scope": "global", "key": "big", "content": "x", "seen_count": '
    + b"9" * 5000
    + b"}\n",
    "JSON nested 1,000 deep": b'{"scope": "global", "key": "deep", "content": '
    + b"[" * 1000
    + b"]" * 1000
    + b"}\n",
    "JSON nested 100,000 deep": b"[" * 100_000 + b"\n",
    "bad UTF-8": b'{"scope": "global", "key": "utf", "content": "\xff\xfe"}\n',
    "a wrong type": b'{"scope": "global", "key": "typed", "content": "x", "tags": {"a": 1}}\n',
    "a wrong count type": b'{"scope": "global", "key": "typed", "content": "x", "read_count": "many"}\n',
    "not an object": b"[1, 2, 3]\n",
    "not JSON": b"{nope\n",
}


def post(api: Api, body: bytes):  # noqa: ANN201
    return api.client.post(
        "/api/v1/memories/import", body, content_type="application/x-ndjson", **api.headers()
    )


@pytest.fixture
def api(db, raw_token) -> Api:  # noqa: ANN001
    return Api(Client(), raw_token)


@pytest.mark.parametrize("case", HOSTILE)
def test_good_lines_before_and_after_a_bad_one_are_kept_and_the_bad_one_reported_by_number(
    api: Api, account, case: str
) -> None:  # noqa: ANN001
    body = b"".join(good(n) for n in range(700)) + HOSTILE[case] + b"".join(good(n) for n in range(700, 900))
    response = post(api, body)
    assert response.status_code == 200, response.content
    report = response.json()
    assert (report["created"], report["failed_total"]) == (900, 1)
    assert report["failed"][0]["line"] == 701
    assert Lesson.objects.filter(account=account).count() == 900


@pytest.mark.parametrize("case", HOSTILE)
def test_a_body_of_only_a_hostile_line_is_a_422_naming_line_1_never_a_500(api: Api, case: str) -> None:
    response = post(api, HOSTILE[case])
    assert response.status_code == 422
    assert response.json()["report"]["failed"][0]["line"] == 1


def test_the_error_report_lists_the_first_failures_and_counts_them_all(api: Api) -> None:
    bad = IMPORT_ERRORS_MAX.value + 50
    response = post(api, good(0) + b"nope\n" * bad)
    report = response.json()
    assert len(report["failed"]) == IMPORT_ERRORS_MAX.value
    assert report["failed_total"] == bad
    assert report["failed"][-1]["line"] == IMPORT_ERRORS_MAX.value + 1


def test_a_body_over_import_body_max_is_a_413_naming_it(api: Api, settings) -> None:  # noqa: ANN001
    settings.LORE_IMPORT_BODY_MAX = 1000
    response = post(api, b"".join(good(n) for n in range(100)))
    assert response.status_code == 413
    assert error_of(response)["code"] == "limit_exceeded"
    assert "(limit: IMPORT_BODY_MAX)" in error_of(response)["message"]


def test_a_line_over_import_line_max_is_reported_and_skipped_without_being_buffered(
    api: Api, account, settings
) -> None:  # noqa: ANN001
    settings.LORE_IMPORT_LINE_MAX = 200
    response = post(api, good(1) + b'{"content": "' + b"x" * 100_000 + b'"}\n' + good(2))
    report = response.json()
    assert (report["created"], report["failed_total"]) == (2, 1)
    assert report["failed"][0]["line"] == 2 and "IMPORT_LINE_MAX" in report["failed"][0]["message"]


class Trickle(io.BytesIO):
    """A stream that hands out at most 3 bytes per read, so lines cross every chunk boundary."""

    def read(self, size: int | None = -1) -> bytes:
        return super().read(3)


def test_lines_are_numbered_across_chunks_and_blank_runs(settings) -> None:  # noqa: ANN001
    settings.LORE_IMPORT_LINE_MAX = 10
    body = b"a\n\n\nbcd\n" + b"\n" * 5000 + b"x" * 50 + b"\nlast"
    assert list(ndjson_lines(Trickle(body).read)) == [
        (1, b"a"),
        (4, b"bcd"),
        (5005, TOO_LONG),
        (5006, b"last"),
    ]
    assert list(ndjson_lines(io.BytesIO(body).read)) == [
        (1, b"a"),
        (4, b"bcd"),
        (5005, TOO_LONG),
        (5006, b"last"),
    ]


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM in /proc")


@pytest.mark.postgres
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_importing_a_million_bad_lines_keeps_the_web_process_under_200_mb(tmp_path: Path) -> None:
    require_postgres()
    account = AccountFactory(name="rss")
    raw = token_create(account=account, name="rss")[1]
    port = processes.free_port()
    server = processes.web_server(port, tmp_path / "web.log")
    try:
        before = _peak_rss_mb(server.pid)
        body = b'{"bad": 1}\n' * 1_000_000  # 11 MB: a million lines, each one failing
        response = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/memories/import",
            content=body,
            headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/x-ndjson"},
            timeout=600,
        )
        peak = _peak_rss_mb(server.pid)
    finally:
        processes.kill(server)
    assert response.status_code == 422
    report = response.json()["report"]
    assert report["failed_total"] == 1_000_000 and len(report["failed"]) == IMPORT_ERRORS_MAX.value
    assert len(response.content) < 100_000
    print(f"web process peak RSS: {before:.0f} MB before, {peak:.0f} MB after importing 1M bad lines")
    assert peak < 200, f"peak RSS {peak:.0f} MB"
