"""Hostile input: property-based tests over every parser that reads what a stranger types (the menu's typed
value, ?retention=, the Explorer's whole URL state, an NDJSON import), and a list of nasty URLs and form posts
over the dashboard (Explorer and Settings). Nothing raises, nothing answers 5xx; what is dropped is said.

The REST API has its own schemathesis run over the OpenAPI document (tests/api/test_schemathesis.py).
"""

from __future__ import annotations

import json
import string
from typing import Any
from urllib.parse import quote

import pytest
from django.db import transaction
from django.http import QueryDict
from django.test import Client
from django.utils.html import escape
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.state import ExplorerState
from lore.conditions import CONDITIONS, DIMENSIONS, PARAMS, parse_retention, parse_typed, serialize_retention
from lore.models import Lesson
from lore.transfer import import_lines
from tests.explorer.test_nasty_urls import NASTY as EXPLORER_NASTY
from tests.reliability.conftest import World

EXAMPLES = 300  # per parser property; the import property runs fewer (it writes to the database)
IMPORT_EXAMPLES = 60
FAST = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text an attacker (or a clumsy paste) produces: digits from other scripts, operators, SQL, control chars.
NASTY_CHARS = "0123456789<>=!-+.,:;'\"%_*\\/ \t\n\r\x00\x1b\u202e٣０¹"
nasty_text = st.one_of(
    st.text(max_size=60),
    st.text(alphabet=NASTY_CHARS, max_size=30),
    st.from_regex(r"\A\s*(>=|<=|=>|=<|>|<|<<|>>|=)?\s*-?\d{0,12}(\.\d+)?\s*\Z"),
    st.sampled_from(["' OR 1=1 --", "1;DROP TABLE lore_lesson", "9" * 400, "%00", "NaN", "∞", "1e9"]),
)


# ---------------------------------------------------------------- the menu's typed value


@FAST
@given(st.sampled_from([c.key for c in CONDITIONS] + ["", "nope", "created\x00"]), nasty_text)
def test_the_typed_value_parser_offers_only_in_bounds_values_or_says_why(condition: str, text: str) -> None:
    result = parse_typed(condition, text)
    for option in result.options:
        param = PARAMS[option.param]
        assert param.check(option.value) == option.value  # every offer is a value the registry accepts
        assert option.label
    assert not (result.options and result.error)
    if text.strip() and not result.options:
        assert result.error  # a refusal says what was wrong


@FAST
@given(
    st.sampled_from([c for c in CONDITIONS if c.unit == "count"]),
    st.integers(min_value=-5, max_value=200_000),
)
def test_a_typed_count_offers_both_directions_when_in_bounds(condition: Any, number: int) -> None:
    result = parse_typed(condition.key, str(number))
    low, high = PARAMS[condition.retention].bounds
    if number == low:  # "0 times or more" matches every lesson: only the retention direction is offered
        assert {o.param for o in result.options} == {condition.retention}
    elif low < number <= high:
        assert {o.param for o in result.options} == {condition.retention, condition.reverse}
    else:
        assert not result.options and result.error


# ---------------------------------------------------------------- ?retention=

good_part = st.builds(
    lambda name, value: f"{name}:{value}",
    st.sampled_from(list(PARAMS)),
    st.integers(min_value=0, max_value=400),
)
bad_part = st.one_of(
    st.builds(lambda n, t: f"{n}:{t}", st.sampled_from(list(PARAMS)), nasty_text),
    st.builds(lambda n: f"{n}:1", st.text(alphabet=string.ascii_letters + "_", min_size=1, max_size=20)),
    nasty_text,
)


@FAST
@given(st.lists(st.one_of(good_part, bad_part), max_size=12), st.sampled_from([",", ", ", ",,"]))
def test_retention_keeps_valid_parts_drops_the_rest_with_a_notice_and_is_canonical(
    parts: list[str], sep: str
) -> None:
    text = sep.join(parts)
    values, notices = parse_retention(text)
    for name, value in values.items():
        assert PARAMS[name].check(value) == value
    conditions = [PARAMS[name].condition.key for name in values]
    assert len(conditions) == len(set(conditions))  # one direction per condition
    kept = sum(1 for part in text[:4000].split(",") if part.strip())
    assert (values or notices) if kept else (not values and not notices)  # every part is used or named
    again, more = parse_retention(serialize_retention(values))
    assert (again, more) == (values, [])  # what the page writes back into its URL parses to itself


# ---------------------------------------------------------------- the import format


def good_line(key: str, content: str) -> str:
    return json.dumps(
        {"scope": "repo::acme/app", "key": key, "content": content, "tags": ["t"], "read_count": 3}
    )


