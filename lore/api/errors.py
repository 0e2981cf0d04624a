"""Errors of the REST API: every failure is `{"error": {"code", "message", "field"}}` with a 4xx status.

Bad input never reaches Django's 500 page: validation errors of the schemas, the registry's RuleError, the
store's FieldError/ScopeError, a bad cursor and unparsable JSON all have a handler here.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser

from lore.conditions import RuleError
from lore.inputs import FieldError
from lore.limits import REQUEST_BODY_MAX, LimitExceeded
from lore.scopes import ScopeError
from lore.selectors import CursorError
from lore.timeouts import TOO_LONG, is_statement_timeout

log = logging.getLogger(__name__)

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    422: "invalid",
    503: "timeout",
}


class ObjectParser(Parser):
    """JSON bodies must be objects: `"AAA"` or `[1]` is a 400, not a request with every field defaulted."""

    def parse_body(self, request: HttpRequest) -> dict[str, Any]:
        data = super().parse_body(request)
        if not isinstance(data, dict):
            raise ValueError("the body must be a JSON object")
        return data


class ErrorDetail(Schema):
    code: str
    message: str
    field: str | None = None


class ErrorOut(Schema):
    error: ErrorDetail


class ApiError(Exception):
    """Raised by handlers for an answer other than success; rendered by `install_error_handlers`."""

    def __init__(self, status: int, message: str, *, field: str | None = None, code: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.code = code or CODES.get(status, "error")


def not_found(what: str) -> ApiError:
    return ApiError(404, f"no such {what}")


def error_responses(*statuses: int) -> dict[int, type[ErrorOut]]:
    """The `response=` entries of an endpoint's documented errors: always 401, 403 (a token without the scope), 413 (a body over its limit), 422
    and 503 (a statement over the statement timeout)."""
    return {status: ErrorOut for status in sorted({401, 403, 413, 422, 503, *statuses})}


def error_response(
    api: NinjaAPI,
    request: HttpRequest,
    status: int,
    message: str,
    *,
    field: str | None = None,
    code: str = "",
) -> HttpResponse:
    body = {"error": {"code": code or CODES.get(status, "error"), "message": message, "field": field}}
    return api.create_response(request, body, status=status)


def _field_of(loc: list[Any] | tuple[Any, ...]) -> str | None:
    # ninja's loc is (source, [param name,] field, union member / index…): the field is what callers know.
    parts = [str(p) for p in loc[1:] if not isinstance(p, int)]
    if len(parts) > 1 and parts[0] in ("payload", "filters", "data", "body"):
        parts = parts[1:]
    return parts[0] if parts else None


def _validation_message(errors: list[dict[str, Any]]) -> tuple[str, str | None]:
    first = errors[0] if errors else {}
    field = _field_of(first.get("loc", ()))
    message = str(first.get("msg", "invalid input"))
    if first.get("type") == "missing":
        message = "is required"
    return (f"{field}: {message}" if field else message), field


def install_error_handlers(api: NinjaAPI) -> None:
    """Map every exception bad input can raise to the error envelope."""

    def on_validation(request: HttpRequest, exc: Any) -> HttpResponse:
        message, field = _validation_message(list(exc.errors))
        return error_response(api, request, 422, message, field=field)

    def on_api_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, exc.status, exc.message, field=exc.field, code=exc.code)

    def on_http_error(request: HttpRequest, exc: Any) -> HttpResponse:
        status = exc.status_code
        message = str(exc)
        if isinstance(exc, AuthenticationError) or status == 401:
            message = "a valid API token is required: Authorization: Bearer <token>"
        elif status == 400 and "parse request body" in message:
            message = "the request body must be a JSON object"
        return error_response(api, request, status, message)

    def on_rule_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, 422, exc.message, field=exc.field, code=exc.code)

    def on_limit(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, exc.status, exc.message, field=exc.field, code=exc.code)

    def on_field_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, 422, exc.message, field=exc.field)

    def on_cursor_error(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, 422, str(exc), field="cursor")

    def on_404(request: HttpRequest, exc: Any) -> HttpResponse:
        return error_response(api, request, 404, str(exc) or "not found")

    def on_suspicious(request: HttpRequest, exc: Any) -> HttpResponse:
        if isinstance(exc, RequestDataTooBig):
            limit = REQUEST_BODY_MAX
            return error_response(
                api, request, limit.status, limit.describe(), field="body", code="limit_exceeded"
            )
        return error_response(api, request, 400, "the request was refused as malformed")

    def on_unexpected(request: HttpRequest, exc: Any) -> HttpResponse:
        if is_statement_timeout(exc):
            return error_response(api, request, 503, TOO_LONG, code="timeout")
        # Not bad input (that has a handler above): log it, and still answer in the envelope.
        log.exception("unhandled error in %s %s", request.method, request.path)
        return error_response(
            api, request, 500, "the server failed; the error is logged", code="server_error"
        )

    api.add_exception_handler(ValidationError, on_validation)
    api.add_exception_handler(ApiError, on_api_error)
    api.add_exception_handler(HttpError, on_http_error)
    api.add_exception_handler(RuleError, on_rule_error)
    api.add_exception_handler(FieldError, on_field_error)
    api.add_exception_handler(ScopeError, on_field_error)
    api.add_exception_handler(LimitExceeded, on_limit)
    api.add_exception_handler(CursorError, on_cursor_error)
    api.add_exception_handler(Http404, on_404)
    api.add_exception_handler(SuspiciousOperation, on_suspicious)
    api.add_exception_handler(Exception, on_unexpected)
