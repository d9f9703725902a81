"""Each adapter's rules on drawn timelines (one character = one second)."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from segeval.adapters import (
    BinnedAdapter,
    CollarAdapter,
    OverlapAdapter,
    OverlapOnceAdapter,
    TiouAdapter,
    ToleranceAdapter,
)
from segeval.adapters.registry import KINDS, make_adapter
from segeval.core.errors import ParameterError
from segeval.readers.from_tables import prepare
from tests.support.timeline import adapt, bar, frames

# ----------------------------------------------------------------------------- overlap

OVERLAP = """
#      0         1         2
#      0123456789012345678901234
rel  : ..........[=========]....
non  : [==].....................
1    : ..[=]....................
2    : .....[=].................
3    : .......[==]..............
4    : ............[=]..........
5@v2 : ............[=]..........
6    : ....................*....
"""


def test_overlap_labels_touching_and_zero_length() -> None:
    a = adapt(OverlapAdapter(), OVERLAP)
    # 1: 2-4 meets non 0-3 -> 0; 2: 5-7 meets nothing -> -; 3: 7-10 touches rel 10-20 -> 1;
    # 4: 12-14 inside -> 1 (credited again); 5: other video -> -; 6: point 20 = rel's end -> 1
    assert a.relstring == "0-11-1"
    assert a.num_rel == 1
    assert a.source.tolist() == [0, 1, 2, 3, 4, 5]


def test_overlap_matches_name_the_deciding_qrels_rows() -> None:
    q, r = frames(OVERLAP)
    data = prepare(q, r)
    (a,) = OverlapAdapter().adapt(data)
    rel_row = int(data.qrels.index[data.qrels["rel"] == 1][0])
    non_row = int(data.qrels.index[data.qrels["rel"] == 0][0])
    assert a.matches(0).tolist() == [non_row]
    assert a.matches(1).tolist() == []
    assert a.matches(2).tolist() == [rel_row]


def test_overlap_merges_touching_relevant_segments_for_num_rel() -> None:
    a = adapt(OverlapAdapter(), """
rel   : [====]......
rel   : .....[===]..
rel   : ..........[]
rel@v2: [=].........
1     : ...[]........
""")
    # 0-5 and 5-9 touch -> one merged segment; 10-11 separate; v2 another -> 3
    assert a.num_rel == 3
    assert a.relstring == "1"


def test_overlap_relevant_wins_over_nonrelevant() -> None:
    a = adapt(OverlapAdapter(), """
rel : [===].....
non : ...[====].
1   : ..[====]..
2   : ......[].
""")
    assert a.relstring == "10"  # 1 meets both -> 1; 2 (6-7) meets only non -> 0


# ------------------------------------------------------------------------------ binned

BINNED = """
#      0         1         2         3
#      0123456789012345678901234567890123
rel  : [=============]...................
non  : ..........................[=====].
1    : .....[===================]........
2    : ............[=]...................
3    : ....................*.............
4    : ..............................[=].
5@v2 : [=]...............................
"""


def test_binned_expands_dedups_and_skips_boundary_points() -> None:
    a = adapt(BinnedAdapter(10), BINNED)
    # 1: 5-25 covers bins 0,1,2 -> 1 1 0 (bin 2 only non-relevant, from 26-32);
    # 2: bin 1 again -> dropped; 3: point 20 on a boundary -> no bin; 4: 30-32 -> bin 3 -> 0;
    # 5: v2 bin 0 -> -
    assert a.relstring == "1100-"
    assert a.num_rel == 2  # rel 0-14 covers bins 0 and 1
    assert a.source.tolist() == [0, 0, 0, 3, 4]


def test_binned_counts_distinct_bins_of_unmerged_qrels() -> None:
    a = adapt(BinnedAdapter(10), """
