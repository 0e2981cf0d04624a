"""Command-line flags and request bodies derived from the registry (lorekit.registry, generated from
lore/conditions.py): one flag per condition param, one per dimension with its `--<dim>-mode`, and on
`policy update` a `--clear-*` for each. Nothing here names a condition by hand.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from lorekit.registry import Dimension, Param


def bounded(param: Param) -> Callable[[str], int]:
    """An argparse type: a whole number within the param's bounds (usage error otherwise)."""

    def parse(text: str) -> int:
        unit = f" {param.unit_word}" if param.unit_word else ""
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number{' of' + unit if unit else ''}"
            ) from None
        if not param.low <= value <= param.high:
            raise argparse.ArgumentTypeError(f"must be between {param.low} and {param.high:,}{unit}")
        return value

    parse.__name__ = param.name
    return parse


def add_condition_flags(parser: argparse.ArgumentParser, params: Iterable[Param]) -> None:
    group = parser.add_argument_group("age & activity conditions")
    for param in params:
        metavar = {"days": "DAYS", "score": "SCORE"}.get(param.unit, "N")
        phrase = param.phrase.replace("N ", f"{metavar} ", 1)
        group.add_argument(
            param.flag, dest=param.name, type=bounded(param), metavar=metavar, help=f"{param.label}: {phrase}"
        )


def add_dimension_flags(
    parser: argparse.ArgumentParser, dims: Iterable[Dimension], *, modes: bool = True
) -> None:
    group = parser.add_argument_group("dimension filters (comma-separated values)")
    for dim in dims:
        group.add_argument(dim.flag, dest=dim.name, metavar="V[,V…]", help=f"{dim.label} values")
        if modes:
            group.add_argument(
                f"{dim.flag}-mode",
                dest=dim.mode_param,
                choices=dim.modes,
                help=f"how {dim.name} values match (default {dim.default_mode})",
            )


def clear_flag(name: str) -> str:
    return "--clear-" + name.replace("_", "-")


def clear_dest(name: str) -> str:
    return f"clear_{name}"


def add_clear_flags(
    parser: argparse.ArgumentParser, params: Iterable[Param], dims: Iterable[Dimension]
) -> None:
    group = parser.add_argument_group("removing parts of a saved policy")
    for param in params:
        group.add_argument(
            clear_flag(param.name),
            dest=clear_dest(param.name),
            action="store_true",
            help=f"remove {param.flag}",
        )
    for dim in dims:
        group.add_argument(
            clear_flag(dim.name),
            dest=clear_dest(dim.name),
            action="store_true",
            help=f"remove the {dim.flag} filter",
        )


def split_values(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def rule_body(args: argparse.Namespace, params: Iterable[Param], dims: Iterable[Dimension]) -> dict[str, Any]:
    """The conditions and filters given on the command line, keyed by registry name (only those given)."""
    body: dict[str, Any] = {}
    for param in params:
        value = getattr(args, param.name, None)
        if value is not None:
            body[param.name] = value
    for dim in dims:
        raw = getattr(args, dim.name, None)
        if raw is not None:
            body[dim.name] = split_values(raw)
        mode = getattr(args, dim.mode_param, None)
        if mode is not None:
            body[dim.mode_param] = mode
    return body


def clears(args: argparse.Namespace, params: Iterable[Param], dims: Iterable[Dimension]) -> dict[str, None]:
    """`--clear-x` → {"x": None}: PATCH clears a field set to null."""
    names = [p.name for p in params] + [d.name for d in dims]
    return {name: None for name in names if getattr(args, clear_dest(name), False)}
