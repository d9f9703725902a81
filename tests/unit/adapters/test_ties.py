"""Every tie has one documented order, the same on every route whatever else the files hold (issue 37):
``--order score`` (score descending, video id descending, then file order), the IoU adapters' equal-IoU
choice (``tiou`` and ``tiou:θ:best`` the first qrels line, ``tiou-best`` the later one, as ActivityNet's
reversed argsort), and times written with any number of decimals."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from segeval.adapters.registry import make_adapter
from segeval.readers.formats import parse_hms, parse_seconds
from segeval.readers.from_tables import prepare
from tests.conftest import FULL, sliced
from tests.support import routes as R

#: the segment routes without Dask (a cluster per session: the full route generator runs it)
ROUTES = [r for r in R.ROUTES if "segments" in r.kinds and r.name != "dask"]


def _same_everywhere(c: R.Collection, folder: Path, job: R.Job, every: bool = True) -> str:
    """The job's output, after checking that every route prints it (``every`` False: all but ``-j 2``, a
    process pool per run, which the README's suite takes on the first case of each test only)."""
    x = R.Inputs(c, *c.write(folder))
    assert not R.differences(x, job, ROUTES if every or FULL else [r for r in ROUTES if r.name != "-j 2"])
    return R.cli_outcome(["eval", *job.args(), x.qrels, x.run]).stdout


# ------------------------------------------------------------------------------------------ hand-derived


@pytest.mark.parametrize(("spec", "first", "second"), [
    # qrels A = 20-30, B = 10-20; rank 1 (15-25) has IoU 5/15 = 1/3 with both, rank 2 (8-20) 10/12 with B only.
    # Listed A, B: tiou takes the first line (A), so rank 2 takes B: AP (1/1 + 2/2) / 2 = 1; listed B, A it
    # takes B and rank 2 is s: AP 1/2.  tiou-best takes the later line: the other way round.
    ("tiou:0.3", "1.0000", "0.5000"), ("tiou:0.3:best", "1.0000", "0.5000"),
    ("tiou:0.3:empty0:best", "1.0000", "0.5000"), ("tiou-best:0.3", "0.5000", "1.0000")])
def test_equal_iou_goes_by_qrels_line(spec: str, first: str, second: str, tmp_path: Path) -> None:
    run = [[("q1", "v1", 15, 25, 1, "2"), ("q1", "v1", 8, 20, 2, "1")], [("q1", "v1", 8, 20, 1, "1")]]
    a, b = ("q1", "v1", 20, 30, "1"), ("q1", "v1", 10, 20, "1")
    job = R.Job(("map",), adapter=spec)
    for qrels, expected in (([a, b], first), ([b, a], second)):
        out = _same_everywhere(R.Collection(f"lines{expected}", "segments", qrels, run), tmp_path, job,
                               spec == "tiou:0.3")
        assert out.split()[-1] == expected, (spec, qrels)


def test_score_ties_in_one_video_keep_file_order(tmp_path: Path) -> None:
    # --order score: 0-10 (relevant) and 20-30 of v1 tie at score 1: the one listed first is ranked first,
    # so P_1 is 1 when 0-10 is listed first and 0 when 20-30 is (not by start time, nor by the rank column)
    qrels = [("q1", "v1", 0, 10, "1")]
    for name, listed, expected in (("first", [(0, 10), (20, 30)], "1.0000"), ("second", [(20, 30), (0, 10)], "0.0000")):
        run = [[("q1", "v1", s, e, i + 1, "1") for i, (s, e) in enumerate(listed)]] * 2
        c = R.Collection(name, "segments", qrels, run)
        job = R.Job(("P_1",), ("--order", "score"), "overlap")
        assert _same_everywhere(c, tmp_path, job, name == "first").split()[-1] == expected


# ------------------------------------------------------------------------------------------- generators


def _score_ties(seed: int) -> R.Collection:
    """4-6 queries of 20-40 results over two videos with scores 1 or 2 (more than 16 tied in a video), ranks in
    file order; a few relevant segments near them."""
    rng = random.Random(seed)
    qrels: list[tuple[object, ...]] = []
    runs: list[list[tuple[object, ...]]] = [[], []]
    for q in (f"t{i}" for i in range(rng.randint(4, 6))):
        spans = {(rng.choice(["v1", "v2"]), rng.randrange(0, 300, 5)) for _ in range(rng.randint(3, 8))}
        qrels += [(q, v, s, s + 20, rng.choice(["0", "1", "1", "2"])) for v, s in sorted(spans)]
        for run in runs:
            picked = list({(rng.choice(["v1", "v2"]), rng.randrange(0, 300, 5), rng.choice([5, 20, 40]))
                           for _ in range(rng.randint(20, 40))})
            rng.shuffle(picked)
            run += [(q, v, s, s + n, i + 1, rng.choice(["1", "2"])) for i, (v, s, n) in enumerate(picked)]
    return R.Collection(f"scoreties{seed}", "segments", qrels, runs)


SCORE_TIES = [(seed, adapter) for seed in range(3) for adapter in ("overlap-once", "tiou:0.3")]
LINE_TIES = [(spec, seed) for seed in range(4)
             for spec in ("tiou:0.5", "tiou:0.25", "tiou:0.5:best", "tiou-best:0.5", "tiou-best:0.25")]


