"""Request and response schemas of the REST API, generated from the registry (lore.conditions).

Every condition becomes a bounded integer field named after its param (`min_age_days`, `max_opened_count`, …),
every dimension a value list plus a `<dim>_mode` field limited to its modes. Adding a condition to the registry
adds it to every schema here, to the OpenAPI document, and (through lorekit.registry) to the CLI and MCP tools.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from annotated_types import Interval
from django.utils import timezone
from ninja import Field, Schema
from pydantic import BeforeValidator, ConfigDict, Strict, StringConstraints, create_model
from pydantic_core import PydanticCustomError

from lore import limits
from lore.conditions import (
    DIMENSIONS,
    MAX_FILTER_VALUES,
    PARAMS,
    Dimension,
    Param,
)
from lore.decay import ANNOTATION
from lore.garden.retiring import proposed_retirements_mark
from lore.garden.selectors import lesson_superseded_by, lesson_supersedes_addresses
from lore.inputs import MAX_CONTENT
from lore.limits import SEARCH_TEXT_MAX
from lore.reads import lesson_decay_score_exact
from lore.rules.filterset import RETENTION_TEXT_MAX
from lore.scopes import MAX_VALUE_LENGTH
from lore.selectors import DEFAULT_SORT, MAX_LIMIT, PAGE_DEFAULT, SORTS

ID_MAX = 2**63 - 1
CURSOR_MAX = limits.CURSOR_MAX.value
SCOPE_HELP = "global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH"
Scope = Annotated[str, StringConstraints(min_length=1, max_length=600)]
Value = Annotated[str, StringConstraints(min_length=1, max_length=MAX_VALUE_LENGTH)]
Values = (
    list[Value] | Annotated[str, StringConstraints(max_length=MAX_FILTER_VALUES * (MAX_VALUE_LENGTH + 1))]
)


def _refuse_booleans(value: object) -> object:
    """JSON true/false is not a number: lax int parsing would turn `"unseen_days": true` into a 1-day rule."""
    if isinstance(value, bool):
        raise PydanticCustomError("whole_number", "must be a whole number, not true or false")
    return value


# Placed after any bounds in an Annotated, so that the schema still shows them.
NOT_A_BOOLEAN = BeforeValidator(_refuse_booleans)
Whole = Annotated[int, NOT_A_BOOLEAN]
# true or false only: not "yes", 1 or "on" (query strings keep plain bool).
JsonBool = Annotated[bool, Strict()]
Id = Annotated[int, Interval(ge=1, le=ID_MAX), NOT_A_BOOLEAN]
SortName = Literal[tuple(SORTS)]  # type: ignore[valid-type]


def _literal(options: tuple[str, ...]) -> Any:
    return Literal[options]  # type: ignore[valid-type]


def param_description(param: Param) -> str:
    phrase = param.value_phrase(2).replace("2", "N")
    direction = " (exploring only: a policy cannot carry it)" if param.is_reverse else ""
    return f"{param.condition.label}: {phrase}{direction}. {param.condition.help}".strip()


def param_fields(params: tuple[Param, ...] | list[Param], *, in_query: bool = False) -> dict[str, Any]:
    """One optional bounded integer per condition param; absent (or null in a body) means "not set"."""
    fields: dict[str, Any] = {}
    for param in params:
        low, high = param.bounds
        if in_query:
            fields[param.name] = (int, Field(None, ge=low, le=high, description=param_description(param)))
        else:
            bounded = Annotated[int, Interval(ge=low, le=high), NOT_A_BOOLEAN]
            fields[param.name] = (bounded | None, Field(None, description=param_description(param)))
    return fields


def dimension_fields(dims: tuple[Dimension, ...], *, in_query: bool = False) -> dict[str, Any]:
    """Values (a list, or comma-separated) and a mode per dimension."""
    fields: dict[str, Any] = {}
    for dim in dims:
        # A query string cannot hold null: query fields are plain types whose absence means "not set".
        values_type = str if in_query else Values | None
        how = "comma-separated" if in_query else "a list, or one comma-separated string"
        fields[dim.name] = (
            values_type,
            Field(None, description=f"{dim.label} values ({how}); OR within a dimension, AND across."),
        )
        fields[dim.mode_param] = (
            _literal(dim.modes) if in_query else _literal(dim.modes) | None,
            Field(None, description=f"How {dim.name} values match (default {dim.default_mode})."),
        )
    return fields


class InputSchema(Schema):
    """Requests refuse unknown fields: a misspelt condition must be an error, never a rule that catches more."""

    model_config = ConfigDict(extra="forbid")


def schema_model(
    name: str, doc: str, fields: dict[str, Any], base: type[Schema] = InputSchema
) -> type[Schema]:
    model = create_model(name, __base__=base, __doc__=doc, **fields)  # type: ignore[call-overload]
    return model  # type: ignore[no-any-return]


# ---------------------------------------------------------------- lessons


class LessonRef(Schema):
    """Another lesson of the account, by id and address."""

    id: int
    address: str


class ProposedRetirementOut(Schema):
    """An open finding proposes to retire this lesson (docs/gardener.md): prefer `keeper` when there is one."""

    finding_id: int
    kind: str = Field(..., description="the finding's kind (near_duplicate, superseded, expired_ephemera, …)")
    keeper: LessonRef | None = Field(
        None, description="the lesson the finding keeps in its place (none for expired ephemera)"
    )


class LessonSchema(Schema):
    """A lesson's computed fields: its decay score, annotated by lists, computed for a single lesson; whether an
    open finding proposes to retire it and what replaced it, set by lists for their whole page, computed for a
    single lesson."""

    @staticmethod
    def resolve_decay_score(obj: Any) -> int:
        score = getattr(obj, ANNOTATION, None)
        return score if score is not None else lesson_decay_score_exact(obj, timezone.now())

    @staticmethod
    def resolve_proposed_retirement(obj: Any) -> dict[str, Any] | None:
        if not hasattr(obj, "proposed_retirement"):
            proposed_retirements_mark([obj])
        return obj.proposed_retirement  # type: ignore[no-any-return]

    @staticmethod
    def resolve_superseded_by(obj: Any) -> dict[str, Any] | None:
        return lesson_superseded_by(obj)


class LessonDetailSchema(LessonSchema):
    """A single lesson also answers the addresses it replaces (two indexed queries)."""

    @staticmethod
    def resolve_supersedes(obj: Any) -> list[str]:
        return lesson_supersedes_addresses(obj)


LESSON_FIELDS: dict[str, Any] = {
    "id": (int, ...),
    "address": (str, ...),
    "scope": (str, ...),
    "key": (str, ...),
    "content": (str, ...),
    **{d.name: (list[str] if d.is_tags else str, ...) for d in DIMENSIONS},
    "seen_count": (int, ...),
    "read_count": (int, ...),
    "last_read_at": (datetime | None, None),
    "opened_count": (int, ...),
    "last_opened_at": (datetime | None, None),
    "created_at": (datetime, ...),
    "updated_at": (datetime, ...),
    "protected": (bool, ...),
    "archived_at": (datetime | None, None),
    "archive_reason": (str, ""),
    "decay_score": (
        int,
        Field(..., ge=0, le=100, description="Decay score 0–100 now (docs/decay.md); 100 when protected."),
    ),
    "proposed_retirement": (
        ProposedRetirementOut | None,
        Field(
            None,
            description="set while an open finding of the gardener proposes to retire this lesson: lists and "
            "searches answer such lessons after every other one; prefer the keeper",
        ),
    ),
    "superseded_by": (
        LessonRef | None,
        Field(
            None, description="the lesson that replaced this one when the gardener retired it (archived only)"
        ),
    ),
}
LessonOut = schema_model(
    "Lesson",
    "A lesson with every dimension and its counters: Recurrence (seen_count), Delivered (read_count), "
    "Chosen (opened_count), Last agent open (last_opened_at).",
    LESSON_FIELDS,
    base=LessonSchema,
)
LessonDetailOut = schema_model(
    "LessonDetail",
    "One lesson as a single-lesson answer gives it: a Lesson, and the addresses it replaces.",
    {
        **LESSON_FIELDS,
        "supersedes": (
            list[str],
            Field(
                ...,
                description="addresses this lesson replaces: lessons the gardener retired in its favour "
                "(newest first), then those it names in `supersedes`; at most SUPERSEDES_SHOWN_MAX",
            ),
        ),
    },
    base=LessonDetailSchema,
)

LessonIn = schema_model(
    "LessonIn",
    "A lesson to write. Writing an existing scope+key is a recurrence: content and dimensions are rewritten.",
    {
        "scope": (Scope, Field(..., description=SCOPE_HELP)),
        "key": (Annotated[str, StringConstraints(min_length=1, max_length=MAX_VALUE_LENGTH)], ...),
        "content": (Annotated[str, StringConstraints(min_length=1, max_length=MAX_CONTENT)], ...),
        **{d.name: (Values | None if d.is_tags else Value | None, None) for d in DIMENSIONS if d.in_policy},
        "supersedes": (
            list[Annotated[str, StringConstraints(min_length=1, max_length=1200)]] | None,
            Field(
                None,
                description="addresses (SCOPE::KEY) of older lessons this one replaces: the gardener "
                "proposes them for retirement",
            ),
        ),
    },
)


class AddressIn(InputSchema):
    """One lesson, named by `address` (SCOPE::KEY) or by `scope` and `key`."""

    address: Annotated[str, StringConstraints(min_length=1, max_length=1200)] | None = None
    scope: Scope | None = None
    key: Value | None = None


class ProtectIn(AddressIn):
    protected: JsonBool = Field(
        True, description="true pins the lesson (no policy or run archives it); false unpins"
    )


_filters_doc = (
    "Which lessons to list: the scope, text, every condition (both directions) and every dimension."
)


def _filter_fields(*, in_query: bool) -> dict[str, Any]:
    def optional(kind: Any) -> Any:
        return kind if in_query else kind | None

    return {
        "scope": (
            optional(Scope),
            Field(None, description=f"{SCOPE_HELP}; default global (the whole account)"),
        ),
        "retention": (
            optional(Annotated[str, StringConstraints(max_length=RETENTION_TEXT_MAX)]),
            Field(None, description="Conditions as in the Explorer URL: min_age_days:90,max_opened_count:0"),
        ),
        **param_fields(list(PARAMS.values()), in_query=in_query),
        **dimension_fields(DIMENSIONS, in_query=in_query),
        "archived": (
            bool if in_query else JsonBool,
            Field(False, description="List archived lessons instead of active ones"),
        ),
        "sort": (
            SortName,
            Field(
                DEFAULT_SORT,
                description="newest (default), opened_count (most chosen) or coldest (lowest decay score)",
            ),
        ),
        "limit": (int if in_query else Whole, Field(PAGE_DEFAULT, ge=1, le=MAX_LIMIT)),
        "cursor": (
            optional(Annotated[str, StringConstraints(max_length=CURSOR_MAX)]),
            Field(None, description="next_cursor of the previous page"),
        ),
    }


ListQuery = schema_model("ListQuery", _filters_doc, _filter_fields(in_query=True))
ListIn = schema_model("ListIn", _filters_doc, _filter_fields(in_query=False))
SearchIn = schema_model(
    "SearchIn",
    "Text search (every word in the key or the content) with the same filters as a list.",
    {
        "query": (Annotated[str, StringConstraints(min_length=1, max_length=SEARCH_TEXT_MAX.value)], ...),
        **_filter_fields(in_query=False),
    },
)


class PageOut(Schema):
    items: list[LessonOut]  # type: ignore[valid-type]
    next_cursor: str | None = None


class ImportOut(Schema):
    created: int
    updated: int
    failed: list[dict[str, Any]]
    failed_total: int
