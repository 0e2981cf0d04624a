"""`lorekit mcp`: an MCP client session lists the tools and calls them; counters move as DESIGN.md §3 says."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS
from lore.models import Lesson, ReadEvent
from lore.reads import reads_settle
from policies.models import RetentionPolicy
from tests.factories import LessonFactory
from tests.lorekit.mcp_session import result_of, with_session

TOOL_NAMES = [
    "memory.write",
    "memory.list",
    "memory.search",
    "memory.read",
    "memory.restore",
    "memory.protect",
    "policy.list",
    "policy.create",
    "policy.update",
    "policy.delete",
    "groom.preview",
    "groom.run",
    "garden.report",
    "garden.apply",
    "garden.undo",
]


def test_the_session_lists_every_tool_with_registry_derived_schemas(lorekit_env) -> None:  # noqa: ANN001
    async def script(session):  # noqa: ANN001, ANN202
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in with_session(lorekit_env, script)}
    assert list(tools) == TOOL_NAMES
    for name in ("policy.create", "policy.update", "groom.preview", "groom.run"):
        props = tools[name].input_schema["properties"]
        for param in RETENTION_PARAMS:
            assert (props[param.name]["minimum"], props[param.name]["maximum"]) == param.bounds
        for dim in POLICY_DIMENSIONS:
            assert props[dim.mode_param]["enum"] == list(dim.modes)
    assert tools["policy.create"].input_schema["required"] == ["name", "scope"]


def test_memory_read_is_the_deliberate_open_and_list_only_delivers(lorekit_env, account) -> None:  # noqa: ANN001
    month_ago = timezone.now() - timedelta(days=30)
    lesson = LessonFactory(account=account, key="use-uv", read_count=5, created_at=month_ago)

    async def script(session):  # noqa: ANN001, ANN202
        listed = result_of(await session.call_tool("memory.list", {"scope": "repo::acme/app"}))
        opened = result_of(await session.call_tool("memory.read", {"address": "repo::acme/app::use-uv"}))
        return listed, opened

    listed, opened = with_session(lorekit_env, script)
    assert listed["items"][0]["read_count"] == 6 and listed["items"][0]["opened_count"] == 0
    assert (opened["read_count"], opened["opened_count"]) == (7, 1)
    reads_settle(account)  # the buffered reads, folded (lore.reads)
    lesson.refresh_from_db()
    assert (lesson.read_count, lesson.opened_count, lesson.updated_at) == (7, 1, month_ago)
    assert lesson.last_opened_at is not None
    assert set(ReadEvent.objects.values_list("surface", flat=True)) == {"mcp"}


def test_groom_preview_answers_count_and_keys_and_changes_nothing(lorekit_env, account) -> None:  # noqa: ANN001
    old = timezone.now() - timedelta(days=200)
    LessonFactory(account=account, key="stale", created_at=old)
    LessonFactory(account=account, key="young")
    before = list(Lesson.objects.order_by("pk").values())

    async def script(session):  # noqa: ANN001, ANN202
        return result_of(
            await session.call_tool("groom.preview", {"scope": "repo::acme/app", "unseen_days": 90})
        )

    preview = with_session(lorekit_env, script)
    assert datetime.fromisoformat(preview.pop("as_of")) <= timezone.now()
    assert preview == {"count": 1, "keys": [{"scope": "repo::acme/app", "key": "stale"}]}
    assert list(Lesson.objects.order_by("pk").values()) == before


def test_groom_run_with_the_previews_as_of_archives_that_preview_not_what_was_written_since(
    lorekit_env,
    account,  # noqa: ANN001
) -> None:
    LessonFactory(account=account, key="old-bug", kind="bug")
    rule = {"scope": "global", "kind": ["bug"]}

    async def script(session):  # noqa: ANN001, ANN202
        preview = result_of(await session.call_tool("groom.preview", rule))
        await session.call_tool(
            "memory.write", {"scope": "global", "key": "new-bug", "kind": "bug", "content": "written since"}
        )
        run = result_of(await session.call_tool("groom.run", {**rule, "as_of": preview["as_of"]}))
        stale = await session.call_tool("groom.run", {**rule, "as_of": "2020-01-01T00:00:00+00:00"})
        return preview, run, stale

    preview, run, stale = with_session(lorekit_env, script)
    assert run["keys"] == preview["keys"] == [{"scope": "repo::acme/app", "key": "old-bug"}]
    assert Lesson.objects.get(key="new-bug").archived_at is None
    assert stale.is_error and "preview" in stale.content[0].text


def test_policy_create_update_delete_and_errors_come_back_as_tool_errors(lorekit_env, account) -> None:  # noqa: ANN001
    async def script(session):  # noqa: ANN001, ANN202
        created = result_of(
            await session.call_tool(
                "policy.create",
                {
                    "name": "stale ci review events",
                    "scope": "repo::acme/app",
                    "kind": ["bus"],
                    "tags": "ci::pr-review-state",
                    "tags_mode": "all",
                    "min_age_days": 30,
                },
            )
        )
        updated = result_of(
            await session.call_tool(
                "policy.update", {"id": created["id"], "kind": None, "host": "reviewer,aw"}
            )
        )
        listed = result_of(await session.call_tool("policy.list", {}))
        refused = await session.call_tool("policy.create", {"name": "everything", "scope": "global"})
        malformed = await session.call_tool("policy.update", {"name": "no id"})
        return created, updated, listed, refused, malformed

    created, updated, listed, refused, malformed = with_session(lorekit_env, script)
    policy = RetentionPolicy.objects.get(account=account)
    assert (policy.name, policy.tags, policy.tags_mode, policy.min_age_days) == (
        "stale ci review events",
        ["ci::pr-review-state"],
        "all",
        30,
    )
    assert (updated["kind"], updated["host"]) == ([], ["reviewer", "aw"])
    assert [p["id"] for p in listed["policies"]] == [created["id"]]
    assert refused.is_error and "at least one condition" in refused.content[0].text
    assert malformed.is_error and "id" in malformed.content[0].text


def test_groom_run_then_restore_and_protect(lorekit_env, account) -> None:  # noqa: ANN001
    old = timezone.now() - timedelta(days=200)
    LessonFactory(account=account, key="stale", created_at=old)
    LessonFactory(account=account, key="keep", created_at=old)

    async def script(session):  # noqa: ANN001, ANN202
        result_of(await session.call_tool("memory.protect", {"address": "repo::acme/app::keep"}))
        run = result_of(
            await session.call_tool("groom.run", {"scope": "repo::acme/app", "min_age_days": 100})
        )
        restored = result_of(
            await session.call_tool("memory.restore", {"scope": "repo::acme/app", "key": "stale"})
        )
        written = result_of(
            await session.call_tool(
                "memory.write", {"scope": "global", "key": "new", "content": "hello", "tags": ["a"]}
            )
        )
        return run, restored, written

    run, restored, written = with_session(lorekit_env, script)
    assert run["keys"] == [{"scope": "repo::acme/app", "key": "stale"}]
    assert restored["archived_at"] is None
    assert written["seen_count"] == 1 and written["tags"] == ["a"]
    assert not Lesson.objects.filter(archived_at__isnull=False).exists()


def test_garden_report_then_apply_retires_the_finding(lorekit_env, account) -> None:  # noqa: ANN001
    from lore.models import Finding
    from tests.lore.garden_helpers import write

    text = "Use uv instead of pip for every install; the lockfile is uv.lock and CI checks it."
    keeper = write(account, "repo::acme/app", "use-uv", text, opened=3)

    async def script(session):  # noqa: ANN001, ANN202
        written = await session.call_tool(
            "memory.write",
            {
                "scope": "repo::acme/app",
                "key": "use-uv-2",
                "content": text.lower(),
                "supersedes": ["repo::acme/app::nothing-here"],
            },
        )
        report = await session.call_tool("garden.report", {"run": True, "wait": 30})
        finding_id = result_of(report)["items"][0]["id"]
        return (
            result_of(written),
            result_of(report),
            result_of(await session.call_tool("garden.apply", {"id": finding_id})),
        )

    written, report, applied = with_session(lorekit_env, script)
    assert written["key"] == "use-uv-2" and len(report["items"]) == 1
    assert report["run"]["status"] == "done"  # queued, then followed until the worker finished it
    assert report["items"][0]["kind"] == "near_duplicate" and applied["archived"] == 1
    copy = Lesson.objects.get(key="use-uv-2")
    assert copy.archived_at is not None and copy.superseded_by_id == keeper.pk
    assert Finding.objects.get().status == "applied"


def test_search_ranks_the_keeper_first_read_names_what_it_replaces_and_undo_restores(
    lorekit_env, account
) -> None:  # noqa: ANN001
    from lore.models import Finding
    from tests.factories import finding_open

    month_ago = timezone.now() - timedelta(days=30)
    keeper = LessonFactory(account=account, key="use-uv", content="use uv, not pip", created_at=month_ago)
    copy = LessonFactory(account=account, key="use-uv-copy", content="Use uv, not pip.")
    finding = finding_open(keeper, [copy])

    async def script(session):  # noqa: ANN001, ANN202
        found = result_of(await session.call_tool("memory.search", {"query": "uv"}))
        not_applied = await session.call_tool("garden.undo", {"id": finding.pk})
        applied = result_of(await session.call_tool("garden.apply", {"id": finding.pk}))
        opened = result_of(await session.call_tool("memory.read", {"address": keeper.address}))
        retired = await session.call_tool("memory.read", {"address": copy.address})
        undone = result_of(await session.call_tool("garden.undo", {"id": finding.pk}))
        return found, not_applied, applied, opened, retired, undone

    found, not_applied, applied, opened, retired, undone = with_session(lorekit_env, script)
    assert [item["key"] for item in found["items"]] == ["use-uv", "use-uv-copy"]
    assert found["items"][1]["proposed_retirement"]["keeper"] == {"id": keeper.pk, "address": keeper.address}
    assert not_applied.is_error and not_applied.structured_content["error"]["code"] == "not_open"
    assert applied["archived"] == 1
    assert opened["supersedes"] == [copy.address] and opened["superseded_by"] is None
    assert retired.is_error and f"superseded by {keeper.address}" in retired.content[0].text
    assert undone == {"finding": finding.pk, "restored": 1}
    copy.refresh_from_db()
    assert copy.archived_at is None and Finding.objects.get(pk=finding.pk).status == "dismissed"
