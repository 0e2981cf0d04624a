"""The Explorer page through HTTP: state in the URL, htmx partials, numbers that agree with the candidate query."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from lore.candidates import candidates
from lore.conditions import DimFilter
from lore.models import Lesson, ReadEvent
from lore.reads import reads_settle
from lore.rules.rule import Rule
from lore.services import lesson_open, lessons_archive
from policies import grooming
from policies.models import PolicyRun
from tests.audit import audited
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_CURRENT_URL": "http://testserver/explorer/"}


def days_ago(n: float):  # noqa: ANN201
    return timezone.now() - timedelta(days=n)


@pytest.fixture
def store(account):  # noqa: ANN001, ANN201
    """Old unused lessons, old used ones, a new one, a protected old one, an archived one, another scope."""
    old = [
        LessonFactory(
            account=account, key=f"old-{i}", created_at=days_ago(200), kind="bus", host="aw", tags=["ci"]
        )
        for i in range(3)
    ]
    used = [
        LessonFactory(
            account=account,
            key=f"used-{i}",
            created_at=days_ago(200),
            opened_count=50,
            read_count=300,
            kind="lesson",
        )
        for i in range(2)
    ]
    new = LessonFactory(account=account, key="new", created_at=days_ago(2), kind="bus", owner="data")
    pinned = LessonFactory(
        account=account, key="pinned", created_at=days_ago(300), protected=True, kind="bus"
    )
    gone = LessonFactory(account=account, key="gone", created_at=days_ago(300), archived_at=days_ago(1))
    elsewhere = LessonFactory(
        account=account, key="elsewhere", scope="project::docs", created_at=days_ago(400)
    )
    return {"old": old, "used": used, "new": new, "pinned": pinned, "gone": gone, "elsewhere": elsewhere}


def keys(response) -> list[str]:  # noqa: ANN001
    return keys_of(response.content.decode())


def keys_of(html: str) -> list[str]:
    return re.findall(r'data-key="([^"]+)"', html)


def keys_walked(client: Client, html: str) -> list[str]:
    """The keys of a page's list and of every Load more page after it, in order."""
    seen = keys_of(html)
    more = re.search(r'hx-get="(/a/acme/explorer/rows/[^"]+)"', html)
    while more:
        page = client.get(more.group(1).replace("&amp;", "&"), **HX).content.decode()
        seen += keys_of(page)
        more = re.search(r'hx-get="(/a/acme/explorer/rows/[^"]+)"', page)
    return seen


def card(response, name: str) -> int:  # noqa: ANN001
    html = response.content.decode()
    match = re.search(rf'data-card="{name}">.*?card-value">([\d,]+)<', html, re.S)
    assert match, name
    return int(match.group(1).replace(",", ""))


def test_the_explorer_requires_a_login(client: Client) -> None:
    response = client.get("/a/acme/explorer/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_list_shows_active_lessons_newest_first_protected_included(logged_in: Client, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/")
    assert response.status_code == 200
    shown = keys(response)
    assert shown[0] == "new"
    assert "pinned" in shown and "gone" not in shown