safe_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40
).filter(str.strip)
garbled = st.one_of(
    st.text(max_size=80).filter(lambda t: t.strip() and "\n" not in t and "\r" not in t),
    st.builds(lambda k: good_line(k, "x")[: len(k)], st.text(min_size=1, max_size=10)),  # a truncated line
    st.sampled_from(
        [
            "[1, 2]",
            '"a string"',
            "null",
            "{}",
            '{"scope": "repo:acme", "key": "k", "content": "c"}',
            '{"scope": "repo::acme/app", "key": "a::b", "content": "c"}',
            '{"scope": "repo::acme/app", "key": "k", "content": "\\u0000"}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "read_count": -1}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "read_count": 1e99}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "created_at": "2026-13-45T00:00:00Z"}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "opened_count": 5, "read_count": 1}',
            '{"scope": "repo::acme/app", "key": "' + "k" * 600 + '", "content": "c"}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "tags": "' + "," * 5000 + 'x"}',
            '{"scope": "repo::acme/app", "key": "k", "content": "c", "host": {"$ne": 1}}',
        ]
    ),
)


@settings(
    max_examples=IMPORT_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    st.lists(
        st.one_of(
            st.tuples(st.just("good"), safe_text),
            st.tuples(st.just("bad"), garbled),
            st.tuples(st.just("blank"), st.sampled_from(["", "  ", "\t"])),
        ),
        max_size=25,
    )
)
def test_an_import_never_raises_keeps_every_good_line_and_reports_every_bad_one_by_number(
    account,  # noqa: ANN001
    lines: list[tuple[str, str]],
) -> None:
    text_lines, good, bad = [], {}, set()
    for number, (kind, payload) in enumerate(lines, start=1):
        if kind == "good":
            key = f"good-{number}"
            good[key] = payload
            text_lines.append(good_line(key, payload))
        else:
            text_lines.append(payload)
            if kind == "bad":
                bad.add(number)
    with transaction.atomic():
        report = import_lines(account, [line + "\n" for line in text_lines])
        failed = {f["line"] for f in report.failed}
        assert all(f["message"] and f["field"] for f in report.failed)
        stored = dict(Lesson.objects.filter(account=account).values_list("key", "content"))
        assert {k: v for k, v in stored.items() if k.startswith("good-")} == good
        assert failed <= bad  # a good line is never reported
        for number in bad - failed:  # a "bad" line not reported was valid after all: then it is stored
            assert json.loads(text_lines[number - 1])["key"] in stored
        assert report.created == len(stored)
        transaction.set_rollback(True)


# ---------------------------------------------------------------- the Explorer's URL state

STATE_PARAMS = [
    "scope",
    "retention",
    "range",
    "q",
    "sort",
    "archived",
    "run",
    "matrix",
    "cursor",
    *PARAMS,
    *(d.name for d in DIMENSIONS),
    *(d.mode_param for d in DIMENSIONS),
]
state_value = st.one_of(
    nasty_text,
    st.sampled_from(
        ["global", "repo::acme/app", "30d", "all", "opened_count", "1", "bus,decision", "any", "nin"]
    ),
    st.builds(
        lambda v: serialize_retention(v), st.dictionaries(st.sampled_from(list(PARAMS)), st.integers(0, 400))
    ),
)


@FAST
@given(
    st.lists(
        st.tuples(st.one_of(st.sampled_from(STATE_PARAMS), st.text(max_size=8)), state_value), max_size=10
    )
)
def test_the_explorer_state_parser_never_raises_and_its_canonical_url_parses_to_itself(
    pairs: list[tuple[str, str]],
) -> None:
    query = QueryDict(mutable=True)
    for name, value in pairs:
        query.appendlist(name, value)
    state = ExplorerState.from_query(query)
    assert all(len(notice) < 600 for notice in state.notices)  # a notice never echoes a 10 kB value back
    again = ExplorerState.from_query(QueryDict(state.to_query()))
    assert again.to_query() == state.to_query()
    assert again.notices == ()  # what the page writes into its own URL is always understood


# ---------------------------------------------------------------- nasty dashboard URLs and form posts

HUGE = "9" * 40
TEN_KB = "x" * 10_240
NASTY_VALUES = [
    HUGE,
    "-1",
    "0",
    "1e9",
    "٣٠",
    "３０",
    "²",
    "' OR 1=1 --",
    "1; DROP TABLE lore_lesson",
    "\x00",
    "a\x00b",
    "\x1b[31m",
    "\u202egnp.exe",
    "💥",
    TEN_KB,
    ",".join(f"v{i}" for i in range(1200)),
    "repo:acme",
    "global::x",
]


