"""The measure tables generated from the registry: ``segeval measures`` (text, JSON, CSV) and
``docs/measures.md``."""

from __future__ import annotations

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


def doc(reg: Registry) -> str:
    """``docs/measures.md``: the measures, the named sets and the aliases, generated from the registry."""
    return "\n".join(
        [
            "# Measures",
            "",
            "<!-- generated from segeval/measures/definitions.py by scripts/update_readme.py: do not edit -->",
            "",
            "Canonical names follow trec_eval (`P_10`, `map`); the ir_measures spellings below are accepted on input "
            "and reported under the canonical name. `segeval measures` prints these tables.",
            "",
            "*parameters*: each parameter's domain (segeval/core/domains.py), checked before any work: `n` a cut-off, "
            "`x` a level or number, `gain` a grade's gain, then the named ones (`rbp.p=0.8`, `mgap.window=60`); a "
            "value outside is refused (exit 2) with a message naming the parameter, the value and the domain.",
            "",
            "*better*: the direction in which a value is better (blank for statistics and diagnostics). *bounds*: "
            "the values a measure can take. A bound marked `*` holds when each relevant unit is credited at most "
            "once (documents, and the overlap-once, binned and tiou adapters); these measures divide a count of "
            "relevant results by num_rel or by an ideal ranking, so under the overlap and tolerance adapters, "
            "which can credit one relevant segment to several results, they may exceed 1 (and segeval prints a "
            "note when they do).",
            "",
            "*input*: `labels` (each result labelled by an adapter), `segments` (time spans), `trials` (every "
            '(query, utterance) pair of the key with the run\'s score: docs/speech.md, "Query by example"), `groups` '
            "(each judgement group's qrels, `eval -R qrels_jg`) and `prefs` (preferences, `eval -R prefs` or "
            '`qrels_prefs`): docs/trec_eval-semantics.md, "Judgement groups and preferences". '
            "*aggregate*: the `all` line; `pooled`: the measure on every query's inputs together, not a function "
            "of the per-query values.",
            "",
            "## Measures",
            "",
            table(reg),
            "",
            "## Named sets",
            "",
            sets_table(reg),
            "",
            "## Accepted aliases",
            "",
            aliases_table(reg),
            "",
            "## Subtopic qrels",
            "",
            subtopics_doc(reg),
            "",
            "## ir_measures and ranx",
            "",
            ecosystem_doc(reg),
            "",
        ]
    )


def subtopics_doc(reg: Registry) -> str:
    """The diversity measures' qrels: format, example and the measures that read them."""
    names = ", ".join(f"`{f.name}`" for f in reg.families if f.subtopics)
    return "\n".join(
        [
            f"The diversity measures ({names}) are NIST ndeval's (TREC Web track 2009-2014; ir_measures computes "
            "them with pyndeval) and read subtopic qrels: `qid subtopic docno rel`, one line per query, subtopic "
            "and document judged. Only when one of them is asked does segeval keep the second field (the "
            "`subtopic` column of a table, or ir_measures' `iteration`); every other measure reads it as trec_eval "
            "does, ignored. A plain qrels (`0` there) is one subtopic.",
            "",
            "```",
            "wt09-1 1 clueweb09-en0003-55-31884 1",
            "wt09-1 2 clueweb09-en0003-55-31884 0",
            "wt09-1 3 clueweb09-en0003-55-31884 1",
            "wt09-1 2 clueweb09-en0010-03-09851 1",
            "```",
            "",
            "```",
            "segeval eval qrels.diversity run -m alpha_nDCG@20 -m ERR_IA@20 -m P_IA@10 -m StRecall@20 "
            "-m 'NRBP(alpha=0.5,beta=0.8)'",
            "```",
            "",
            "A subtopic grade at least the relevance level (`-l`, or `rel=N` for one measure) counts 1, others 0; "
            "a result without a qrels line is relevant to no subtopic; a subtopic without a relevant document "
            "does not count. The arithmetic is ndeval's: each result's novelty gain sums (1 - alpha)^(results "
            "above it relevant to the subtopic) over its subtopics, numbered by their first line over the whole qrels "
            "as pyndeval numbers them (ndeval's own numeric order on NIST's qrels, whose queries list subtopics 1, "
            "2, ... in order; in another order the sums' last bits, and through near ties the greedy ideal "
            "ranking, can differ); the ideal ranking is ndeval's greedy one over the query's judged documents, "
            'ties to the larger docno; ERR-IA and alpha-DCG are divided by the "ideal ideal" (every subtopic at '
            "every rank) except at rank 1, as ndeval does; nNRBP is NaN for a query without a relevant subtopic. "
            "ndeval's cut-offs stop at 20 (pyndeval refuses more); segeval computes any cut-off up to 100000 by the "
            "same rule (their sums run rank by rank). The ideal ranking is searched lazily (a document's gain only "
            "falls), with the judgements held sparse: time and memory grow with the judgements (a query with 30,000 "
            "judged documents over 3,000 subtopics: about 3 s and 120 MB for the whole command).",
            "",
            "They are asked alone: their qrels judge a document once per subtopic, which the other measures would "
            "read as judged twice (segeval refuses the mix, exit 2). Under `-J` (`judged_only=True`) a result is "
            "dropped when it has no qrels line, or only lines with a negative grade. Segment runs are refused: no "
            "segment adapter labels a segment with subtopics (a merged relevant segment has no subtopic of its "
            "own).",
            "",
            "Checked by tests/unit/measures/test_diversity.py: hand-derived values, and every ir_measures "
            "variant (cut-offs 1 to 20, alpha, beta, rel) equal to pyndeval's value bit for bit on generated "
            "graded subtopic qrels with ties and unjudged results.",
        ]
    )


