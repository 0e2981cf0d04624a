"""`/healthz`: is this process able to serve? It asks the database and the Celery broker, nothing else.

No sign-in (a load balancer or the compose healthcheck asks it), no session, no template: one `SELECT 1` and one
broker connection with a short timeout. 200 `{"status": "ok", …}` or 503 naming what is down.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from lore.access import site_view
from lore.roles import SiteNeed

BROKER_TIMEOUT_SECONDS = 2.0


def database_ok() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def broker_ok() -> None:
    from config.celery import app

    with app.connection_for_write() as broker:
        broker.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_SECONDS)


CHECKS: dict[str, Callable[[], None]] = {"database": database_ok, "broker": broker_ok}


def health() -> dict[str, str]:
    """Each check's outcome: "ok", or the kind of error it raised (never its message: it may hold a URL)."""
    outcome: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            check()
        except Exception as exc:  # any failure means "down"; the type says which kind
            outcome[name] = f"down ({type(exc).__name__})"
        else:
            outcome[name] = "ok"
    return outcome


@site_view(SiteNeed.PUBLIC)
@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    checks = health()
    down = [name for name, result in checks.items() if result != "ok"]
    body = {"status": "down" if down else "ok", "down": down, "checks": checks}
    return JsonResponse(body, status=503 if down else 200)
