"""Preview through REST, the CLI and MCP answer the same set for the same rule, and a run then archives
exactly it (one candidate query behind all three)."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx
from django.utils import timezone

from lore.models import Lesson
from tests.factories import LessonFactory
from tests.lorekit.mcp_session import result_of, with_session


def test_rest_cli_and_mcp_preview_the_same_set_and_a_run_archives_exactly_it(
    lorekit, lorekit_env, live_server, raw_token, account
) -> None:  # noqa: ANN001
    now = timezone.now()
    for i in range(12):
        LessonFactory(
            account=account,
            scope="branch::acme/app::main" if i % 3 == 0 else "repo::acme/app",
            key=f"k{i}",
            kind="bus" if i % 2 else "lesson",
            tags=["ci::pr-review-state"] if i % 4 else [],
            created_at=now - timedelta(days=20 * i),
            opened_count=i % 5,
            protected=i == 11,
        )
    rule = {
        "scope": "repo::acme/app",
        "min_age_days": 30,
        "max_opened_count": 3,
        "kind": ["bus"],
        "tags": ["ci::pr-review-state"],
        "tags_mode": "all",
    }

    rest = httpx.post(
        f"{live_server.url}/api/v1/memories/groom/preview",
        json=rule,
        headers={"Authorization": f"Bearer {raw_token}"},
    ).json()
    cli_args = [
        "groom",
        "--scope",
        "repo::acme/app",
        "--min-age-days",
        "30",
        "--max-opened-count",
        "3",
        "--kind",
        "bus",
        "--tags",
        "ci::pr-review-state",
        "--tags-mode",
        "all",
        "--json",
    ]
    cli = json.loads(lorekit(*cli_args).stdout)

    async def script(session):  # noqa: ANN001, ANN202
        return result_of(await session.call_tool("groom.preview", rule))

    mcp = with_session(lorekit_env, script)
    assert mcp.pop("as_of")  # an MCP result has no headers: the preview's Lore-As-Of travels in it
    assert rest == cli == mcp
    assert 0 < rest["count"] < 12

    run = json.loads(lorekit(*[a for a in cli_args if a != "--json"], "--run", "--yes", "--json").stdout)
    assert run["keys"] == rest["keys"]
    archived = [
        {"scope": s, "key": k}
        for s, k in Lesson.objects.filter(archived_at__isnull=False)
        .order_by("scope", "key")
        .values_list("scope", "key")
    ]
    assert archived == rest["keys"]
