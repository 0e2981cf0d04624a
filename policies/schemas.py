"""The request and response schemas of the retention API (/policies, /memories/groom), generated from the
registry with the shared field builders of lore.api.schemas."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from ninja import Field, Schema
from pydantic import AwareDatetime, StringConstraints

from lore.api.schemas import (
    SCOPE_HELP,
    Id,
    JsonBool,
    Scope,
    dimension_fields,
    param_fields,
    schema_model,
)
from lore.conditions import NAME_MAX, POLICY_DIMENSIONS, RETENTION_PARAMS
from lore.limits import PREVIEW_KEYS_DEFAULT, PREVIEW_KEYS_MAX


def rule_fields(*, scope_required: bool) -> dict[str, Any]:
    scope = (Scope, Field(..., description=SCOPE_HELP)) if scope_required else (Scope | None, None)
    return {"scope": scope, **param_fields(RETENTION_PARAMS), **dimension_fields(POLICY_DIMENSIONS)}


GroomIn = schema_model(
    "GroomIn",
    "A saved policy (policy_id) or an ad-hoc rule: scope, conditions and dimension filters.",
    {
        "policy_id": (Id | None, Field(None, description="Preview/run a saved policy")),
        **rule_fields(scope_required=False),
    },
)


GroomPreviewIn = schema_model(
    "GroomPreviewIn",
    "What /groom/preview takes: a policy or a rule, and how many keys to list (count stays exact).",
    {
        "keys_limit": (
            int,
            Field(
                PREVIEW_KEYS_DEFAULT.default,
                ge=0,
                le=PREVIEW_KEYS_MAX.default,
                description=f"List at most this many keys, in address order; `count` is always exact. "
                f"{PREVIEW_KEYS_MAX.describe()}.",
            ),
        ),
    },
    base=GroomIn,
)


GroomRunIn = schema_model(
    "GroomRunIn",
    "What /groom/preview takes, and optionally that preview's time (its Lore-As-Of header) to archive exactly it.",
    {
        "as_of": (
            AwareDatetime | None,
            Field(
                None,
                description="The Lore-As-Of header of the preview this run carries out: the run archives what "
                "that preview answered, less what was rewritten, restored, unpinned or re-imported since. At "
                "most an hour old; of a policy changed since, it answers 409 preview_outdated and archives "
                "nothing.",
            ),
        ),
    },
    base=GroomIn,
)


class KeyOut(Schema):
    scope: str
    key: str


class PreviewOut(Schema):
    count: int
    keys: list[KeyOut]


class RunOut(PreviewOut):
    run_id: int
    status: str
    matched: int


PolicyMode = Literal["review", "auto"]
Name = Annotated[str, StringConstraints(min_length=1, max_length=NAME_MAX)]

PolicyIn = schema_model(
    "PolicyIn",
    "A new retention policy. mode review (default) is run by hand; auto is swept nightly once enabled.",
    {
        "name": (Name, ...),
        **rule_fields(scope_required=True),
        "mode": (PolicyMode, "review"),
        "enabled": (JsonBool, False),
    },
)

PolicyPatch = schema_model(
    "PolicyPatch",
    "Changes to a policy. A field set to null is cleared; an absent field is left as it is.",
    {
        "name": (Name | None, None),
        **rule_fields(scope_required=False),
        "mode": (PolicyMode | None, None),
        "enabled": (JsonBool | None, None),
    },
)

PolicyOut = schema_model(
    "Policy",
    "A retention policy: scope, conditions, dimension filters, mode and whether the nightly sweep runs it.",
    {
        "id": (int, ...),
        "name": (str, ...),
        "scope": (str, ...),
        **{p.name: (int | None, None) for p in RETENTION_PARAMS},
        **{
            field: (kind, ...)
            for d in POLICY_DIMENSIONS
            for field, kind in ((d.name, list[str]), (d.mode_param, str))
        },
        "mode": (str, ...),
        "enabled": (bool, ...),
        "summary": (str, Field(..., description="What the rule does, in the words of its auto-name")),
        "created_at": (datetime, ...),
        "updated_at": (datetime, ...),
    },
    base=Schema,
)
