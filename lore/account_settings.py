"""The settings an account holds (Settings → Account), declared once: the form, its checks and the activity
row of a change all come from ACCOUNT_SETTINGS. A new setting is one more AccountSetting here (and the Account
field it names)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from django.db import transaction

from lore.activity import activity_record
from lore.limits import GARDEN_APPLY_CAP_MAX
from lore.models import Account, Activity


@dataclass(frozen=True)
class AccountSetting:
    """A whole-number field of Account, with its bounds and the words Settings shows beside it."""

    name: str  # the Account field
    label: str
    help: str
    low: int
    high: int
    default: int
    unit: str = "days"


ACCOUNT_SETTINGS: tuple[AccountSetting, ...] = (
    AccountSetting(
        name="purge_after_days",
        label="Purge archived lessons after",
        help="Archived lessons are deleted for good this many days after they were archived, by the nightly "
        "sweep, leaving a tombstone (scope, key, content hash). 0 keeps them until restored.",
        low=0,
        high=36_500,
        default=180,
    ),
    AccountSetting(
        name="garden_apply_cap",
        label="Lessons one finding may retire",
        help="Applying a finding retires at most this many lessons (the gardener's cap); a larger finding is "
        "refused whole.",
        low=1,
        high=GARDEN_APPLY_CAP_MAX.value,
        default=25,
        unit="lessons",
    ),
    AccountSetting(
        name="garden_ephemera_days",
        label="Ephemera expire after",
        help="CI results, PR states and run statuses older than this many days are proposed for retirement.",
        low=1,
        high=3_650,
        default=14,
    ),
)
ACCOUNT_SETTINGS_BY_NAME = {s.name: s for s in ACCOUNT_SETTINGS}


def account_settings_values(account: Account) -> dict[str, int]:
    """The account's current value of every declared setting."""
    return {s.name: getattr(account, s.name) for s in ACCOUNT_SETTINGS}


@transaction.atomic
def account_settings_update(
    *, account: Account, values: Mapping[str, int], actor: str
) -> dict[str, tuple[int, int]]:
    """Save the declared settings in `values` (already checked); one activity row per change.
    Returns {name: (before, after)} of what changed."""
    changed: dict[str, tuple[int, int]] = {}
    for name, value in values.items():
        setting = ACCOUNT_SETTINGS_BY_NAME[name]
        if not setting.low <= value <= setting.high:
            raise ValueError(f"{name} must be between {setting.low} and {setting.high:,}")
        before = getattr(account, name)
        if before != value:
            changed[name] = (before, value)
            setattr(account, name, value)
    if changed:
        account.save(update_fields=list(changed))
        for name, (before, after) in changed.items():
            activity_record(
                account=account,
                action=Activity.Action.ACCOUNT_CHANGED,
                actor=actor,
                subject=ACCOUNT_SETTINGS_BY_NAME[name].label,
                detail=f"{name}: {before} → {after}",
            )
    return changed
