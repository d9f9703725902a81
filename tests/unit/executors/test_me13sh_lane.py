"""The ``me13sh`` lane against the usual path: the same report, notes and exit code on generated
linking and search runs (ties and equal ranks, touching and overlapping segments, times on bin
edges, queries and videos in one file only, tabs, CRLF, blank lines, gzip), and None (the usual
path decides) on anything it does not take."""

from __future__ import annotations

import gzip
import random
import subprocess
import sys
from pathlib import Path

import pytest

from segeval.adapters.registry import me13sh_adapters
from segeval.core.pipeline import evaluate
from segeval.executors import lanes as me13sh_lane
from segeval.executors.lanes import me13sh_evaluation
from segeval.reports.me13sh import MEASURES
from tests.conftest import FIXTURES, ROOT, run_cli, sliced


def mmss(seconds: int) -> str:
    return f"{seconds // 60}.{seconds % 60:02d}"


def _time(rng: random.Random) -> int:
    """Seconds, often on a bin edge (multiples of 10 and 300) or near one."""
    pick = rng.random()
    if pick < 0.3:
        return rng.choice([0, 10, 20, 300, 600, 900]) + rng.choice([-1, 0, 0, 1]) % 60
    return rng.randint(0, 400)


def generate(rng: random.Random, kind: str, *, queries: int = 5, videos: int = 5, lines: int = 120,
             shuffle: bool = False) -> tuple[list[str], list[str]]:
    """(qrels lines, run lines): few videos and times, so that segments touch, overlap and repeat."""
    vids = [f"v{i:03d}" for i in range(videos)]
    qrels: list[str] = []
    run: list[str] = []
    seen: set[tuple[str, str, int, int]] = set()
    for q in range(queries):
        qid = f"q_{q}"
        if q != queries - 1:  # the last query: in the run only
            for _ in range(rng.randint(1, 16)):
                v, s = rng.choice(vids[: videos - 1]), _time(rng)  # the last video: in the run only
                e = s + rng.choice([0, 1, 10, 60, 299, 300, 301])
                if (qid, v, s, e) not in seen:
                    seen.add((qid, v, s, e))
                    qrels.append(f"{qid} Q0 {v} {mmss(s)} {mmss(e)} {rng.choice([0, 1, 1, 2])}")
        if q == 0:
            continue  # the first query: in the qrels only
        rank = 1
        judged = [line.split() for line in qrels if line.startswith(qid + " ")]
        for _ in range(rng.randint(1, lines // queries)):
            v, s = rng.choice(vids), _time(rng)
            if judged and rng.random() < 0.6:  # near a judged segment: labels 1, 0, s, S
                hit = rng.choice(judged)
                m, sec = hit[3].split(".")
                v, s = hit[2], max(0, int(m) * 60 + int(sec) + rng.randint(-20, 20))
            e = s + rng.choice([0, 1, 5, 15, 16, 120, 300])
            fields = [qid, "Q0", v, mmss(s), mmss(e)]
            if kind == "search":
                fields.append(mmss(s + rng.randint(0, max(e - s, 0))))
            rank += rng.choice([0, 1, 1, 1, 3])  # equal ranks keep file order
            fields += [str(rank), f"{rng.choice([-1, 1]) * rng.random():.4f}", "tag"]
            run.append(" ".join(fields))
    if shuffle:  # queries interleaved, ranks out of order
        rng.shuffle(run)
        rng.shuffle(qrels)
    return qrels, run


def write(path: Path, lines: list[str], *, style: str = "plain") -> Path:
    text = "\n".join(lines) + "\n"
    if style == "messy":  # tabs, runs of blanks, CRLF and blank lines
        text = "\n\n".join(line.replace(" ", "\t", 1).replace(" Q0 ", "  Q0   ") for line in lines) + "\r\n"
        text = text.replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    data = text.encode()
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)
    return path


def both(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """``segeval me13sh ARGS`` through the lane and through the usual path."""
    lane = run_cli("me13sh", *args)
    with monkeypatch.context() as m:
        m.setattr(me13sh_lane, "me13sh_evaluation", lambda *a, **k: None)
        usual = run_cli("me13sh", *args)
    return lane, usual


CASES = [(seed, kind, style, shuffle) for seed in range(6) for kind in ("linking", "search")
         for style, shuffle in (("plain", False), ("messy", seed % 2 == 0))]


@pytest.mark.parametrize(("seed", "kind", "style", "shuffle"), sliced(CASES, 3, many=True))  # every kind and style
def test_lane_gives_the_usual_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int, kind: str,
                                     style: str, shuffle: bool) -> None:
    rng = random.Random(seed)
    qrels_lines, run_lines = generate(rng, kind, shuffle=shuffle)
    if kind == "search" and seed % 3 == 0:  # search runs without the run tag
        run_lines = [line.rsplit(" ", 1)[0] for line in run_lines]
    qrels = write(tmp_path / "a.qrels", qrels_lines, style=style)
    run = write(tmp_path / ("b.run.gz" if seed % 2 else "b.run"), run_lines, style=style)
    adapters = me13sh_adapters(10 + seed, seed)
    ev = me13sh_evaluation(str(qrels), str(run), kind, MEASURES, adapters)
    assert ev is not None, "the lane gave up"
    usual = evaluate(str(qrels), str(run), MEASURES, adapters, qrels_format="mediaeval", run_format=kind)
    assert (ev.queries, ev.per_query, ev.summary, ev.notes) == (usual.queries, usual.per_query, usual.summary,
                                                                usual.notes)
    assert ev.unevaluated == usual.unevaluated == ["q_0"]
    lane_out, usual_out = both(monkeypatch, str(qrels), str(run), "--kind", kind, "-B", str(10 + seed),
                               "-T", str(seed))
    assert lane_out == usual_out and lane_out[0] == 0


def _case(tmp_path: Path, qrels_lines: list[str], run_lines: list[str]) -> tuple[str, str]:
    return str(write(tmp_path / "q.qrels", qrels_lines)), str(write(tmp_path / "r.run", run_lines))


QRELS = ["q1 Q0 v1 0.10 0.20 1", "q1 Q0 v1 0.20 0.30 0", "q1 Q0 v2 1.00 5.00 1", "q2 Q0 v1 0.00 0.05 1"]
RUN = ["q1 Q0 v1 0.15 0.25 1 0.9 r", "q1 Q0 v2 0.00 1.00 1 0.8 r", "q1 Q0 v3 0.00 0.10 2 0.7 r",
       "q2 Q0 v1 0.00 0.01 3 0.5 r", "q2 Q0 v1 0.00 0.01 1 0.5 r"]


@pytest.mark.parametrize(("qrels_lines", "run_lines", "taken"), [
    (QRELS, [RUN[0].replace("0.25", "0.05"), *RUN[1:]], False),  # a result ending before it starts
    (QRELS, [RUN[0].replace(" 1 0.9", " 0 0.9"), *RUN[1:]], False),  # rank 0
    (QRELS, [RUN[0].replace("0.9", "-1e3"), *RUN[1:]], True),  # a score beyond plain decimals: parsed
    (QRELS, [RUN[0].replace("0.9", "x"), *RUN[1:]], False),  # not a number
    (QRELS, [RUN[0].replace("0.9", "inf"), *RUN[1:]], False),  # not finite
    (QRELS, [RUN[0].replace("0.15", "0.60"), *RUN[1:]], False),  # 60 seconds
    (QRELS, [RUN[0].replace("0.15", "1.5.0"), *RUN[1:]], False),  # not a time
    (QRELS, [RUN[0].replace("0.15", "-0.15"), *RUN[1:]], False),  # negative
    (QRELS, [RUN[0] + " extra", *RUN[1:]], False),  # a field too many
    ([*QRELS, QRELS[0].replace(" 1", " 0")], RUN, False),  # a segment judged twice
    ([QRELS[0].replace("0.20", "0.05"), *QRELS[1:]], RUN, False),  # a qrels segment ending before it starts
    ([QRELS[0] + " human", *QRELS[1:]], RUN, False),  # completed qrels
    ([QRELS[0].replace(" 1", " x"), *QRELS[1:]], RUN, False),  # a grade that is not an integer
    (["\ufeff" + QRELS[0], *QRELS[1:]], RUN, True),  # a byte order mark (the reader drops it)
    (QRELS, [line.replace("q", "x") for line in RUN], False),  # no query in both
])
def test_lane_gives_way(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qrels_lines: list[str],
                        run_lines: list[str], taken: bool) -> None:
    """Input the lane does not take: it returns None and the usual path decides, with its messages;
    either way the output is the usual path's."""
    qrels, run = _case(tmp_path, qrels_lines, run_lines)
    ev = me13sh_evaluation(qrels, run, "linking", MEASURES, me13sh_adapters())
    assert (ev is not None) == taken
    lane, usual = both(monkeypatch, qrels, run)
    assert lane == usual


def test_lane_takes_plain_input_and_is_exact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Equal ranks keep file order; 1.5 is 1.05 in M.S; a run video the qrels do not know is unjudged."""
    qrels, run = _case(tmp_path, [*QRELS, "q1 Q0 v1 1.5 2.00 1"], RUN)
    ev = me13sh_evaluation(qrels, run, "linking", MEASURES, me13sh_adapters())
    assert ev is not None and ev.queries == ["q1", "q2"]
    assert ev.per_query["relString"] == ["11- 3", "11 2"]  # labels, then the number of results
    assert ev.per_query["num_rel"] == [3, 1]  # q1: 0.10-0.20, 1.05-2.00 (v1) and 1.00-5.00 (v2), merged per video
    lane, usual = both(monkeypatch, qrels, run)
    assert lane == usual


def test_options_the_lane_does_not_take(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels, run = _case(tmp_path, QRELS, RUN)
    calls: list[object] = []
    monkeypatch.setattr(me13sh_lane, "me13sh_evaluation", lambda *a, **k: calls.append(a))
    assert run_cli("me13sh", qrels, run, "--items", "q1")[0] == 0
    assert run_cli("me13sh", qrels, run, "--time-format", "seconds")[0] == 0  # 0.1 s, 0.2 s ...
    assert calls == []
    assert me13sh_evaluation("-", run, "linking", MEASURES, me13sh_adapters()) is None
    assert me13sh_evaluation(qrels, str(tmp_path / "missing.run"), "linking", MEASURES, me13sh_adapters()) is None


@pytest.mark.parametrize(("files", "options", "expected"), [
    (["gen_linking.qrels", "gen_linking.run"], ["-B", "60", "-T", "5"], "gen_linking.B60_T5.expected"),
    (["gen_search.qrels", "gen_search.run.gz"], ["--kind", "search"], "gen_search.default.expected"),
])
def test_lane_runs_without_pandas(files: list[str], options: list[str], expected: str) -> None:
    """``segeval me13sh`` on the reference fixtures imports no pandas (the lane ran) and prints the
    reference script's report."""
    code = ("import sys\nfrom segeval.cli.run import main\ncode = main(sys.argv[1:])\n"
            "print('pandas' in sys.modules, code, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code, "me13sh", *options, *(str(FIXTURES / f) for f in files)],
                          capture_output=True, text=True, cwd=ROOT, check=False)
    assert done.stderr.strip().splitlines()[-1] == "False 0"
    assert done.stdout == (FIXTURES / expected).read_text()
