"""The Lore Explorer (DESIGN.md §8): one page whose state lives in the URL, with htmx partials.

A navigation (pick, pill removal, toolbar change) answers with the page body, the toolbar's controls and the
filter menu out of band, and pushes the canonical URL (HX-Push-Url). A history-restore request gets the full page.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from explorer.filter_control import control_context, policy_control, rule_from_query
from explorer.page import (
    STATS_KEY,
    menu_context,
    page_context,
    rows_context,
    sheet_dimensions,
    signal_values,
    state_checked,
    stats_context,
)
from explorer.state import ExplorerState
from lore.access import account_of, account_view
from lore.activity import person
from lore.models import Lesson, LessonEvent
from lore.roles import Role
from lore.services import lesson_protect, lesson_restore, lessons_archive, lessons_deliver, lessons_restore

PAGE = "explorer/explorer.html"
SHEET = "explorer/_sheet.html"
CHANGED_EVENT = "lore-changed"


def _is_partial(request: HttpRequest) -> bool:
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not htmx.history_restore_request  # type: ignore[union-attr]


def _vary(response: HttpResponse) -> HttpResponse:
    patch_vary_headers(response, ("HX-Request", "HX-History-Restore-Request"))
    return response


def _history(request: HttpRequest, response: HttpResponse, url: str) -> None:
    """Push the canonical URL of a new view (replace it while the search box is typed in)."""
    current = request.htmx.current_url or ""  # type: ignore[attr-defined]
    parts = urlsplit(current)
    if current and (parts.path + (f"?{parts.query}" if parts.query else "")) == url:
        return
    header = "HX-Replace-Url" if request.htmx.trigger == "q" else "HX-Push-Url"  # type: ignore[attr-defined]
    response[header] = url


def _current_q(request: HttpRequest) -> str | None:
    """The search of the page the request came from; the search box is only re-rendered when it changes, so a
    navigation never replaces the box while someone types in it."""
    current = request.htmx.current_url  # type: ignore[attr-defined]
    if not current:
        return None
    return ExplorerState.from_query(QueryDict(urlsplit(current).query)).q


@require_GET
@account_view(Role.VIEWER)
def explorer(request: HttpRequest) -> HttpResponse:
    account = account_of(request)
    state = ExplorerState.from_query(request.GET)
    now = timezone.now()
    partial = _is_partial(request)
    context = page_context(account, state, now=now, lazy_stats=partial)
    if not partial:
        return _vary(render(request, PAGE, context))
    menu = request.GET.get("menu", "")
    context.update(menu_context(account, context["state"], now=now, section=menu))  # type: ignore[arg-type]
    keep_q = request.htmx.trigger == "q" or _current_q(request) == context["state"].q  # type: ignore[attr-defined]
    response = render(request, "explorer/_navigate.html", {**context, "oob": True, "keep_q": keep_q})
    _history(request, response, context["state"].url())  # type: ignore[attr-defined]
    return _vary(response)


@require_GET
@account_view(Role.VIEWER)
def explorer_stats(request: HttpRequest) -> HttpResponse:
    """The counting regions a swapped-in body loads after it: cards, matrix, the list's count and note."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    key = request.GET.get("key", "")
    context = stats_context(account, state, now=timezone.now(), key=key if STATS_KEY.fullmatch(key) else "")
    return _vary(render(request, "explorer/_stats.html", context))


@require_GET
@account_view(Role.VIEWER)
def explorer_rows(request: HttpRequest) -> HttpResponse:
    """The next keyset page of the list ("Load more")."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    context = rows_context(account, state, now=timezone.now(), cursor=request.GET.get("cursor", ""))
    return _vary(render(request, f"{PAGE}#rows", context))


@require_GET
@account_view(Role.VIEWER)
def explorer_menu(request: HttpRequest) -> HttpResponse:
    """A section of the filter menu (or its list), with per-value counts loaded when a section opens."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    context = menu_context(
        account,
        state,
        now=timezone.now(),
        section=request.GET.get("section", ""),
        typed=request.GET.get("typed", ""),
    )
    part = (
        "fc-options"
        if request.GET.get("part") == "options" and request.GET.get("section")
        else "fc-menu-body"
    )
    return _vary(render(request, f"explorer/_filter_control.html#{part}", context))


_DOM_ID = re.compile(r"^[a-z][a-z0-9_-]{0,30}$")


