"""What makes a statement momentary: the grammar the gardener reads ephemera with (docs/gardener.md, "Expired
ephemera").

A sentence states a momentary status when one of its *asserted* clauses (not a condition after if/when/until/…)
holds

- a **status subject** (a build, check, job, pipeline, PR/MR, deploy, migration, run, worker, test suite, review…)
  followed within a few words by a **state** (pending, running, failed, green, draft, merged, changes requested,
  flagged, restarting, heartbeats lost…), with no modal between them ("CI *must be* green" is a rule); a generic
  subject ("a PR", "any build", bare "PRs") states a habit, not a status, unless the sentence is anchored in time;
- or a state anchored by **temporal deixis**: "now", "today", "currently", "still", "again", "this morning", "yet",
  "at <sha>", "attempt N", a run, build or pipeline id.

A sentence is durable — a rule, a habit, a how-it-works fact — when it is not a status and holds a **rule marker**
(must, should, never, always, usually, every time, policy…), a condition (if, when, whenever, unless) or starts
with an imperative ("Retry once…", "Keep the MR in draft until…"). Words such as "until" and "do not" are not rule
markers: they sit inside status sentences too ("deploy is paused until the DBA is back", "do not retry, job 8812 is
still running").

Each vocabulary below is declared once, as regular-expression fragments; the inventory's pre-filter
(`lore.garden.ephemera.ephemera_candidates`) is derived from STATES.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.limits import GARDEN_SENTENCE_MAX


def _alternation(*phrases: str) -> str:
    return "|".join(phrases)


# ------------------------------------------------------------------ vocabulary

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_WEEKDAY = rf"(?:{'|'.join(WEEKDAYS)})"

SUBJECTS = _alternation(
    r"ci",
    r"builds?",
    r"pipelines?",
    r"jobs?",
    r"checks?",
    r"tests?",
    r"test\s+suite",
    r"suite",
    r"specs?",
    r"lint(?:er)?",
    r"workflows?",
    r"runs?",
    r"workers?",
    r"runners?",
    r"agents?",
    r"deploy(?:ment)?s?",
    r"rollouts?",
    r"releases?",
    r"migrations?",
    r"backfills?",
    r"cron(?:\s*jobs?)?",
    r"tasks?",
    r"prs?",
    r"pull\s+requests?",
    r"mrs?",
    r"merge\s+requests?",
    r"changes?",
    r"patch\s*sets?",
    r"diffs?",
    r"revisions?",
    r"reviews?",
    r"reviewers?",
    r"verifier",
    r"bots?",
    r"main",
    r"master",
    r"trunk",
    r"nightl(?:y|ies)",
    r"servers?",
    r"services?",
    r"pods?",
    r"nodes?",
    r"clusters?",
    r"replicas?",
    r"queues?",
    r"consumers?",
    r"scheduler",
    r"daemon",
    r"containers?",
    r"canary",
    r"incidents?",
    r"alerts?",
    r"stages?",
    r"steps?",
    r"e2e",
    r"mypy",
    r"ruff",
    r"pytest",
    r"jest",
    r"sync",
    r"export",
    r"import",
    r"upgrade",
    r"process",
    r"session",
    r"cache",
    r"qa",
    r"codecov",
    r"sentry",
    r"cls?",
    r"changelists?",
    r"farm",
    r"agent",
    r"rigs?",
    r"boards?",
    r"partitions?",
    r"pools?",
    r"buckets?",
    r"branch(?:es)?",
    r"sso",
    r"vpn",
    r"redis",
    r"staging",
    r"prod(?:uction)?",
    r"certs?",
    r"dashboards?",
    r"invites?",
    r"sessions",
    r"jobsets?",
    r"evaluat(?:or|ion)s?",
    r"builders?",
    r"flags?",
    r"audit",
    r"freeze",
    r"on[\s-]?call",
)
# A state, grouped by what it is the state of; the SQL pre-filter asks for each one's last word.
CI_STATES = _alternation(
    r"green",
    r"red",
    r"yellow",
    r"passing",
    r"passed",
    r"failing",
    r"failed",
    r"broken",
    r"erroring",
    r"errored",
    r"flaking",
    r"pending",
    r"queued",
    r"cancell?ed",
    r"aborted",
    r"timed\s+out",
    r"timing\s+out",
    r"succeeded",
    r"unstable",
    r"skipped",
)
REVIEW_STATES = _alternation(
    r"draft",
    r"open",
    r"merged",
    r"closed",
    r"approved",
    r"rejected",
    r"abandoned",
    r"blocked",
    r"rebased",
    r"reverted",
    r"conflicting",
    r"has\s+conflicts",
    r"changes?\s+requested",
    r"requested\s+changes",
    r"needs?\s+(?:rebase|review|work|a\s+rebase|a\s+review)",
    r"awaiting\s+(?:[\w@'.-]+\s+){0,2}?(?:review|approval|sign-?off)",
    r"waiting\s+(?:on|for)\s+(?:review|approval|a\s+review)",
    r"in\s+review",
    r"under\s+review",
    r"out\s+for\s+review",
    r"ready\s+(?:for\s+review|to\s+merge)",
    r"flagged",
    r"lgtm(?:'d|ed)?",
)
RUN_STATES = _alternation(
    r"running",
    r"stuck",
    r"hung",
    r"hanging",
    r"stalled",
    r"idle",
    r"alive",
    r"in\s+progress",
    r"in\s+flight",
    r"retrying",
    r"starting",
    r"restarting",
    r"restarted",
    r"crash(?:ing|ed)",
    r"crash-?looping",
    r"oom-?killed",
    r"killed",
    r"dead",
    r"down",
    r"up\s+again",
    r"back\s+up",
    r"degraded",
    r"unresponsive",
    r"paused",
    r"halted",
    r"on\s+hold",
    r"backlogged",
    r"lagging",
    r"rolling\s+(?:out|back)",
    r"being\s+(?:re-?run|rebuilt|re-?\w+ed|backfilled|replayed|restored)",
    r"rolled\s+(?:out|back)",
    r"deploying",
    r"deployed",
    r"half\s+done",
    r"half[\s-]?way",
    r"firing",
    r"ongoing",
    r"mitigated",
    r"offline",
    r"frozen",
    r"locked",
    r"drained",
    r"cordoned",
    r"throttled",
    r"flapping",
    r"bricked",
    r"wedged",
    r"preempted",
    r"requeued",
    r"evicted",
    r"bouncing",
    r"disabled\s+(?:temporarily|for\s+now)",
    r"temporarily\s+(?:disabled|down|paused|off|closed|read-only|unavailable)",
    r"unavailable",
    r"read-only\s+(?:while|until|for|now)",
    r"throwing",
    r"returning\s+(?:\d{3}s?|errors?|5xx|4xx)",
    r"sitting\s+(?:at|in|on)",
    r"not\s+started",
    r"in\s+effect",
    r"dropped\s+out",
    r"boot-?looping",
    r"throttling",
    r"yanked",
    r"(?:out|away)\s+(?:until|till)",
    r"off\s+sick",
    r"on\s+(?:leave|pto|holiday|vacation)",  # found by its last word (the pre-filter's anchor), as every state
    r"on\s+parental\s+leave",
    r"covering",
    r"waiting\s+(?:on|for)",
    r"half[\s-]?(?:applied|done|finished|migrated|deployed)",
    r"mid-?way",
    r"outage",
    r"under-?replicated",
    r"switched\s+(?:on|off)",
    r"turned\s+(?:on|off)",
    r"\d+\s+(?:failures|errors|flakes|failing\s+tests)",
    r"on\s+loan",
    r"being\s+\w+(?:ed|en)",
    r"suspended",
    r"unhealthy",
    r"in\s+maintenance(?:\s+mode)?",
    r"not\s+(?:reporting|responding|syncing|booting|reachable|resolving)",
    r"shelved",
    r"processing",
    r"investigating",
    r"bisecting",
    r"triaging",
    r"being\s+(?:triaged|investigated|reviewed|fixed|processed|rolled\s+back|deployed|bisected|retried)",
    r"queu(?:e?ing)",
    r"in\s+(?:queue|the\s+queue)",
    r"backed\s+up",
    r"on\s+attempt\s+\d+",
    r"(?:stopped|stops)\s+sending\s+heartbeats",
    r"(?:missing|lost|missed)\s+(?:heartbeats?|its\s+heartbeats?|their\s+heartbeats?)",
    r"heartbeats?\s+(?:lost|missing|stopped)",
    r"missed\s+(?:its|the|last|this|today's|yesterday's|tonight's)",
)
# States that are a property when unanchored ("the suite is flaky on CI") and a status only with a time word.
TEMPORAL_ONLY_STATES = _alternation(
    r"flaky", r"slow", r"sluggish", r"laggy", r"noisy", r"busy", r"pass(?:es)?", r"fail(?:s)?", r"on[\s-]call"
)
STATES = _alternation(CI_STATES, REVIEW_STATES, RUN_STATES, TEMPORAL_ONLY_STATES)

# What anchors a statement in a moment. Time words and a commit or an attempt are strong: they anchor a status even
# beside a rule word ("do not retry, job 8812 is still running"). Ids and "again" are weak: they anchor a state but
# not against a rule.
TEMPORAL_DEIXIS = _alternation(
    # "now" is a moment, but "we now run…", "are now upgraded" state a change of practice: durable.
    r"now(?!\s+and\s+(?:then|again))(?!\s+(?:\w+s|\w+ed|run|use|go|live|need|require|build|deploy|ship|point|get|have|take|make|keep|"
    r"happen|come|sit|show|wait|cap|schedule|pin|gate|block|refuse|reject|skip|retry))",
    r"right\s+now",
    r"today",
    r"tonight",
    r"yesterday",
    r"currently",
    r"at\s+the\s+moment",
    r"atm",
    r"still(?=\s+(?:\w+ing|a\s+draft|draft|red|green|pending|down|open|stuck|in\s+progress|on\s+attempt|blocked|"
    r"offline|broken|unresolved|up|there|at\s+\d))",
    r"yet",
    r"so\s+far",
    r"this\s+cycle",
    r"(?:twice|times|failed|failing|red|green|nights?|days?|runs?|builds?|mornings?)\s+in\s+a\s+row",
    rf"since\s+(?:{_WEEKDAY}|last\s+\w+)",
    r"(?:today's|tonight's|this\s+morning's|yesterday's)",
    r"until\s+(?:then|it's\s+back|it\s+is\s+back)",
    r"(?:until|till)\s+(?:it|that|this|they)\s+(?:finishes|is\s+done|completes|lands|is\s+back|ends|clears|recovers|"
    r"confirms)",
    r"(?:until|till)\s+(?:it's|it\s+is|they're|they\s+are)\s+(?:finished|done|over|back|through)",
    r"for\s+now",
    r"for\s+the\s+(?:moment|night|day)",
    r"while\s+(?:we|i|they|someone)\b",
    r"as\s+of\s+(?:the\s+)?(?:last|latest)\s+\w+",
    r"as\s+of\s+(?:this\s+writing|writing|today|now)",
    r"at\s+the\s+time\s+of\s+writing",
    r"as\s+we\s+speak",
    r"this\s+(?:morning|afternoon|evening|week|weekend|sprint)",
    r"(?:this|today's|yesterday's)\s+morning's",
    r"overnight",
    r"since\s+the\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?\s+\w+",
    r"current\s+(?:pr|mr|build|run|branch|release|sprint|deploy|rotation|pipeline)",
    r"since\s+(?:build|version|release|v)\s*[\d.]+",
    r"since\s+the\s+(?:[\w.-]+\s+){0,3}(?:bump|deploy|release|upgrade|update|merge|rollout|outage|incident|migration|cutover)",
    r"until\s+the\s+(?:[\w-]+\s+){0,3}(?:finishes|is\s+done|ends|lands|is\s+back|is\s+over|completes|clears|is\s+fixed|"
    r"arrives|is\s+replaced|comes\s+back|ships)",
    r"temporarily",
    r"for\s+a\s+bit",
    r"in\s+the\s+meantime",
    r"for\s+the\s+time\s+being",
    r"since\s+(?:lunch|noon|(?:this\s+morning's|today's|yesterday's|last\s+night's|the\s+last)\s+\w+)",
    rf"until\s+(?:the\s+)?(?:{_WEEKDAY}|tomorrow|tonight|noon|eod|end\s+of\s+(?:the\s+)?(?:day|week)|next\s+\w+)",
    r"until\s+\d{1,2}(?::\d\d)?\s*(?:am|pm|utc)?\b",
    r"(?-i:until\s+(?:[A-Z][a-zà-ÿ]+|IT|she|he|they|someone)\s+(?:\w+s|is|are|has|gets|gives)\b)",
    rf"(?:after|by)\s+(?:lunch|noon|tonight|tomorrow|eod|{_WEEKDAY})",
    r"last\s+night",
    r"\d+\s*(?:minutes?|mins?|m|hours?|hrs?|h)\s+ago",
    r"tomorrow",
    r"since\s+~?(?:this\s+morning|yesterday|\d{1,2}(?::\d\d)?\s*(?:am|pm)|\d{1,2}:\d\d)",
    r"(?:twice|three\s+times|\d+\s+times)\s+(?:today|this\s+week|in\s+a\s+row)",
    r"(?:at|on|since)\s+(?:commit\s+)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}",
    r"(?:at|on|in)\s+step\s+\d+",
    r"(?:attempt|retry|try)\s+#?\d+",
    r"(?:\d+(?:st|nd|rd|th)|second|third|fourth|fifth)\s+(?:attempt|retry|try)",
)
ID_DEIXIS = _alternation(
    r"again",
    r"still(?!\s+(?!(?:is|has|was|does|fails|passes|needs|waits)\b)[a-z]+[^s'\W]s\b)",
    # "just failed" is recent; "their tests just get skipped", "it just works" say simply, not recently
    r"just(?!\s+(?:gets?|[a-z]+[^s\W]s)\b)",
    r"earlier",
    r"latest",
    r"eta",
    # "the last release tag" a hotfix is cut from names a kind of tag, not a moment
    r"last\s+(?:push|build|run|nightly|deploy|release|commit)(?!\s+(?:tag|branch)\b)",
    r"(?:run|build|job|pipeline|deploy|deployment|workflow|task|change|patch\s*set|cl|changelist)\s+#?\d{2,}",
    r"(?:run|build|job|pipeline|deploy|workflow)\s+(?=[a-z0-9-]*\d)[a-z0-9-]{6,}",
    r"#\d{2,}",
    r"this\s+(?:branch|pr|mr|release|build|run|pipeline|deploy|change)",
    r"!\d{2,}",
    r"d\d{3,}",
)
DEIXIS = _alternation(TEMPORAL_DEIXIS, ID_DEIXIS)
# States that only ever describe one thing at one moment: they need no subject and no time word.
MOMENTARY_STATES = _alternation(
    r"in\s+progress",
    r"in\s+flight",
    r"ongoing",
    r"half\s+done",
    r"half[\s-]?way",
    r"mid-?way",
    r"changes?\s+requested",
    r"requested\s+changes",
    r"needs?\s+(?:rebase|a\s+rebase)",
    r"awaiting\s+(?:review|approval)",
    r"waiting\s+(?:on|for)\s+(?:review|approval|a\s+review)",
    r"ready\s+(?:for\s+review|to\s+merge)",
    r"on\s+attempt\s+\d+",
    r"crash-?looping",
    r"(?:stopped|stops)\s+sending\s+heartbeats",
    r"(?:missing|lost|missed)\s+(?:heartbeats?|its\s+heartbeats?|their\s+heartbeats?)",
    r"heartbeats?\s+(?:lost|missing|stopped)",
    r"being\s+(?:triaged|investigated|reviewed|fixed|processed|rolled\s+back|deployed|bisected|retried)",
)
# Phrases that state a moment whatever their subject, each with the whole words a lesson holding it holds (what the
# SQL pre-filter finds it by: lore.garden.ephemera): the writer's own work in progress, how far a piece of work has
# got, a trend being watched, someone at lunch.
MOMENTARY_PHRASES: dict[str, tuple[str, ...]] = {
    # "I'm bisecting the regression": what the writer is doing as they write
    r"(?:^|[,;:]\s*)\W*(?:i'm|i\s+am|im)\s+(?:\w+\s+)?\w+ing\b": ("m", "am", "im"),
    # "Waiting on the wet lab to re-sequence lane 3": the writer waiting
    r"(?:^|[,;:]\s*)\W*(?:still\s+)?(?:waiting|blocked|stuck)\s+(?:on|for|by)\b|^\W*blocked\s*:": (
        "waiting",
        "blocked",
        "stuck",
    ),
    # "9 changes ahead of ours": a place in a queue
    r"\b\d+\s+(?:[\w-]+\s+)?ahead\s+of\s+(?:ours|us|mine|me|it)\b": ("ahead",),
    # "canary at 5%, watching error rate"
    r"[,;]\s*(?:watching|monitoring|keeping\s+an\s+eye\s+on)\b": ("watching", "monitoring", "keeping"),
    # "60 of 140 done", "9/14 uploaded"
    r"\b\d+\s*(?:of|/)\s*\d+\s+(?:[\w-]+\s+){0,2}(?:done|finished|complete|completed|uploaded|migrated|processed|"
    r"left|remaining|rated|converted|imported|indexed|reviewed|moved|loaded|passed|synced)\b": (
        "done",
        "finished",
        "complete",
        "completed",
        "uploaded",
        "migrated",
        "processed",
        "left",
        "remaining",
        "rated",
        "converted",
        "imported",
        "indexed",
        "reviewed",
        "moved",
        "loaded",
        "passed",
        "synced",
    ),
    # "about half the targets done"
    r"\b(?:about\s+|roughly\s+|~)?half\s+(?:of\s+)?(?:the\s+)?(?:[\w-]+\s+){0,2}(?:done|finished|migrated|converted)\b": (
        "half",
    ),
    # "step 5 of 9", "day 9 of 14"
    r"\b(?:step|day|week|shard|batch|wave|phase|cycle)\s+\d+\s*(?:of|/)\s*\d+": (
        "step",
        "day",
        "week",
        "shard",
        "batch",
        "wave",
        "phase",
        "cycle",
    ),
    # "41% done", "ETA ~6h": how far a piece of work has got, and how long it has to go
    r"\b\d{1,3}(?:\.\d+)?\s*%\s+(?:done|complete|completed|finished|migrated|uploaded|rolled\s+out)\b": (
        "done",
        "complete",
        "completed",
        "finished",
        "migrated",
        "uploaded",
        "rolled",
    ),
    # approvals or signatures gathered so far: "MR !311 has 1 of 2 approvals", "the upgrade tx has 2/5 sigs"
    r"\b(?:has|have|got|at|with)\s+\d+\s*(?:of|/)\s*\d+\s+(?:[\w-]+\s+)?(?:approvals?|sigs|signatures|votes|acks|"
    r"lgtms?|\+1s)\b": ("approval", "approvals", "sigs", "signatures", "votes", "acks", "lgtm", "lgtms"),
    r"\beta\s*:?\s*~?\d+(?:\.\d+)?\s*(?:h|hrs?|hours?|m|mins?|minutes?|d|days?)\b": ("eta",),
    # how much of a budget is used up: "vcpkg cache is 94% full", "build minutes at 87% of the monthly quota"
    r"\b\d{1,3}(?:\.\d+)?\s*%\s+(?:full|used|consumed|utili[sz]ed|of\s+(?:the\s+|its\s+|our\s+|their\s+)?"
    r"(?:\w+\s+){0,2}(?:quota|budget|capacity|allocation|allowance))\b": (
        "full",
        "used",
        "consumed",
        "utilised",
        "utilized",
        "quota",
        "budget",
        "capacity",
        "allocation",
        "allowance",
    ),
    r"\b(?:quota|usage|allocation|disk|minutes|credits?|storage|cpu|memory|share)\s+(?:[\w-]+\s+){0,4}?"
    r"(?:is\s+)?(?:at|pegged\s+at|hit|reached)\s+~?\d{1,3}(?:\.\d+)?\s*%": (
        "quota",
        "usage",
        "allocation",
        "disk",
        "minutes",
        "credit",
        "credits",
        "storage",
        "cpu",
        "memory",
        "share",
    ),
    # how long one thing has been in its state: "has been 'In Review' for 31 hours", "processing for over 2 hours."
    r"\b(?:has|have|'s)\s+been\s+(?:[\w'-]+\s+){0,4}for\s+(?:over\s+|about\s+|~)?\d+\s*"
    r"(?:hrs?|hours?|days?|min(?:ute)?s?)\b"
    r"|\b[a-z]+ing\s+for\s+(?:over\s+|about\s+|~)?\d+\s*(?:hrs?|hours?|min(?:ute)?s?)\s*(?:[,.;!]|$)": (
        "hours",
        "hour",
        "hrs",
        "hr",
        "days",
        "day",
        "minutes",
        "minute",
        "mins",
        "min",
    ),
    # one day named as a due date: "results expected Thursday", "comments due Friday", "vote closes Sunday"
    rf"\b(?:expected|due|closes|submitted|back|returns)\s+(?:on\s+)?(?:next\s+)?{_WEEKDAY}\b(?!s)": WEEKDAYS,
    # "Watching error rate for the next hour": the writer's work for a stretch of time starting now
    r"^\W*[a-z]+ing\s+[^.;]{0,60}\bfor\s+the\s+next\s+(?:hour|\d+|few|couple|half)": ("next",),
    # "wheels building now", "tp-equities restarting right now": a piece of work under way as the note is written
    r"\b(?!(?:during|nothing|something|anything|everything|morning|evening|thing|string|spring|ring|bring|king|"
    r"ceiling|ping|building|setting|naming|meaning|warning|pricing|logging|routing|tooling|testing|staging|"
    r"pending)\b)[a-z]{3,}ing\s+(?:right\s+)?now\s*(?:[,.;!]|$)": ("now",),
    # "lag is 120k and climbing"
    r"\b(?:and|still)\s+(?:climbing|growing|rising|falling|dropping|increasing|decreasing)\b": (
        "climbing",
        "growing",
        "rising",
        "falling",
        "dropping",
        "increasing",
        "decreasing",
    ),
    # "rerun requested", "recheck requested"
    r"\b(?:rerun|retry|recheck|re-?review|review)\s+requested\b": ("requested",),
    # "back around 14:00": when someone or something returns, a clause of its own
    r"(?:^|[,;]\s*)(?:expected\s+)?back\s+(?:around|at|by|about)\s+~?\d{1,2}(?::\d\d)?\b": ("back",),
    # "staged rollout of 4.3.0 on Android at 20%": one version's rollout and how far it has got
    r"\brollout\s+of\s+v?\d[\w.-]*(?:\s+(?:on|to|in|for)\s+[\w-]+)?\s+(?:is\s+)?at\s+~?\d{1,3}(?:\.\d+)?\s*%": (
        "rollout",
    ),
    # "watching the false positive rate before going to 50": the writer's next step on the thing
    r"^\W*(?:watching|monitoring)\s+(?:[\w-]+\s+){0,5}(?:before|until|till)\s+(?:going|moving|bumping|promoting|"
    r"ramping|shifting|rolling|flipping)\b[^.;]{0,30}[.!]?\s*$": ("watching", "monitoring"),
    # "the duty analyst is at lunch"
    r"\bat\s+lunch\b": ("lunch",),
    # "We're blocked on the UDS implementation"
    r"\b(?:we're|we\s+are|i'm|i\s+am)\s+(?:still\s+)?(?:waiting|blocked|stuck)\s+(?:on|for|by)\b": (
        "waiting",
        "blocked",
        "stuck",
    ),
    # "I hold the lock on the schema swap", "me (@jonas) holding the release-train lock"
    r"\b(?:i|me)\b[^.;]{0,20}\b(?:hold|holding)\s+(?:the\s+|an?\s+)?(?:exclusive\s+)?[\w-]*\s*(?:lock|checkout)\b": (
        "hold",
        "holding",
    ),
    # a handoff: "Handoff: …", "Leaving the HL7 parser refactor for Monday"
    r"^\W*handoff\b": ("handoff",),
    rf"^\W*leaving\s+[^.;]{{0,80}}\b(?:for|until|till|on)\s+(?:tomorrow|{_WEEKDAY}|next\s+\w+|later|after\s+\w+)": (
        "leaving",
    ),
    # a note's last word says what the writer is doing about it: "cs:18230 broke the shader variants, reverting"
    r"(?:^|,\s*)(?:[\w.-]+\s+)?(?:is\s+|are\s+|'s\s+)?(?:investigating|reverting|retrying|fixing(?:\s+it)?|"
    r"rolling\s+back|looking\s+into\s+it|on\s+it)\s*[.!]?\s*$": (
        "investigating",
        "reverting",
        "retrying",
        "fixing",
        "rolling",
        "looking",
    ),
    # "will drain Monday": the next step on one named day
    rf"\bwill\s+[a-z]+\s+(?:on\s+)?(?:next\s+)?{_WEEKDAY}\b(?!s)": WEEKDAYS,
    # "2/3 replicas on the new image": how far a rollout over a fleet has got
    r"\b\d+\s*(?:of|/)\s*\d+\s+(?:replicas|pods|nodes|hosts|instances|servers|regions|gateways|devices)\s+"
    r"(?:on\s+(?:the\s+)?(?:new|latest|v?\d)|updated|upgraded|migrated|drained|patched|rebooted|flashed)": (
        "replicas",
        "pods",
        "nodes",
        "hosts",
        "instances",
        "servers",
        "regions",
        "gateways",
        "devices",
    ),
    # "disk full", "quota exceeded"
    r"\b(?:disk|volume|quota|inbox|mailbox)\s+(?:is\s+)?(?:full|exceeded|exhausted)\b": (
        "full",
        "exceeded",
        "exhausted",
    ),
    # "still not delivered"
    r"\bstill\s+(?:not|no)\b": ("still",),
    # someone at work on something now: "@nadia reviewing PR #412 now"
    r"@[\w.-]+\s+(?:is\s+)?\w+ing\b[^.;]{0,60}\b(?:now|currently|today)\b": ("now", "currently", "today"),
    # the writer's action with its moment: "Scaling the Redis plan now", "Flipping the catalog at 16:00 UTC"
    r"(?:^|[,;]\s*)\W*(?!during\b|using\b|including\b|according\b|starting\b|beginning\b|standing\b|existing\b|"
    r"pending\b)"
    r"[a-z]+ing\s+(?:[\w@./:#'-]+\s+){0,8}?(?:now(?!\s+and\s+(?:then|again))|right\s+now|today|tonight|tomorrow)\b": (
        "now",
        "today",
        "tonight",
        "tomorrow",
    ),
}
# A rule, a habit or a how-it-works fact.
# Words of a habit, a design or an explanation: they make a sentence durable even beside a time word ("a pipeline
# still running at 60 minutes is killed, which is why…").
HABIT_MARKERS = _alternation(
    r"(?:which|that)\s+is\s+why",
    r"that's\s+why",
    r"on\s+purpose",
    r"deliberately",
    r"(?:the\s+)?only\s+way\s+to",
    r"intentionally",
    r"by\s+design",
    r"usually",
    r"typically",
    r"normally",
    r"generally",
    r"almost\s+always",
    r"by\s+default",
    r"every\s+time",
    r"whenever",
    r"(?:is|are|that's|it's)\s+(?:normal|expected)",
    r"after\s+\d+\s+(?:days|hours|minutes|weeks|months)\b",
    rf"(?:every|each)\s+(?:other\s+|\d+\s+|few\s+)?(?:nights?|days?|mornings?|evenings?|weeks?|months?|quarters?|years?|hours?|"
    rf"minutes?|{_WEEKDAY}|weekends?|releases?|sprints?)",
    r"(?:first|second|third|last)\s+\w+\s+of\s+(?:every|each|the)\s+month",
    r"\d{1,2}:\d\d\s*(?:to|-|–|until)\s*\d{1,2}:\d\d",
    r"(?:starts?|runs?|happens?|begins?|kicks\s+off)\s+(?:daily\s+|nightly\s+)?at\s+\d{1,2}(?::\d\d)?",
    r"as\s+expected",
)
RULE_MARKERS = _alternation(
    HABIT_MARKERS,
    # what something does to a state, as a habit: "stays red", "the run goes green as soon as …", "a single
    # approval leaves the PR blocked"
    r"(?:stays?|remains?|keeps?|turns?|makes?|goes|leaves)\s+(?:[\w-]+\s+){0,4}(?:green|red|yellow|pending|queued|open|closed|draft|"
    r"blocked|disabled|locked|failed|stuck)",
    r"automatically",
    r"(?:isn't|is\s+not|aren't|are\s+not)\s+\w+\s+until",
    r"reserved",
    r"rarely",
    r"no\s+longer",
    r"since\s+then",
    r"from\s+now\s+on",
    r"we\s+now",
    r"now\s+(?:\w+s|\w+ed|run|use|live|cap|pin|gate|block)\b",
    r"^\W*in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)\w*\b",
    r"^\W*in\s+(?:19|20)\d\d\b",
    r"^\W*(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?:19|20)\d\d\b",
    r"^\W*(?:lessons?\s+(?:from|learned|learnt)|learned|takeaway|post-?mortem|retro(?:spective)?)\b",
    r"^\W*last\s+(?:year|month|quarter|winter|summer|spring|fall|autumn|black\s+friday|release)\b",
    r"by\s+the\s+way",
    r"must",
    r"mustn't",
    r"should",
    r"shouldn't",
    r"shall",
    r"always",
    r"never(?!\s+(?:\w+ed|became|came|got|went|ran|made|took|saw|showed|left|found|sent|began|hit|reached)\b)",
    r"needs?\s+to",
    r"has\s+to",
    r"have\s+to",
    r"required",
    r"requires?",
    r"each\s+time",
    r"often",
    r"policy",
    r"rule",
    r"prefer",
    r"make\s+sure",
    r"ensure",
    r"remember\s+to",
    r"otherwise",
    r"so\s+that",
    r"in\s+order\s+to",
    r"tends?\s+to",
    r"means",
    # a symptom and what it means: "Drone 'pending' on arm64 = Pi runner rebooting", "LNK1201 … = agent disk full"
    r"(?<=\s)=(?=\s)",
    r"per\s+(?:push|commit|pr|mr|run|build)",
    r"on\s+every",
    r"every\s+(?:push|commit|pr|mr|run|build|night|day|morning|release|merge)",
    r"nightly\s+at",
)
# Words of a rule that also sit in statements about a moment ("only hotfixes until Monday"): they keep a sentence
# from being a status, but beside an anchored status they are about that moment, not a rule.
WEAK_RULE_MARKERS = _alternation(r"(?<!the\s)(?<!an\s)only", r"per\s+the")
# Clauses that state a condition or a time, not an assertion: a state inside one is not asserted.
SUBORDINATORS = _alternation(
    r"if",
    r"instead\s+of",
    r"rather\s+than",
    r"b4",
    r"when",
    r"whenever",
    r"while",
    # "until Friday", "until 16:00" say when, not on what condition: a time, not a clause
    rf"until(?!\s+(?:the\s+)?(?:next\s+)?(?:{_WEEKDAY}|tomorrow|tonight|noon|eod|\d|~\d|end\s+of))",
    r"unless",
    r"before",
    r"after",
    r"as\s+soon\s+as",
    r"in\s+case",
    # what may follow, not what is: "fails the pipeline at CVSS ≥ 7, so main can go red overnight"
    r"so\s+(?=(?:[\w`'-]+\s+){1,3}(?:can|could|may|might)\s)",
    # the consequence of not following advice: "use the `large` shape or the container gets OOM-killed"
    r"or\s+(?:else\s+)?(?=(?:the|your|it|you|we)\s)",
    r"once(?=\s+(?:the|a|an|it|we|you|they|ci|all|every|our|its|their))",
    r"who",
    r"which",
    r"what",
    r"where",
)
CONDITIONS = r"if|when|whenever|unless|in\s+case|without\s+(?:it|this|that|them)\b"
# A modal before a state makes it a requirement, not a status: "must be green", "needs to be approved".
MODALS = (
    r"(?:must|mustn't|should|shouldn't|shall|can|cannot|can't|could|would|may|might|will|won't|"
    r"needs?\s+to|has\s+to|have\s+to|ought\s+to|to)\s+(?:(?:not|still|also|even|sometimes|easily|never|briefly)\s+)?"
    r"(?:be|get|stay|go|turn|become|remain|come\s+back)\b"
)
GENERIC_DETERMINERS = r"a|an|any|every|each|no|most|some|many|all|other|nothing|none|nobody|noone"
# Verbs a sentence of advice starts with.
IMPERATIVES = _alternation(
    r"use",
    r"build\s+(?:with|using|via|from|it|them|locally)",  # "Build with …", not "build 88123 red again"
    r"run",
    r"set",
    r"add",
    r"keep",
    r"avoid",
    r"prefer",
    r"make",
    r"check",
    r"call",
    r"pass",
    r"pin",
    r"bump",
    r"retry",
    r"restart",
    r"wait",
    r"ask",
    r"put",
    r"rerun",
    r"re-run",
    r"disable",
    r"enable",
    r"install",
    r"remove",
    r"delete",
    r"skip",
    r"mark",
    r"tag",
    r"rebase",
    r"revert",
    r"split",
    r"clear",
    r"point",
    r"give",
    r"take",
    r"start",
    r"stop",
    r"do\s+not",
    r"don't",
    r"let",
    r"treat",
    r"trust",
    r"expect",
    r"ping",
    r"page",
    r"file",
    r"bisect",
    r"quarantine",
    r"squash",
    r"verify",
    r"follow",
    r"look",
    r"grep",
    r"escalate",
    r"tell",
    r"wrap",
    r"guard",
    r"rotate",
    r"see",
    r"note",
    r"beware",
    r"watch",
    r"name",
    r"scope",
    r"send",
    r"post",
    r"report",
    r"log",
    r"fix",
    r"seed",
    r"prune",
    r"configure",
    r"upgrade",
    r"downgrade",
    r"regenerate",
    r"clean",
    r"drain",
    r"cordon",
    r"lock",
    r"increase",
    r"raise",
    r"lower",
    r"reduce",
    r"limit",
    r"cap",
)

_SUBJECT = re.compile(rf"\b(?:{SUBJECTS})\b", re.I)
_STATE = re.compile(rf"(?<![\w-])(?:{STATES})\b", re.I)
_MOMENTARY = re.compile(rf"(?:{MOMENTARY_STATES})", re.I)
# Each phrase with the words it holds: a sentence is searched only for the phrases whose words it holds (one set of
# its words, then a few regular expressions instead of every one of them at every position). The SQL pre-filter
# finds "…, infra on it" by the lesson's state word, not by "it" (every lesson holds one); here "it" gates it.
_PHRASES = tuple(
    (re.compile(phrase, re.I), frozenset(words) | ({"it"} if r"on\s+it" in phrase else set()))
    for phrase, words in MOMENTARY_PHRASES.items()
)
_LETTERS = re.compile(r"[a-z]+")


def _momentary_phrase(sentence: str, subordinate: list[tuple[int, int]]) -> re.Match[str] | None:
    """The first momentary phrase of the sentence's asserted clauses (the earliest; at one place, the first
    declared), or None."""
    words = set(_LETTERS.findall(sentence.lower()))
    found: re.Match[str] | None = None
    for pattern, needs in _PHRASES:
        if words.isdisjoint(needs):
            continue
        match = next((m for m in pattern.finditer(sentence) if not _inside(m.start(), subordinate)), None)
        if match is not None and (found is None or match.start() < found.start()):
            found = match
    return found


_TEMPORAL = re.compile(rf"(?<![\w-])(?:{TEMPORAL_DEIXIS})(?![\w-])", re.I)
_ANCHOR = re.compile(rf"(?<![\w-])(?:{DEIXIS})(?![\w-])", re.I)
_RULE = re.compile(rf"(?:^|(?<![\w-]))(?:{RULE_MARKERS})(?![\w-])", re.I)
_WEAK_RULE = re.compile(rf"(?<![\w-])(?:{WEAK_RULE_MARKERS})\b", re.I)
_TEMPORAL_ONLY = re.compile(rf"(?:{TEMPORAL_ONLY_STATES})", re.I)
# In progress: "sessions getting evicted", "is being migrated".
_PROGRESSIVE_BEFORE = re.compile(r"\b(?:getting|being|keeps\s+getting)\s+$", re.I)
# A count makes a plural one thing at one moment: "212 jobs pending".
_COUNT_BEFORE = re.compile(r"\b\d[\d,.]*\s+(?:[\w-]+\s+)?$")
# Any noun phrase right before its verb and the state: "the function is throttled", "Incident is open".
_COPULA_BEFORE = re.compile(
    r"(?:^|[,;:]\s*|\band\s+)(?P<np>(?:the\s+|our\s+|this\s+)?[\w./-]+(?:\s+[\w./-]+){0,6}?)\s+"
    r"(?:is|are|was|were|has\s+been|have\s+been|isn't|aren't|got)\s+(?:\w+\s+)?$",
    re.I,
)
_SUBORDINATE = re.compile(rf"\b(?:{SUBORDINATORS})\b[^,;:()—–]*", re.I)
# A relative clause of a kind of thing describes the kind: "A test that fails today but passed yesterday isn't using
# the fixed clock" (of one thing, "the migration that started at 9 is still running", it stays asserted).
_KIND_CLAUSE = re.compile(
    r"\b(?:a|an|any|every|each|no)\s+(?:[\w-]+\s+){0,2}?(?:that|which|who)\b[^,;:()—–]*", re.I
)
_CONDITION = re.compile(rf"\b(?:{CONDITIONS})\b", re.I)
# A state of one thing, told of each of a kind: "… is skipped on them", "… stays pending for those".
_KIND_AFTER = re.compile(r"\s+(?:on|for|to|in)\s+(?:them|those|these|such)\b", re.I)
_MODAL_BEFORE = re.compile(rf"\b{MODALS}\s+(?:\w+\s+)?$", re.I)
_ATTRIBUTIVE_BEFORE = re.compile(r"\b(?:a|an|the|this|that|any|every|each|no)\s+$", re.I)
# …and a noun after it: "a draft PR" describes the PR, "is still a draft," or "a change requested by" does not.
_NOUN_AFTER = re.compile(
    r"\s+(?!by\b|on\b|in\b|at\b|for\b|from\b|with\b|since\b|to\b|until\b|after\b|because\b|and\b|but\b)[a-z]",
    re.I,
)
# States that are adjectives: before a noun and after no verb they describe a kind of thing ("pending mutations are
# capped", "failing tests are quarantined"), not a moment.
ADJECTIVE_STATES = (
    r"green|red|yellow|pending|offline|draft|open|stuck|idle|alive|dead|down|broken|frozen|flaky|slow|unstable|"
    r"degraded|unresponsive|busy|running|hung|locked|read-only|queued|blocked|stalled|paused|disabled|"
    r"cordoned|drained|suspended|stale|merged|cancell?ed|closed|approved|rejected|skipped|aborted|"
    r"reverted|abandoned|succeeded"
)
_ADJECTIVE = re.compile(rf"(?:{ADJECTIVE_STATES})", re.I)
_VERB_BEFORE = re.compile(
    r"\b(?:is|are|was|were|been|be|being|got|get|gets|went|turned|came\s+back|'s|'re|now|still|again|all)\s+"
    r"(?:\w+\s+)?$",
    re.I,
)
_WORD_AFTER = re.compile(
    r"/[a-z]|\s+(?!(?:by|on|in|at|for|from|with|since|to|until|after|because|and|but|so|or|again|today|now|twice|"
    r"once|yet|still|right|this|since|as|per|while|when|if|overnight|all|for|atm|currently|tonight|until|behind|"
    r"locally|pending|due|again|here|there|over|yesterday|earlier|tomorrow|last)\b)[a-z]",
    re.I,
)
# Time words that pin a whole clause to a moment, whatever it states: "Aisha is away this week", "p95 latency is 410 ms
# at the moment", "only ~40% of the nodes migrated so far". ("now" and "still" are left out: "we now run…", "paused
# consumers still hold their partitions" state how things work.)
MOMENT_DEIXIS = _alternation(
    r"today",
    r"tonight",
    r"right\s+now",
    r"at\s+the\s+moment",
    r"currently",
    r"so\s+far",
    r"for\s+now",
    r"this\s+(?:morning|afternoon|evening|week|weekend|cycle|sprint)",
    r"overnight",
    r"as\s+of\s+(?:this\s+writing|writing|today)",
    r"(?:today's|tonight's|this\s+morning's)",
    r"(?:\d+|a\s+few|an?)\s*(?:minutes?|mins?|m|hours?|hrs?|h)\s+ago",
    rf"since\s+(?:{_WEEKDAY}|yesterday|lunch|noon|this\s+morning|last\s+night)",
    rf"until\s+(?:{_WEEKDAY}|tomorrow|tonight|then|noon|eod)",
    r"(?:twice|times|failed|failing|red|green|nights?|days?|runs?|builds?|mornings?)\s+in\s+a\s+row",
    r"tomorrow(?:\s+morning)?",
    r"since\s+~?\d{1,2}:\d\d",
    r"since\s+the\s+\d{1,2}:\d\d\s+\w+",
    r"all\s+(?:weekend|morning|afternoon|night)",
    r"later\s+today",
    r"next\s+week",
    r"this\s+weekend",
    rf"(?:on|by|until|till|through|before|after)\s+(?:next\s+)?{_WEEKDAY}",
    r"(?:until|till)\s+the\s+\d{1,2}(?:st|nd|rd|th)",
    r"in\s+\d+\s+days",
    r"still\s+(?:\w+ing|pending|down|stuck|red|open|blocked|offline|broken|in\s+progress|on\s+attempt)",
)
_MOMENT = re.compile(rf"\b(?:{MOMENT_DEIXIS})\b", re.I)
# "today's playtest build has 212 crash reports", "the sandbox returns 503 since this morning": one day's instance
# of a thing, or a state that began at a moment, is of that moment whatever verb describes it.
_INSTANCE_OR_START = re.compile(
    r"(?:today's|tonight's|this\s+morning's)\s+(?:[\w-]+\s+){0,2}(?:builds?|runs?|nightly|deploys?|releases?|"
    r"batch|jobs?|imports?|exports?|syncs?|backups?|tests?|playtests?|pipelines?)\b|since\b",
    re.I,
)
# The calendar part of it (not "still running"): what lets a condition sit beside a status.
_CALENDAR = re.compile(rf"\b(?!still\b)(?:{MOMENT_DEIXIS})\b", re.I)
# A clause the moment rule may read: it says what something *is* or *did*, not what it shows or has.
_PREDICATE = re.compile(
    r"\b(?:is|are|was|were|'s|'re|isn't|aren't|wasn't|weren't|has\s+been|have\s+been|had\s+been|got|went)\b",
    re.I,
)
# Verbs that describe what something shows, has or does as a rule: "the tile shows … right now", "the pipeline
# currently has four stages".
_DESCRIBES = re.compile(
    r"\b(?:shows?|has|have|lists?|steps|runs|uses?|lives|holds?|takes|sets|gets|keeps|means|includes?|contains?|"
    r"reports?|says|owns?|covers?|counts?|points|reads|writes|calls|sends|stores?|returns)\b",
    re.I,
)
# A note's fragment: a noun phrase and its state with no verb between ("Rest-rule rounding hotfix merged", "staging
# db CPU pegged at 98%", "Three us-east GameServers stuck in Shutdown").
_FRAGMENT_BEFORE = re.compile(r"(?:^|[,;:]\s*)(?P<np>[\w./'~#!@-]+(?:\s+[\w./'~#!@-]+){0,5})\s+$")
# One word that can only name one thing: "consul-03", "eod_futures_load", "@oyelaran", "Ravi".
_ONE_THING = re.compile(r"(?:[\w.@-]*[\d_@-][\w.@-]*|(?-i:[A-Z][a-zà-ÿ]+))")
_FINITE = re.compile(
    r"(?<![\w.-])(?:(?i:is|are|was|were|be|been|has|have|had|do|does|did|can|will|would|should|must|may|might)|"
    r"[a-z]+s)(?![\w.-])"
)
_CONJUNCTIONS = frozenset("and so or but then to that which it they we you i".split())
_QUANTIFIER = re.compile(r"\b(?:every|each|any|all|most)\b", re.I)
# A predicate of practice, not of condition: what is done and how, in the simple present ("releases are currently cut
# by the core", "TestFlight builds currently ship from Xcode Cloud", "Today the storefront deploys to three regions",
# "At the moment we only build arm64 images"). Beside a time word it tells how things are done these days, which
# stays true for months; a condition of the moment is a state, a number or a job in progress.
_PAST_OR_STATE = (
    r"(?:is|are|was|were|has|have|had|does|did|got|lost|hit|saw|ran|went|came|broke|left|made|took|sent)\b"
)
_HABITUAL = re.compile(
    r"\b(?:is|are)\s+(?:currently\s+|now\s+|still\s+)?(?!(?:"
    + STATES
    + r")\b)[a-z]+(?:ed|en|cut|set|built|kept|held)"
    r"\s+(?:by|on|from|via|through|against|per|with)\b"
    r"|\b(?:currently|at\s+the\s+moment|these\s+days)\s+(?!"
    + _PAST_OR_STATE
    + r"|(?:"
    + STATES
    + r")\b)[a-z]+[^s']s\s+(?:only|just)\b"
    r"|\b(?:currently|right\s+now|at\s+the\s+moment|today)\s+(?:only\s+|also\s+)?(?!"
    + _PAST_OR_STATE
    + r")[a-z]+(?<!ing)(?<!ed)\s+(?:from|to|on|onto|via|through|into|by)\b"
    r"|\b(?:we|they|you)\s+(?:only\s+|just\s+|also\s+)?(?!"
    + _PAST_OR_STATE
    + r"|'|re\b|can\b|will\b|won't\b|do\b|don't\b)[a-z]+(?<!ing)(?<!ed)\s+(?:[a-z0-9]|$)"
    r"|\b(?!"
    + _PAST_OR_STATE
    + r"|(?:"
    + STATES
    + r")\b)[a-z]+[^s]s\s+(?:to|from|into|via|through)\s+(?:\w+\s+)?"
    r"(?:\d|one|two|three|four|five|six|several|all|every|each|the|a|an)\b",
    re.I,
)
# "not today's date (export date)": today's date as a value a thing holds, not the moment of writing.
_DAY_AS_VALUE = re.compile(r"\b(?:today's|tonight's|yesterday's)\s+(?:date|time|timestamp)\b", re.I)
_QUOTED = re.compile(r"(?<!\w)'[^'\n]*?'(?!\w)|\"[^\"]*\"|“[^”]*”|‘[^’]*’|`[^`]*`")
_WHILE_WE = re.compile(r"\bwhile\s+(?:we|i|they|someone)\b", re.I)
# A job in progress right now: "p4 server is taking a checkpoint right now".
_PROGRESSIVE = re.compile(r"\b(?:is|are|'s)\s+(?:\w+\s+)?\w+ing\b", re.I)
PRESENT_DEIXIS = r"now|right\s+now|currently|at\s+the\s+moment|as\s+we\s+speak|still"
_PRESENT = re.compile(rf"\b(?:{PRESENT_DEIXIS})\b", re.I)
_GENERIC_BEFORE = re.compile(rf"\b(?:{GENERIC_DETERMINERS})\s+(?:[\w'-]+\s+){{0,3}}$", re.I)
_HABIT = re.compile(rf"\b(?:{HABIT_MARKERS})\b", re.I)
# A rule's own words: a requirement wins over any time word ("jobs must be resumable or they get killed overnight").
_MODAL_RULE = re.compile(
    r"\b(?:must|mustn't|should|shouldn't|shall|always|required|needs?\s+to\s+be|have\s+to\s+be|has\s+to\s+be)\b"
    # "…, so never point a preview at prod": "never" opening a clause is advice, beside any time word
    r"|(?:^|[,;:]\s*|\b(?:so|and|but|then)\s+)never\s+(?!(?:\w+ed|became|came|got|went|ran|made|took|saw|showed|"
    r"left|found|sent|began|hit|reached|been)\b)[a-z]",
    re.I,
)
_SPECIFIC_BEFORE = re.compile(
    r"\b(?:the|this|that|these|those|our|its|their|my|your)\s+(?:[\w-]+\s+)?$", re.I
)
# A name that can only be one thing ("ingest_events", "build-win-07", "TRANSFORM_XL") right before its verb.
_NAMED_BEFORE = re.compile(
    r"(?:(?<![\w.-])[\w.]*[_\d-][\w.-]*|@[\w.-]+|(?-i:\b(?!(?:Nothing|None|Nobody|Everything|Something|Anything|"
    r"Everyone|Someone|Anyone|It|This|That|There)\b)[A-Z][a-z]+))\s+(?:is|are|was|were|has\s+been|have\s+been|got)\s+"
    r"(?:\w+\s+)?$",
    re.I,
)
_BEHAVIOUR_AFTER = re.compile(
    r"\s+(?:on|when|if|for|whenever|unless|with|without)\b(?!\s+(?:commit\b|#?\d|(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b))",
    re.I,
)
_IMPERATIVE = re.compile(rf"^\W*(?:please\s+)?(?:{IMPERATIVES})\b", re.I)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\s*[;\n]+\s*|\s+[—–]\s+")
_GAP_WORDS = 6
_PRESENT_PASSIVE_BEFORE = re.compile(r"\b(?:is|are|gets|get)\s+(?:\w+ly\s+)?$", re.I)
# "get skipped" in the present is what happens each time ("got skipped" is what happened).
_GET_PASSIVE_BEFORE = re.compile(r"\b(?:gets|get)\s+(?:\w+ly\s+)?$", re.I)
_BEHAVIOUR_PARTICIPLE = re.compile(
    r"rejected|approved|flagged|merged|closed|skipped|cancell?ed|killed|throttled|locked|evicted|preempted|requeued|"
    r"aborted",
    re.I,
)
_AGENT_AFTER = re.compile(r"\s+by\s+(?!@|(?-i:[A-Z][a-z]+\b))", re.I)
_NOT_A_BEFORE = re.compile(r"\bnot\s+an?\s+$", re.I)
# An aside in brackets between a subject and its state: "PR 1187 (power mgmt refactor) blocked on review".
_ASIDE = re.compile(r"\s*\([^()]*\)")
# "running" followed by an object is a configuration ("runs Ubuntu 22.04"), not liveness.
_OBJECT_AFTER_RUNNING = re.compile(
    r"\s+(?!on\b|in\b|at\b|for\b|since\b|again\b|now\b|still\b|behind\b|late\b)[a-z0-9]", re.I
)


@dataclass(frozen=True)
class Verdict:
    """Why a sentence states a status: the rule of the grammar that fired, the words it fired on, and whether the
    status is anchored in a moment (a time word, an id, an attempt, or a state that is only ever momentary)."""

    rule: str  # "subject_state", "named_state", "momentary_state" or "state_deixis"
    matched: str
    anchored: bool


def sentences_of(text: str) -> list[str]:
    """Sentences and semicolon- or dash-separated statements of `text`."""
    return [part for part in _SENTENCES.split(text) if part.strip()]


def _subordinate(sentence: str) -> list[tuple[int, int]]:
    return [match.span() for match in (*_SUBORDINATE.finditer(sentence), *_KIND_CLAUSE.finditer(sentence))]


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


def _found(pattern: re.Pattern[str], sentence: str, subordinate: list[tuple[int, int]]) -> bool:
    """Whether `pattern` occurs in an asserted clause of the sentence."""
    return any(not _inside(match.start(), subordinate) for match in pattern.finditer(sentence))


def _asserted_states(sentence: str, subordinate: list[tuple[int, int]]) -> list[re.Match[str]]:
    """States in the sentence's asserted clauses that describe something: not required by a modal ("must be
    green"), not an attribute ("a draft PR"), not "running" with an object ("running Ubuntu 22.04")."""
    found = []
    for state in _STATE.finditer(sentence):
        before = sentence[: state.start()]
        if _inside(state.start(), subordinate) or _MODAL_BEFORE.search(before):
            continue
        if _ATTRIBUTIVE_BEFORE.search(before) and _NOUN_AFTER.match(sentence[state.end() :]):
            continue
        if (
            _ADJECTIVE.fullmatch(state.group(0))
            and _WORD_AFTER.match(sentence[state.end() :])
            and not _VERB_BEFORE.search(before)
        ):
            continue
        if _BEHAVIOUR_AFTER.match(sentence[state.end() :]) and _TEMPORAL_ONLY.fullmatch(state.group(0)):
            continue  # "the CI job fails on warnings": when it fails, not that it failed
        if state.group(0).lower() == "running" and _OBJECT_AFTER_RUNNING.match(sentence[state.end() :]):
            continue
        if _NOT_A_BEFORE.search(before):
            continue  # "a blip, not an outage": what kind of thing it is, not a state it is in
        if _BEHAVIOUR_PARTICIPLE.fullmatch(state.group(0)) and (
            _GET_PASSIVE_BEFORE.search(before)
            or (_PRESENT_PASSIVE_BEFORE.search(before) and _AGENT_AFTER.match(sentence[state.end() :]))
        ):
            continue  # "#NOT_REQUIRED is rejected by ATC", "their fork tests get skipped": what happens, not
            # what happened
        found.append(state)
    return found