rel : [=]..[=].....[====]..
non : [=].................
1   : ..[===========].....
""")
    # rel 0-2 and 5-7 both in bin 0; 13-18 in bin 1 -> 2 relevant bins; bin 0 also non-relevant: 1 wins
    assert a.num_rel == 2
    assert a.relstring == "11"


def test_binned_reference_module_example() -> None:
    # the example in the reference's binnedRelevance.py (bin size 10)
    picture = "\n".join([
        f"rel : {bar(15, 25)}", f"rel : {bar(30, 35)}", f"rel@v2 : {bar(3, 20)}",
        f"non : {bar(0, 10)}", f"non : {bar(105, 120)}",
        f"1 : {bar(0, 5)}", f"2 : {bar(5, 10)}", f"3 : {bar(10, 15)}", f"4 : {bar(23, 23)}",
        f"5 : {bar(27, 27)}", f"6 : {bar(100, 200)}", f"7@v3 : {bar(10, 15)}",
    ])
    a = adapt(BinnedAdapter(10), picture)
    # units: bin 0 (non 0-10), bin 0 again dropped, bin 1 (rel 15-25), bin 2 (rel), bin 2 dropped,
    # bins 10..19 (10, 11 non: 105-120 ends inside bin 11), v3 bin 1 -> 14 units, as the module expects
    assert a.relstring == "01100---------"
    assert len(a) == 14


def test_binned_matches_only_the_qrels_of_the_results_query_and_video() -> None:
    # q1 judges v1, q2 judges v2 (0-14 relevant, bins 0 and 1 of 10 s): a result in the other query's
    # judged video is unjudged ('-'), one in its own query's judged video is relevant
    q1, r1 = frames("rel@v1 : [=============].\n1@v2 : [====].........\n2@v1 : [====].........", query="q1")
    q2, r2 = frames("rel@v2 : [=============].\n1@v1 : ...........[=]..\n2@v2 : ...........[=]..", query="q2")
    data = prepare(pd.concat([q1, q2], ignore_index=True), pd.concat([r1, r2], ignore_index=True))
    first, second = BinnedAdapter(10).adapt(data)
    assert (first.relstring, second.relstring) == ("-1", "-1")
    assert (first.num_rel, second.num_rel) == (2, 2)


def test_binned_rejects_bad_bin_size() -> None:
    with pytest.raises(ParameterError, match=r"The 'bin_size' parameter must be an integer >= 1. Got 0 instead."):
        BinnedAdapter(0)


# --------------------------------------------------------------------------- tolerance

def test_tolerance_reference_module_example_as_the_script_computes_it() -> None:
    # The reference's toleranceToIrrelevance.py example (T = 10) expects [0, 1, s, s, 1], but the
    # script's interval look-up (half-open whole seconds) gives [0, 0, 1, 1, 1], which is what
    # produced the published numbers:
    a = adapt(ToleranceAdapter(10), """
#     0         1         2         3
#     0123456789012345678901234567890123456
rel : ...............[=========]....[====]
non : [=========]
1   : [====]
2   : .....[====]
3   : ..........[====]
4   : .......................*
5   : ...........................*
""")
    # 1: [0,10) misses rel, meets non -> 0; 2: [5,15) stops before 15 -> non -> 0;
    # 3: [10,20) meets rel 15-25 -> 1, seen (10, 25); 4: [23,33) meets rel, the zero-length [23,23)
    # meets no seen second -> 1; 5: likewise -> 1
    assert a.relstring == "00111"


def test_tolerance_seen_extends_to_end_of_relevant_segment() -> None:
    a = adapt(ToleranceAdapter(10), """
#     0         1         2         3
#     0123456789012345678901234567890
rel : .....[===].[=================]
1   : ........[===]
2   : ....................[=========]
""")
    # 1: [8,18) meets 5-9 and 12-30 -> 1, seen (8, max(9, 30, 18)) = (8, 30); 2: [20,30) meets rel,
    # [20,31) meets seen -> s
    assert a.relstring == "1s"


def test_tolerance_nonrelevant_seen_and_unjudged() -> None:
    a = adapt(ToleranceAdapter(3), """
