"""The command line: version, help, usage errors, parameter checks, query selection, hand-derived values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from segeval import __version__
from tests.conftest import ROOT, run_cli

# --------------------------------------------------------------------------- a hand-made case
# Times are M.S (minutes.seconds), shown in seconds in the comments.  The overlap adapter labels a
# result 1 when it meets (touching counts) a relevant qrels segment of its video, else 0 when it
# meets a non-relevant one, else '-'.  num_rel counts relevant segments after merging touching ones.

QRELS = (
    b"qA Q0 v1 1.00 2.00 1\n"  # 60-120 relevant
    b"qA Q0 v1 2.00 3.00 1\n"  # 120-180 relevant, touches 60-120: merged into 60-180
    b"qA Q0 v1 5.00 6.00 1\n"  # 300-360 relevant
    b"qA Q0 v2 0.00 0.30 0\n"  # 0-30 non-relevant
    b"qA Q0 v2 10.00 11.00 1\n"  # 600-660 relevant
    b"qB Q0 v9 0.00 1.00 1\n"  # 0-60 relevant
    b"qB Q0 v9 2.00 3.00 0\n"  # 120-180 non-relevant
    b"qC Q0 v1 0.00 1.00 1\n"  # qC has no results in the run: not evaluated
)
RUN = (
    b"qA Q0 v1 3.00 4.00 1 0.9 r\n"  # 180-240 touches 60-180 -> 1
    b"qA Q0 v2 0.10 0.20 2 0.8 r\n"  # 10-20 inside non-relevant 0-30 -> 0
    b"qA Q0 v3 1.00 2.00 3 0.7 r\n"  # v3 has no qrels -> -
    b"qA Q0 v2 9.00 10.00 4 0.6 r\n"  # 540-600 touches 600-660 -> 1
    b"qA Q0 v1 4.00 4.59 5 0.5 r\n"  # 240-299 meets neither 60-180 nor 300-360 -> -
    b"qA Q0 v1 6.00 7.00 6 0.4 r\n"  # 360-420 touches 300-360 -> 1
    b"qB Q0 v9 0.30 0.40 2 0.5 r\n"  # rank 2 (listed first): 30-40 inside relevant 0-60 -> 1
    b"qB Q0 v9 2.30 2.40 1 0.6 r\n"  # rank 1: 150-160 inside non-relevant 120-180 -> 0
)
RUN_UNKNOWN_QUERY = b"qZ Q0 v1 1.00 2.00 1 0.9 r\n"  # qZ is not in the qrels: ignored

EXPECTED = {
    ("num_rel", "qA"): "3",  # merged relevant segments: v1 60-180, v1 300-360, v2 600-660
    ("num_ret", "qA"): "6",  # six results
    ("num_rel_ret", "qA"): "3",  # labels 1 0 - 1 - 1: three 1s
    ("map", "qA"): "0.6667",  # (1/1 + 2/4 + 3/6) / 3 = 2/3
    ("P_5", "qA"): "0.4000",  # two 1s in the first five: 2/5
    ("relString", "qA"): "10-1-1 6",  # labels in rank order and their count
    ("num_rel", "qB"): "1",  # one relevant segment, v9 0-60
    ("num_ret", "qB"): "2",  # two results
    ("num_rel_ret", "qB"): "1",  # labels 0 1 by rank: one 1
    ("map", "qB"): "0.5000",  # (1/2) / 1
    ("P_5", "qB"): "0.2000",  # one 1 in the first five: 1/5
    ("relString", "qB"): "01 2",  # ordered by rank, not file order
    ("num_q", "all"): "2",  # qA and qB; qC (no results) and qZ (no qrels) are not evaluated
    ("num_rel", "all"): "4",  # 3 + 1
    ("num_ret", "all"): "8",  # 6 + 2
    ("num_rel_ret", "all"): "4",  # 3 + 1
    ("map", "all"): "0.5833",  # (2/3 + 1/2) / 2 = 7/12
    ("P_5", "all"): "0.3000",  # (0.4 + 0.2) / 2
}

CONSTANT_ROWS = [
    ("runid", "all", "run.txt"),
    ("size_bin", "all", "300"),
    ("tol_len", "all", "15"),
    ("mark_relevant", "all", "1"),
    ("mark_non_relevant", "all", "0"),
    ("mark_relevant_seen", "all", "s"),
    ("mark_non-relevant_seen", "all", "S"),
    ("mark_unjudged", "all", "-"),
]


def write(tmp_path: Path, qrels: bytes = QRELS, run: bytes = RUN) -> tuple[str, str]:
    (tmp_path / "qrels.txt").write_bytes(qrels)
    (tmp_path / "run.txt").write_bytes(run)
    return str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")


def rows(out: str) -> list[tuple[str, str, str]]:
    """The report's rows as (name, query, value), padding stripped."""
    result = []
    for line in out.splitlines():
        name, query, value = line.split("\t")
        result.append((name.strip(), query.strip(), value.strip()))
    return result


