"""Adapters by name: ``make_adapter("binned:60")``, the defaults of each kind of run, the reference's trio."""

from __future__ import annotations

from collections.abc import Sequence

from segeval.adapt.base import Adapter
from segeval.adapt.binned import BinnedAdapter
from segeval.adapt.exact import ExactAdapter
from segeval.adapt.once import OverlapOnceAdapter
from segeval.adapt.overlap import OverlapAdapter
from segeval.adapt.tiou import TiouAdapter
from segeval.adapt.tiou_best import TiouBestAdapter
from segeval.adapt.tolerance import ToleranceAdapter
from segeval.errors import ParameterError
from segeval.io.parse import float_or_nan
from segeval.settings import DEFAULT_ADAPTER, DEFAULTS, Settings, kind

ADAPTER_HELP = ("exact, overlap, overlap-once, binned[:B[:start]], tolerance[:T], "
                "tiou[:theta[:strict][:empty0][:best][:float32]], tiou-best[:theta]")


def _theta(spec: str, args: list[str], settings: Settings) -> float:
    """The IoU threshold of a ``tiou`` or ``tiou-best`` spec (its first argument, else the setting's)."""
    if not args:
        return settings.tiou
    theta = float_or_nan(args[0])
    if not 0 < theta <= 1:
        raise _spec_error(spec, "the IoU threshold theta", args[0], "a number in (0, 1]")
    return theta


def _spec_error(spec: str, what: str, text: str, expected: str) -> ParameterError:
    return ParameterError(f"The 'adapter' parameter {spec!r}: {what} must be {expected}. Got {text!r} instead.")


def _whole(spec: str, what: str, text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least or not text.strip().lstrip("+").isdigit():
        raise _spec_error(spec, what, text, f"a whole number >= {least}")
    return value


def make_adapter(spec: str | Adapter, settings: Settings = DEFAULTS) -> Adapter:
    """An adapter from its name: ``exact``, ``overlap``, ``overlap-once``, ``binned[:B[:start]]``,
    ``tolerance[:T]``, ``tiou[:theta[:strict][:empty0][:best][:float32]]`` or ``tiou-best[:theta]``
    (ActivityNet's matching; an omitted B, T or theta is ``settings``').

    A bad name or part raises a ParameterError saying which part is wrong and what it must be."""
    if isinstance(spec, Adapter):
        return spec
    if not isinstance(spec, str):
        raise ParameterError(f"The 'adapter' parameter must be an adapter name ({ADAPTER_HELP}) or an Adapter. "
                             f"Got {type(spec).__name__} {spec!r} instead.")
    name, *args = spec.split(":")
    fixed: dict[str, type[ExactAdapter] | type[OverlapAdapter] | type[OverlapOnceAdapter]] = {
        "exact": ExactAdapter, "overlap": OverlapAdapter, "overlap-once": OverlapOnceAdapter}
    if name in fixed:
        if args:
            raise _spec_error(spec, f"{name}", ":".join(args), "given without parameters")
        return fixed[name]()
    if name == "binned":
        if len(args) > 2:
            raise _spec_error(spec, "binned", ":".join(args),
                              "followed by at most B and start|span (binned[:B[:start]])")
        size = _whole(spec, "the bin size B (seconds)", args[0], 1) if args else settings.bin_size
        if len(args) == 2 and args[1] not in ("start", "span"):
            raise _spec_error(spec, "the bin assignment", args[1], "'start' or 'span'")
        return BinnedAdapter(size, args[1] if len(args) == 2 else settings.bin_assign)
    if name == "tolerance":
        if len(args) > 1:
            raise _spec_error(spec, "tolerance", ":".join(args), "followed by at most the window T (tolerance[:T])")
        return ToleranceAdapter(_whole(spec, "the window T (seconds)", args[0], 0) if args else settings.tolerance)
    if name == "tiou":
        theta = _theta(spec, args, settings)
        flags = args[1:]
        if [f for f in ("strict", "empty0", "best", "float32") if f in flags] != flags:
            raise _spec_error(spec, "the flags after theta", ":".join(flags),
                              "any of 'strict', 'empty0', 'best', 'float32', each once and in that order (e.g. "
                              "'strict:float32')")
        return TiouAdapter(theta, strict="strict" in flags, float32="float32" in flags,
                           empty="zero" if "empty0" in flags else "one", pick="best" if "best" in flags else "any")
    if name == "tiou-best":
        if len(args) > 1:
            raise _spec_error(spec, "tiou-best", ":".join(args), "followed by at most theta (tiou-best[:theta])")
        return TiouBestAdapter(_theta(spec, args, settings))
    raise ParameterError(f"The 'adapter' parameter must name an adapter kind ({ADAPTER_HELP}). Got {spec!r} "
                         f"instead.")


def make_adapters(specs: str | Adapter | Sequence[str | Adapter], settings: Settings = DEFAULTS) -> list[Adapter]:
    """Adapters from one name or adapter, or a list of them, each spec once (as trec_eval computes a measure
    named twice once); a ParameterError names anything else."""
    if isinstance(specs, str | Adapter):
        return [make_adapter(specs, settings)]
    if not isinstance(specs, Sequence) or not specs:
        raise ParameterError(f"The 'adapters' parameter must be an adapter name ({ADAPTER_HELP}), an Adapter, or "
                             f"a non-empty list of them. Got {specs!r} instead.")
    made: dict[str, Adapter] = {}
    for s in specs:
        a = make_adapter(s, settings)
        made.setdefault(a.spec, a)  # the first of each spec, in order
    return list(made.values())


def default_adapter(documents: bool, settings: Settings = DEFAULTS) -> Adapter:
    """The adapter of a run kind when none is named: ``exact`` for documents, ``overlap`` for segments."""
    return make_adapter(DEFAULT_ADAPTER[kind(documents)], settings)


def me13sh_adapters(bin_size: int = DEFAULTS.bin_size, tolerance: int = DEFAULTS.tolerance) -> list[Adapter]:
    """The reference's three adapters, in its report order."""
    return [OverlapAdapter(), BinnedAdapter(bin_size), ToleranceAdapter(tolerance)]