#     0         1         2
#     012345678901234567890
rel : ..........[===]
non : ...........[=========]
non : [==]
1   : .........[=]
2   : ..............[====]
3   : .[]
4@v2: .[]
""")
    # 1: [9,12) meets rel -> 1, seen (9, max(14, 12)) = (9, 14); 2: [14,17) misses rel (ends at 14),
    # [14,19) meets non; seen (9,14) holds no second >= 14 -> 0; 3: non 0-3 -> 0; 4: other video -> -
    assert a.relstring == "100-"


def test_tolerance_zero_window_uses_the_point_rule_at_zero() -> None:
    a = adapt(ToleranceAdapter(0), """
rel : [====]
1   : *
2   : ..[=]
""")
    # T = 0: [s, s) is empty, except at s = 0 where the reference looks up the point 0 -> 1;
    # 2: [2, 2) meets nothing relevant, and no non-relevant segment -> -
    assert a.relstring == "1-"


def test_tolerance_rejects_negative_tolerance() -> None:
    with pytest.raises(ParameterError, match=r"The 'tolerance' parameter must be an integer >= 0. Got -5 instead."):
        ToleranceAdapter(-5)


def test_every_adapter_returns_one_result_per_query_in_order() -> None:
    q1, r1 = frames("rel : [==]\n1 : [=]\n", query="b")
    q2, r2 = frames("non : [==]\n1 : [=]\n", query="a")
    import pandas as pd

    data = prepare(pd.concat([q1, q2], ignore_index=True), pd.concat([r1, r2], ignore_index=True))
    assert data.queries == ["a", "b"]
    for adapter in (OverlapAdapter(), BinnedAdapter(1), ToleranceAdapter(2)):
        a, b = adapter.adapt(data)
        assert (a.relstring[0], b.relstring[0]) == ("0", "1")


def test_tolerance_nonrelevant_already_seen_is_capital_s() -> None:
    a = adapt(ToleranceAdapter(3), """
#     0         1         2
#     012345678901234567890
rel : ..........[===]
non : ...........[=========]
1   : ............[]
2   : ..............[====]
""")
    # 1: [12,15) meets rel 10-14 -> 1, seen (12, max(14, 15)) = (12, 15);
    # 2: [14,17) misses rel (ends at 14), [14,19) meets non and seen second 14 -> S
    assert a.relstring == "1S"


@pytest.mark.parametrize(("adapter", "name"), [
    (OverlapAdapter(), "overlap"),
    (OverlapOnceAdapter(), "overlap-once"),
    (TiouAdapter(0.5), "tiou"),
    (BinnedAdapter(10), "binned"),
    (ToleranceAdapter(5), "tolerance"),
    (CollarAdapter(1), "collar"),
])
def test_worked_examples_in_the_docs_are_true(adapter, name: str) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import ROOT

    page = (ROOT / "docs" / "adapters.md").read_text().split("## Worked examples", 1)[1]
    lines = page.split(f"**`{name}`**", 1)[1].split("```")[1].splitlines()  # the first block after its name
    labels = next(line.split(":", 1)[1].strip() for line in lines
                  if line.startswith(("labels:", f"labels ({name}):")))
    picture = "\n".join(line for line in lines if " : " in line)
    assert adapt(adapter, picture).relstring == labels


# ------------------------------------------------------------------------ overlap-once

def test_overlap_once_credits_every_segment_a_result_is_first_to_reach() -> None:
    a = adapt(OverlapOnceAdapter(), """
#      0         1         2
#      0123456789012345678901234
rel  : ..[==]......[===]
rel@v2: ..[==]
1    : ....[========]....
2    : .............[=]
3@v2 : ...[]
4@v3 : ...[]
""")
    # 1 (4-13) is first to reach both 2-5 and 11-15: 1; 2 (13-15) reaches only credited ones: s;
    # 3 is first on v2: 1; 4 is in a video without judgements: -
    assert a.relstring == "1s1-"
    assert a.num_rel == 3


# ----------------------------------------------------------------------- binned start

def test_binned_start_uses_only_the_start_bin() -> None:
    a = adapt(BinnedAdapter(10, "start"), """