def table(out: str) -> dict[tuple[str, str], str]:
    return {(n, q): v for n, q, v in rows(out)}


def ok(*args: str) -> str:
    code, out, err = run_cli(*args)
    assert (code, err) == (0, "")
    return out


def usage_error(*args: str) -> str:
    code, out, err = run_cli(*args)
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    return err


# --------------------------------------------------------------------------- version and help

def test_version() -> None:
    code, out, err = run_cli("--version")
    assert (code, out, err) == (0, f"segeval {__version__}\n", "")


def test_python_dash_m_version() -> None:
    done = subprocess.run([sys.executable, "-m", "segeval", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"segeval {__version__}\n", "")


def _help_text() -> str:
    code, out, err = run_cli("me13sh", "--help")
    assert (code, err) == (0, "")
    return " ".join(out.replace("│", " ").split())  # without the box and the line wrapping


def test_me13sh_help_lists_the_options() -> None:
    text = _help_text()
    for option in ("-B", "--bin-size", "-T", "--tolerance", "-i", "--items", "--kind", "-k"):
        assert f" {option} " in text or f" {option}," in text, option


def test_me13sh_help_shows_the_optional_run_field() -> None:
    assert "'qid Q0 video start end jumpin rank score [run]'" in _help_text()


# --------------------------------------------------------------------------- usage errors

def test_unknown_option(tmp_path: Path) -> None:
    err = usage_error("me13sh", "--bogus", *write(tmp_path))
    assert "No such option: --bogus" in err


def test_unknown_command() -> None:
    err = usage_error("bogus")
    assert "No such command 'bogus'" in err


def test_missing_argument(tmp_path: Path) -> None:
    qrels, _ = write(tmp_path)
    err = usage_error("me13sh", qrels)
    assert "Missing argument 'RUN'" in err


def test_unknown_kind(tmp_path: Path) -> None:
    err = usage_error("me13sh", "--kind", "bogus", *write(tmp_path))
    assert "Invalid value for '--kind' / '-k'" in err


def test_bin_size_not_a_number(tmp_path: Path) -> None:
    err = usage_error("me13sh", "-B", "abc", *write(tmp_path))
    assert "Invalid value for '--bin-size' / '-B'" in err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        # bin size must be >= 1
        (["-B", "0"], "The '--bin-size' parameter must be an integer >= 1. Got 0 instead."),
        # negative bin size
        (["--bin-size", "-5"], "The '--bin-size' parameter must be an integer >= 1. Got -5 instead."),
        # tolerance must be >= 0
        (["-T", "-1"], "The '--tolerance' parameter must be an integer >= 0. Got -1 instead."),
        # an empty -i list
        (["-i", ","], "The 'items' parameter must list query ids separated by commas. Got ',' instead."),
        # -i naming a query that is not in the qrels
        (["-i", "qA,qNope"], "The 'queries' parameter must name queries of the qrels. Got qNope instead."),
        # -i naming a query that is only in the run
        (["-i", "qZ"], "The 'queries' parameter must name queries of the qrels. Got qZ instead."),
    ],
    ids=["B0", "B-5", "T-1", "i-empty", "i-unknown", "i-run-only"],
)
def test_parameter_errors(tmp_path: Path, options: list[str], message: str) -> None:
    err = usage_error("me13sh", *options, *write(tmp_path, run=RUN + RUN_UNKNOWN_QUERY))
    assert err == f"segeval: error: {message}\n"


