"""`/api/v1/policies` (CRUD) and `/api/v1/memories/groom/{preview,run}` (DESIGN.md §7, §10).

Preview and run resolve through policies.grooming, i.e. the one candidate query, so a run archives exactly
what the preview answered. A policy of another account answers 404, like every other object.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, JsonResponse
from ninja import Path, Router, Status

from lore.api.auth import account_of, actor_of, needs, surface_of, token_of
from lore.api.errors import ApiError, error_responses, not_found
from lore.api.schemas import ID_MAX
from lore.conditions import POLICY_DIMENSIONS, RETENTION_PARAMS, auto_name
from lore.models import Account, PolicyRun
from lore.roles import Scope
from lore.rules.codec import rule_parse_strict
from lore.rules.rule import Rule
from policies import grooming
from policies.models import RetentionPolicy
from policies.schemas import GroomPreviewIn, GroomRunIn, PolicyIn, PolicyOut, PolicyPatch, PreviewOut, RunOut
from policies.services import policy_create, policy_delete, policy_update

router = Router(tags=["policies"])
groom_router = Router(tags=["grooming"])
PolicyId = Path(..., ge=1, le=ID_MAX)


def policy_for(account: Account, policy_id: int) -> RetentionPolicy:
    policy = RetentionPolicy.objects.filter(account=account, pk=policy_id).first()
    if policy is None:
        raise not_found("policy")
    return policy


def policy_as_dict(policy: RetentionPolicy) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": policy.pk,
        "name": policy.name,
        "scope": policy.scope,
        "mode": policy.mode,
        "enabled": policy.enabled,
        "summary": auto_name(policy.rule),
        "created_at": policy.created_at,
        "updated_at": policy.updated_at,
    }
    row.update({p.name: getattr(policy, p.name) for p in RETENTION_PARAMS})
    for dim in POLICY_DIMENSIONS:
        row[dim.name] = list(getattr(policy, dim.name))
        row[dim.mode_param] = getattr(policy, dim.mode_param)
    return row


# ---------------------------------------------------------------- grooming


AS_OF_HEADER = "Lore-As-Of"


def groom_target(account: Account, payload: Any) -> tuple[Rule, RetentionPolicy | None]:
    """A saved policy's rule, or the ad-hoc rule in the body (never both)."""
    data = payload.dict(exclude_none=True)
    data.pop("as_of", None)
    data.pop("keys_limit", None)
    policy_id = data.pop("policy_id", None)
    if policy_id is not None:
        if data:
            field = next(iter(data))
            raise ApiError(
                422, "policy_id grooms the saved rule: leave out scope, conditions and filters", field=field
            )
        policy = policy_for(account, policy_id)
        return policy.rule, policy
    if "scope" not in data:
        raise ApiError(422, "give a scope (global for the whole account) or a policy_id", field="scope")
    return rule_parse_strict(data), None


@groom_router.post(
    "/preview",
    response={200: PreviewOut, **error_responses(400, 404)},
    summary="Preview",
    openapi_extra={
        "responses": {
            "200": {
                "headers": {
                    AS_OF_HEADER: {
                        "description": "When this preview was taken: give it as as_of to /groom/run to "
                        "archive exactly this set",
                        "schema": {"type": "string", "format": "date-time"},
                    }
                }
            }
        }
    },
    auth=needs(Scope.READ),
)
def groom_preview(request: HttpRequest, payload: GroomPreviewIn) -> JsonResponse:  # type: ignore[valid-type]
    """`{count, keys: [{scope, key}]}`: exactly what a run would archive now. Changes nothing.

    The `Lore-As-Of` header says when "now" was: pass it as `as_of` to /groom/run to archive exactly this set."""
    account = account_of(request)
    rule, _ = groom_target(account, payload)
    found = grooming.preview(account, rule, keys_limit=payload.keys_limit)  # type: ignore[attr-defined]
    # Serialised as it is (PreviewOut still documents it): the keys are plain strings already, and validating
    # ~100k of them one by one through the response schema took seconds at 1M lessons (bench/RESULTS.md).
    response = JsonResponse({"count": found.count, "keys": found.keys})
    response[AS_OF_HEADER] = found.taken_at.isoformat()
    return response


