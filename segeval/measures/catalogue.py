"""The measure tables generated from the registry: ``segeval measures`` (text, JSON, CSV) and the generated
blocks of ``docs/measures.md``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from segeval.measures.declaration import Family
from segeval.measures.registry import Registry


def rows(reg: Registry) -> list[dict[str, Any]]:
    """One record per measure (for ``segeval measures -o json|csv``)."""
    return [
        {
            "name": f.name,
            "example": f.example or f.name,
            "input": f.scope,
            "aggregator": f.aggregator,
            "higher_is_better": f.higher_is_better,
            "lower": f.lower,
            "upper": f.upper,
            "over_upper": f.over_upper,
            "parameter": f.param,
            "defaults": list(f.defaults),
            "domains": {name: str(domain) for name, domain in f.domains()},
            "aliases": [*f.aliases, *(f"{a}@n" for a in f.family_aliases)],
            "description": f.description,
        }
        for f in reg.families
    ]


#: docs/measures.md: its prose is written there, the blocks between ``<!-- name -->`` and ``<!-- /name -->`` are
#: generated here (by scripts/update_readme.py; a source checkout only)
DOC = Path(__file__).resolve().parents[2] / "docs" / "measures.md"
_BLOCK = re.compile(r"(<!-- (\w+) -->)(.*?)(<!-- /\2 -->)", re.S)


def doc(reg: Registry) -> str:
    """docs/measures.md with its generated blocks made current from the registry."""
    eco = reg.ecosystem
    by_reason: dict[str, list[str]] = {}
    for name, why in eco.missing.items():
        by_reason.setdefault(why, []).append(f"`{name}`")
    blocks = {
        "measures": table(reg),
        "sets": sets_table(reg),
        "aliases": aliases_table(reg),
        "diversity": ", ".join(f"`{f.name}`" for f in reg.families if f.subtopics),
        "ecosystem": ecosystem_table(reg),
        "run_queries": ", ".join(f"`{n}`" for n in eco.run_queries),
        "refused": "\n".join(f"- {', '.join(names)}: {why}" for why, names in by_reason.items()),
    }
    from segeval.readers.files import read_utf8

    text = read_utf8(DOC, "the measures' documentation")
    if sorted(m.group(2) for m in _BLOCK.finditer(text)) != sorted(blocks):
        raise ValueError(f"{DOC} must hold each generated block once: {', '.join(blocks)}")

    def fill(m: re.Match[str]) -> str:
        block = blocks[m.group(2)]
        return m.group(1) + (f"\n{block}\n" if m.group(3).startswith("\n") else block) + m.group(4)

    return _BLOCK.sub(fill, text)


def ecosystem_table(reg: Registry) -> str:
    """The ir_measures and ranx spellings and their options, as Markdown tables."""
    eco = reg.ecosystem
    rows = _head("name", "measure")
    rows += [f"| `{a}` | `{n}` |" for a, n in eco.names.items()]
    rows += [f"| `{a}@n` | `{n}_{'k=' if reg.by_name[n].param == 'gains' else ''}n` |" for a, n in eco.at_names.items()]
    rows += [f"| `{a}.NN` | `{n}_p=0.NN` |" for a, n in eco.dotted.items()]
    rows += ["", *_head("measure", "option", "value", "becomes")]
    rows += [
        f"| `{o.measure}` | `{o.option}` | {'any' if o.value is None else f'`{o.value!r}`'} | "
        f"{f'`{o.family}`' if o.family else 'the same measure'}{', its parameter' if o.param else ''} |"
        for o in eco.options
    ]
    return "\n".join(rows)


def table(reg: Registry) -> str:
    """A Markdown table of the measures."""
    rows = _head("measure", "input", "aggregate", "better", "bounds", "parameters", "description")
    for f in reg.families:
        label = f"`{f.name}`"
        if f.param is not None:
            label = (label + ", " if f.plain else "") + f"`{f.name}_n` (e.g. `{f.example}`)"
        better = {True: "higher", False: "lower", None: ""}[f.higher_is_better]
        given = "; ".join(f"`{name}`: {domain}" for name, domain in f.domains())
        rows.append(f"| {label} | {f.scope} | {f.aggregator} | {better} | {_bounds(f)} | {given} | {f.description} |")
    return "\n".join(rows)


def sets_table(reg: Registry) -> str:
    """A Markdown table of the named sets and their members."""
    rows = _head("set", "members", "description")
    for name, members in reg.sets.items():
        rows.append(f"| `{name}` | {', '.join(members)} | {reg.set_descriptions.get(name, '')} |")
    return "\n".join(rows)


def aliases_table(reg: Registry) -> str:
    """A Markdown table of the accepted aliases and the canonical names they stand for."""
    rows = _head("alias", "measure")
    rows += [f"| `{a}` | `{n}` |" for a, n in reg.aliases.items()]
    rows += [
        f"| `{a}@n` | `{n}_{'k=' if 'k' in reg.by_name[n].pair_names else ''}n` |"
        for a, n in reg.family_aliases.items()
    ]
    rows.append("| `P@n(j)` | `P_judged_n` |")
    rows.append("| `name@n` | `name_n`, for every measure with a parameter (`P@10`, `Judged@10`) |")
    return "\n".join(rows)


def _head(*columns: str) -> list[str]:
    """A Markdown table's header rows."""
    return [f"| {' | '.join(columns)} |", "|" + "---|" * len(columns)]


def _bounds(f: Family) -> str:
    if f.lower is None and f.upper is None:
        return ""
    lower = "-inf" if f.lower is None else f"{f.lower:g}"
    upper = "inf" if f.upper is None else f"{f.upper:g}"
    return f"[{lower}, {upper}]" + ("*" if f.over_upper else "")
