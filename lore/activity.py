"""Who did what: the actor of every change, and the account's activity log (Settings → Activity, a policy's history).

An actor is a name a person reads: a person is their username, a token is `token <its name>`, a command is
`manage.py <command>`, the nightly sweep is `nightly sweep`. Every service that changes something takes an `actor`
and records one Activity row in the same transaction; REST passes the token, views the signed-in person, tasks the
sweep.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.utils import timezone

from lore.models import Account, Activity, ApiToken

NIGHTLY_SWEEP = "nightly sweep"
ACTIVITY_PAGE_SIZE = 50
ACTOR_MAX = 200


def person(user: AbstractBaseUser | AnonymousUser) -> str:
    """The actor of a signed-in person's change."""
    return str(user.get_username())[:ACTOR_MAX]


def token(api_token: ApiToken) -> str:
    """The actor of a change made with an API token (REST, lorekit, MCP)."""
    return f"token {api_token.name}"[:ACTOR_MAX]


def command(name: str) -> str:
    """The actor of a management command run by an operator."""
    return f"manage.py {name}"


def activity_record(
    *,
    account: Account | int,
    action: str,
    actor: str,
    subject: str = "",
    lesson_id: int | None = None,
    policy_id: int | None = None,
    run_id: int | None = None,
    detail: str = "",
    at: datetime | None = None,
) -> Activity:
    """One row of the account's activity log. Call it inside the transaction of the change it records."""
    return Activity.objects.create(
        account_id=account if isinstance(account, int) else account.pk,
        action=action,
        actor=(actor or "unknown")[:ACTOR_MAX],
        subject=subject[:600],
        lesson_id=lesson_id,
        policy_id=policy_id,
        run_id=run_id,
        detail=detail[:500],
        at=at or timezone.now(),
    )


# ---------------------------------------------------------------- selectors


@dataclass(frozen=True)
class ActivityPage:
    rows: list[Activity]
    next_cursor: str  # "" on the last page


def _cursor_parse(cursor: str) -> tuple[datetime, int] | None:
    at_text, _, id_text = (cursor or "").partition("_")
    try:
        at = datetime.fromisoformat(at_text)
        return at, int(id_text)
    except ValueError:
        return None


def activities_of(
    account: Account, *, actor: str = "", action: str = "", policy_id: int | None = None
) -> QuerySet:
    """The account's activity, newest first, optionally one actor's, one action's, one policy's."""
    rows = Activity.objects.filter(account=account)
    if actor:
        rows = rows.filter(actor=actor)
    if action:
        rows = rows.filter(action=action)
    if policy_id is not None:
        rows = rows.filter(policy_id=policy_id)
    return rows.order_by("-at", "-id")


def activities_page(rows: QuerySet, *, cursor: str = "", size: int = ACTIVITY_PAGE_SIZE) -> ActivityPage:
    """One page of `rows` after `cursor` (keyset on (at, id): every page costs the same however deep it is)."""
    after = _cursor_parse(cursor)
    if after is not None:
        at, row_id = after
        rows = rows.filter(Q(at__lt=at) | Q(at=at, id__lt=row_id))
    page = list(rows[: size + 1])
    more = len(page) > size
    page = page[:size]
    last = page[-1] if page else None
    return ActivityPage(rows=page, next_cursor=f"{last.at.isoformat()}_{last.pk}" if more and last else "")


def actors_of(account: Account, limit: int = 200) -> list[str]:
    """The actors that appear in the account's activity (the Activity page's actor filter)."""
    return list(
        Activity.objects.filter(account=account)
        .order_by("actor")
        .values_list("actor", flat=True)
        .distinct()[:limit]
    )
