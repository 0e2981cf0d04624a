"""lorekit's configuration: where LOREKIT_URL points."""

from __future__ import annotations

import pytest

from lorekit.client import api_base


@pytest.mark.parametrize(
    ("url", "base"),
    [
        ("http://localhost:8000", "http://localhost:8000/api/v1"),
        ("http://localhost:8000/", "http://localhost:8000/api/v1"),
        ("https://lore.example.com/api/v1", "https://lore.example.com/api/v1"),
        ("https://example.com/functions/v1/", "https://example.com/functions/v1"),
    ],
)
def test_lorekit_url_without_a_path_gets_the_api_prefix(url, base) -> None:  # noqa: ANN001
    assert api_base(url) == base