#      0         1         2         3
#      0123456789012345678901234567890
rel  : ............[=====]
1    : .....[===================]
2    : ...........[=]
3    : ..................[=========]
""")
    # the relevant 12-18 starts in bin 1; 1 (5-25) starts in bin 0: -; 2 (11-13) in bin 1: 1;
    # 3 (18-28) in bin 1 again: dropped
    assert a.relstring == "-1"
    assert a.num_rel == 1


def test_binned_rejects_unknown_assignment() -> None:
    with pytest.raises(ParameterError, match=r"The 'assign' parameter must be one of 'span', 'start'"):
        BinnedAdapter(10, "end")


# ------------------------------------------------------------------------------- tIoU

def test_tiou_theta_exactly_at_the_boundary() -> None:
    picture = """
#     0         1         2
#     0123456789012345678901234
rel : ..........[=========]
1   : ..........[====]
"""
    # 10-15 against 10-20: overlap 5, union 10: IoU = 0.5 exactly
    assert adapt(TiouAdapter(0.5), picture).relstring == "1"
    assert adapt(TiouAdapter(0.5, strict=True), picture).relstring == "0"


def test_tiou_duplicated_ground_truth_and_other_videos() -> None:
    a = adapt(TiouAdapter(0.7), """
#      0         1         2
#      0123456789012345678901234
rel  : ..........[=========]
rel  : ..........[=========]
1    : ..........[=========]
2    : ..........[=========]
3    : ..........[=========]
4@v2 : ..........[=========]
""")
    # two identical relevant segments: the first two exact matches take one each, the third finds
    # both taken (s); the same span in another video matches nothing (0)
    assert a.relstring == "11s0"
    assert a.num_rel == 2


def test_tiou_rejects_bad_theta() -> None:
    with pytest.raises(ParameterError, match=r"The 'theta' parameter must be a number in \(0, 1\]. Got 1.5"):
        TiouAdapter(1.5)


# ---------------------------------------------------------------------------- collar

def test_collar_on_the_float_limit() -> None:
    q, r = frames("""