@pytest.mark.parametrize(("seed", "adapter"), sliced(SCORE_TIES, 3, many=True))
def test_score_ties_one_order_on_every_route_and_alone(seed: int, adapter: str, tmp_path: Path) -> None:
    c = _score_ties(seed)
    job = R.Job(("map", "P_5", "recip_rank"), ("--order", "score", "-q"), adapter)
    whole = _same_everywhere(c, tmp_path, job, seed == 0)
    for q in sorted({t[0] for t in c.runs[0]}):  # each query alone in its run: the same lines
        alone = R.Collection(f"{c.name}_{q}", "segments", c.qrels, [[t for t in r if t[0] == q] for r in c.runs])
        x = R.Inputs(alone, *alone.write(tmp_path))
        out = R.cli_outcome(["eval", *job.args(), x.qrels, x.run]).stdout
        assert [ln for ln in out.splitlines() if f"\t{q}\t" in ln] == \
               [ln for ln in whole.splitlines() if f"\t{q}\t" in ln]


def _hull(a: tuple[int, int], b: tuple[int, int]) -> Fraction:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    return Fraction(inter, max(a[1], b[1]) - min(a[0], b[0]))


def _union(a: tuple[int, int], b: tuple[int, int]) -> Fraction:
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    return Fraction(inter, a[1] - a[0] + b[1] - b[0] - inter)


def _expected(spec: str, truth: list[tuple[int, int]], results: list[tuple[int, int]]) -> list[tuple[str, int]]:
    """Each result's label and the line (from 0) it takes (-1: none) by the documented rule, in exact fractions
    (one video, every line relevant)."""
    theta = Fraction(spec.split(":")[1])
    taken: set[int] = set()
    labels = []
    for r in results:
        if spec.startswith("tiou-best"):  # highest tIoU first, the later line first on ties
            order = sorted(range(len(truth)), key=lambda j: (-_union(r, truth[j]), -j))
            reach = [j for j in order if _union(r, truth[j]) >= theta]
            free = [j for j in reach if j not in taken][:1]
        else:
            if spec.endswith("best"):  # the window of highest union IoU (the first line on ties) only
                pool = [min(range(len(truth)), key=lambda j: (-_union(r, truth[j]), j))]
            else:
                pool = list(range(len(truth)))
            reach = [j for j in pool if _hull(r, truth[j]) >= theta]
            free = sorted((j for j in reach if j not in taken), key=lambda j: (-_hull(r, truth[j]), j))[:1]
        taken.update(free)
        labels.append(("1" if free else "s" if reach else "0", free[0] if free else -1))
    return labels


@pytest.mark.parametrize(("spec", "seed"), sliced(LINE_TIES, 4, many=True))
def test_equal_iou_ties_follow_the_documented_line_order(spec: str, seed: int, tmp_path: Path) -> None:
    # windows on a coarse grid against results on it: many equal IoUs, listed in random order
    rng = random.Random(seed)
    truth = list({(s, s + n) for s, n in ((rng.randrange(0, 40, 2), rng.choice([2, 4, 8])) for _ in range(10))})
    rng.shuffle(truth)
    results = list(dict.fromkeys((s, s + rng.choice([2, 4, 8])) for s in (rng.randrange(0, 40, 2) for _ in range(12))))
    q = pd.DataFrame([("q", "v", float(s), float(e), 1, i + 1) for i, (s, e) in enumerate(truth)],
                     columns=["query", "item", "start", "end", "rel", "line"])
    r = pd.DataFrame([("q", "v", float(s), float(e), float("nan"), i + 1, 0.0, "r", i + 1)
                      for i, (s, e) in enumerate(results)],
                     columns=["query", "item", "start", "end", "jumpin", "rank", "score", "run", "line"])
    data = prepare(q, r)
    (got,) = make_adapter(spec).adapt(data)
    listed = data.qrels_columns["listed"]
    assert [(chr(c), int(listed[got.matches(i)][0]) if c == ord("1") else -1)
            for i, c in enumerate(got.labels.tolist())] == _expected(spec, truth, results)
    c = R.Collection(f"iou{seed}", "segments", [("q", "v", s, e, "1") for s, e in truth],
                     [[("q", "v", s, e, i + 1, "1") for i, (s, e) in enumerate(results)]] * 2)
    _same_everywhere(c, tmp_path, R.Job(("map", "P_5"), ("-q",), spec), (spec, seed) == LINE_TIES[0])


# ----------------------------------------------------------------------------------------------- times


@given(st.floats(min_value=0, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_every_str_of_a_time_reads_back(value: float) -> None:
    assert parse_seconds(str(value)) == value
    assert parse_seconds(repr(value)) == value


@pytest.mark.parametrize("token", ["-1.5", "1e5", "1.5E+05", "1e+999", "1.", ".5", "1_0"])
def test_seconds_still_refuse_signs_and_other_spellings(token: str) -> None:
    assert parse_seconds(token) is None


def test_long_decimals_read_as_in_a_dataframe(tmp_path: Path) -> None:
    import segeval

    assert parse_hms("0:00:20.1234567890123") == 20.1234567890123
    times = [(20.1234567890, 30.5), (1e-05, 0.30000000000000004), (40.123456789012344, 50.0)]
    (tmp_path / "q").write_text("".join(f"q1 Q0 v1 {s} {e} 1\n" for s, e in times[:2]))
    (tmp_path / "r").write_text("".join(f"q1 Q0 v1 {s!s} {e!s} {i + 1} 1 r\n" for i, (s, e) in enumerate(times)))
    frames = (pd.DataFrame([("q1", "v1", s, e, 1) for s, e in times[:2]],
                           columns=["query_id", "video", "start", "end", "relevance"]),
              pd.DataFrame([("q1", "v1", s, e, i + 1, 1.0) for i, (s, e) in enumerate(times)],
                           columns=["query_id", "video", "start", "end", "rank", "score"]))
    files = segeval.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["map"], adapter="tiou:0.999999",
                             time_format="seconds")
    from_frames = segeval.evaluate(*frames, ["map"], adapter="tiou:0.999999")
    assert files.summary == from_frames.summary == {"map_tiou0.999999": 1.0}  # both found exactly: (1 + 1) / 2
