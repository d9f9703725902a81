"""The registry's declarations: every measure name, alias and set name once; ecosystem names of declared measures."""

from __future__ import annotations

from collections import Counter

from segeval.measures.definitions import ECOSYSTEM, FAMILIES, SETS


def test_every_name_and_alias_is_declared_once() -> None:
    names = [f.name for f in FAMILIES]
    aliases = [a for f in FAMILIES for a in f.aliases] + list(ECOSYSTEM.names)
    family_aliases = [a for f in FAMILIES for a in f.family_aliases]
    assert [n for n, c in Counter(names + list(SETS)).items() if c > 1] == []
    for table in (aliases, family_aliases):
        assert [a for a, c in Counter(table).items() if c > 1] == []
        assert set(table) & (set(names) | set(SETS)) == set()


def test_ecosystem_names_name_declared_measures() -> None:
    declared = {f.name for f in FAMILIES}
    targets = {*ECOSYSTEM.names.values(), *ECOSYSTEM.at_names.values(), *ECOSYSTEM.dotted.values()}
    targets |= {o.measure for o in ECOSYSTEM.options} | {o.family for o in ECOSYSTEM.options if o.family}
    assert targets - declared == set()
