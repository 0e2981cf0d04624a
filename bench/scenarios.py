"""What the bench measures: one Scenario per request (or in-process call), built against the loaded store.

A scenario whose URL does not resolve yet (a page or endpoint another branch is still building) is left out of
the run and listed as "not available", so the harness works on every state of `main`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from django.http import HttpResponse
from django.test import Client
from django.urls import Resolver404, resolve

from bench.store import Identities
from lore.access import ACCOUNT_PATH, account_reverse
from lore.conditions import CONDITIONS_BY_KEY, DimFilter
from lore.models import Lesson
from lore.rules.rule import Rule
from lore.selectors import lessons_filtered, lessons_page
from lore.services import lessons_deliver
from policies import grooming

# The rule previewed and run: "old, never chosen, and of a noisy kind" — about 10% of the demo store.
RULE_10PCT: dict[str, Any] = {
    "scope": "global",
    "unseen_days": 90,
    "max_opened_count": 0,
    "kind": ["bus", "todo", "decision"],
}
# The same rule with a Delivered condition at a preset (every preset is an edge of the stored bin, issue 28).
RULE_DELIVERED: dict[str, Any] = {**RULE_10PCT, "max_read_count": 100}
# The filtered view compared with the admin: 2 conditions + 2 dimension filters (about 1.3% of the store).
FILTERED_CONDITIONS = {"min_age_days": 90, "max_opened_count": 0}
FILTERED_DIMENSIONS = {"kind": "bus", "host": "claude-code"}
# The filter added by "the htmx partial after a filter change": one more dimension on top of the filtered view.
EXTRA_DIMENSION = {"trigger": "session-end"}


@dataclass
class Context:
    ids: Identities
    now: datetime
    user: Client = field(init=False)
    admin: Client = field(init=False)
    token: Client = field(init=False)

    def __post_init__(self) -> None:
        self.user = Client()
        self.user.force_login(self.ids.user)
        self.admin = Client()
        self.admin.force_login(self.ids.admin)
        self.token = Client(headers={"authorization": f"Bearer {self.ids.raw_token}"})

    def client(self, who: str) -> Client:
        return {"user": self.user, "admin": self.admin, "token": self.token}[who]


class BenchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Scenario:
    name: str
    label: str
    target: str | None = None
    method: str = "GET"  # GET | POST | CALL
    path: str = ""
    body: dict[str, Any] | None = None
    who: str = "user"  # user | admin | token
    headers: dict[str, str] = field(default_factory=dict)
    call: Callable[[Context], object] | None = None
    compare_with: str | None = None  # the admin scenario this one is the counterpart of
    expect: str = ""  # a string the response must contain (proves the page is the real one)

    @property
    def is_http(self) -> bool:
        return self.method != "CALL"

    @property
    def group(self) -> str:
        return self.name.split(".")[0]

    def available(self) -> bool:
        if not self.is_http:
            return True
        path = self.path.split("?")[0]
        inside = ACCOUNT_PATH.match(path)  # a dashboard URL resolves without its /a/<slug> part
        try:
            resolve(inside["rest"] if inside else path)
        except Resolver404:
            return False
        return True

    def once(self, ctx: Context) -> object:
        if self.call is not None:
            return self.call(ctx)
        client = ctx.client(self.who)
        if self.method == "GET":
            response = client.get(self.path, headers=self.headers)
        else:
            response = client.post(
                self.path,
                data=json.dumps(self.body or {}),
                content_type="application/json",
                headers=self.headers,
            )
        body = _content(response)
        if response.status_code != 200:
            raise BenchError(
                f"{self.name}: {self.method} {self.path} → {response.status_code}: {body[:300]!r}"
            )
        if self.expect and self.expect.encode() not in body:
            raise BenchError(f"{self.name}: {self.path} does not contain {self.expect!r}")
        return response


def _content(response: HttpResponse) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)  # type: ignore[attr-defined]
    return response.content


def _qs(params: dict[str, object]) -> str:
    return urlencode({k: v for k, v in params.items() if v not in (None, "")})


def _retention(conditions: dict[str, int]) -> str:
    return ",".join(f"{k}:{v}" for k, v in conditions.items())


def admin_params(now: datetime, conditions: dict[str, int], dimensions: dict[str, str]) -> dict[str, object]:
    """The admin changelist's spelling of the same filtered view: list_filter lookups for the dimensions, plain
    field lookups for the conditions, active and unprotected lessons only (what the Explorer lists)."""
    params: dict[str, object] = {f"{name}__exact": value for name, value in dimensions.items()}
    for name, value in conditions.items():
        if name == "min_age_days":
            params["created_at__lt"] = (now - timedelta(days=value)).isoformat()
        elif name.startswith("max_"):
            field_name = {"max_seen_count": "seen_count", "max_read_count": "read_count"}.get(
                name, "opened_count"
            )
            params[f"{field_name}__lte"] = value
        else:
            raise ValueError(f"no admin spelling for {name}")
    params["archived_at__isnull"] = "True"
    if conditions:
        params["protected__exact"] = "0"
    return params


def rule_10pct() -> Rule:
    return Rule(
        scope="global",
        conditions={
            "unseen_days": RULE_10PCT["unseen_days"],
            "max_opened_count": RULE_10PCT["max_opened_count"],
        },
        dimensions={"kind": DimFilter(tuple(RULE_10PCT["kind"]), "in")},
    )


def _preview_in_process(ctx: Context) -> object:
    return grooming.preview(ctx.ids.account, rule_10pct())


def _read_bump_in_process(ctx: Context) -> object:
    """What a 50-lesson list page does besides serialising: the keyset page, then the read bump."""
    account = ctx.ids.account
    page = lessons_page(lessons_filtered(account, Rule()), limit=50)
    lessons_deliver(account=account, lesson_ids=[r.pk for r in page.rows], scope="global", surface="api")
    return page


_STATS_URL = re.compile(rb'hx-get="(/a/[^/"]+/explorer/stats/[^"]+)"')


def _stats_url_of(response: HttpResponse) -> str:
    """The lazy counts URL a swapped-in body carries (its placeholders load them right after the swap)."""
    found = _STATS_URL.search(_content(response))
    if not found:
        raise BenchError("the swap carries no lazy counts placeholder")
    return found.group(1).decode().replace("&amp;", "&")


def _swap_and_counts(path: str, headers: dict[str, str]) -> Callable[[Context], object]:
    """The swap, then the counts request its placeholders make: the server time a user waits for both."""

    def run(ctx: Context) -> object:
        swap = ctx.user.get(path, headers=headers)
        counts = ctx.user.get(_stats_url_of(swap), headers={"HX-Request": "true"})
        if swap.status_code != 200 or counts.status_code != 200 or b"data-card" not in counts.content:
            raise BenchError(f"swap → {swap.status_code}, counts → {counts.status_code}")
        return counts

    return run


def _newest_key(ctx: Context, conditions: dict[str, int], dimensions: dict[str, str]) -> str:
    """The key the first row of a page listing this view must show (proves the page is the real one)."""
    rule = Rule(
        scope="global",
        conditions=conditions,
        dimensions={name: DimFilter((value,), "in") for name, value in dimensions.items()},
    )
    qs = lessons_filtered(ctx.ids.account, rule, include_protected=not conditions, now=ctx.now)
    rows = lessons_page(qs, limit=1).rows
    return rows[0].key if rows else ""


# Issue 16 #23: a search of a word the store carries, and of one it does not (the demo store has no "timeout"), which
# read the whole store newest first at 1M before rare words were read from the full-text index.
SEARCH_COMMON = "hydration"
SEARCH_ABSENT = "timeout"


def _newest_key_matching(ctx: Context, q: str) -> str:
    """The key of the first row a search for `q` lists."""
    rows = lessons_page(lessons_filtered(ctx.ids.account, Rule(), q=q, now=ctx.now), limit=1).rows
    return rows[0].key if rows else ""


def _admin_first_key(ctx: Context, params: dict[str, object]) -> str:
    """The admin lists by descending id: the key of the first row of the changelist with these lookups."""
    lookups = {k: (v == "True" if k.endswith("__isnull") else v) for k, v in params.items()}
    first = Lesson.objects.filter(**lookups).order_by("-pk").first()
    return first.key if first else ""


def _health_path(ctx: Context) -> str:
    """Settings → Health, with the 89 daily rollups a store three months old has (written here if missing, as
    the nightly rollup leaves them: the page reads those rows and counts today live)."""
    from lore.models import DailyRollup
    from lore.rollups import day_figures, day_of

    account, today = ctx.ids.account, day_of(ctx.now)
    if DailyRollup.objects.filter(account=account).count() < 89:
        figures = day_figures(account, today, totals=True)
        DailyRollup.objects.bulk_create(
            [
                DailyRollup(
                    account=account,
                    day=today - timedelta(days=back),
                    active=figures.active,
                    archived=figures.archived,
                    purged=figures.purged,
                    reads=figures.reads,
                    computed_at=ctx.now,
                )  # fmt: skip
                for back in range(1, 90)
            ],
            ignore_conflicts=True,
        )
    return account_reverse(account, "policies:health")


def _forecast_path(ctx: Context) -> str:
    """A policy's forecast (three counts of the ~10% rule: tonight, in 7 and in 30 days), the policy made once."""
    from policies.models import RetentionPolicy
    from policies.services import policy_create

    name = "bench forecast (~10% rule)"
    policy = RetentionPolicy.objects.filter(account=ctx.ids.account, name=name).first() or policy_create(
        account=ctx.ids.account, rule=rule_10pct(), name=name
    )
    return account_reverse(ctx.ids.account, "policies:forecast", policy.pk)