@require_GET
@account_view(Role.VIEWER)
def filter_control(request: HttpRequest) -> HttpResponse:
    """The filter control in policy mode (the New/Edit policy dialog): menu sections and picks.

    With `section`: the menu body (or its options, `part=options`). Without: the control's state (pills, hidden
    inputs, Filter button) plus the menu body out of band, at `menu` (the list by default).
    """
    account = account_of(request)
    rule, _ = rule_from_query(request.GET, allow_reverse=False, allow_owner=False)
    dom_id = request.GET.get("dom_id", "fc")
    control = policy_control(account, rule, dom_id=dom_id if _DOM_ID.match(dom_id) else "fc")
    section = request.GET.get("section", "")
    if section:
        context = control_context(control, section, request.GET.get("typed", ""))
        part = "fc-options" if request.GET.get("part") == "options" else "fc-menu-body"
        return render(request, f"explorer/_filter_control.html#{part}", context)
    context = control_context(control, request.GET.get("menu", ""))
    return render(request, "explorer/_filter_control_pick.html", {**context, "oob": True})


# ---------------------------------------------------------------- the detail sheet


def _lesson(request: HttpRequest, lesson_id: int) -> Lesson:
    account = account_of(request)
    return get_object_or_404(Lesson, account=account, pk=lesson_id)


def _sheet(request: HttpRequest, lesson: Lesson, *, changed: bool = False) -> HttpResponse:
    events = list(LessonEvent.objects.filter(lesson=lesson).select_related("run").order_by("-at", "-pk")[:50])
    template = SHEET if _is_partial(request) else "explorer/sheet_page.html"
    response = render(
        request,
        template,
        {
            "lesson": lesson,
            "events": events,
            "dims": sheet_dimensions(lesson),
            "signals": signal_values(lesson),
        },
    )
    if changed:
        trigger_client_event(response, CHANGED_EVENT)
    return _vary(response)


@require_GET
@account_view(Role.VIEWER)
def lesson_sheet(request: HttpRequest, lesson_id: int) -> HttpResponse:
    """The detail sheet. A person opening it is a delivery (Delivered +1, surface "dashboard"); never Chosen."""
    lesson = _lesson(request, lesson_id)
    lessons_deliver(account=lesson.account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="dashboard")
    lesson.refresh_from_db()
    return _sheet(request, lesson)


@require_POST
@account_view(Role.EDITOR)
def lesson_action(request: HttpRequest, lesson_id: int, action: str) -> HttpResponse:
    """Pin, unpin, archive or restore one lesson from its sheet; the sheet comes back without a new delivery."""
    lesson = _lesson(request, lesson_id)
    actor = person(request.user)
    if action in ("pin", "unpin"):
        lesson = lesson_protect(account=lesson.account, lesson=lesson, protected=action == "pin", actor=actor)
    elif action == "archive":
        lessons_archive(  # never a pinned lesson, even by hand (the sheet says to unpin it first)
            account=lesson.account, lesson_ids=[lesson.pk], reason="archived by hand", actor=actor
        )
        lesson.refresh_from_db()
    elif action == "restore":
        lesson = lesson_restore(account=lesson.account, lesson=lesson, actor=actor)
    else:
        raise Http404("no such action")
    if not _is_partial(request):
        return HttpResponseRedirect(
            _local_url(request, request.POST.get("next")) or reverse("explorer:sheet", args=[lesson.pk])
        )
    return _sheet(request, lesson, changed=True)


def _local_url(request: HttpRequest, url: str | None) -> str | None:
    """`url` when it stays on this site (a `next` field must never send anyone elsewhere), else None."""
    allowed = url_has_allowed_host_and_scheme(url, {request.get_host()}, require_https=request.is_secure())
    return url if url and allowed else None


def form_ids(values: list[str]) -> list[int]:
    """Lesson ids ticked in a form: ASCII digits that fit a bigint; anything else cannot be one of ours."""
    return [int(v) for v in values if v.isascii() and v.isdigit() and len(v) <= 18]


@require_POST
@account_view(Role.EDITOR)
def restore_many(request: HttpRequest) -> HttpResponse:
    """Restore the archived lessons ticked in the archived view, then show that view again."""
    account = account_of(request)
    ids = form_ids(request.POST.getlist("ids"))[:5000]
    restored = lessons_restore(account=account, lesson_ids=ids, actor=person(request.user))
    state = ExplorerState.from_query(QueryDict(request.POST.get("state", ""), mutable=False))
    if not _is_partial(request):
        return HttpResponseRedirect(state.url())
    if not ids:
        state = state.with_notice("Tick the lessons to restore first.")
    else:
        state = state.with_success(f"Restored {restored} lesson{'s' if restored != 1 else ''}.")
    context = page_context(account, state, now=timezone.now(), lazy_stats=True)
    response = render(request, "explorer/_navigate.html", {**context, "oob": True, "skip_menu": True})
    return _vary(response)