def _subject_before(
    sentence: str, state: re.Match[str], subordinate: list[tuple[int, int]]
) -> re.Match[str] | None:
    """The nearest status subject before `state`, at most _GAP_WORDS words away, in the same clause."""
    best = None
    for subject in _SUBJECT.finditer(sentence, 0, state.start()):
        gap = _ASIDE.sub(" ", sentence[subject.end() : state.start()])
        if _inside(subject.start(), subordinate) or re.search(r"[,;:()]", gap):
            continue
        if len(gap.split()) <= _GAP_WORDS:
            best = subject
    return best


def _generic(sentence: str, subject: re.Match[str]) -> bool:
    """ "a PR", "any build", bare "PRs": a habit, not one thing's status ("212 jobs" is one count, not a habit)."""
    before = sentence[: subject.start()]
    if _SPECIFIC_BEFORE.search(before) or _COUNT_BEFORE.search(before):
        return False
    if _GENERIC_BEFORE.search(before):
        return True
    word = subject.group(0).lower()
    plural = word.endswith("s") and word not in {"ci", "process", "status"} and not word.endswith("ss")
    return plural and not re.search(r"[#!]\d|\d", sentence[subject.end() : subject.end() + 12])


def _np_generic(np: str) -> bool:
    """A noun phrase that names a kind, not one thing: "a PR", "any build", bare "Release branches"."""
    words = np.lower().split()
    if words[0] in {"the", "our", "this"}:
        return False
    plural = [w.endswith("s") and not w.endswith(("ss", "'s")) and w.isalpha() for w in (words[0], words[-1])]
    return words[0] in GENERIC_DETERMINERS.split("|") or any(plural)