def scenarios_build(ctx: Context) -> list[Scenario]:
    """Every scenario of the bench, in report order (available or not)."""
    now = ctx.now
    dims = FILTERED_DIMENSIONS
    filtered = {"retention": _retention(FILTERED_CONDITIONS), **dims}
    narrowed = {**filtered, **EXTRA_DIMENSION}
    admin_filtered = admin_params(now, FILTERED_CONDITIONS, dims)
    admin_narrowed = admin_params(now, FILTERED_CONDITIONS, {**dims, **EXTRA_DIMENSION})
    # The dashboard's real URLs, inside the account (/a/<slug>/explorer/…): a slug-less one answers a redirect.
    page, stats, menu = (
        account_reverse(ctx.ids.account, f"explorer:{name}") for name in ("index", "stats", "menu")
    )
    swap_headers = {"HX-Request": "true", "HX-Current-URL": f"http://testserver{page}?{_qs(filtered)}"}
    return [
        Scenario(
            "explorer.page",
            "Explorer full page, unfiltered",
            target="explorer_page",
            path=page,
            compare_with="admin.page",
            expect=_newest_key(ctx, {}, {}),
        ),
        Scenario(
            "explorer.page_filtered",
            "Explorer full page, 2 conditions + 2 filters",
            target="explorer_page",
            path=f"{page}?{_qs(filtered)}",
            compare_with="admin.page_filtered",
            expect=_newest_key(ctx, FILTERED_CONDITIONS, dims),
        ),
        Scenario(
            "explorer.partial",
            "Explorer htmx swap after adding a filter (trigger) to the filtered view",
            target="partial",
            path=f"{page}?{_qs(narrowed)}",
            headers=swap_headers,
            expect=_newest_key(ctx, FILTERED_CONDITIONS, {**dims, **EXTRA_DIMENSION}),
        ),
        Scenario(
            "explorer.partial_counts",
            "Explorer counts after that swap (cards + matrix + list count, loaded by the swapped-in body)",
            target="partial_counts",
            path=f"{stats}?{_qs(narrowed)}",
            headers={"HX-Request": "true"},
            expect='data-card="lessons"',
        ),
        Scenario(
            "explorer.partial_total",
            "Explorer swap + its counts, back to back (what the admin's one page is compared with)",
            method="CALL",
            call=_swap_and_counts(f"{page}?{_qs(narrowed)}", swap_headers),
            compare_with="admin.page_narrowed",
        ),
        Scenario(
            "explorer.menu_counts",
            "Filter menu: open the Host section of the filtered view (per-value counts)",
            target="menu_counts",
            path=f"{menu}?{_qs({**filtered, 'section': 'host'})}",
            headers={"HX-Request": "true"},
            expect="codex",
        ),
        Scenario(
            "explorer.menu_counts_all",
            "Filter menu: open the Kind section, unfiltered (counts over every lesson)",
            target="menu_counts",
            path=f"{menu}?section=kind",
            headers={"HX-Request": "true"},
            expect="decision",
        ),
        *histogram_scenarios(menu, filtered),
        Scenario(
            "settings.health",
            "Settings → Health: 90 days of daily rollups + today live (4 SVG charts)",
            path=_health_path(ctx),
            expect='id="health-reads"',
        ),
        Scenario(
            "settings.forecast",
            "Policy forecast (htmx): the ~10% rule counted tonight, in 7 and in 30 days",
            path=_forecast_path(ctx),
            headers={"HX-Request": "true"},
            expect='id="forecast-chart"',
        ),
        Scenario(
            "admin.page",
            "Admin changelist, unfiltered (facets on)",
            who="admin",
            path="/admin/lore/lesson/",
            expect=_admin_first_key(ctx, {}),
        ),
        Scenario(
            "admin.page_filtered",
            "Admin changelist, same 2 conditions + 2 filters (facets on)",
            who="admin",
            path=f"/admin/lore/lesson/?{_qs(admin_filtered)}",
            expect=_admin_first_key(ctx, admin_filtered),
        ),
        Scenario(
            "admin.page_narrowed",
            "Admin changelist after adding a filter (full page: the admin has no partial)",
            who="admin",
            path=f"/admin/lore/lesson/?{_qs(admin_narrowed)}",
            expect=_admin_first_key(ctx, admin_narrowed),
        ),
        Scenario(
            "api.preview",
            "POST /api/v1/memories/groom/preview, ~10% rule",
            target="preview",
            method="POST",
            path="/api/v1/memories/groom/preview",
            body=RULE_10PCT,
            who="token",
        ),
        Scenario(
            "api.preview_delivered",
            "POST /api/v1/memories/groom/preview, ~10% rule + Delivered ≤ 100 (a preset: the stored bin)",
            method="POST",
            path="/api/v1/memories/groom/preview",
            body=RULE_DELIVERED,
            who="token",
        ),
        Scenario(
            "svc.preview",
            "grooming.preview of the ~10% rule (in process, every key)",
            target="preview",
            method="CALL",
            call=_preview_in_process,
        ),
        Scenario(
            "api.page",
            "GET /api/v1/memories?limit=50 (with its read bump)",
            target="api_page",
            path="/api/v1/memories?limit=50",
            who="token",
            expect=_newest_key(ctx, {}, {}),
        ),
        Scenario(
            "api.search_common",
            f"POST /api/v1/memories/search, a word most lessons carry ({SEARCH_COMMON!r}, limit 20)",
            method="POST",
            path="/api/v1/memories/search",
            body={"query": SEARCH_COMMON, "limit": 20},
            who="token",
            expect=_newest_key_matching(ctx, SEARCH_COMMON),
        ),
        Scenario(
            "api.search_absent",
            f"POST /api/v1/memories/search, a word no lesson carries ({SEARCH_ABSENT!r}, limit 20)",
            method="POST",
            path="/api/v1/memories/search",
            body={"query": SEARCH_ABSENT, "limit": 20},
            who="token",
            expect='"items"',
        ),
        Scenario(
            "svc.read_bump",
            "lessons_page(50) + lessons_deliver (in process)",
            target="api_page",
            method="CALL",
            call=_read_bump_in_process,
        ),
    ]


