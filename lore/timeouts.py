"""Statement timeouts on PostgreSQL: a web request's SQL statements stop at STATEMENT_TIMEOUT_MS (answered with a
clear 503, never a worker kill), a policy run's at RUN_STATEMENT_TIMEOUT_MS. SQLite has no such setting."""

from __future__ import annotations

from collections.abc import Callable

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse

from lore.limits import STATEMENT_TIMEOUT_MS, Limit

TOO_LONG = "the query took too long (limit: STATEMENT_TIMEOUT_MS): narrow the filters and try again"


def set_statement_timeout(limit: Limit, *, local: bool = False) -> None:
    """Every following statement of this connection (or of this transaction, `local`) stops at `limit` ms."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('statement_timeout', %s, %s)", [str(limit.value), local])


def is_statement_timeout(exc: BaseException) -> bool:
    """PostgreSQL cancelled the statement at its statement_timeout (SQLSTATE 57014, query_canceled)."""
    if not isinstance(exc, DatabaseError):
        return False
    cause = exc.__cause__
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return sqlstate == "57014" or "statement timeout" in str(exc)


def too_long_response(request: HttpRequest) -> HttpResponse:
    if request.path.startswith("/api/"):
        body = {"error": {"code": "timeout", "message": TOO_LONG, "field": None}}
        return JsonResponse(body, status=503, headers={"Retry-After": "5"})
    return HttpResponse(
        f"503: {TOO_LONG}.\n",
        status=503,
        content_type="text/plain; charset=utf-8",
        headers={"Retry-After": "5"},
    )


class StatementTimeoutMiddleware:
    """Bounds every SQL statement of a web request; a statement over the limit answers 503 (the query took too
    long) instead of occupying a worker and a database core."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if connection.vendor != "postgresql":
            return self.get_response(request)
        # Set just before the request's first statement: a request that never queries costs no round trip.
        pending = [True]

        def timeout_first(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            if pending:
                pending.clear()
                context["cursor"].cursor.execute(
                    "SELECT set_config('statement_timeout', %s, false)", [str(STATEMENT_TIMEOUT_MS.value)]
                )
            return execute(sql, params, many, context)

        with connection.execute_wrapper(timeout_first):
            return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return too_long_response(request) if is_statement_timeout(exception) else None
