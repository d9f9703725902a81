"""``me13sh`` on a run of the other kind says which ``--kind`` reads it (it only said the field count)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import ROOT, run_cli

EXAMPLES = ROOT / "examples" / "mediaeval"


def test_a_search_run_read_as_linking() -> None:
    code, out, err = run_cli("me13sh", str(EXAMPLES / "search.qrels"), str(EXAMPLES / "search_run.txt.gz"))
    assert (code, out) == (2, "") and "has 9 fields" in err and "(a search run? --kind search reads it)" in err


def test_a_linking_run_read_as_search() -> None:
    code, out, err = run_cli("me13sh", str(EXAMPLES / "linking.qrels"), str(EXAMPLES / "linking_run.txt"), "-k",
                             "search")
    assert (code, out) == (2, "") and "(a linking run? --kind linking reads it)" in err


def test_no_hint_for_a_line_of_neither_kind(tmp_path: Path) -> None:
    run = tmp_path / "bad.txt"
    run.write_text("query_1 Q0 v1 1.00 2.00\n")  # 5 fields: no run kind
    code, _, err = run_cli("me13sh", str(EXAMPLES / "linking.qrels"), str(run))
    assert code == 2 and "--kind" not in err