# Issue 28: the Age & activity sections of the filter menu draw a histogram whose one GROUP BY also gives the
# presets' counts. Created and Chosen read the covering index, Delivered the table, the decay score computes a score
# per lesson: every section, over every lesson and over the filtered view.
HISTOGRAM_SECTIONS = ("created", "last_open", "recurrence", "chosen", "delivered", "decay")


def histogram_scenarios(menu: str, filtered: dict[str, object]) -> list[Scenario]:
    """Opening each kind of Age & activity section (its histogram and its presets' counts, one query)."""
    out = []
    for key in HISTOGRAM_SECTIONS:
        label = CONDITIONS_BY_KEY[key].label
        out.append(
            Scenario(
                f"explorer.menu_histogram_{key}",
                f"Filter menu: open {label} (histogram + preset counts), unfiltered",
                target="menu_counts",
                path=f"{menu}?section={key}",
                headers={"HX-Request": "true"},
                expect="data-histogram",
            )
        )
        out.append(
            Scenario(
                f"explorer.menu_histogram_{key}_filtered",
                f"Filter menu: open {label} (histogram + preset counts) of the filtered view",
                target="menu_counts",
                path=f"{menu}?{_qs({**filtered, 'section': key})}",
                headers={"HX-Request": "true"},
                expect="data-histogram",
            )
        )
    return out


def scenarios_select(all_scenarios: list[Scenario], only: list[str]) -> list[Scenario]:
    """`--only explorer,admin.page,explorer.menu_histogram` keeps scenarios whose name equals one of the words or
    continues it after a dot or an underscore (`explorer.menu_histogram` keeps `explorer.menu_histogram_created`
    and the other sections, not `explorer.menu_histograms`)."""
    if not only:
        return all_scenarios
    return [
        s
        for s in all_scenarios
        if any(s.name == w or s.name.startswith((w.rstrip(".") + ".", w.rstrip("_") + "_")) for w in only)
    ]


def lessons_total(ctx: Context) -> int:
    return Lesson.objects.filter(account=ctx.ids.account).count()
