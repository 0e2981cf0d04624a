"""Scopes and lesson addresses (DESIGN.md §4).

Scope kinds: `global`, `project::NAME`, `repo::OWNER/REPO`, `branch::OWNER/REPO::BRANCH`. `::` is the only
separator, segments are lower-cased. A lesson's address is `SCOPE::KEY`; the key is what follows the last `::`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import Q

from lore.errors import ScopeError as ScopeError  # re-exported: callers read it from here
from lore.limits import SCOPE_LENGTH_MAX, VALUE_LENGTH_MAX
from lore.text import CONTROL_CHARS

SEP = "::"
GLOBAL = "global"
MAX_VALUE_LENGTH = VALUE_LENGTH_MAX.value
# Control characters, and lone surrogates (valid in a Python str, unencodable in UTF-8: the database refuses them).
_SEGMENT = re.compile(r"^[a-z0-9][a-z0-9._\-]*$")


def _segment(value: str, what: str) -> str:
    value = value.strip().lower()
    if not value:
        raise ScopeError(f"{what} is empty")
    if not _SEGMENT.match(value):
        raise ScopeError(f"{what} {value!r} may only hold letters, digits, '.', '_' and '-'")
    return value


def parse_scope(raw: str | None) -> str:
    """The canonical spelling of a scope, or ScopeError saying what is wrong with it."""
    if raw is None or not str(raw).strip():
        raise ScopeError(
            "scope is required (global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH)"
        )
    text = str(raw).strip()
    if len(text) > SCOPE_LENGTH_MAX.value:
        raise ScopeError(f"scope is longer than {SCOPE_LENGTH_MAX.value} characters")
    if CONTROL_CHARS.search(text):
        raise ScopeError("scope contains control characters")
    if text.lower() == GLOBAL:
        return GLOBAL
    parts = text.split(SEP)
    kind = parts[0].lower()
    if kind == "project" and len(parts) == 2:
        return f"project::{_segment(parts[1], 'project name')}"
    if kind in ("repo", "branch"):
        expected = 2 if kind == "repo" else 3
        if len(parts) != expected:
            example = "repo::OWNER/REPO" if kind == "repo" else "branch::OWNER/REPO::BRANCH"
            raise ScopeError(f"a {kind} scope is written {example}")
        owner_repo = parts[1].strip().lower().split("/")
        if len(owner_repo) != 2:
            raise ScopeError(f"{kind}:: needs OWNER/REPO, e.g. {kind}::acme/app")
        owner = _segment(owner_repo[0], "repository owner")
        repo = _segment(owner_repo[1], "repository name")
        if kind == "repo":
            return f"repo::{owner}/{repo}"
        branch = parts[2].strip().lower()
        if not branch or CONTROL_CHARS.search(branch) or not re.match(r"^[a-z0-9][a-z0-9._/\-]*$", branch):
            raise ScopeError("branch name may only hold letters, digits, '.', '_', '/' and '-'")
        return f"branch::{owner}/{repo}::{branch}"
    if ":" in text and SEP not in text:
        raise ScopeError("use '::' to separate scope parts, e.g. repo::acme/app")
    raise ScopeError(
        f"unknown scope {text!r}: use global, project::NAME, repo::OWNER/REPO or branch::OWNER/REPO::BRANCH"
    )


def validate_key(raw: str | None) -> str:
    """A lesson key: non-empty, at most 512 characters, no control characters, no '::'."""
    if raw is None or not str(raw).strip():
        raise ScopeError("key is empty", field="key")
    key = str(raw).strip()
    if len(key) > MAX_VALUE_LENGTH:
        raise ScopeError(f"key is longer than {MAX_VALUE_LENGTH} characters", field="key")
    if CONTROL_CHARS.search(key):
        raise ScopeError("key contains control characters or unencodable text", field="key")
    if SEP in key:
        raise ScopeError("key may not contain '::'", field="key")
    return key


@dataclass(frozen=True)
class Address:
    scope: str
    key: str

    def __str__(self) -> str:
        return f"{self.scope}{SEP}{self.key}"


def parse_address(raw: str | None) -> Address:
    """`SCOPE::KEY` → Address; the key is what follows the last `::`."""
    if raw is None or SEP not in str(raw):
        raise ScopeError("an address is written SCOPE::KEY, e.g. repo::acme/app::use-uv", field="address")
    scope_part, _, key_part = str(raw).strip().rpartition(SEP)
    try:
        scope = parse_scope(scope_part)
    except ScopeError as exc:
        raise ScopeError(exc.message, field="address") from exc
    return Address(scope, validate_key(key_part))


def scope_q(scope: str, prefix: str = "") -> Q:
    """The predicate for lessons a (policy or view) scope covers. `global` covers the whole account."""
    if scope == GLOBAL:
        return Q()
    q = Q(**{f"{prefix}scope": scope})
    if scope.startswith("repo::"):
        # startswith escapes % and _ for us.
        q |= Q(**{f"{prefix}scope__startswith": "branch::" + scope.removeprefix("repo::") + SEP})
    return q


def repo_of(scope: str) -> str | None:
    """The repo scope that covers a branch scope (`branch::acme/app::main` → `repo::acme/app`), else None."""
    if not scope.startswith("branch::"):
        return None
    return "repo::" + scope.removeprefix("branch::").split(SEP)[0]


def scope_covers(policy_scope: str, lesson_scope: str) -> bool:
    """The same rule as scope_q, in Python (for messages and tests)."""
    if policy_scope == GLOBAL or policy_scope == lesson_scope:
        return True
    if policy_scope.startswith("repo::"):
        return lesson_scope.startswith("branch::" + policy_scope.removeprefix("repo::") + SEP)
    return False


def validate_dimension_value(raw: object, field: str) -> str:
    """One dimension value: a non-empty string of at most 512 characters without control characters."""
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise ScopeError(f"{field} values must be strings", field=field)
    value = str(raw).strip()
    if not value:
        raise ScopeError(f"{field} holds an empty value", field=field)
    if len(value) > MAX_VALUE_LENGTH:
        raise ScopeError(f"{field} value is longer than {MAX_VALUE_LENGTH} characters", field=field)
    if CONTROL_CHARS.search(value):
        raise ScopeError(f"{field} value contains control characters or unencodable text", field=field)
    return value