def test_tolerance_zero_is_accepted(tmp_path: Path) -> None:
    assert ("tol_len", "all", "0") in rows(ok("me13sh", "-T", "0", *write(tmp_path)))


# --------------------------------------------------------------------------- hand-derived values

def test_hand_derived_values(tmp_path: Path) -> None:
    out = ok("me13sh", *write(tmp_path))
    got = table(out)
    assert {key: got.get(key) for key in EXPECTED} == EXPECTED
    assert rows(out)[:8] == CONSTANT_ROWS


def test_row_layout(tmp_path: Path) -> None:
    lines = ok("me13sh", *write(tmp_path)).splitlines()
    # name column padded to 20 (the cap; 'mark_non-relevant_seen' overflows it), query column to 3 ('all'),
    # value column to the longest value, 8 ('10-1-1 6')
    assert "relString           \tqA \t10-1-1 6" in lines
    assert "map                 \tqA \t0.6667  " in lines
    assert "mark_non-relevant_seen\tall\tS       " in lines
    assert "num_q               \tall\t2       " in lines


def test_rows_follow_the_query_order(tmp_path: Path) -> None:
    queries = [q for _, q, _ in rows(ok("me13sh", *write(tmp_path)))]
    first_b = queries.index("qB")
    assert set(queries[8:first_b]) == {"qA"}
    assert queries.index("all", 8) > first_b


def test_run_query_missing_from_qrels_is_ignored(tmp_path: Path) -> None:
    with_unknown = ok("me13sh", *write(tmp_path, run=RUN + RUN_UNKNOWN_QUERY))
    assert "qZ" not in {q for _, q, _ in rows(with_unknown)}
    assert with_unknown == ok("me13sh", *write(tmp_path))


def test_qrels_query_missing_from_run_is_not_reported(tmp_path: Path) -> None:
    out = ok("me13sh", *write(tmp_path))
    assert {q for _, q, _ in rows(out)} == {"all", "qA", "qB"}  # no qC
    assert table(out)[("num_q", "all")] == "2"


def test_items_restricts_the_queries(tmp_path: Path) -> None:
    full = rows(ok("me13sh", *write(tmp_path)))
    only_b = rows(ok("me13sh", "-i", "qB", *write(tmp_path)))
    assert {q for _, q, _ in only_b} == {"all", "qB"}
    assert [r for r in only_b if r[1] == "qB"] == [r for r in full if r[1] == "qB"]
    summary = {n: v for n, q, v in only_b if q == "all"}
    assert summary["num_q"] == "1"
    assert summary["map"] == "0.5000"  # qB's alone
    assert summary["num_ret"] == "2"


def test_items_with_a_qrels_query_missing_from_the_run(tmp_path: Path) -> None:
    # qC is in the qrels (so accepted) but has no results: only qB is evaluated
    out = rows(ok("me13sh", "--items", "qB,qC", *write(tmp_path)))
    assert {q for _, q, _ in out} == {"all", "qB"}
    assert ("num_q", "all", "1") in out


def test_no_queries_in_common(tmp_path: Path) -> None:
    qrels, run = write(tmp_path, run=RUN_UNKNOWN_QUERY)
    code, text, err = run_cli("me13sh", qrels, run)
    assert (code, err) == (0, f"note: no query is in both {qrels} and {run}: nothing was evaluated\n")
    out = rows(text)
    assert out[:8] == CONSTANT_ROWS
    assert out[8] == ("num_q", "all", "0")
    assert {q for _, q, _ in out} == {"all"}
    assert all(v in ("0", "0.0000") for _, _, v in out[9:]), out[9:]


# --------------------------------------------------------------------------- the MAP > 1 note

