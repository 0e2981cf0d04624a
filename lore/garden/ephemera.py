"""Ephemera: statements of a momentary state — CI results, PR states, run/liveness — that are wrong a week later
(seed taxonomy in docs/gardener.md). A lesson is ephemera when one of PATTERNS matches its text and nothing marks
it durable, or when its kind or a tag says it is a status. Durable look-alikes ("CI must be green before merge",
"the PR template is in .github/") state a rule or a fact about how things work, and are never ephemera.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_STATE_VERB = r"(?:is|are|was|were|went|turned|came\s+back|has\s+been|have\s+been|got|just\s+got)\s+(?:now\s+|still\s+|currently\s+|all\s+)?"
_CI_SUBJECT = (
    r"(?:ci|build|builds|pipeline|tests?|test\s+suite|checks?|lint|linter|workflow|job|mypy|ruff|pytest|e2e|"
    r"biome\s+check|github\s+actions|the\s+run)"
)
_SHA = r"(?:[0-9a-f]{7,40})"

PATTERNS: dict[str, re.Pattern[str]] = {
    # "the build is green on commit abc123", "CI was red", "tests are passing now", "mypy came back failing"
    "ci_result": re.compile(
        rf"\b{_CI_SUBJECT}\b[^.;\n]{{0,30}}?\b{_STATE_VERB}(?:green|red|passing|failing|passed|failed|broken|"
        r"pending|queued|cancell?ed|timed\s+out|fixed)\b",
        re.I,
    ),
    # "biome check passed at step 3", "build failed on commit 1a2b3c4"
    "ci_step": re.compile(
        rf"\b(?:passed|failed|succeeded|went\s+green|went\s+red)\s+(?:at|on|in)\s+(?:step\s+\d+|commit\s+{_SHA}|"
        rf"{_SHA}\b|run\s+#?\d+|build\s+#?\d+)",
        re.I,
    ),
    # "PR #42 is draft", "PR #55 CI is pending", "the PR was merged", "pull request 12 got approved"
    "pr_state": re.compile(
        rf"\b(?:pr|pull\s+request|mr|merge\s+request)\s*#?\d*\b[^.;\n]{{0,30}}?\b{_STATE_VERB}(?:a\s+)?(?:draft|open|"
        r"opened|merged|closed|approved|pending|blocked|in\s+review|ready\s+for\s+review|awaiting\s+review|rebased|"
        r"reverted|green|red|failing|passing)\b",
        re.I,
    ),
    # "issue-delivery run mqw97i6m is running", "the Worker is on attempt 2", "the deploy is still in progress"
    "run_liveness": re.compile(
        r"\b(?:run|job|worker|task|deploy|deployment|rollout|server|service|agent|process|migration|session)\b"
        r"(?:\s+[a-z0-9][a-z0-9-]{3,})?[^.;\n]{0,20}?\b(?:is|are)\s+(?:now\s+|still\s+|currently\s+)?"
        r"(?:running|queued|stuck|alive|idle|in\s+progress|on\s+attempt\s+\d+|retrying|starting|restarting|"
        r"down|up\s+again|hung)\b",
        re.I,
    ),
    "attempt": re.compile(r"\bon\s+attempt\s+\d+\b", re.I),
}

# Words of a rule, a contract or a how-it-works fact: a statement holding one is durable whatever it mentions.
DURABLE_MARKERS = re.compile(
    r"\b(?:must|should|shall|always|never|do\s+not|don't|needs?\s+to|has\s+to|have\s+to|required?|requires|"
    r"before\s+(?:merg|deploy|releas|push)\w*|whenever|every\s+time|each\s+time|if\s+|when\s+|unless|policy|rule|"
    r"prefer|means|because|so\s+that|until|instead)\b",
    re.I,
)
# Kinds that hold durable knowledge by definition (a quoted status in a decision is an example, not a state).
DURABLE_KINDS = frozenset({"decision", "preference", "convention", "contract", "architecture"})
# A kind or tag that says the lesson records a status.
EPHEMERAL_LABELS = frozenset(
    {"status", "ephemeral", "transient", "ci-status", "ci-result", "pr-state", "pr-status", "run-state"}
)


@dataclass(frozen=True)
class EphemeraMatch:
    pattern: str  # a PATTERNS name, or "label" when only the kind or a tag says so
    matched: str  # the text that matched (or the label)


def ephemera_match(content: str, kind: str = "", tags: Sequence[str] = ()) -> EphemeraMatch | None:
    """Why this lesson is ephemera, or None when it is not (see the module docstring)."""
    if kind.lower() in DURABLE_KINDS:
        return None
    labels = {kind.lower(), *(t.lower() for t in tags)} & EPHEMERAL_LABELS
    durable = DURABLE_MARKERS.search(content) is not None
    if not durable:
        for name, pattern in PATTERNS.items():
            found = pattern.search(content)
            if found:
                return EphemeraMatch(name, found.group(0)[:200])
    if labels and not durable:
        return EphemeraMatch("label", sorted(labels)[0])
    return None
