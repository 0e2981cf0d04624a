"""The Lore Explorer (DESIGN.md §8): one page whose state lives in the URL, with htmx partials.

A navigation (pick, pill removal, toolbar change) answers with the page body, the toolbar's controls and the
filter menu out of band, and pushes the canonical URL (HX-Push-Url). A history-restore request gets the full page.
"""

from __future__ import annotations

import re
from typing import cast
from urllib.parse import urlsplit

from django.http import Http404, HttpResponse, HttpResponseRedirect, QueryDict
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import trigger_client_event

from explorer.filter_control import control_context, policy_control
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
from lore.conditions import CONDITIONS_BY_KEY
from lore.events import lesson_history
from lore.garden.selectors import lesson_supersedes
from lore.htmx import HtmxHttpRequest, is_partial, vary_on_htmx
from lore.limits import LESSON_HISTORY_SHOWN
from lore.models import Account, Lesson
from lore.purge import purged_message, tombstone_of_lesson
from lore.reads import lesson_decay_score_exact, lesson_exact, reads_settle_for, rule_fields
from lore.roles import Role
from lore.rules.codec import rule_parse
from lore.selectors import sort_field
from lore.services import lesson_protect, lesson_restore, lessons_archive, lessons_deliver, lessons_restore

PAGE = "explorer/explorer.html"
SHEET = "explorer/_sheet.html"
CHANGED_EVENT = "lore-changed"


def _history(request: HtmxHttpRequest, response: HttpResponse, url: str) -> None:
    """Push the canonical URL of a new view (replace it while the search box is typed in)."""
    current = request.htmx.current_url or ""
    parts = urlsplit(current)
    if current and (parts.path + (f"?{parts.query}" if parts.query else "")) == url:
        return
    header = "HX-Replace-Url" if request.htmx.trigger == "q" else "HX-Push-Url"
    response[header] = url


def counters_settled(account: Account, state: ExplorerState) -> None:
    """Before a view evaluates the state's rule or order: buffered reads folded when either reads a counter
    (lore.reads; one EXISTS query when something could be pending, none otherwise)."""
    reads_settle_for(account, rule_fields(state.rule, sort_field(state.list_sort)))


def _current_q(request: HtmxHttpRequest) -> str | None:
    """The search of the page the request came from; the search box is only re-rendered when it changes, so a
    navigation never replaces the box while someone types in it."""
    current = request.htmx.current_url
    if not current:
        return None
    return ExplorerState.from_query(QueryDict(urlsplit(current).query)).q


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def explorer(request: HtmxHttpRequest) -> HttpResponse:
    account = account_of(request)
    state = ExplorerState.from_query(request.GET)
    counters_settled(account, state)
    now = timezone.now()
    partial = is_partial(request)
    context = page_context(account, state, now=now, lazy_stats=partial)
    if not partial:
        return render(request, PAGE, context)
    menu = request.GET.get("menu", "")
    shown = cast(ExplorerState, context["state"])  # the state checked against the account (a run may be gone)
    context.update(menu_context(account, shown, now=now, section=menu))
    keep_q = request.htmx.trigger == "q" or _current_q(request) == shown.q
    response = render(request, "explorer/_navigate.html", {**context, "oob": True, "keep_q": keep_q})
    _history(request, response, shown.url())
    return response


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def explorer_stats(request: HtmxHttpRequest) -> HttpResponse:
    """The counting regions a swapped-in body loads after it: cards, matrix, the list's count and note."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    counters_settled(account, state)
    key = request.GET.get("key", "")
    context = stats_context(account, state, now=timezone.now(), key=key if STATS_KEY.fullmatch(key) else "")
    return render(request, "explorer/_stats.html", context)


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def explorer_rows(request: HtmxHttpRequest) -> HttpResponse:
    """The next keyset page of the list ("Load more")."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    counters_settled(account, state)
    context = rows_context(account, state, now=timezone.now(), cursor=request.GET.get("cursor", ""))
    return render(request, f"{PAGE}#rows", context)


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def explorer_menu(request: HtmxHttpRequest) -> HttpResponse:
    """A section of the filter menu (or its list), with per-value counts loaded when a section opens."""
    account = account_of(request)
    state, _ = state_checked(account, ExplorerState.from_query(request.GET))
    counters_settled(account, state)
    part = (
        "fc-options"
        if request.GET.get("part") == "options" and request.GET.get("section")
        else "fc-menu-body"
    )
    context = menu_context(
        account,
        state,
        now=timezone.now(),
        section=request.GET.get("section", ""),
        typed=request.GET.get("typed", ""),
        with_chart=part == "fc-menu-body",
    )
    return render(request, f"explorer/_filter_control.html#{part}", context)


_DOM_ID = re.compile(r"^[a-z][a-z0-9_-]{0,30}$")


