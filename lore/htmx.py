"""What every dashboard view that answers htmx shares: the typed request, "is this a partial?", and the Vary
header of a view whose answer depends on it (django-htmx, Django's vary_on_headers)."""

from __future__ import annotations

from django.http import HttpRequest
from django.views.decorators.vary import vary_on_headers
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that went through django-htmx's middleware (as every dashboard request does)."""

    htmx: HtmxDetails


def is_partial(request: HtmxHttpRequest) -> bool:
    """An htmx request for a fragment (a history restore wants the whole page)."""
    return bool(request.htmx) and not request.htmx.history_restore_request


# On every view that branches on is_partial: a cache must not hand a fragment to a full-page request.
vary_on_htmx = vary_on_headers("HX-Request", "HX-History-Restore-Request")