@groom_router.post(
    "/run",
    response={200: RunOut, **error_responses(400, 404, 409)},
    summary="Run (archive)",
    auth=needs(Scope.GROOM),
)
def groom_run(request: HttpRequest, payload: GroomRunIn) -> JsonResponse:  # type: ignore[valid-type]
    """Archive every match (recoverable with /memories/restore), recorded as a PolicyRun; answers what it archived.

    With `as_of` (a preview's Lore-As-Of header) it archives what that preview answered; 409 `preview_outdated`
    when that preview is over an hour old or its policy changed since."""
    account = account_of(request)
    rule, policy = groom_target(account, payload)
    trigger = PolicyRun.Trigger.CLI if surface_of(request) == "cli" else PolicyRun.Trigger.API
    try:
        run = grooming.run_start(
            account=account,
            rule=rule,
            policy=policy,
            trigger=trigger,
            actor=actor_of(request),
            as_of=payload.as_of,  # type: ignore[attr-defined]
        )
    except grooming.PreviewOutdated as exc:
        raise ApiError(
            409, f"nothing was archived: {exc}; preview again", code="preview_outdated", field="as_of"
        ) from exc
    if run is None:
        raise ApiError(
            409, "this policy already has a run going: try again when it finishes", code="run_active"
        )
    run = grooming.run_execute(run.pk)
    keys = grooming.run_keys(run)  # serialised as they are, like the preview's (RunOut documents them)
    return JsonResponse(
        {"count": len(keys), "keys": keys, "run_id": run.pk, "status": run.status, "matched": run.matched}
    )


# ---------------------------------------------------------------- policies


@router.get(
    "",
    response={200: list[PolicyOut], **error_responses()},  # type: ignore[valid-type]
    summary="List policies",
    auth=needs(Scope.READ),
)
def policies_list(request: HttpRequest) -> list[dict[str, Any]]:
    return [policy_as_dict(p) for p in RetentionPolicy.objects.filter(account=account_of(request))]


@router.post(
    "", response={201: PolicyOut, **error_responses(400)}, summary="Create a policy", auth=needs(Scope.ADMIN)
)
def policies_create(request: HttpRequest, payload: PolicyIn) -> Status[dict[str, Any]]:  # type: ignore[valid-type]
    """name and scope are required; mode review (default) or auto; an auto policy is swept only when enabled."""
    data = payload.dict(exclude_none=True)  # type: ignore[attr-defined]
    name, mode, enabled = data.pop("name"), data.pop("mode"), data.pop("enabled")
    token = token_of(request)
    policy = policy_create(
        account=token.account,
        rule=rule_parse_strict(data),
        name=name,
        mode=mode,
        enabled=enabled,
        created_by=token.created_by,
        actor=actor_of(request),
    )
    return Status(201, policy_as_dict(policy))


@router.get(
    "/{policy_id}",
    response={200: PolicyOut, **error_responses(404)},
    summary="Show a policy",
    auth=needs(Scope.READ),
)
def policies_show(request: HttpRequest, policy_id: int = PolicyId) -> dict[str, Any]:
    return policy_as_dict(policy_for(account_of(request), policy_id))


@router.patch(
    "/{policy_id}",
    response={200: PolicyOut, **error_responses(400, 404)},
    summary="Update a policy",
    auth=needs(Scope.ADMIN),
)
def policies_update(
    request: HttpRequest,
    payload: PolicyPatch,  # type: ignore[valid-type]
    policy_id: int = PolicyId,
) -> dict[str, Any]:
    """Only the fields present change; a field set to null is cleared (a condition or a filter)."""
    policy = policy_for(account_of(request), policy_id)
    changes = payload.dict(exclude_unset=True)  # type: ignore[attr-defined]
    return policy_as_dict(policy_update(policy=policy, changes=changes, actor=actor_of(request)))


@router.delete(
    "/{policy_id}",
    response={204: None, **error_responses(404)},
    summary="Delete a policy",
    auth=needs(Scope.ADMIN),
)
def policies_delete(request: HttpRequest, policy_id: int = PolicyId) -> Status[None]:
    """Deletes the rule only: lessons it matched or archived are not touched."""
    policy_delete(policy=policy_for(account_of(request), policy_id), actor=actor_of(request))
    return Status(204, None)