def _plain(sentence: str) -> str:
    """The sentence with quoted words and capitalised time words blanked (same length): a quoted 'At the moment' or
    "the Today view" is a name, not deixis."""
    blanked = _QUOTED.sub(lambda m: " " * len(m.group(0)), sentence)
    blanked = _DAY_AS_VALUE.sub(lambda m: " " * len(m.group(0)), blanked)
    return re.sub(
        r"(?<=\S\s)(?-i:Today|Tonight|Now|Currently|Still|Overnight)\b",
        lambda m: " " * len(m.group(0)),
        blanked,
    )


def status_verdict(sentence: str) -> Verdict | None:
    """Why `sentence` states a momentary status, or None (the grammar is the module docstring). A status is a short
    statement: a sentence longer than GARDEN_SENTENCE_MAX is read as no status at all, which also bounds the
    grammar's work on one sentence (several of its tests look back from each state to the sentence's start:
    quadratic in its length, some seconds for a 24,000-character run of "running for")."""
    if len(sentence) > GARDEN_SENTENCE_MAX.value:
        return None
    sentence = _plain(sentence)
    subordinate = _subordinate(sentence)
    if sentence.rstrip().endswith("?") and not _found(_ANCHOR, sentence, subordinate):
        return None  # a question asks about a state, it asserts none ("Proof job red? Read the log first."), unless
        # it names the one thing it is about ("run 9234512 failed at signing, key expired?")
    temporal = _found(_TEMPORAL, sentence, subordinate) or _WHILE_WE.search(sentence) is not None
    # "release-2.4 rollout paused … until the DBA is back": a time clause pins the state of one named thing to a
    # moment (of a kind of thing, "MRs … are blocked until the perf job lands", it states a rule)
    until_moment = any(m.group(0).lower().startswith(("until", "till")) for m in _TEMPORAL.finditer(sentence))
    anchored = temporal or _found(_ANCHOR, sentence, subordinate)
    if _HABIT.search(sentence) or _MODAL_RULE.search(sentence):
        return None
    if not temporal and (rule_sentence(sentence, any_time=True) or _WEAK_RULE.search(sentence)):
        return None  # a rule word wins over anything but a time word
    if _CONDITION.search(sentence) and not _found(_CALENDAR, sentence, subordinate):
        return None  # a condition wins over anything but a day or an hour
    if _IMPERATIVE.search(sentence) and not _found(_MOMENT, sentence, subordinate):
        return None  # advice wins over anything but a moment
    phrase = _momentary_phrase(sentence, subordinate)
    if phrase is not None:
        return Verdict("momentary_phrase", phrase.group(0).strip(), True)
    for state in _asserted_states(sentence, subordinate):
        if _TEMPORAL_ONLY.fullmatch(state.group(0)) and not temporal:
            continue
        before = sentence[: state.start()]
        momentary = (
            _MOMENTARY.fullmatch(state.group(0)) is not None or _PROGRESSIVE_BEFORE.search(before) is not None
        )
        subject = _subject_before(sentence, state, subordinate)
        if subject is not None:
            if not anchored and _KIND_AFTER.match(sentence, state.end()):
                continue  # "the benchmark job is skipped on them" (on fork PRs): what happens to a kind of thing
            if anchored or momentary or not _generic(sentence, subject):
                text = sentence[subject.start() : state.end()]
                return Verdict("subject_state", text, anchored or momentary or until_moment)
            continue
        if momentary:
            return Verdict("momentary_state", state.group(0), True)
        if anchored:
            return Verdict("state_deixis", sentence.strip(), True)
        named = _NAMED_BEFORE.search(before)
        if named is not None:
            return Verdict("named_state", sentence[named.start() : state.end()], False)
        copula = _COPULA_BEFORE.search(before)
        if copula is not None and not _np_generic(copula.group("np")):
            return Verdict("subject_state", sentence[copula.start("np") : state.end()], False)
        fragment = _FRAGMENT_BEFORE.search(_ASIDE.sub("", before))
        if (
            fragment is not None
            and not _FINITE.search(fragment.group("np"))
            and (len(fragment.group("np").split()) >= 2 or _ONE_THING.fullmatch(fragment.group("np")))
            and fragment.group("np").split()[0].lower() not in _CONJUNCTIONS
            and (not _np_generic(fragment.group("np")) or _COUNT_BEFORE.search(before))
        ):
            return Verdict("subject_state", f"{fragment.group('np')} {state.group(0)}", False)
    moment = _MOMENT.search(sentence)
    if (
        moment is not None
        and moment.group(0).lower() == "overnight"
        and _WORD_AFTER.match(sentence[moment.end() :])
    ):
        moment = None  # "overnight turnaround": an attribute
    if (
        moment is not None
        and not _inside(moment.start(), subordinate)
        and (
            _PREDICATE.search(sentence[: moment.start()])
            or not _DESCRIBES.search(sentence)
            or _INSTANCE_OR_START.match(sentence, moment.start())
        )
        and not _QUANTIFIER.search(sentence)
        and not _HABITUAL.search(sentence)
        and sentence.split()[0].lower() not in GENERIC_DETERMINERS.split("|")
    ):
        return Verdict("moment", sentence.strip(), True)
    progressive = _PROGRESSIVE.search(sentence)
    if (
        progressive is not None
        and _found(_PRESENT, sentence, subordinate)
        and not _inside(progressive.start(), subordinate)
    ):
        return Verdict("progress_now", sentence.strip(), True)
    return None


