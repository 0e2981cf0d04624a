"""Human output: tables and detail blocks. `--json` bypasses all of this and prints the server's answer."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from lorekit.registry import DIMENSIONS, PARAMS, POLICY_DIMENSIONS, RETENTION_PARAMS, SIGNALS

PARAMS_BY_NAME = {p.name: p for p in PARAMS}

# C0 controls but tab and newline, DEL, C1 controls (CSI, OSC…), and the bidirectional overrides and isolates:
# what lesson content could use to move the cursor, set the title, write the clipboard or reorder what is read.
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """`text` without the characters a terminal would act on instead of showing (never applied to --json)."""
    return _UNSAFE.sub("", text)


def when(value: str | None) -> str:
    """`2026-11-29T18:36:02.714Z` → `2026-11-29 18:36`; None → never."""
    if not value:
        return "never"
    return value.replace("T", " ")[:16]


def lessons(count: int) -> str:
    return f"{count:,} lesson" + ("" if count == 1 else "s")


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in cells]
    return "\n".join(lines)


def lessons_table(items: Sequence[dict[str, Any]]) -> str:
    if not items:
        return "No lessons."
    rows = [
        (
            item["address"]
            + (" [pinned]" if item.get("protected") else "")
            + (" [proposed for retirement]" if item.get("proposed_retirement") else ""),
            item.get("kind") or "-",
            item["seen_count"],
            item["read_count"],
            item["opened_count"],
            when(item.get("last_opened_at")),
            when(item.get("updated_at")),
        )
        for item in items
    ]
    headers = ("ADDRESS", "KIND", "RECURRENCE", "DELIVERED", "CHOSEN", "LAST AGENT OPEN", "LAST UPDATED")
    return table(headers, rows)


def lesson_detail(lesson: dict[str, Any]) -> str:
    state = []
    if lesson.get("protected"):
        state.append("pinned")
    if lesson.get("archived_at"):
        state.append(f"archived {when(lesson['archived_at'])}")
    head = lesson["address"] + (f"  ({', '.join(state)})" if state else "")
    dims = [
        f"{dim.name}: {', '.join(value) if isinstance(value, list) else value}"
        for dim in DIMENSIONS
        if (value := lesson.get(dim.name))
    ]
    counters = " · ".join(
        f"{signal.label} {lesson.get(signal.field, 0) if signal.kind == 'count' else when(lesson.get(signal.field))}"
        for signal in SIGNALS
    )
    parts = [head, "", lesson["content"].rstrip(), "", counters]
    if "decay_score" in lesson:
        label = PARAMS_BY_NAME["max_decay_score"].label
        immune = lesson.get("protected")
        parts.append(f"{label}: immune (protected)" if immune else f"{label} {lesson['decay_score']}/100")
    if dims:
        parts.append("   ".join(dims))
    parts += lineage_lines(lesson)
    return "\n".join(parts)


def lineage_lines(lesson: dict[str, Any]) -> list[str]:
    """What replaced the lesson, what it replaces, and an open finding's proposal to retire it."""
    lines = []
    if lesson.get("superseded_by"):
        replaced = lesson["superseded_by"]
        lines.append(f"Superseded by: {replaced['address']} (id {replaced['id']})")
    if lesson.get("supersedes"):
        lines.append("Supersedes: " + ", ".join(lesson["supersedes"]))
    proposal = lesson.get("proposed_retirement")
    if proposal:
        keeper = proposal.get("keeper")
        prefer = f": prefer {keeper['address']}" if keeper else ""
        kind = str(proposal["kind"]).replace("_", " ")
        lines.append(f"Proposed for retirement ({kind}, finding {proposal['finding_id']}){prefer}")
    return lines


def keys_table(keys: Sequence[dict[str, str]], limit: int) -> str:
    shown = keys[:limit] if limit else keys
    text = table(("SCOPE", "KEY"), [(k["scope"], k["key"]) for k in shown]) if shown else ""
    if len(keys) > len(shown):
        text += f"\n… and {len(keys) - len(shown)} more (--limit 0 or --json shows all)"
    return text


def policy_rule_lines(policy: dict[str, Any]) -> list[str]:
    lines = [f"  {p.name} = {policy[p.name]}" for p in RETENTION_PARAMS if policy.get(p.name) is not None]
    for dim in POLICY_DIMENSIONS:
        if policy.get(dim.name):
            lines.append(f"  {dim.name} {policy[dim.mode_param]} {', '.join(policy[dim.name])}")
    return lines


def policies_table(policies: Sequence[dict[str, Any]]) -> str:
    if not policies:
        return "No policies."
    rows = [
        (p["id"], p["name"], p["scope"], p["mode"], "yes" if p["enabled"] else "no", p["summary"])
        for p in policies
    ]
    return table(("ID", "NAME", "SCOPE", "MODE", "ENABLED", "RULE"), rows)


def policy_detail(policy: dict[str, Any]) -> str:
    swept = "swept nightly" if policy["mode"] == "auto" and policy["enabled"] else "run by hand"
    lines = [
        f"policy {policy['id']}: {policy['name']}",
        f"  scope: {policy['scope']}",
        f"  mode: {policy['mode']} ({'enabled' if policy['enabled'] else 'disabled'}; {swept})",
        f"  rule: {policy['summary']}",
        *policy_rule_lines(policy),
    ]
    return "\n".join(lines)
