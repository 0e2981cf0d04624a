"""Command-line flags and request bodies derived from the registry (lorekit.registry, generated from
lore/conditions.py): one flag per condition param, one per dimension with its `--<dim>-mode`, and on
`policy update` a `--clear-*` for each, and one per request field beside the rule (lorekit.registry.OPTIONS: scope,
sort, limit, a policy's name …), which the MCP tool schemas are built from too. Nothing here names a condition by
hand.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

from lorekit.registry import Dimension, Option, Param


def bounded(name: str, low: int | None, high: int | None, unit_word: str = "") -> Callable[[str], int]:
    """An argparse type: a whole number within [low, high] (usage error otherwise). The bounds stay readable
    on it (`.low`, `.high`), so a test can compare them with the MCP schema's."""

    def parse(text: str) -> int:
        unit = f" {unit_word}" if unit_word else ""
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number{' of' + unit if unit else ''}"
            ) from None
        if low is not None and value < low or high is not None and value > high:
            bounds = f"between {low} and {high:,}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bounds}{unit}")
        return value

    parse.__name__ = name
    parse.low, parse.high = low, high  # type: ignore[attr-defined]
    return parse


def add_option(parser: Any, option: Option, *, positional: bool = False, **overrides: Any) -> None:
    """The flag of a request field (lorekit.registry.OPTIONS): its type, choices, bounds and help from the
    registry; `overrides` for what a command adds (required, its own help or default, nargs)."""
    kwargs: dict[str, Any] = {"help": option.help}
    if option.kind == "boolean":
        kwargs["action"] = "store_true"
    elif option.kind == "choice":
        kwargs.update(choices=option.choices, default=option.default)
    elif option.kind == "integer":
        kwargs.update(type=bounded(option.name, option.low, option.high), default=option.default)
    kwargs.update(overrides)
    if positional:
        parser.add_argument(option.name, **kwargs)
    else:
        parser.add_argument(option.flag, dest=option.name, **kwargs)


def add_condition_flags(parser: argparse.ArgumentParser, params: Iterable[Param]) -> None:
    group = parser.add_argument_group("age & activity conditions")
    for param in params:
        metavar = {"days": "DAYS", "score": "SCORE"}.get(param.unit, "N")
        phrase = param.phrase.replace("N ", f"{metavar} ", 1)
        group.add_argument(
            param.flag,
            dest=param.name,
            type=bounded(param.name, param.low, param.high, param.unit_word),
            metavar=metavar,
            help=f"{param.label}: {phrase}",
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
