"""The HTTP client of the REST API, shared by the CLI and the MCP server. Never imports Django.

Configuration: `LOREKIT_URL` (the server, e.g. http://localhost:8000 — `/api/v1` is added when the URL has no
path) and `LOREKIT_TOKEN` (an API token, `manage.py create_token --account NAME`). Every request says which
surface it comes from (`X-Lore-Surface: cli|mcp`), which the server records on its read events.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import quote, urlsplit

import httpx

from lorekit.registry import GARDEN_RUN_PENDING

API_PREFIX = "/api/v1"
AS_OF_HEADER = "Lore-As-Of"  # when the server took a groom preview

# Exit codes of the CLI, by what went wrong.
EXIT_OK = 0
EXIT_ERROR = 1  # the server refused (validation, conflict) or failed
EXIT_USAGE = 2  # bad command line or configuration
EXIT_NOT_FOUND = 3
EXIT_AUTH = 4  # no valid token, or one without the scope the command needs
EXIT_UNREACHABLE = 5


class LoreError(Exception):
    """A failed call, with the server's error envelope (code, message, field) when there was one."""

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "error",
        field: str | None = None,
        report: dict[str, Any] | None = None,
    ):
        super().__init__(message)
        self.report = report
        self.message = message
        self.status = status
        self.code = code
        self.field = field

    @property
    def exit_code(self) -> int:
        if self.status in (404, 410):  # 410: purged, only a tombstone remains
            return EXIT_NOT_FOUND
        if self.status in (
            401,
            403,
        ):  # 403: the token lacks the scope the command needs (the message names it)
            return EXIT_AUTH
        if self.code in ("unreachable", "incomplete"):  # the server went away mid-answer
            return EXIT_UNREACHABLE
        if self.code == "config":
            return EXIT_USAGE
        return EXIT_ERROR

    def as_dict(self) -> dict[str, Any]:
        return {
            "error": {"code": self.code, "message": self.message, "field": self.field, "status": self.status}
        }


def api_base(url: str) -> str:
    """`http://host:8000` → `http://host:8000/api/v1`; a URL that has a path is used as it is."""
    url = url.strip().rstrip("/")
    if not urlsplit(url).path:
        url += API_PREFIX
    return url


def export_trailer_of(line: str) -> dict[str, Any] | None:
    """The export's last line, `{"export": "complete", "lessons": n, "tombstones": m}`, or None for any other."""
    if not line.startswith('{"export":'):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    return data if isinstance(data, dict) and data.get("export") == "complete" else None


