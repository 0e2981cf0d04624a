"""Settings → Retention Policies through its pages (DESIGN.md §9; the seed on the dialog, naming, modes, runs)."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.utils import timezone

from lore.conditions import DimFilter
from lore.models import Lesson
from lore.rules.rule import Rule
from policies import grooming
from policies.models import PolicyRun, RetentionPolicy
from policies.services import policy_create
from tests.factories import LessonFactory

pytestmark = pytest.mark.django_db

HANDOFF = (
    "/a/acme/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,max_opened_count:0"
    "&kind=bus&kind_mode=in&tags=ci::pr-review-state&tags_mode=all"
)


def old_lessons(account, n: int, **extra) -> list[Lesson]:  # noqa: ANN001
    created = timezone.now() - timedelta(days=200)
    return [LessonFactory(account=account, created_at=created, **extra) for _ in range(n)]


def stale_policy(account, **extra) -> RetentionPolicy:  # noqa: ANN001
    rule = Rule(scope="repo::acme/app", conditions={"min_age_days": 90, "max_opened_count": 0})
    return policy_create(account=account, rule=rule, name=extra.pop("name", "stale"), **extra)


@pytest.fixture
def run_now(logged_in: Client, django_capture_on_commit_callbacks):  # noqa: ANN001, ANN201
    """POST Run now and let the enqueued task run (Celery is eager; on_commit fires as the request commits)."""

    def post(policy: RetentionPolicy, **kwargs):  # noqa: ANN003, ANN202
        with django_capture_on_commit_callbacks(execute=True):
            return logged_in.post(f"/a/acme/settings/policies/{policy.pk}/run/", **kwargs)

    return post


def hidden_inputs(html: str) -> dict[str, str]:
    return dict(re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">', html))


def name_placeholder(html: str) -> str:
    match = re.search(r'<input type="text" id="id_name"[^>]*placeholder="([^"]*)"', html, re.S)
    assert match, "no name field"
    return match.group(1)


# ---------------------------------------------------------------- list


def test_settings_pages_require_login(client: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    for url in (
        "/a/acme/settings/policies/",
        "/a/acme/settings/policies/new/",
        f"/a/acme/settings/policies/{policy.pk}/",
        "/a/acme/settings/tokens/",
    ):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_list_shows_name_scope_rule_in_words_mode_and_last_run(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account, name="unused lore")
    old_lessons(account, 2)
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    grooming.run_execute(run.pk)
    html = logged_in.get("/a/acme/settings/policies/").content.decode()
    assert "unused lore" in html and "repo::acme/app" in html
    assert "Created: more than 90 days ago" in html and "Chosen: never chosen" in html
    assert "Review · by hand" in html
    assert "archived 2" in html and f"/a/acme/settings/runs/{run.pk}/" in html


def test_list_counts_what_each_policy_would_catch_lazily(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 3)
    html = logged_in.get("/a/acme/settings/policies/").content.decode()
    assert f'hx-get="/a/acme/settings/policies/{policy.pk}/count/" hx-trigger="load"' in html
    count = logged_in.get(
        f"/a/acme/settings/policies/{policy.pk}/count/", HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "3 lessons" in count


def test_list_page_queries_do_not_grow_with_policies(
    logged_in: Client,
    account,
    django_assert_max_num_queries,  # noqa: ANN001
) -> None:
    for i in range(30):
        policy = stale_policy(account, name=f"p{i}")
        run = grooming.run_start(account=account, policy=policy, trigger="manual")
        assert run is not None
        grooming.run_execute(run.pk)
    with django_assert_max_num_queries(8):
        assert logged_in.get("/a/acme/settings/policies/").status_code == 200


# ---------------------------------------------------------------- the dialog


def test_handoff_from_the_explorer_prefills_the_dialog(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.get(HANDOFF)
    html = response.content.decode()
    assert response.status_code == 200
    assert (
        hidden_inputs(html).items()
        >= {
            "min_age_days": "90",
            "max_opened_count": "0",
            "kind": "bus",
            "kind_mode": "in",
            "tags": "ci::pr-review-state",
            "tags_mode": "all",
        }.items()
    )
    assert '<option value="repo::acme/app" selected>' in html
    assert name_placeholder(html) == (
        "created &gt;90d ago · chosen ≤ 0× · label includes all ci::pr-review-state · kind is bus in repo::acme/app"
    )


def test_the_placeholder_is_the_seeds_auto_name(logged_in: Client, account) -> None:  # noqa: ANN001
    html = logged_in.get(
        "/a/acme/settings/policies/new/?scope=repo::acme/app&retention=min_age_days:90,unseen_days:90"
    ).content.decode()
    assert name_placeholder(html) == "created &gt;90d ago · unopened &gt;90d in repo::acme/app"


def test_handoff_leaves_out_what_a_policy_cannot_carry_and_says_so(logged_in: Client, account) -> None:  # noqa: ANN001
    html = logged_in.get(
        "/a/acme/settings/policies/new/?retention=min_age_days:30,min_opened_count:10&owner=platform"
    ).content.decode()
    assert "reverse directions are for exploring only" in html
    assert "Left out the Owner filter" in html
    assert hidden_inputs(html).get("min_age_days") == "30"
    assert "min_opened_count" not in hidden_inputs(html) and "owner" not in hidden_inputs(html)


def test_the_scope_picker_pins_all_scopes_on_top(logged_in: Client, account) -> None:  # noqa: ANN001
    LessonFactory(account=account, scope="branch::acme/app::main")
    LessonFactory(account=account, scope="project::onboarding")
    html = logged_in.get("/a/acme/settings/policies/new/").content.decode()
    options = re.findall(r'<option value="([^"]+)"', html.split('id="id_scope"')[1].split("</select>")[0])
    assert options == ["global", "branch::acme/app::main", "project::onboarding", "repo::acme/app"]
    assert '<option value="global" selected>All scopes</option>' in html


def test_the_dialog_opens_in_place_over_htmx(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.get("/a/acme/settings/policies/new/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<dialog open" in html and "<html" not in html
    assert "HX-Request" in response["Vary"]


def test_saving_with_a_blank_name_stores_the_auto_name(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.post(
        "/a/acme/settings/policies/new/",
        {
            "name": "  ",
            "scope": "repo::acme/app",
            "min_age_days": "90",
            "unseen_days": "90",
            "mode": "review",
        },
    )
    assert response.status_code == 302
    policy = RetentionPolicy.objects.get(account=account)
    assert policy.name == "created >90d ago · unopened >90d in repo::acme/app"


def test_typing_a_name_overrides_the_auto_name(logged_in: Client, account) -> None:  # noqa: ANN001
    logged_in.post(
        "/a/acme/settings/policies/new/", {"name": "unused lore", "max_opened_count": "0", "mode": "review"}
    )
    assert RetentionPolicy.objects.get(account=account).name == "unused lore"


def test_a_new_auto_policy_starts_disabled_and_the_form_says_so(logged_in: Client, account) -> None:  # noqa: ANN001
    html = logged_in.get("/a/acme/settings/policies/new/").content.decode()
    assert "A new auto policy starts" in html and "disabled" in html
    logged_in.post("/a/acme/settings/policies/new/", {"unseen_days": "90", "mode": "auto", "enabled": "on"})
    policy = RetentionPolicy.objects.get(account=account)
    assert policy.mode == "auto" and policy.enabled is False and not policy.is_swept_nightly
    assert "Auto · disabled" in logged_in.get("/a/acme/settings/policies/").content.decode()


def test_a_rule_without_conditions_or_filters_is_refused_inline(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.post(
        "/a/acme/settings/policies/new/", {"name": "everything", "scope": "global", "mode": "review"}
    )
    html = response.content.decode()
    assert response.status_code == 422
    assert "A policy needs at least one condition or filter" in html
    assert 'value="everything"' in html
    assert not RetentionPolicy.objects.exists()


@pytest.mark.parametrize(
    ("field", "typed", "message"),
    [
        ("min_age_days", "99999", "Created must be between 1 and 3,650 days"),
        ("max_opened_count", "-1", "Chosen must be between 0 and 100,000 times"),
        ("unseen_days", "abc", "Last agent open must be a whole number"),
    ],
)
def test_an_out_of_range_value_is_refused_inline_keeping_what_was_typed(
    logged_in: Client,
    account,
    field: str,
    typed: str,
    message: str,  # noqa: ANN001
) -> None:
    response = logged_in.post(
        "/a/acme/settings/policies/new/", {"name": "mine", "kind": "bus", field: typed, "mode": "review"}
    )
    html = response.content.decode()
    assert response.status_code == 422
    assert message in html
    assert f'name="{field}" value="{typed}"' in html
    assert 'value="mine"' in html and hidden_inputs(html).get("kind") == "bus"
    assert not RetentionPolicy.objects.exists()


def test_a_malformed_scope_is_refused_inline(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.post(
        "/a/acme/settings/policies/new/", {"scope": "repo:acme", "kind": "bus", "mode": "review"}
    )
    assert response.status_code == 422
    assert "use &#x27;::&#x27; to separate scope parts" in response.content.decode()


def test_a_dialog_posted_over_htmx_redirects_the_page(logged_in: Client, account) -> None:  # noqa: ANN001
    response = logged_in.post(
        "/a/acme/settings/policies/new/", {"kind": "bus", "mode": "review"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200 and response["HX-Redirect"].startswith("/a/acme/settings/policies/")
    bad = logged_in.post("/a/acme/settings/policies/new/", {"mode": "review"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 200 and "<dialog open" in bad.content.decode()  # htmx swaps only 2xx


def test_the_live_preview_counts_and_names_the_rule_being_built(logged_in: Client, account) -> None:  # noqa: ANN001
    old_lessons(account, 4)
    LessonFactory(account=account)  # too young
    response = logged_in.get(
        "/a/acme/settings/policies/live/",
        {"scope": "repo::acme/app", "min_age_days": "90", "name": "typed so far"},
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert 'data-preview-count="4"' in html and "would archive" in html
    assert 'href="/a/acme/explorer/?scope=repo::acme/app&amp;retention=min_age_days:90"' in html
    assert name_placeholder(html) == "created &gt;90d ago in repo::acme/app"
    assert 'hx-swap-oob="true"' in html and 'value="typed so far"' in html


def test_edit_shows_the_saved_policy_and_saves_changes(logged_in: Client, account) -> None:  # noqa: ANN001
    rule = Rule(
        scope="repo::acme/app",
        conditions={"min_age_days": 90},
        dimensions={"kind": DimFilter(("bus",), "in")},
    )
    policy = policy_create(account=account, rule=rule, name="x", mode="auto")
    html = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/edit/").content.decode()
    assert hidden_inputs(html).items() >= {"min_age_days": "90", "kind": "bus", "kind_mode": "in"}.items()
    assert 'value="x"' in html
    response = logged_in.post(
        f"/a/acme/settings/policies/{policy.pk}/edit/",
        {"name": "", "scope": "global", "max_opened_count": "0", "mode": "auto", "enabled": "on"},
    )
    assert response.status_code == 302
    policy.refresh_from_db()
    assert policy.rule == Rule(scope="global", conditions={"max_opened_count": 0})
    assert policy.name == "chosen ≤ 0× in all scopes" and policy.enabled is True


def test_a_policy_named_after_its_rule_stays_named_after_it_when_the_rule_is_edited(
    logged_in: Client, account
) -> None:  # noqa: ANN001
    logged_in.post(
        "/a/acme/settings/policies/new/",
        {"name": "", "scope": "repo::acme/app", "unseen_days": "90", "mode": "review"},
    )
    policy = RetentionPolicy.objects.get(account=account)
    assert policy.name == "unopened >90d in repo::acme/app"
    html = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/edit/").content.decode()
    assert re.search(r'id="id_name"[^>]*value="[^"]', html) is None  # blank, the placeholder shows the name
    assert name_placeholder(html) == "unopened &gt;90d in repo::acme/app"
    logged_in.post(
        f"/a/acme/settings/policies/{policy.pk}/edit/",
        {"name": "", "scope": "repo::acme/app", "unseen_days": "30", "mode": "review"},
    )
    policy.refresh_from_db()
    assert (policy.unseen_days, policy.name) == (30, "unopened >30d in repo::acme/app")


def test_an_api_change_to_the_rule_renames_a_policy_named_after_it_but_not_a_typed_name(
    account,  # noqa: ANN001
) -> None:
    from policies.services import policy_update

    auto = policy_create(
        account=account, rule=Rule(conditions={"unseen_days": 90}), name="", allow_auto_name=True
    )
    typed = policy_create(account=account, rule=Rule(conditions={"unseen_days": 90}), name="stale lore")
    for policy in (auto, typed):
        policy_update(policy=policy, changes={"unseen_days": 30})
    auto.refresh_from_db()
    typed.refresh_from_db()
    assert (auto.name, typed.name) == ("unopened >30d in all scopes", "stale lore")


def test_a_long_auto_name_is_saved_exactly_as_the_placeholder_shows_it(logged_in: Client, account) -> None:  # noqa: ANN001
    from lore.conditions import POLICY_DIMENSIONS

    data = {"name": "", "scope": "repo::acme/app", "unseen_days": "90", "mode": "review"}
    for dim in POLICY_DIMENSIONS:
        data[dim.name] = "first-long-value, second-long-value, third-long-value"
    handoff = {k: v for k, v in data.items() if k != "unseen_days"} | {"retention": "unseen_days:90"}
    html = logged_in.get("/a/acme/settings/policies/new/?" + urlencode(handoff)).content.decode()
    shown = name_placeholder(html).replace("&gt;", ">").replace("&lt;", "<").replace("&#x27;", "'")
    logged_in.post("/a/acme/settings/policies/new/", data)
    saved = RetentionPolicy.objects.get(account=account).name
    assert saved == shown
    assert len(saved) <= 200 and saved.endswith("… in repo::acme/app")


def test_enable_turns_the_nightly_sweep_on_and_off(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account, mode="auto")
    logged_in.post(f"/a/acme/settings/policies/{policy.pk}/enabled/", {"enabled": "1"})
    policy.refresh_from_db()
    assert policy.is_swept_nightly
    logged_in.post(f"/a/acme/settings/policies/{policy.pk}/enabled/", {"enabled": "0"})
    policy.refresh_from_db()
    assert not policy.enabled


# ---------------------------------------------------------------- run now, progress, undo


def test_run_now_confirms_with_the_count_and_a_sample_of_keys(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    lessons = old_lessons(account, 25)
    html = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/run/").content.decode()
    assert 'data-preview-count="25"' in html
    assert html.count("<li><code>repo::acme/app::") == 20
    assert f"repo::acme/app::{sorted(lesson.key for lesson in lessons)[0]}" in html
    assert Lesson.objects.filter(archived_at__isnull=False).count() == 0  # nothing changes before confirming


def test_confirming_runs_in_the_background_and_shows_the_result(logged_in: Client, account, run_now) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 5)
    LessonFactory(account=account, created_at=timezone.now() - timedelta(days=200), protected=True)
    response = run_now(policy)
    run = PolicyRun.objects.get(policy_id=policy.pk)
    assert response.status_code == 302 and response["Location"] == f"/a/acme/settings/runs/{run.pk}/"
    assert run.status == "done" and run.trigger == "manual" and run.archived == 5
    html = logged_in.get(response["Location"]).content.decode()
    assert "data-archived>5<" in html
    assert f'href="/a/acme/explorer/?archived=1&amp;run={run.pk}"' in html
    assert "Undo this run" in html
    assert 'hx-trigger="every 1s"' not in html  # finished: no more polling


def test_a_run_in_progress_is_polled_every_second(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    response = logged_in.get(f"/a/acme/settings/runs/{run.pk}/", HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert 'hx-trigger="every 1s"' in html and 'data-status="pending"' in html and "<html" not in html


def test_a_second_run_now_while_one_is_going_follows_the_first(account, run_now) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    response = run_now(policy)
    assert response["Location"] == f"/a/acme/settings/runs/{run.pk}/"
    assert PolicyRun.objects.count() == 1


def test_undo_restores_every_lesson_the_run_archived(logged_in: Client, account, run_now) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 4)
    run_now(policy)
    run = PolicyRun.objects.get(policy_id=policy.pk)
    assert Lesson.objects.filter(archived_by_run=run).count() == 4
    response = logged_in.post(f"/a/acme/settings/runs/{run.pk}/undo/", follow=True)
    assert "restored 4 lessons" in response.content.decode()
    assert Lesson.objects.filter(account=account, archived_at__isnull=True).count() == 4


def test_run_history_lists_every_run_of_the_policy(logged_in: Client, account, run_now) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 2)
    for _ in range(2):
        run_now(policy)
    runs = list(PolicyRun.objects.filter(policy_id=policy.pk))
    html = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/").content.decode()
    for run in runs:
        assert f"/a/acme/settings/runs/{run.pk}/" in html
    assert sorted(r.archived for r in runs) == [0, 2]  # a second run finds nothing


# ---------------------------------------------------------------- delete


def test_deleting_a_policy_deletes_the_rule_only(logged_in: Client, account, run_now) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 3)
    run_now(policy)
    page = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/delete/").content.decode()
    assert "rule only" in page and "3 lessons" in page and "stay archived and" in page
    response = logged_in.post(f"/a/acme/settings/policies/{policy.pk}/delete/", follow=True)
    assert "stay archived and restorable" in response.content.decode()
    assert not RetentionPolicy.objects.exists()
    assert Lesson.objects.filter(account=account, archived_at__isnull=False).count() == 3
    assert PolicyRun.objects.count() == 1


# ---------------------------------------------------------------- tenancy, CSRF, methods


def test_another_accounts_policy_and_run_answer_404(logged_in: Client, other_account) -> None:  # noqa: ANN001
    policy = stale_policy(other_account)
    run = grooming.run_start(account=other_account, policy=policy, trigger="manual")
    assert run is not None
    for url in ("", "edit/", "count/", "run/", "delete/"):
        assert logged_in.get(f"/a/acme/settings/policies/{policy.pk}/{url}").status_code == 404
    for url in ("edit/", "run/", "delete/", "enabled/"):
        assert (
            logged_in.post(f"/a/acme/settings/policies/{policy.pk}/{url}", {"kind": "x"}).status_code == 404
        )
    assert logged_in.get(f"/a/acme/settings/runs/{run.pk}/").status_code == 404
    assert logged_in.post(f"/a/acme/settings/runs/{run.pk}/undo/").status_code == 404
    assert RetentionPolicy.objects.filter(pk=policy.pk).exists()


def test_the_list_shows_only_this_accounts_policies(logged_in: Client, account, other_account) -> None:  # noqa: ANN001
    stale_policy(other_account, name="theirs")
    stale_policy(account, name="ours")
    html = logged_in.get("/a/acme/settings/policies/").content.decode()
    assert "ours" in html and "theirs" not in html


def test_state_changes_need_a_csrf_token(user, account) -> None:  # noqa: ANN001
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    grooming.run_execute(run.pk)
    posts = {
        "/a/acme/settings/policies/new/": {"kind": "bus", "mode": "review"},
        f"/a/acme/settings/policies/{policy.pk}/edit/": {"kind": "bus", "mode": "review"},
        f"/a/acme/settings/policies/{policy.pk}/enabled/": {"enabled": "1"},
        f"/a/acme/settings/policies/{policy.pk}/run/": {},
        f"/a/acme/settings/runs/{run.pk}/undo/": {},
        f"/a/acme/settings/policies/{policy.pk}/delete/": {},
        "/a/acme/settings/tokens/": {"name": "laptop", "owner": "personal", "scopes": ["read", "write"]},
    }
    for url, data in posts.items():
        assert client.post(url, data).status_code == 403, url
    assert RetentionPolicy.objects.count() == 1
    page = client.get("/a/acme/settings/policies/new/")
    token = page.cookies["csrftoken"].value
    response = client.post(
        "/a/acme/settings/policies/new/", {"kind": "bus", "mode": "review", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302 and RetentionPolicy.objects.count() == 2


def test_state_changes_refuse_get(logged_in: Client, account) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    run = grooming.run_start(account=account, policy=policy, trigger="manual")
    assert run is not None
    assert logged_in.get(f"/a/acme/settings/policies/{policy.pk}/enabled/").status_code == 405
    assert logged_in.get(f"/a/acme/settings/runs/{run.pk}/undo/").status_code == 405
    assert logged_in.get("/a/acme/settings/tokens/1/revoke/").status_code == 405


def _confirm(logged_in: Client, policy: RetentionPolicy) -> dict[str, str]:
    html = logged_in.get(f"/a/acme/settings/policies/{policy.pk}/run/").content.decode()
    return {"as_of": re.search(r'name="as_of" value="([^"]+)"', html).group(1)}


def test_confirming_archives_exactly_what_the_confirm_page_showed(
    logged_in: Client, account, run_now
) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    shown = old_lessons(account, 3)
    form = _confirm(logged_in, policy)
    # Between the confirm page and the click: an old lesson arrives by import-like backdating, and a lesson
    # crosses the age threshold. Neither was on the page, so neither is archived.
    late = LessonFactory(account=account, created_at=timezone.now() - timedelta(days=200))
    Lesson.objects.filter(pk=late.pk).update(updated_at=timezone.now())
    aging = LessonFactory(account=account, created_at=timezone.now() - timedelta(days=90, seconds=-1))
    run_now(policy, data=form)
    run = PolicyRun.objects.get(policy_id=policy.pk)
    assert run.as_of is not None and run.archived == 3
    archived = set(Lesson.objects.filter(archived_by_run=run).values_list("pk", flat=True))
    assert archived == {lesson.pk for lesson in shown}
    assert late.pk not in archived and aging.pk not in archived


def test_a_lesson_unpinned_after_the_confirm_page_is_not_archived_by_its_click(
    logged_in: Client, account, run_now
) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    shown = old_lessons(account, 2)
    pinned = LessonFactory(account=account, key="pinned", created_at=timezone.now() - timedelta(days=200))
    Lesson.objects.filter(pk=pinned.pk).update(protected=True)
    form = _confirm(logged_in, policy)
    assert logged_in.post(f"/a/acme/explorer/lessons/{pinned.pk}/unpin/").status_code in (200, 302)
    run_now(policy, data=form)
    run = PolicyRun.objects.get(policy_id=policy.pk)
    assert (run.matched, run.archived) == (2, 2)
    assert set(Lesson.objects.filter(archived_by_run=run).values_list("pk", flat=True)) == {
        lesson.pk for lesson in shown
    }
    assert Lesson.objects.get(pk=pinned.pk).archived_at is None


def test_a_preview_of_a_policy_changed_since_is_not_carried_out(logged_in: Client, account, run_now) -> None:  # noqa: ANN001
    from policies.services import policy_update

    policy = stale_policy(account)
    old_lessons(account, 3)
    form = _confirm(logged_in, policy)
    policy_update(policy=policy, changes={"min_age_days": 30})
    response = run_now(policy, data=form)
    assert response["Location"] == f"/a/acme/settings/policies/{policy.pk}/run/"
    assert not PolicyRun.objects.exists()
    page = logged_in.get(response["Location"]).content.decode()
    assert "Nothing was archived: the policy was changed after that preview" in page


@pytest.mark.parametrize("as_of", ["2020-01-01T00:00:00+00:00", "yesterday", "2026-13-45T00:00:00+00:00"])
def test_an_old_or_unreadable_preview_time_archives_nothing(
    logged_in: Client, account, run_now, as_of: str
) -> None:  # noqa: ANN001
    policy = stale_policy(account)
    old_lessons(account, 3)
    response = run_now(policy, data={"as_of": as_of})
    assert response.status_code == 302 and not PolicyRun.objects.exists()
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()
