"""Adapters by name: ``make_adapter("binned:60")``, the defaults of each kind of run, the reference's trio."""

from __future__ import annotations

from collections.abc import Sequence

from segeval.adapt.base import Adapter
from segeval.adapt.binned import BinnedAdapter
from segeval.adapt.exact import ExactAdapter
from segeval.adapt.once import OverlapOnceAdapter
from segeval.adapt.overlap import OverlapAdapter
from segeval.adapt.tiou import TiouAdapter
from segeval.adapt.tolerance import ToleranceAdapter
from segeval.errors import ParameterError
from segeval.settings import DEFAULT_ADAPTER, DEFAULTS, Settings, kind

ADAPTER_HELP = ("exact, overlap, overlap-once, binned[:B[:start]], tolerance[:T], "
                "tiou[:theta[:strict][:float32]]")


def make_adapter(spec: str | Adapter, settings: Settings = DEFAULTS) -> Adapter:
    """An adapter from its name: ``exact``, ``overlap``, ``overlap-once``, ``binned[:B[:start]]``,
    ``tolerance[:T]`` or ``tiou[:theta[:strict][:float32]]`` (an omitted B, T or theta is ``settings``')."""
    if isinstance(spec, Adapter):
        return spec
    if not isinstance(spec, str):
        raise ParameterError(f"The 'adapter' parameter must be an adapter name ({ADAPTER_HELP}) or an Adapter. "
                             f"Got {type(spec).__name__} {spec!r} instead.")
    name, *args = spec.split(":")
    fixed: dict[str, type[ExactAdapter] | type[OverlapAdapter] | type[OverlapOnceAdapter]] = {
        "exact": ExactAdapter, "overlap": OverlapAdapter, "overlap-once": OverlapOnceAdapter}
    try:
        if name in fixed and not args:
            return fixed[name]()
        if name == "binned" and len(args) <= 2 and (len(args) < 2 or args[1] in ("start", "span")):
            return BinnedAdapter(int(args[0]) if args else settings.bin_size,
                                 args[1] if len(args) == 2 else settings.bin_assign)
        if name == "tolerance" and len(args) <= 1:
            return ToleranceAdapter(int(args[0]) if args else settings.tolerance)
        flags = args[1:]
        if name == "tiou" and flags in ([], ["strict"], ["float32"], ["strict", "float32"]):
            return TiouAdapter(float(args[0]) if args else settings.tiou, strict="strict" in flags,
                               float32="float32" in flags)
    except ValueError:
        pass
    raise ParameterError(f"The 'adapter' parameter must be one of {ADAPTER_HELP}. Got {spec!r} instead.")


def make_adapters(specs: str | Adapter | Sequence[str | Adapter], settings: Settings = DEFAULTS) -> list[Adapter]:
    """Adapters from one name or adapter, or a list of them (a ParameterError names anything else)."""
    if isinstance(specs, str | Adapter):
        return [make_adapter(specs, settings)]
    if not isinstance(specs, Sequence) or not specs:
        raise ParameterError(f"The 'adapters' parameter must be an adapter name ({ADAPTER_HELP}), an Adapter, or "
                             f"a non-empty list of them. Got {specs!r} instead.")
    return [make_adapter(s, settings) for s in specs]


def default_adapter(documents: bool, settings: Settings = DEFAULTS) -> Adapter:
    """The adapter of a run kind when none is named: ``exact`` for documents, ``overlap`` for segments."""
    return make_adapter(DEFAULT_ADAPTER[kind(documents)], settings)


def me13sh_adapters(bin_size: int = DEFAULTS.bin_size, tolerance: int = DEFAULTS.tolerance) -> list[Adapter]:
    """The reference's three adapters, in its report order."""
    return [OverlapAdapter(), BinnedAdapter(bin_size), ToleranceAdapter(tolerance)]