def test_with_a_condition_the_list_is_exactly_the_candidate_set(logged_in: Client, account, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?retention=min_age_days:90,max_opened_count:0")
    rule = Rule(conditions={"min_age_days": 90, "max_opened_count": 0})
    expected = set(candidates(account, rule).values_list("key", flat=True))
    assert set(keys(response)) == expected == {"old-0", "old-1", "old-2", "elsewhere"}
    assert card(response, "lessons") == grooming.preview(account, rule).count
    assert "1 protected lesson also matches" in response.content.decode()


def test_stat_cards_narrow_with_scope_conditions_and_filters(logged_in: Client, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?kind=bus")
    assert card(response, "lessons") == 5  # old ×3, new, pinned
    assert card(response, "protected") == 1
    assert card(response, "scopes") == 1
    assert card(response, "archived") == 0
    everything = logged_in.get("/a/acme/explorer/")
    assert (
        card(everything, "lessons") == 8
        and card(everything, "archived") == 1
        and card(everything, "scopes") == 2
    )


def test_per_value_counts_narrow_with_everything_but_their_own_filter(
    logged_in: Client, account, store
) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/menu/?retention=min_age_days:90&kind=lesson&section=kind")
    html = response.content.decode()
    counts = dict(re.findall(r'fc-choice-label">([^<]+)</span>.*?fc-count">(\d+)<', html, re.S))
    rule = Rule(conditions={"min_age_days": 90})
    assert int(counts["bus"]) == candidates(account, rule).filter(kind="bus").count() == 3
    assert int(counts["lesson"]) == candidates(account, rule).filter(kind="lesson").count()


def test_the_matrix_totals_exactly_what_the_list_shows_its_axes_own_filters_included(
    logged_in: Client, store
) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?host=aw&kind=bus&retention=min_age_days:90")
    html = response.content.decode()
    table = html[html.index("data-matrix") :]
    assert not re.search(
        r"<th scope=\"row\"[^>]*>claude-code", table
    )  # the host filter holds on its own axis
    cells = [int(n) for n in re.findall(r'data-count="(\d+)"', table)]
    shown = card(response, "lessons")
    assert sum(cells) == shown == int(re.search(r'data-matrix-total="(\d+)"', table).group(1))
    # the filtered values are marked in the headers
    assert re.findall(r'<th scope="(?:row|col)" class="is-filtered" data-filtered>([^<]+)<', table) == [
        "bus",
        "aw",
    ]


def test_clicking_a_matrix_cell_adds_both_values_as_pills(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/").content.decode()
    href = re.search(r'<a href="([^"]+)" hx-get="[^"]+" hx-target="#explorer-body" class="cell"', html).group(
        1
    )
    followed = logged_in.get(href.replace("&amp;", "&")).content.decode()
    assert "Host: is " in followed and "Kind: is " in followed


def test_sort_most_chosen_orders_by_opened_count(logged_in: Client, store) -> None:  # noqa: ANN001
    shown = keys(logged_in.get("/a/acme/explorer/?sort=opened_count"))
    assert shown[:2] == ["used-1", "used-0"]


def test_sort_recently_updated_orders_by_the_last_write_and_load_more_walks_every_lesson_once(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    now = timezone.now()
    for i in range(60):  # created newest-last, rewritten in another order, with ties on updated_at
        LessonFactory(
            account=account,
            key=f"k{i:02d}",
            created_at=days_ago(200 - i),
            updated_at=now - timedelta(hours=i // 3),
        )
    first = logged_in.get("/a/acme/explorer/?sort=updated").content.decode()
    assert "60 lessons · Recently updated" in first
    seen = keys_walked(logged_in, first)
    expected = list(
        Lesson.objects.filter(account=account).order_by("-updated_at", "-pk").values_list("key", flat=True)
    )
    assert seen == expected and seen[0] == "k02"  # k00–k02 share the latest write; the highest id first


def test_the_archived_view_lists_the_most_recently_archived_first(logged_in: Client, account) -> None:  # noqa: ANN001
    old = LessonFactory(account=account, key="old-but-just-archived", created_at=days_ago(400))
    new = LessonFactory(account=account, key="new-archived-last-week", created_at=days_ago(10))
    lessons_archive(account=account, lesson_ids=[new.pk], reason="by hand", now=days_ago(7))
    lessons_archive(account=account, lesson_ids=[old.pk], reason="by hand")
    html = logged_in.get("/a/acme/explorer/?archived=1").content.decode()
    assert keys_of(html) == ["old-but-just-archived", "new-archived-last-week"]
    assert "2 lessons · Recently archived" in html
    # Most chosen is still Most chosen there; an unknown sort says which ones exist.
    assert "Most chosen" in logged_in.get("/a/acme/explorer/?archived=1&sort=opened_count").content.decode()
    notice = logged_in.get("/a/acme/explorer/?sort=sideways").content.decode()
    assert "use newest, opened_count, updated" in notice


def test_search_matches_key_and_content(logged_in: Client, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, key="use-uv", content="Install with uv, never pip.")
    LessonFactory(account=account, key="other", content="Hydration mismatches come from Date.now().")
    assert keys(logged_in.get("/a/acme/explorer/?q=hydration")) == ["other"]
    assert keys(logged_in.get("/a/acme/explorer/?q=uv")) == ["use-uv"]


def test_the_date_range_narrows_to_lessons_written_in_it(logged_in: Client, store) -> None:  # noqa: ANN001
    assert keys(logged_in.get("/a/acme/explorer/?range=7d")) == ["new"]


def test_the_explorer_list_never_moves_counters(logged_in: Client, account, store) -> None:  # noqa: ANN001
    before = list(Lesson.objects.order_by("pk").values_list("read_count", "opened_count", "updated_at"))
    for url in (
        "/a/acme/explorer/",
        "/a/acme/explorer/?retention=min_age_days:9",
        "/a/acme/explorer/menu/?section=kind",
    ):
        logged_in.get(url)
    assert (
        list(Lesson.objects.order_by("pk").values_list("read_count", "opened_count", "updated_at")) == before
    )
    assert not ReadEvent.objects.exists()


def test_opening_the_detail_sheet_is_a_delivery_not_a_choice(logged_in: Client, store) -> None:  # noqa: ANN001
    lesson = store["new"]
    response = logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/", **HX)
    assert response.status_code == 200
    reads_settle(lesson.account)
    lesson.refresh_from_db()
    assert (lesson.read_count, lesson.opened_count, lesson.last_opened_at) == (101, 0, None)
    event = ReadEvent.objects.get()
    assert (event.surface, event.scope, event.lesson_count) == ("dashboard", lesson.scope, 1)
    assert 'data-signal="delivered">101<' in response.content.decode()


def test_the_sheet_shows_recurrence_delivered_chosen_last_agent_open_and_last_updated_side_by_side(
    logged_in: Client,
    store,  # noqa: ANN001
) -> None:
    lesson = store["used"][0]
    html = logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/", **HX).content.decode()
    labels = re.findall(r'<dt title="[^"]+">([^<]+)</dt><dd data-signal="(\w+)"', html)
    assert labels == [
        ("Recurrence", "recurrence"),
        ("Delivered", "delivered"),
        ("Chosen", "chosen"),
        ("Last agent open", "last_open"),
        ("Last updated", "updated"),
        ("Created", "created"),
    ]
    assert 'data-signal="chosen">50<' in html and 'data-signal="last_open">never<' in html
    assert "reading never moves it" in html


def test_the_list_columns_are_the_counters_and_last_agent_open(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/").content.decode()
    assert re.findall(r'<th scope="col" class="\w+" title="[^"]+">([^<]+)</th>', html) == [
        "Recurrence",
        "Delivered",
        "Chosen",
        "Last agent open",
    ]
    used = re.search(r'data-key="used-0".*?</tr>', html, re.S).group(0)
    assert re.search(r'data-col="delivered"[^>]*>300<', used) and re.search(
        r'data-col="chosen"[^>]*>50<', used
    )


def test_the_read_card_leaves_out_dashboard_reads_and_stays_scope_level(
    logged_in: Client, account, store
) -> None:  # noqa: ANN001
    now = timezone.now()
    ReadEvent.objects.create(account=account, scope="repo::acme/app", surface="api", lesson_count=20, at=now)
    ReadEvent.objects.create(account=account, scope="project::docs", surface="mcp", lesson_count=5, at=now)
    ReadEvent.objects.create(
        account=account, scope="repo::acme/app", surface="dashboard", lesson_count=1, at=now
    )
    ReadEvent.objects.create(
        account=account, scope="repo::acme/app", surface="api", lesson_count=7, at=days_ago(120)
    )
    assert card(logged_in.get("/a/acme/explorer/"), "read") == 25
    scoped = logged_in.get("/a/acme/explorer/?scope=repo::acme/app&retention=max_opened_count:0")
    assert card(scoped, "read") == 20
    assert "last 90 days" in scoped.content.decode()


def test_pin_unpin_archive_and_restore_from_the_sheet(logged_in: Client, store) -> None:  # noqa: ANN001
    lesson = store["new"]
    for action, check in (
        ("pin", lambda x: x.protected),
        ("unpin", lambda x: not x.protected),
        ("archive", lambda x: x.archived_at is not None),
        ("restore", lambda x: x.archived_at is None),
    ):
        response = logged_in.post(f"/a/acme/explorer/lessons/{lesson.pk}/{action}/", **HX)
        assert response.status_code == 200 and "lore-changed" in response["HX-Trigger"]
        lesson.refresh_from_db()
        assert check(lesson), action
    actions = [row[1] for row in audited(lesson.pk)]
    assert actions == ["protected", "unprotected", "archived", "restored"]
    assert lesson.read_count == 100  # actions re-render the sheet without another delivery


def test_a_pinned_lesson_is_never_archived_not_even_by_hand(logged_in: Client, store) -> None:  # noqa: ANN001
    pinned = store["pinned"]
    sheet = logged_in.get(f"/a/acme/explorer/lessons/{pinned.pk}/", **HX).content.decode()
    assert re.search(r'<button[^>]*disabled[^>]*data-action="archive"', sheet)
    assert "Pinned lessons are never archived: unpin it first." in sheet
    response = logged_in.post(
        f"/a/acme/explorer/lessons/{pinned.pk}/archive/", **HX
    )  # a sheet opened before the pin
    assert response.status_code == 200
    pinned.refresh_from_db()
    assert pinned.archived_at is None
    assert not audited(pinned.pk, action="archived")


def test_sheet_actions_need_a_post_with_csrf(account, user, store) -> None:  # noqa: ANN001
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    lesson = store["new"]
    assert client.get(f"/a/acme/explorer/lessons/{lesson.pk}/pin/").status_code == 405
    assert client.post(f"/a/acme/explorer/lessons/{lesson.pk}/pin/").status_code == 403


def test_another_accounts_lesson_answers_404(logged_in: Client, other_account) -> None:  # noqa: ANN001
    theirs = LessonFactory(account=other_account)
    assert logged_in.get(f"/a/acme/explorer/lessons/{theirs.pk}/").status_code == 404
    assert logged_in.post(f"/a/acme/explorer/lessons/{theirs.pk}/archive/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.read_count == 100 and theirs.archived_at is None
    assert "data-key" not in logged_in.get("/a/acme/explorer/").content.decode()


def test_the_archived_view_lists_archived_lessons_with_filters_applied(
    logged_in: Client, account, store
) -> None:  # noqa: ANN001
    assert keys(logged_in.get("/a/acme/explorer/?archived=1")) == ["gone"]
    assert keys(logged_in.get("/a/acme/explorer/?archived=1&kind=bus")) == []


def test_restore_many_from_the_archived_view(logged_in: Client, account) -> None:  # noqa: ANN001
    archived = [LessonFactory(account=account, archived_at=days_ago(1)) for _ in range(3)]
    response = logged_in.post(
        "/a/acme/explorer/restore/", {"ids": [archived[0].pk, archived[1].pk], "state": "archived=1"}, **HX
    )
    assert response.status_code == 200
    assert "Restored 2 lessons." in response.content.decode()
    assert Lesson.objects.filter(archived_at__isnull=True).count() == 2
    assert keys(response) == [archived[2].key]


def test_a_run_narrows_the_archived_view_to_what_it_archived(logged_in: Client, account) -> None:  # noqa: ANN001
    run = PolicyRun.objects.create(account=account, trigger="manual")
    mine = LessonFactory(account=account, archived_at=days_ago(1), archived_by_run=run)
    LessonFactory(account=account, archived_at=days_ago(1))
    response = logged_in.get(f"/a/acme/explorer/?run={run.pk}")
    assert keys(response) == [mine.key]
    assert f"Archived by run #{run.pk}" in response.content.decode()


def test_another_accounts_run_is_dropped_with_a_notice(logged_in: Client, other_account) -> None:  # noqa: ANN001
    run = PolicyRun.objects.create(account=other_account, trigger="manual")
    response = logged_in.get(f"/a/acme/explorer/?run={run.pk}")
    assert response.status_code == 200
    assert "no such run" in response.content.decode()


def test_create_retention_policy_links_with_the_full_rule(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get(
        "/a/acme/explorer/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0&kind=bus&tags=ci&tags_mode=all"
    ).content.decode()
    href = (
        re.search(r'class="btn btn-primary create-policy" href="([^"]+)"', html)
        .group(1)
        .replace("&amp;", "&")
    )
    assert href == (
        "/a/acme/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
        "&tags=ci&tags_mode=all&kind=bus&kind_mode=in"
    )


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        ("retention=min_opened_count:10", "Chosen: 10 times or more"),
        ("kind=bus&owner=data", "the Owner filter"),
        ("kind=bus&range=30d", "the date range"),
        ("kind=bus&archived=1", "the archived view"),
    ],
)
def test_create_retention_policy_is_hidden_with_a_hint_saying_what_to_clear(
    logged_in: Client, query: str, hint: str
) -> None:
    html = logged_in.get(f"/a/acme/explorer/?{query}").content.decode()
    assert "data-create-policy" not in html
    hint_html = re.search(r"data-policy-hint>(.*?)</span>", html, re.S).group(1)
    assert hint in hint_html


def test_no_create_retention_policy_without_a_condition_or_filter(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/").content.decode()
    assert "data-create-policy" not in html and "data-policy-hint" not in html


def test_an_htmx_navigation_answers_the_body_with_oob_regions_and_pushes_the_canonical_url(
    logged_in: Client, store
) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?retention=max_opened_count:0,min_age_days:90&menu=", **HX)
    html = response.content.decode()
    assert "<html" not in html
    assert 'id="toolbar-controls" class="toolbar-controls" hx-swap-oob="true"' in html
    assert 'id="fc-menu-body" hx-swap-oob="true"' in html
    assert response["HX-Push-Url"] == "/a/acme/explorer/?retention=min_age_days:90,max_opened_count:0"
    assert "HX-Request" in response["Vary"]


def _stats_url(html: str) -> str:
    found = re.search(r'hx-get="(/a/acme/explorer/stats/[^"]+)"', html)
    assert found, "no lazy counts placeholder"
    return found.group(1).replace("&amp;", "&")


def test_a_swap_answers_the_list_first_and_its_counts_load_after_it_with_the_same_numbers(
    logged_in: Client, account, store
) -> None:  # noqa: ANN001
    query = "retention=min_age_days:90,max_opened_count:0&kind=bus"
    full = logged_in.get(f"/a/acme/explorer/?{query}")
    swap = logged_in.get(f"/a/acme/explorer/?{query}", **HX).content.decode()
    # The swap carries the rows and placeholders, no numbers: the counting scan is left to a second request.
    assert keys(full) == re.findall(r'data-key="([^"]+)"', swap)
    assert "data-stats-pending" in swap and 'aria-busy="true"' in swap and "data-matrix" not in swap
    assert "Counting…" in swap
    url = _stats_url(swap)
    key = re.search(r"key=([0-9a-f]{8})", url).group(1)
    stats = logged_in.get(url, **HX)
    html = stats.content.decode()
    for name in ("lessons", "scopes", "protected", "archived"):
        assert card(stats, name) == card(full, name), name
    rule = Rule(
        conditions={"min_age_days": 90, "max_opened_count": 0},
        dimensions={"kind": DimFilter(("bus",), "any")},
    )
    assert card(stats, "lessons") == grooming.preview(account, rule).count
    assert "data-matrix" in html
    # The list's count and protected note replace the placeholders of the body that asked, out of band.
    assert f'id="list-count-{key}" hx-swap-oob="true">3 lessons' in html
    assert f'id="candidate-note-{key}" hx-swap-oob="true"' in html
    assert "1 protected lesson also matches" in html


def test_counts_without_a_well_formed_key_replace_nothing_out_of_band(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/stats/?kind=bus&key=<x>", **HX).content.decode()
    assert "data-card" in html and "hx-swap-oob" not in html


def test_each_swap_names_its_placeholders_afresh_so_late_counts_land_nowhere(
    logged_in: Client, store
) -> None:  # noqa: ANN001
    first = _stats_url(logged_in.get("/a/acme/explorer/?kind=bus", **HX).content.decode())
    second = _stats_url(logged_in.get("/a/acme/explorer/?kind=bus", **HX).content.decode())
    assert first != second


def test_a_swap_skips_the_counting_queries_the_full_page_runs(logged_in: Client, store) -> None:  # noqa: ANN001
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    query = "/a/acme/explorer/?retention=min_age_days:90&kind=bus"
    with CaptureQueriesContext(connection) as full:
        logged_in.get(query)
    with CaptureQueriesContext(connection) as swap:
        logged_in.get(query, **HX)
    with CaptureQueriesContext(connection) as stats:
        logged_in.get(_stats_url(logged_in.get(query, **HX).content.decode()), **HX)
    counting = [q["sql"] for q in stats.captured_queries if "COUNT(" in q["sql"].upper()]
    assert counting and not [q for q in swap.captured_queries if q["sql"] in counting]
    assert len(swap.captured_queries) < len(full.captured_queries)


def test_a_history_restore_request_gets_the_full_page(logged_in: Client, store) -> None:  # noqa: ANN001
    response = logged_in.get(
        "/a/acme/explorer/?kind=bus", HTTP_HX_REQUEST="true", HTTP_HX_HISTORY_RESTORE_REQUEST="true"
    )
    assert "<html" in response.content.decode()


def test_typing_in_the_search_box_replaces_the_url_instead_of_pushing(logged_in: Client, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?q=old", HTTP_HX_TRIGGER="q", **HX)
    assert response["HX-Replace-Url"] == "/a/acme/explorer/?q=old" and "HX-Push-Url" not in response


def test_load_more_walks_the_keyset_pages(logged_in: Client, account) -> None:  # noqa: ANN001
    for i in range(120):
        LessonFactory(account=account, key=f"k{i:03d}", created_at=days_ago(i / 10))
    first = logged_in.get("/a/acme/explorer/").content.decode()
    seen = keys_walked(logged_in, first)
    assert seen == [f"k{i:03d}" for i in range(120)]


def test_a_bad_cursor_starts_the_list_over(logged_in: Client, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/rows/?cursor=nonsense", **HX)
    assert response.status_code == 200 and "data-key" in response.content.decode()


def test_the_empty_store_says_how_lessons_get_in(logged_in: Client) -> None:
    html = logged_in.get("/a/acme/explorer/").content.decode()
    assert "No lessons yet" in html and "lorekit write" in html


def test_an_empty_candidate_set_says_how_to_loosen_it(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/?retention=min_age_days:3000").content.decode()
    assert "No lesson matches these conditions" in html
    assert "A policy with this rule would archive nothing right now." in html
    assert (
        widen(html)
        == "To see more: loosen a condition (remove its pill, or pick a wider value under Filter)."
    )


def widen(html: str) -> str:
    found = re.search(r"<p data-widen>(.*?)</p>", html, re.S)
    return re.sub(r"<[^>]+>", "", found.group(1)) if found else ""


@pytest.mark.parametrize(
    "query",
    [
        "retention=min_opened_count:100000",  # a reverse direction: no policy can carry it
        "retention=min_age_days:3000&owner=nobody",  # the Owner filter: no policy can carry it
        "retention=min_age_days:3000&q=zzqqxx",  # a search: no policy can carry it
    ],
)
def test_an_empty_list_no_policy_could_carry_never_speaks_for_a_policy(
    logged_in: Client,
    store,
    query: str,  # noqa: ANN001
) -> None:
    html = logged_in.get(f"/a/acme/explorer/?{query}").content.decode()
    assert "No lesson matches these conditions" in html
    assert "would archive" not in html


@pytest.mark.parametrize(
    ("query", "hint"),
    [
        ("q=zzqqxx", "To see more: clear the search."),
        ("range=24h&kind=nothing", "To see more: remove a filter above or pick a wider date range."),
        ("scope=project::nowhere", "To see more: look in All scopes."),
    ],
)
def test_an_empty_list_suggests_only_what_the_view_has_set(
    logged_in: Client,
    store,
    query: str,
    hint: str,  # noqa: ANN001
) -> None:
    html = logged_in.get(f"/a/acme/explorer/?{query}").content.decode()
    assert "No lesson matches" in html and widen(html) == hint


def test_the_policy_dialogs_control_answers_a_pick_with_state_and_the_menu_out_of_band(
    logged_in: Client, store
) -> None:  # noqa: ANN001
    response = logged_in.get(
        "/a/acme/explorer/filter-control/?retention=min_age_days:90&kind=bus&min_opened_count=3"
    )
    html = response.content.decode()
    assert 'id="fc-state"' in html and 'hx-swap-oob="true"' in html
    assert 'name="min_age_days" value="90"' in html and 'name="kind" value="bus"' in html
    assert "min_opened_count" not in html  # a policy cannot carry a reverse direction
    menu = logged_in.get("/a/acme/explorer/filter-control/?section=chosen&typed=>40").content.decode()
    assert "41 times or more" not in menu


def test_dimension_filters_match_the_candidate_query(logged_in: Client, account, store) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/explorer/?retention=min_age_days:90&tags=ci&tags_mode=none")
    rule = Rule(conditions={"min_age_days": 90}, dimensions={"tags": DimFilter(("ci",), "none")})
    assert set(keys(response)) == set(candidates(account, rule).values_list("key", flat=True))


def test_the_scope_picker_offers_all_scopes_first_then_the_accounts_scopes(
    logged_in: Client, account, other_account
) -> None:  # noqa: ANN001
    for scope in ("repo::acme/app", "project::docs", "branch::acme/app::main", "repo::acme/app"):
        LessonFactory(account=account, scope=scope)
    LessonFactory(account=other_account, scope="repo::globex/secret")
    html = logged_in.get("/a/acme/explorer/").content.decode()
    picker = html[html.index('id="scope-picker"') : html.index("</select>", html.index('id="scope-picker"'))]
    assert re.findall(r'<option value="([^"]+)"', picker) == [
        "global",
        "branch::acme/app::main",
        "project::docs",
        "repo::acme/app",
    ]
    assert ">All scopes<" in picker


def test_the_search_box_is_only_re_rendered_when_the_search_changes(logged_in: Client, store) -> None:  # noqa: ANN001
    same = logged_in.get(
        "/a/acme/explorer/?q=old&kind=bus",
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/explorer/?q=old",
    )
    assert 'id="search-box"' not in same.content.decode()
    cleared = logged_in.get(
        "/a/acme/explorer/?kind=bus",
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver/explorer/?q=old",
    )
    assert 'id="search-box" hx-swap-oob="true"' in cleared.content.decode()


def test_the_detail_sheet_works_without_javascript_as_a_page(logged_in: Client, store) -> None:  # noqa: ANN001
    lesson = store["new"]
    response = logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/")
    html = response.content.decode()
    assert response.status_code == 200 and "<html" in html and "data-sheet" in html
    assert response.status_code == 200
    redirect = logged_in.post(f"/a/acme/explorer/lessons/{lesson.pk}/pin/")
    assert redirect.status_code == 302
    lesson.refresh_from_db()
    assert lesson.protected


@pytest.mark.parametrize("matrix", ["host,kind", "tags,kind"])
def test_with_a_search_every_card_counts_the_lessons_that_match_it_active_and_archived(
    logged_in: Client, account, matrix: str
) -> None:  # noqa: ANN001
    hit = [
        LessonFactory(account=account, content="Hydration mismatches come from Date.now().") for _ in range(4)
    ]
    LessonFactory(account=account, content="Hydration again", protected=True)
    LessonFactory(account=account, content="Install with uv, never pip.")
    gone = LessonFactory(account=account, content="hydration, archived")
    LessonFactory(account=account, content="pip, archived", archived_at=days_ago(1))
    lessons_archive(account=account, lesson_ids=[gone.pk, hit[0].pk], reason="by hand")
    response = logged_in.get(f"/a/acme/explorer/?q=hydration&matrix={matrix}")
    assert card(response, "lessons") == 4  # 3 active hits + the protected one
    assert card(response, "protected") == 1 and card(response, "archived") == 2
    archived = logged_in.get(f"/a/acme/explorer/?q=hydration&archived=1&matrix={matrix}")
    assert card(archived, "lessons") == 2 and len(keys(archived)) == 2


def test_a_reverse_direction_is_never_worded_as_what_a_policy_would_archive(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/?retention=min_opened_count:10").content.decode()
    assert "used-0" in keys_of(html)
    assert "a policy would archive" not in html and "would archive now" not in html
    assert "match, protected left out" in html and "a policy cannot carry Chosen: 10 times or more" in html
    retention = logged_in.get("/a/acme/explorer/?retention=max_opened_count:0").content.decode()
    assert "a policy would archive" in retention and "would archive now" in retention


def test_a_view_narrowed_by_what_no_policy_carries_is_not_worded_as_a_policys_set(
    logged_in: Client,
    store,  # noqa: ANN001
) -> None:
    html = logged_in.get("/a/acme/explorer/?retention=max_opened_count:0&q=old&range=90d").content.decode()
    assert "a policy would archive" not in html and "would archive now" not in html
    assert "a policy cannot carry the date range (Last 90 days) or the search" in html


def test_with_filters_only_the_list_says_which_lessons_a_policy_would_skip(logged_in: Client, store) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/explorer/?kind=bus").content.decode()
    assert "pinned" in keys_of(html) and "data-create-policy" in html
    assert "A policy with these filters would archive the lessons listed except" in html
    assert "1 protected lesson</strong> shown among them" in html
    # After a swap the note arrives with the counts, out of band like the list count.
    swap = logged_in.get("/a/acme/explorer/?kind=bus", **HX).content.decode()
    key = re.search(r"key=([0-9a-f]{8})", _stats_url(swap)).group(1)
    stats = logged_in.get(_stats_url(swap), **HX).content.decode()
    assert f'id="candidate-note-{key}" hx-swap-oob="true"' in stats and "1 protected lesson" in stats
    # No filter, nothing a policy could be made of: no note.
    assert "data-candidate-note" not in logged_in.get("/a/acme/explorer/").content.decode()


# ---------------------------------------------------------------- the decay score (issue 15 part 2)


def test_the_sheet_shows_the_decay_score_and_a_protected_lesson_as_immune(logged_in: Client, account) -> None:  # noqa: ANN001
    cold = LessonFactory(account=account, created_at=days_ago(69.9))  # 2^(-69.9/35) = 0.2504
    pinned = LessonFactory(account=account, created_at=days_ago(70), protected=True)
    html = logged_in.get(f"/a/acme/explorer/lessons/{cold.pk}/", **HX).content.decode()
    assert re.search(r"<dd data-decay>\s*25\s*<", html), html
    assert "Decay score" in html
    html = logged_in.get(f"/a/acme/explorer/lessons/{pinned.pk}/", **HX).content.decode()
    assert re.search(r"<dd data-decay>\s*Immune \(protected\)\s*<", html)


def test_the_explorer_sorts_coldest_first_and_filters_by_max_decay_score(logged_in: Client, account) -> None:  # noqa: ANN001
    warm = LessonFactory(account=account, key="warm", created_at=days_ago(1))
    colder = LessonFactory(account=account, key="colder", created_at=days_ago(80))
    coldest = LessonFactory(account=account, key="coldest", created_at=days_ago(300))
    html = logged_in.get("/a/acme/explorer/?sort=coldest").content.decode()
    order = re.findall(r'<tr class="lesson-row"[^>]*data-key="([^"]+)"', html)
    assert order.index("coldest") < order.index("colder") < order.index("warm"), order
    html = logged_in.get("/a/acme/explorer/?retention=max_decay_score:25").content.decode()
    assert "Decay score: 25 or lower" in html
    assert set(re.findall(r"<tr class=\"lesson-row\"[^>]*data-key=\"([^\"]+)\"", html)) == {
        coldest.key,
        colder.key,
    }
    assert warm.key == "warm"


# ---------------------------------------------------------------- the purge made visible (issue 15 part 3)


def test_the_archived_view_says_how_many_lessons_will_be_purged_on_which_day(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    from lore.purge import purge_forecast

    due = [LessonFactory(account=account).pk for _ in range(2)]
    lessons_archive(account=account, lesson_ids=due, reason="by hand", now=days_ago(176))
    later = LessonFactory(account=account)
    lessons_archive(account=account, lesson_ids=[later.pk], reason="by hand", now=days_ago(10))
    forecast = purge_forecast(account)
    assert forecast is not None and forecast.count == 2
    html = logged_in.get("/a/acme/explorer/?archived=1").content.decode()
    assert f"2 lessons will be purged on {forecast.day:%Y-%m-%d}" in html
    assert "2 lessons will be purged" not in logged_in.get("/a/acme/explorer/").content.decode()
    account.purge_after_days = 0
    account.save()
    html = logged_in.get("/a/acme/explorer/?archived=1").content.decode()
    assert "will be purged" not in html and "never purged" in html


def test_an_archived_row_says_in_how_many_days_it_will_be_purged(logged_in: Client, account) -> None:  # noqa: ANN001
    from lore.purge import purge_in_words

    lesson = LessonFactory(account=account)
    lessons_archive(account=account, lesson_ids=[lesson.pk], reason="by hand", now=days_ago(168))
    lesson.refresh_from_db()
    words = purge_in_words(account, lesson, timezone.now())
    assert words.startswith("purged in ")
    html = logged_in.get("/a/acme/explorer/?archived=1").content.decode()
    assert re.search(rf"<span class=\"purge-note\"[^>]*>{words}</span>", html), words


def test_a_purged_lessons_old_sheet_link_shows_its_tombstone_and_history(logged_in: Client, account) -> None:  # noqa: ANN001
    from lore.purge import account_purge

    lesson = LessonFactory(account=account, key="gone")
    lessons_archive(account=account, lesson_ids=[lesson.pk], reason="by hand", now=days_ago(400))
    account_purge(account)
    for headers, status in (({}, 410), (HX, 200)):  # htmx swaps only a 2xx into the sheet
        response = logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/", **headers)
        html = response.content.decode()
        assert response.status_code == status
        assert f"repo::acme/app::gone was purged on {timezone.now():%Y-%m-%d}" in html
        assert re.search(r'<span class="event-action">archived</span>', html)
        assert re.search(r'<span class="event-action">purged</span>', html)
        assert 'data-action="restore"' not in html


def test_another_accounts_tombstone_is_not_shown(logged_in: Client, other_account) -> None:  # noqa: ANN001
    from lore.purge import account_purge

    lesson = LessonFactory(account=other_account, key="theirs", archived_at=days_ago(400))
    account_purge(other_account)
    assert logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/").status_code == 404


def test_the_list_rows_and_the_sheet_show_reads_not_yet_folded(logged_in: Client, store) -> None:  # noqa: ANN001
    lesson = store["new"]
    for _ in range(2):
        lesson_open(account=lesson.account, lesson=lesson, surface="mcp")
    row = re.search(r'data-key="new".*?</tr>', logged_in.get("/a/acme/explorer/").content.decode(), re.S)
    assert row is not None
    assert 'data-col="delivered" data-label="Delivered">102<' in row.group(0)
    assert 'data-col="chosen" data-label="Chosen">2<' in row.group(0)
    sheet = logged_in.get(f"/a/acme/explorer/lessons/{lesson.pk}/", **HX).content.decode()
    assert 'data-signal="delivered">103<' in sheet and 'data-signal="chosen">2<' in sheet
    lesson.refresh_from_db()
    assert (lesson.read_count, lesson.opened_count) == (100, 0)  # still buffered


def test_the_explorer_filtered_on_a_counter_counts_reads_not_yet_folded(logged_in: Client, store) -> None:  # noqa: ANN001
    never_chosen = {"retention": "max_opened_count:0"}
    old = {x.key for x in store["old"]}
    assert old <= set(keys(logged_in.get("/a/acme/explorer/", never_chosen)))
    for lesson in store["old"]:
        lesson_open(account=lesson.account, lesson=lesson, surface="mcp")
    assert not set(keys(logged_in.get("/a/acme/explorer/", never_chosen))) & old