def rule_sentence(sentence: str, *, any_time: bool = False) -> bool:
    """A rule or a habit: a sentence holding a rule marker (must, never, usually, we now…) and no time word
    (whose "never" is about the moment); `any_time` leaves the time word out of it. A question is not a rule."""
    if sentence.rstrip().endswith("?") or re.search(_TODO, sentence, re.I):
        return False
    return _RULE.search(sentence) is not None and (any_time or not _TEMPORAL.search(sentence))


def weak_sentence(sentence: str) -> bool:
    """A condition ("if you get logged out, retry"), advice ("Retry once") or a weak rule word ("only"), with no
    time word: durable beside a status that nothing anchors in a moment, about that moment beside one that is."""
    weak = _CONDITION.search(sentence) or _IMPERATIVE.search(sentence) or _WEAK_RULE.search(sentence)
    # A quoted time word is a message's text ("shows 'Application is currently being installed'"), not deixis.
    return bool(weak) and not _TEMPORAL.search(_plain(sentence))


_TODO = r"^\W*(?-i:[A-Z][\wà-ÿ]+|@[\w.-]+)\s+needs\s+to\s+[\w-]+\s+(?:it|them|this|that)\b"
# Someone's next step or a question about the moment: "I'll run them after the 5pm edition", "Who's on this?".
_PLAN = re.compile(
    r"^\W*(?:i'll|i\s+will|we'll|we\s+will|will\s+(?:look|check|retry|try|run|ping)|going\s+to|gonna|"
    r"planning\s+to|still\s+digging)\b|\?\s*$"
    # "Don't rerun it.", "Do not resume it without Ingrid's sign-off", "DO NOT DEPLOY.": hands off the one thing
    # the status names
    r"|^\W*(?:please\s+)?(?:don't|do\s+not)\s+(?:[\w-]+\s+){1,2}?(?:it|them|those\s+\w+|anything)\b"
    r"|^\W*(?:please\s+)?(?:don't|do\s+not)\s+[\w-]+\s*[.!]*\s*$"
    r"|^\W*(?:please\s+)?keep\s+an\s+eye\s+on\s+(?:it|them|this)\b"
    # someone's next step on the thing: "Léa needs to click it"
    r"|" + _TODO,
    re.I,
)


def plan_sentence(sentence: str) -> bool:
    """A next step or a question about the situation a status describes: it anchors that status in its moment."""
    return _PLAN.search(sentence) is not None