#      0         1         2         3         4         5         6         7
#      012345678901234567890123456789012345678901234567890123456789012345678901
rel  : ..........[===================]
rel  : .......................[=======================================]
1    : ............[===================]
2    : .........................[=============================================]
3    : .......................[=======================================]
4    : ..........[===================]
""")
    for table in (q, r):  # one character = 0.1 s: 23 / 10 is the double nearest 2.3, as "2.3" reads
        table[["start", "end"]] /= 10
    # 1 (1.2-3.2) against 1.0-3.0: 1.2 - 1.0 = 0.19999999999999996 <= 0.2, offsets 0.20000000000000018 <= 0.4: 1;
    # 2 (2.5-7.1) against 2.3-6.3: 2.5 - 2.3 = 0.20000000000000018 > 0.2: 0; 3 is 2.3-6.3 itself: 1; 4 is
    # 1.0-3.0 itself, taken by 1: s (onsets only: the same)
    for spec in ("collar:0.2:0.2", "collar:0.2:0.2:onset"):
        (a,) = make_adapter(spec).adapt(prepare(q, r))
        assert a.relstring == "101s" and a.num_rel == 2, spec


@pytest.mark.parametrize(("spec", "part", "expected"), [
    ("collar:-0.1", "the collar t (seconds)", "a number in [0, 1e100]"),
    ("collar:0.2:nan", "the offset collar's share p of the length", "a number in [0, 1e100]"),
    ("collar:0.2:0.2:offset", "the flags after p", "any of 'onset'"),
    ("collar:0.2:0.2:onset:onset", "the flags after p", "any of 'onset'"),
])
def test_collar_refuses_bad_parameters(spec: str, part: str, expected: str) -> None:
    with pytest.raises(ParameterError, match=re.escape(f"The 'adapter' parameter {spec!r}: {part} must be {expected}")):
        make_adapter(spec)
    with pytest.raises(ParameterError, match=r"The 't_collar' parameter must be a number in \[0, 1e100\]\. Got -1"):
        CollarAdapter(-1)


def test_readme_adapter_comparison_is_true() -> None:
    from segeval.core.pipeline import make_adapter
    from tests.conftest import ROOT

    block = (ROOT / "README.md").read_text().split("<!-- adapters:start -->", 1)[1].split("<!-- adapters:end -->")[0]
    picture = "\n".join(line.strip() for line in block.splitlines() if " : " in line and "|" not in line)
    rows = [line.split("|") for line in block.splitlines() if line.startswith("| `")]
    specs = [row[1].strip().strip("`") for row in rows]
    # every declared adapter kind is drawn (segeval/adapters/registry.py: KINDS), binned both ways
    assert {s.split(":")[0] for s in specs} == {k.name for k in KINDS}
    assert {"binned:10:start", "tiou:0.5:strict", "tiou:0.5:float32"} <= set(specs)
    for row in rows:
        spec, labels = row[1].strip().strip("`"), row[2].strip().strip("`")
        assert adapt(make_adapter(spec), picture).relstring == labels, spec


README_PICTURE = """
rel : ..........[=========].......[====]
non : [===]
1   : ..[===]
2   : ........[====]
3   : ............[===]
4   : .........................[======]
5   : ..............[=============]
6   : ............................[====]
"""


@pytest.mark.parametrize(("spec", "labels"), [
    # 6 (28-33) is the only result equal to a qrels segment; 1-5 have no line of their own
    ("exact", "-----1"),
    # 1 meets only non 0-4; 2, 3, 5 meet 10-20; 4, 5, 6 meet 28-33
    ("overlap", "011111"),
    # 10-20 credited to 2 (3, 5 then s); 28-33 credited to 4 (6 then s; 5 also meets only credited ones)
    ("overlap-once", "01s1ss"),
    # bins by first appearance: 1 -> 0 (non), 2 -> 0 1, 4 -> 2 3 (28-33 covers bins 2, 3): 0 1 1 1
    ("binned:10", "0111"),
    ("binned:10:span", "0111"),
    # start bins 0, 0, 1, 2, 1, 2: new ones 0 (non), 1 (rel), 2 (28-33 starts in it)
    ("binned:10:start", "011"),
    # 2 starts 8, rel 10 within 5 s: 1, seen 8-20; 3 (12) and 5 (14) start in it: s; 4 (25, rel 28): 1,
    # seen 25-33; 6 (28) inside: s
    ("tolerance:5", "01s1ss"),
    # IoU: 2 with 10-20 = 3/12 = 0.25, 3 = 4/10, 5 = 6/18 (it only touches 28-33), 4 with 28-33 = 4/8 = 0.5,
    # 6 = 1 with the matched 28-33: s
    ("tiou:0.5", "00010s"),
    # 4's 0.5 is not above 0.5, so 28-33 stays free for 6
    ("tiou:0.5:strict", "000001"),
    # whole seconds: 32-bit IoU and theta equal the doubles here
    ("tiou:0.5:float32", "00010s"),
    # union IoU: 2 = 3/12, 3 = 4/10, 5 = 6/18, 4 = 4/(7 + 5 - 4) = 0.5 takes 28-33, 6 finds it taken: s
    ("tiou-best:0.5", "00010s"),
    # onsets within 3 s: 2 (8) and 3 (12) of 10-20 but offsets 13, 16 are 7, 4 > max(3, 0.2 * 10) from 20;
    # 4 (25-32) of 28-33: offset 1 <= 3: takes it; 6 (28-33) hits it taken: s; 5 (14) is 4 from 10
    ("collar:3", "00010s"),
    # onsets only: 2 takes 10-20, 3 finds it taken, 4 takes 28-33, 5 (14) misses, 6 finds 28-33 taken
    ("collar:3:0.2:onset", "01s10s"),
])
def test_readme_picture_hand_derived(spec: str, labels: str) -> None:
    from segeval.core.pipeline import make_adapter

    assert adapt(make_adapter(spec), README_PICTURE).relstring == labels


def test_readme_picture_is_the_tested_one() -> None:
    from tests.conftest import ROOT

    block = (ROOT / "README.md").read_text().split("<!-- adapters:start -->", 1)[1].split("<!-- adapters:end -->")[0]
    drawn = [line.strip() for line in block.splitlines() if " : " in line and "|" not in line]
    assert drawn == [line.strip() for line in README_PICTURE.strip().splitlines()]