@pytest.fixture
def dashboard(logged_in: Client, world: World) -> Client:
    return logged_in


def assert_no_server_error(response: Any, what: str) -> str:
    assert response.status_code < 500, what
    return response.content.decode() if not getattr(response, "streaming", False) else ""


@pytest.mark.parametrize("query", EXPLORER_NASTY, ids=range(len(EXPLORER_NASTY)))
def test_a_nasty_hand_off_url_opens_the_new_policy_dialog_with_notices_never_a_500(
    dashboard: Client, query: str
) -> None:
    response = dashboard.get(f"/a/acme/settings/policies/new/?{query}")
    html = assert_no_server_error(response, query)
    assert response.status_code == 200 and "<form" in html, query
    live = dashboard.get(f"/a/acme/settings/policies/live/?{query}", HTTP_HX_REQUEST="true")
    assert_no_server_error(live, query)


@pytest.mark.parametrize("value", NASTY_VALUES, ids=range(len(NASTY_VALUES)))
def test_a_nasty_value_in_any_policy_field_is_refused_with_the_reason_on_the_form(
    dashboard: Client, world: World, value: str
) -> None:
    from policies.forms import PolicyForm

    fields = [name for name in PolicyForm().fields if name != "enabled"]
    alone = fields[
        NASTY_VALUES.index(value) % len(fields)
    ]  # each value also tried alone, in a rotating field
    valid = {"name": "hostile", "scope": "global", "mode": "review", "min_age_days": "30"}
    for url in ("/a/acme/settings/policies/new/", f"/a/acme/settings/policies/{world.policy.pk}/edit/"):
        for data in ({**valid, alone: value}, dict.fromkeys(fields, value)):
            response = dashboard.post(url, data)
            html = assert_no_server_error(response, f"{url} {sorted(data)[:3]}={value[:40]!r}")
            if response.status_code == 422:
                form = response.context["form"]
                messages = [str(m) for errors in form.errors.values() for m in errors]
                assert messages, (url, alone)
                assert [m for m in messages if escape(m) not in html] == [], (url, alone)
            else:
                assert response.status_code == 302, (url, alone, response.status_code)


@pytest.mark.parametrize("value", NASTY_VALUES, ids=range(len(NASTY_VALUES)))
def test_nasty_ids_actions_and_token_names_never_answer_5xx(
    dashboard: Client, world: World, value: str
) -> None:
    quoted = quote(value[:300], safe="")
    requests = [
        ("get", f"/a/acme/explorer/lessons/{quoted}/", {}),
        ("post", f"/a/acme/explorer/lessons/{world.active.pk}/{quoted}/", {}),
        ("post", "/a/acme/explorer/restore/", {"ids": [value, str(world.archived.pk), HUGE], "state": value}),
        ("get", f"/a/acme/settings/policies/{quoted}/", {}),
        ("post", f"/a/acme/settings/policies/{world.policy.pk}/enabled/", {"enabled": value}),
        ("get", f"/a/acme/settings/policies/{world.policy.pk}/run/", {"confirm": value}),
        ("get", f"/a/acme/settings/runs/{world.run.pk}/", {"page": value}),
        ("post", "/a/acme/settings/tokens/", {"name": value, "owner": value}),
        ("get", "/a/acme/explorer/", {"run": value, "cursor": value, "menu": value}),
    ]
    for method, url, data in requests:
        response = getattr(dashboard, method)(url, data)
        assert_no_server_error(response, f"{method} {url} {str(data)[:80]}")
        if response.status_code == 404:
            assert "not found" in response.content.decode().lower(), url


def test_a_restore_of_huge_or_foreign_ids_restores_only_what_the_account_owns(
    dashboard: Client,
    world: World,
    other_account,  # noqa: ANN001
) -> None:
    from tests.factories import LessonFactory

    theirs = LessonFactory(account=other_account, key="theirs", archived_at=world.archived.archived_at)
    ids = [HUGE, "²", "-3", str(theirs.pk), str(world.archived.pk), "٣"]
    assert dashboard.post("/a/acme/explorer/restore/", {"ids": ids}).status_code == 302
    world.archived.refresh_from_db()
    theirs.refresh_from_db()
    assert world.archived.archived_at is None and theirs.archived_at is not None


def test_a_dashboard_404_says_what_was_not_found(dashboard: Client) -> None:
    html = dashboard.get("/a/acme/explorer/lessons/987654/").content.decode()
    assert "Not found" in html and "No Lesson matches" in html and "another account" in html
    assert (
        "There is no page at /a/acme/settings/nope/"
        in dashboard.get("/a/acme/settings/nope/").content.decode()
    )
