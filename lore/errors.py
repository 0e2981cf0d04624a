"""The error every refusal of a scope, key, address, filter or over-limit input is: a ValueError naming its field.

It lives below both `lore.scopes` and `lore.limits` (a limit's refusal is one), so each can import it."""

from __future__ import annotations


class ScopeError(ValueError):
    """A scope, key or address that cannot be accepted; the message says what is wrong."""

    def __init__(self, message: str, field: str = "scope") -> None:
        super().__init__(message)
        self.field = field
        self.message = message
