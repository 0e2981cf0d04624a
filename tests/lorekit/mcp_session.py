"""An MCP client session (the SDK's own client over stdio) with `lorekit mcp` spawned as a subprocess."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
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

    # In a thread of its own: Playwright's sync API (tests/browser) keeps an event loop running in the main
    # thread for the rest of the session, and anyio refuses to start a second one there.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, main).result()


def result_of(call_result: Any) -> Any:
    """The JSON a tool answered (its text content), failing the test if the tool reported an error."""
    assert not call_result.is_error, call_result.content
    return json.loads(call_result.content[0].text)