@require_GET
@account_view(Role.VIEWER)
def filter_control(request: HtmxHttpRequest) -> HttpResponse:
    """The filter control in policy mode (the New/Edit policy dialog): menu sections and picks.

    With `section`: the menu body (or its options, `part=options`). Without: the control's state (pills, hidden
    inputs, Filter button) plus the menu body out of band, at `menu` (the list by default).
    """
    account = account_of(request)
    rule, _ = rule_parse(request.GET, in_policy=True)
    reads_settle_for(account, rule_fields(rule))
    dom_id = request.GET.get("dom_id", "fc")
    control = policy_control(account, rule, dom_id=dom_id if _DOM_ID.match(dom_id) else "fc")
    section = request.GET.get("section", "")
    if section:
        part = "fc-options" if request.GET.get("part") == "options" else "fc-menu-body"
        context = control_context(
            control, section, request.GET.get("typed", ""), with_chart=part == "fc-menu-body"
        )
        return render(request, f"explorer/_filter_control.html#{part}", context)
    context = control_context(control, request.GET.get("menu", ""))
    return render(request, "explorer/_filter_control_pick.html", {**context, "oob": True})


# ---------------------------------------------------------------- the detail sheet


def _lesson(request: HtmxHttpRequest, lesson_id: int) -> Lesson:
    account = account_of(request)
    return get_object_or_404(Lesson, account=account, pk=lesson_id)


def _sheet(request: HtmxHttpRequest, lesson: Lesson, *, changed: bool = False) -> HttpResponse:
    events = lesson_history(lesson.account_id, lesson.pk, limit=LESSON_HISTORY_SHOWN.value)
    template = SHEET if is_partial(request) else "explorer/sheet_page.html"
    response = render(
        request,
        template,
        {
            "lesson": lesson,
            "events": events,
            "dims": sheet_dimensions(lesson),
            "signals": signal_values(lesson),
            "superseded_by": lesson.superseded_by if lesson.superseded_by_id else None,
            "supersedes": lesson_supersedes(lesson),
            "decay_score": lesson_decay_score_exact(lesson, timezone.now()),
            "decay_help": CONDITIONS_BY_KEY["decay"].help,
        },
    )
    if changed:
        trigger_client_event(response, CHANGED_EVENT)
    return response


@require_GET
@account_view(Role.VIEWER)
@vary_on_htmx
def lesson_sheet(request: HtmxHttpRequest, lesson_id: int) -> HttpResponse:
    """The detail sheet. A person opening it is a delivery (Delivered +1, surface "dashboard"); never Chosen.
    A purged lesson's old link answers 410 with its tombstone."""
    account = account_of(request)
    if not Lesson.objects.filter(account=account, pk=lesson_id).exists():
        tombstone = tombstone_of_lesson(account, lesson_id)
        if tombstone is None:
            _lesson(request, lesson_id)  # the usual 404
        assert tombstone is not None
        context = {"tombstone": tombstone, "message": purged_message(tombstone)}
        if is_partial(request):  # htmx swaps only a 2xx into the sheet
            return render(request, "explorer/_tombstone.html", context)
        return render(request, "explorer/tombstone_page.html", context, status=410)
    lesson = _lesson(request, lesson_id)
    lessons_deliver(account=lesson.account, lesson_ids=[lesson.pk], scope=lesson.scope, surface="dashboard")
    return _sheet(request, lesson_exact(Lesson.objects.filter(pk=lesson.pk)) or lesson)


@require_POST
@account_view(Role.EDITOR)
@vary_on_htmx
def lesson_action(request: HtmxHttpRequest, lesson_id: int, action: str) -> HttpResponse:
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
    if not is_partial(request):
        return HttpResponseRedirect(
            _local_url(request, request.POST.get("next")) or reverse("explorer:sheet", args=[lesson.pk])
        )
    return _sheet(request, lesson, changed=True)


def _local_url(request: HtmxHttpRequest, url: str | None) -> str | None:
    """`url` when it stays on this site (a `next` field must never send anyone elsewhere), else None."""
    allowed = url_has_allowed_host_and_scheme(url, {request.get_host()}, require_https=request.is_secure())
    return url if url and allowed else None


def form_ids(values: list[str]) -> list[int]:
    """Lesson ids ticked in a form: ASCII digits that fit a bigint; anything else cannot be one of ours."""
    return [int(v) for v in values if v.isascii() and v.isdigit() and len(v) <= 18]


@require_POST
@account_view(Role.EDITOR)
@vary_on_htmx
def restore_many(request: HtmxHttpRequest) -> HttpResponse:
    """Restore the archived lessons ticked in the archived view, then show that view again."""
    account = account_of(request)
    ids = form_ids(request.POST.getlist("ids"))[:5000]
    restored = lessons_restore(account=account, lesson_ids=ids, actor=person(request.user))
    state = ExplorerState.from_query(QueryDict(request.POST.get("state", ""), mutable=False))
    if not is_partial(request):
        return HttpResponseRedirect(state.url())
    counters_settled(account, state)
    if not ids:
        state = state.with_notice("Tick the lessons to restore first.")
    else:
        state = state.with_success(f"Restored {restored} lesson{'s' if restored != 1 else ''}.")
    context = page_context(account, state, now=timezone.now(), lazy_stats=True)
    response = render(request, "explorer/_navigate.html", {**context, "oob": True, "skip_menu": True})
    return response
