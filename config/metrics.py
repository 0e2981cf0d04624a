"""`/metrics`: what an operator's Prometheus scrapes. Off (404) until LORE_METRICS_TOKEN is set; then it answers
only a request carrying that token as `Authorization: Bearer …` (401 otherwise), declared with
`site_view(SiteNeed.OPERATOR)` like every other view's need.

Two kinds of figures. The store's (runs, jobs, findings, pending reads, purges) are read from the database at
scrape time by `lore.metrics.StoreCollector`, so every web process answers the same. Request latency is measured
in the process that served the request by `RequestLatencyMiddleware`, labelled by the URL pattern the request
resolved to (its route, never the raw path: the series are bounded by the URLconf) and the method. Behind
gunicorn a scrape reaches one worker of several, so the latency is kept in prometheus-client's multiprocess
mode whenever PROMETHEUS_MULTIPROC_DIR is set (config/gunicorn_conf.py sets it for the production image): each
worker writes its samples to a file there and any worker's scrape adds them all up. Without it (runserver, the
tests) the one process keeps them in memory.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
)

from lore.access import operator_token, site_view
from lore.metrics import StoreCollector
from lore.roles import SiteNeed

MULTIPROC_DIR_ENV = "PROMETHEUS_MULTIPROC_DIR"
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")
OTHER_METHOD = "other"
UNMATCHED_ROUTE = "unmatched"  # a request no URL pattern resolved (a 404 before any view)
# Seconds: from a cached htmx partial to a request near the statement timeout (STATEMENT_TIMEOUT_MS).
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

disable_created_metrics()  # a `_created` series per histogram would double what a scrape carries, for nothing
if multiprocess_dir_at_import := os.environ.get(MULTIPROC_DIR_ENV, ""):
    # A worker's first sample writes its file there: a missing folder would fail every request.
    os.makedirs(multiprocess_dir_at_import, exist_ok=True)

# Not in prometheus-client's default registry: each scrape builds its own (scrape_registry).
REQUEST_LATENCY = Histogram(
    "lore_http_request_duration_seconds",
    "Time to answer a request, by the URL pattern it resolved to and its method",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
    registry=None,
)


def multiprocess_dir() -> str:
    return os.environ.get(MULTIPROC_DIR_ENV, "")


def route_of(request: HttpRequest) -> str:
    """The URL pattern the request resolved to (`explorer/lessons/<int:lesson_id>/`), without the account part."""
    match = getattr(request, "resolver_match", None)
    return match.route if match is not None and match.route else UNMATCHED_ROUTE


def method_of(request: HttpRequest) -> str:
    method = (request.method or "").upper()
    return method if method in METHODS else OTHER_METHOD


def request_observe(route: str, method: str, seconds: float) -> None:
    REQUEST_LATENCY.labels(route=route, method=method).observe(seconds)


class RequestLatencyMiddleware:
    """Times every request while the metrics are on (first in MIDDLEWARE, so the other middleware is counted)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not operator_token():
            return self.get_response(request)
        started = time.perf_counter()
        response = self.get_response(request)
        request_observe(route_of(request), method_of(request), time.perf_counter() - started)
        return response


def scrape_registry() -> CollectorRegistry:
    """What one scrape answers: the request latency (of every worker, in multiprocess mode) and the store."""
    registry = CollectorRegistry()
    if multiprocess_dir():
        multiprocess.MultiProcessCollector(registry)
    else:
        registry.register(REQUEST_LATENCY)
    registry.register(StoreCollector())
    return registry


@site_view(SiteNeed.OPERATOR)
@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    return HttpResponse(generate_latest(scrape_registry()), content_type=CONTENT_TYPE_LATEST)
