"""An MCP client session (the SDK's own client over stdio) with `lorekit mcp` spawned as a subprocess."""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.lorekit.conftest import lorekit_command


def with_session(env: dict[str, str], script: Callable[[ClientSession], Awaitable[Any]]) -> Any:
    """Run `script(session)` against a fresh `lorekit mcp` process; return what it returns."""
    command = lorekit_command()
    params = StdioServerParameters(command=command[0], args=[*command[1:], "mcp"], env=env)

    async def main() -> Any:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await script(session)

    # A thread of its own: the browser tests' Playwright leaves an event loop registered in the main thread,
    # and anyio refuses to start a second one there.
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = anyio.run(main)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, name="mcp-client")
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def result_of(call_result: Any) -> Any:
    """The JSON a tool answered (its text content), failing the test if the tool reported an error."""
    assert not call_result.is_error, call_result.content
    return json.loads(call_result.content[0].text)