def _error_from(response: httpx.Response) -> LoreError:
    try:
        body = response.json()
        err = body["error"]
        return LoreError(
            str(err.get("message") or response.reason_phrase),
            status=response.status_code,
            code=str(err.get("code") or "error"),
            field=err.get("field"),
            report=body.get("report"),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        text = (
            response.text.strip().splitlines()[0][:200] if response.text.strip() else response.reason_phrase
        )
        return LoreError(f"HTTP {response.status_code}: {text}", status=response.status_code)


Target = str | dict[str, Any]


def target_body(target: Target) -> dict[str, Any]:
    """A lesson named by its address (`SCOPE::KEY`) or by a dict holding address or scope and key."""
    return {"address": target} if isinstance(target, str) else dict(target)


class LoreClient:
    """One method per endpoint of DESIGN.md §10; answers are the decoded JSON bodies."""

    def __init__(
        self,
        url: str,
        token: str,
        *,
        surface: str = "cli",
        timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base = api_base(url)
        self.http = httpx.Client(
            base_url=self.base,
            headers={"Authorization": f"Bearer {token}", "X-Lore-Surface": surface, "User-Agent": "lorekit"},
            timeout=timeout,
            transport=transport,
        )

    @classmethod
    def from_env(
        cls, *, surface: str = "cli", url: str | None = None, token: str | None = None
    ) -> LoreClient:
        url = url or os.environ.get("LOREKIT_URL", "")
        token = token or os.environ.get("LOREKIT_TOKEN", "")
        if not url:
            raise LoreError(
                "LOREKIT_URL is not set (e.g. export LOREKIT_URL=http://localhost:8000)", code="config"
            )
        if not token:
            raise LoreError(
                "LOREKIT_TOKEN is not set (create one with: manage.py create_token --account NAME)",
                code="config",
            )
        return cls(url, token, surface=surface)

    def close(self) -> None:
        self.http.close()

    # ------------------------------------------------------------ transport

    def call(self, method: str, path: str, *, body: Any = None, params: dict[str, Any] | None = None) -> Any:
        return self._decoded(self.send(method, path, body=body, params=params), path)

    def send(
        self, method: str, path: str, *, body: Any = None, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        """The successful response itself (for its headers); LoreError otherwise."""
        try:
            response = self.http.request(method, path, json=body, params=params)
        except httpx.HTTPError as exc:
            raise LoreError(f"cannot reach {self.base}: {exc}", code="unreachable") from exc
        if response.status_code >= 400:
            raise _error_from(response)
        return response

    @staticmethod
    def _decoded(response: httpx.Response, path: str) -> Any:
        if response.status_code == 204 or not response.content:
            return None
        try:
            return response.json()
        except ValueError as exc:
            raise LoreError(f"the server answered something that is not JSON from {path}") from exc

    # ------------------------------------------------------------ memories

    def memory_write(self, lesson: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", "/memories", body=lesson)  # type: ignore[no-any-return]

    def memory_list(self, filters: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", "/memories/list", body=filters)  # type: ignore[no-any-return]

    def memory_search(self, query: str, filters: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", "/memories/search", body={**filters, "query": query})  # type: ignore[no-any-return]

    def memory_get(self, lesson_id: int) -> dict[str, Any]:
        return self.call("GET", f"/memories/{lesson_id}")  # type: ignore[no-any-return]

    def memory_read(self, target: Target) -> dict[str, Any]:
        """The deliberate open: Delivered, Chosen and Last agent open move."""
        return self.call("POST", "/memories/read", body=target_body(target))  # type: ignore[no-any-return]

    def memory_protect(self, target: Target, protected: bool = True) -> dict[str, Any]:
        body = {**target_body(target), "protected": protected}
        return self.call("POST", "/memories/protect", body=body)  # type: ignore[no-any-return]

    def memory_restore(self, target: Target) -> dict[str, Any]:
        return self.call("POST", "/memories/restore", body=target_body(target))  # type: ignore[no-any-return]

    def memory_export(self, *, tombstones: bool = False) -> Iterator[bytes]:
        """The NDJSON export, line by line as it streams in (with the purged lessons' tombstones if asked), its
        trailer last. LoreError `incomplete` when the stream ends without the trailer or with fewer lines than it
        counts: the export stopped early, whatever the status said."""
        params = {"tombstones": "true"} if tombstones else None
        lines = 0
        trailer: dict[str, Any] | None = None
        try:
            with self.http.stream("GET", "/memories/export", params=params) as response:
                if response.status_code >= 400:
                    response.read()
                    raise _error_from(response)
                for line in response.iter_lines():
                    if not line:
                        continue
                    trailer = export_trailer_of(line)
                    lines += trailer is None
                    yield (line + "\n").encode()
        except httpx.HTTPError as exc:
            raise LoreError(f"cannot reach {self.base}: {exc}", code="unreachable") from exc
        if trailer is None or trailer.get("lessons", 0) + trailer.get("tombstones", 0) != lines:
            raise LoreError(
                f"the export stopped early after {lines:,} lines (no complete end-of-export line)",
                code="incomplete",
            )

    def memory_import(self, batches: Iterable[bytes]) -> dict[str, Any]:
        """Upload NDJSON in batches of whole lines (one request each, so an interrupted import can be re-run);
        answers the summed {created, updated, failed}, failed lines numbered across the whole input."""
        total: dict[str, Any] = {"created": 0, "updated": 0, "failed": [], "failed_total": 0}
        offset = 0
        for batch in batches:
            try:
                report = self.call_raw("POST", "/memories/import", batch, content_type="application/x-ndjson")
            except LoreError as exc:
                if exc.report is None:  # a batch where every line failed still names its lines
                    raise
                report = exc.report
            total["created"] += report["created"]
            total["updated"] += report["updated"]
            total["failed"] += [{**f, "line": f["line"] + offset} for f in report["failed"]]
            total["failed_total"] += report.get("failed_total", len(report["failed"]))
            offset += batch.count(b"\n")
        return total

    def call_raw(self, method: str, path: str, content: bytes, *, content_type: str) -> Any:
        try:
            response = self.http.request(
                method, path, content=content, headers={"Content-Type": content_type}
            )
        except httpx.HTTPError as exc:
            raise LoreError(f"cannot reach {self.base}: {exc}", code="unreachable") from exc
        if response.status_code >= 400:
            raise _error_from(response)
        return response.json()

    # ------------------------------------------------------------ grooming

    def groom_preview(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.groom_preview_taken(body)[0]

    def groom_preview_taken(self, body: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        """The preview and when the server took it (its Lore-As-Of header), for groom_run(as_of=…)."""
        response = self.send("POST", "/memories/groom/preview", body=body)
        return self._decoded(response, "/memories/groom/preview"), response.headers.get(AS_OF_HEADER)

    def groom_run(self, body: dict[str, Any], *, as_of: str | None = None) -> dict[str, Any]:
        """Archive the matches; with a preview's `as_of`, exactly what that preview answered (409 if outdated)."""
        if as_of is not None:
            body = {**body, "as_of": as_of}
        return self.call("POST", "/memories/groom/run", body=body)  # type: ignore[no-any-return]

    # ------------------------------------------------------------ the gardener

    def findings(self, filters: dict[str, Any] | None = None) -> dict[str, Any]:
        """The gardener's report: open findings (or `status`), their members, actions and evidence."""
        params = {k: v for k, v in (filters or {}).items() if v not in (None, "")}
        return self.call("GET", "/findings", params=params)  # type: ignore[no-any-return]

    def finding_apply(self, finding_id: int, *, keep: int | None = None) -> dict[str, Any]:
        """Apply a finding; a possible duplicate needs `keep`, the id of the lesson to keep."""
        body = {"keep": int(keep)} if keep is not None else None
        return self.call("POST", f"/findings/{int(finding_id)}/apply", body=body)  # type: ignore[no-any-return]

    def finding_undo(self, finding_id: int) -> dict[str, Any]:
        """Restore every lesson an applied finding retired; the finding is then dismissed."""
        return self.call("POST", f"/findings/{int(finding_id)}/undo")  # type: ignore[no-any-return]

    def garden_run(self, *, full: bool = False, wait: float = 0, every: float = 1.0) -> dict[str, Any]:
        """Queue an inventory (or find the one already pending) and, with `wait`, follow it until it is done
        or failed or `wait` seconds have passed. Answers the run as last seen."""
        run: dict[str, Any] = self.call("POST", "/garden/run", body={"full": full})
        deadline = time.monotonic() + wait
        while run["status"] in GARDEN_RUN_PENDING and time.monotonic() < deadline:
            time.sleep(min(every, max(deadline - time.monotonic(), 0)))
            run = {**run, **self.garden_run_status(run["id"])}
        return run

    def garden_run_status(self, run_id: int) -> dict[str, Any]:
        return self.call("GET", f"/garden/runs/{int(run_id)}")  # type: ignore[no-any-return]

    # ------------------------------------------------------------ policies

    def policy_list(self) -> list[dict[str, Any]]:
        return self.call("GET", "/policies")  # type: ignore[no-any-return]

    def policy_create(self, body: dict[str, Any]) -> dict[str, Any]:
        return self.call("POST", "/policies", body=body)  # type: ignore[no-any-return]

    def policy_show(self, policy_id: int) -> dict[str, Any]:
        return self.call("GET", f"/policies/{quote(str(policy_id))}")  # type: ignore[no-any-return]

    def policy_update(self, policy_id: int, changes: dict[str, Any]) -> dict[str, Any]:
        return self.call("PATCH", f"/policies/{quote(str(policy_id))}", body=changes)  # type: ignore[no-any-return]

    def policy_delete(self, policy_id: int) -> None:
        self.call("DELETE", f"/policies/{quote(str(policy_id))}")


def dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