NOTE = ("note: {run}: map is above 1 for {n} of {total} queries (first: {first}): the overlap adapter credits "
        "one relevant segment once for every result that overlaps it\n")


def test_map_above_one_note_said_once(tmp_path: Path) -> None:
    qrels = b"qA Q0 v1 1.00 2.00 1\nqB Q0 v1 1.00 2.00 1\nqC Q0 v1 1.00 2.00 1\n"
    run = (b"qA Q0 v1 1.00 1.10 1 0.9 r\n"  # three results on one relevant segment: map 3
           b"qA Q0 v1 1.20 1.30 2 0.8 r\n"
           b"qA Q0 v1 1.40 1.50 3 0.7 r\n"
           b"qB Q0 v1 1.00 1.10 1 0.9 r\n"  # two on it: map 2
           b"qB Q0 v1 1.20 1.30 2 0.8 r\n"
           b"qC Q0 v1 1.00 1.10 1 0.9 r\n")  # one: map 1, not above 1
    code, out, err = run_cli("me13sh", *write(tmp_path, qrels, run))
    assert code == 0
    got = table(out)
    assert (got[("map", "qA")], got[("map", "qB")], got[("map", "qC")]) == ("3.0000", "2.0000", "1.0000")
    assert err == NOTE.format(run=tmp_path / "run.txt", n=2, total=3, first="qA")  # naming the run file
    assert err.count(": map is above 1") == 1


def test_no_note_when_map_at_most_one(tmp_path: Path) -> None:
    code, _, err = run_cli("me13sh", *write(tmp_path, b"qA Q0 v1 1.00 2.00 1\n", b"qA Q0 v1 1.00 2.00 1 1 r\n"))
    assert (code, err) == (0, "")
    code, _, err = run_cli("me13sh", *write(tmp_path))  # the hand-made case: map 0.6667 and 0.5
    assert (code, err) == (0, "")


def test_readme_measure_table_is_generated_from_the_registry() -> None:
    from segeval.measures import REGISTRY, catalogue, measure_table

    code, out, _ = run_cli("measures")
    assert code == 0 and out.strip() == "\n\n".join([measure_table(), catalogue.sets_table(REGISTRY),
                                                     catalogue.aliases_table(REGISTRY)])
    assert "| `paper` | recip_rank, P_10, P_20, ndcg_cut_20, map, bpref, P_judged_20, RankEff |" in out
    assert "| `AP@n` | `map_cut_n` |" in out and "| `R-Prec` | `Rprec` |" in out


def test_docs_measures_md_is_current() -> None:
    # regenerate with scripts/update_readme.py when a declaration changes
    from segeval.measures import REGISTRY, catalogue

    assert (ROOT / "docs" / "measures.md").read_text(encoding="utf-8") == catalogue.doc(REGISTRY)


def test_measures_json_and_csv_list_every_declaration() -> None:
    from segeval.measures import REGISTRY

    code, out, _ = run_cli("measures", "-o", "json")
    data = json.loads(out)
    assert code == 0 and [m["name"] for m in data["measures"]] == [f.name for f in REGISTRY.families]
    assert data["sets"]["official"][-1] == "P" and data["aliases"]["AP"] == "map"
    assert data["aliases"]["nDCG@n"] == "ndcg_cut_n"
    code, out, _ = run_cli("measures", "-o", "csv")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 1 + len(REGISTRY.families) and lines[0].startswith("name,example,")
    code, _, err = run_cli("measures", "-o", "xml")
    assert code == 2 and "xml" in err


def test_measure_help_is_generated_from_the_registry() -> None:
    from segeval.measures import REGISTRY

    for command in ("eval", "compare", "pool-bias"):
        code, out, _ = run_cli(command, "--help")
        assert code == 0 and "'segeval measures' lists all" in " ".join(out.split()), command
        assert f"lists all {len(REGISTRY.families)}" in " ".join(out.split()), command


def test_docs_python_api_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    code = text.split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    exec(compile(code, "docs/api.md", "exec"), {})
