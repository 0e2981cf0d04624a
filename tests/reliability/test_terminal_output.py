"""lorekit strips control and bidi characters from what it prints to a terminal (never from --json): a lesson
written by an agent cannot set the title, write the clipboard, move the cursor or reorder what a person reads."""

from __future__ import annotations

import json

import pytest

from lorekit.output import terminal_safe
from tests.factories import LessonFactory
from tests.lorekit.conftest import lorekit, lorekit_env  # noqa: F401 (fixtures)

HOSTILE = (
    "safe start"
    "\x1b]0;pwned title\x07"  # OSC: set the window title
    "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # OSC 52: write the clipboard
    "\x1b[2J\x1b[H"  # clear the screen, cursor home
    "\x9b31m"  # C1 CSI
    "\u202eevil\u202c\u2066iso\u2069"  # bidi override and isolate
    "\x00\x08\r"
    " safe end"
)


def test_terminal_safe_keeps_text_tabs_and_newlines_and_drops_everything_a_terminal_acts_on() -> None:
    cleaned = terminal_safe(HOSTILE + "\tcolumn\nnext line ünïcode ✓")
    assert "\x1b" not in cleaned and "\x9b" not in cleaned and "\x07" not in cleaned
    assert not any(ch in cleaned for ch in "\u202e\u202c\u2066\u2069\x00\x08\r")
    assert cleaned.startswith("safe start") and cleaned.endswith("\tcolumn\nnext line ünïcode ✓")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("command", ["read", "show"])
def test_lorekit_prints_lesson_content_without_escape_sequences_but_json_keeps_it_exact(
    lorekit,  # noqa: ANN001, F811
    account,  # noqa: ANN001
    command: str,
) -> None:
    stored = HOSTILE.replace("\x00", "")  # no database stores NUL (a write with one is refused)
    LessonFactory(account=account, key="hostile", content=stored)
    shown = lorekit(command, "repo::acme/app::hostile")
    assert shown.returncode == 0, shown.stderr
    assert "safe start" in shown.stdout and "safe end" in shown.stdout
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout and "\x9b" not in shown.stdout
    as_json = lorekit(command, "repo::acme/app::hostile", "--json")
    assert json.loads(as_json.stdout)["content"] == stored
