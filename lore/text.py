"""Small text rules said once: control characters, shortening a value for a message, one-or-many values of a
query dict or a JSON object."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Control characters, and lone surrogates (valid in a Python str, unencodable in UTF-8: the database refuses them).
CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")
SHOWN_CHARS = 60  # how much of a user-supplied value a notice or a message repeats


def shortened(text: object, limit: int = SHOWN_CHARS) -> str:
    """`text` if it fits in `limit` characters, else cut and ended with "…"."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shortened_at_word(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else cut at the last word that fits and ended with "…"."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(" ·,") + "…"


def values_of(data: Mapping[str, object], name: str) -> list[str]:
    """Every value given for `name`: a QueryDict's repeated parameter, a JSON list, or one value."""
    getlist = getattr(data, "getlist", None)
    if getlist is not None:
        return [str(v) for v in getlist(name)]
    raw = data.get(name)
    if raw is None:
        return []
    return [str(v) for v in raw] if isinstance(raw, list | tuple) else [str(raw)]