def ecosystem_doc(reg: Registry) -> str:
    """The ir_measures and ranx spellings, their options, the names segeval lacks and the exceptions."""
    eco = reg.ecosystem
    rows = [
        "Every name ir_measures parses (`P(rel=2)@5`, `nDCG(judged_only=True)@10`, `nDCG(dcg='exp-log2')@10`, "
        "`SetF(beta=0.5)`), its measure objects in the API, and ranx's metric names (`ndcg@10`, `mrr@10`, "
        "`hit_rate@5`, `ndcg@10-l2`, `rbp.95`) mean what they mean there. `rel=N` (ranx: `-lN`) is that "
        "measure's own relevance level (others keep `-l`; positive grades below it gain 0), `judged_only=True` "
        "drops its unjudged results first (trec_eval's `-J`, for that measure only); the result is reported "
        "with the options in its name (`P_5(rel=2)`). Checked by tests/unit/measures/test_ecosystem.py "
        "against ir_measures' own providers and ranx on generated graded data with ties. "
        "`segeval.measure(name, adapter=...)` makes an ir_measures measure of any segeval measure "
        "(`ir_measures.define`), for `ir_measures.calc_aggregate` and PyTerrier's `pt.Experiment`.",
        "",
        "| name | measure |",
        "|---|---|",
    ]
    rows += [f"| `{a}` | `{n}` |" for a, n in eco.names.items()]
    rows += [f"| `{a}@n` | `{n}_{'k=' if reg.by_name[n].param == 'gains' else ''}n` |" for a, n in eco.at_names.items()]
    rows += [f"| `{a}.NN` | `{n}_p=0.NN` |" for a, n in eco.dotted.items()]
    rows += ["", "| measure | option | value | becomes |", "|---|---|---|---|"]
    rows += [
        f"| `{o.measure}` | `{o.option}` | {'any' if o.value is None else f'`{o.value!r}`'} | "
        f"{f'`{o.family}`' if o.family else 'the same measure'}{', its parameter' if o.param else ''} |"
        for o in eco.options
    ]
    rows += [
        "",
        f"The all line of every name here and in the aliases above equals ir_measures' `calc_aggregate` (and "
        f"ranx's mean with `make_comparable=True`), which scores a qrels query missing from the run as 0, under "
        f'`-c` (`missing_queries="zero"`); of {", ".join(f"`{n}`" for n in eco.run_queries)}, under segeval\'s '
        f"default (the run's queries; trec_eval -c adds every qrels query's num_rel); the differences below "
        f"aside.",
        "",
    ]
    rows += ["Documented differences from the peers:", ""]
    rows += [f"- `{name}`: {why}" for name, why in eco.exceptions.items()]
    rows += ["", "Names of ir_measures, ranx and trec_eval's report that segeval refuses, with this reason:", ""]
    by_reason: dict[str, list[str]] = {}
    for name, why in eco.missing.items():
        by_reason.setdefault(why, []).append(f"`{name}`")
    rows += [f"- {', '.join(names)}: {why}" for why, names in by_reason.items()]
    return "\n".join(rows)


def table(reg: Registry) -> str:
    """A Markdown table of the measures."""
    rows = [
        "| measure | input | aggregate | better | bounds | parameters | description |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in reg.families:
        label = f"`{f.name}`"
        if f.param is not None:
            label = (
                f"`{f.name}`, `{f.name}_n` (e.g. `{f.example}`)" if f.plain else f"`{f.name}_n` (e.g. `{f.example}`)"
            )
        better = {True: "higher", False: "lower", None: ""}[f.higher_is_better]
        given = "; ".join(f"`{name}`: {domain}" for name, domain in f.domains())
        rows.append(f"| {label} | {f.scope} | {f.aggregator} | {better} | {_bounds(f)} | {given} | {f.description} |")
    return "\n".join(rows)


def sets_table(reg: Registry) -> str:
    """A Markdown table of the named sets and their members."""
    rows = ["| set | members | description |", "|---|---|---|"]
    for name, members in reg.sets.items():
        rows.append(f"| `{name}` | {', '.join(members)} | {reg.set_descriptions.get(name, '')} |")
    return "\n".join(rows)


def aliases_table(reg: Registry) -> str:
    """A Markdown table of the accepted aliases and the canonical names they stand for."""
    rows = ["| alias | measure |", "|---|---|"]
    rows += [f"| `{a}` | `{n}` |" for a, n in reg.aliases.items()]
    rows += [
        f"| `{a}@n` | `{n}_{'k=' if 'k' in reg.by_name[n].pair_names else ''}n` |"
        for a, n in reg.family_aliases.items()
    ]
    rows.append("| `P@n(j)` | `P_judged_n` |")
    rows.append("| `name@n` | `name_n`, for every measure with a parameter (`P@10`, `Judged@10`) |")
    return "\n".join(rows)


def _bounds(f: Family) -> str:
    if f.lower is None and f.upper is None:
        return ""
    lower = "-inf" if f.lower is None else f"{f.lower:g}"
    upper = "inf" if f.upper is None else f"{f.upper:g}"
    return f"[{lower}, {upper}]" + ("*" if f.over_upper else "")
