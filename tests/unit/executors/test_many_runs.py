"""`segeval eval` with many runs: globs, directories, --jobs; identical output for any job count."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, run_cli

QRELS = str(FIXTURES / "gen_linking.qrels")


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    lines = (FIXTURES / "gen_linking.run").read_text().splitlines()
    folder = tmp_path / "runs"
    folder.mkdir()
    for k in (2, 3, 4, 5):
        (folder / f"run{k}.txt").write_text("\n".join(x for i, x in enumerate(lines) if i % k) + "\n")
    return folder


def test_jobs_do_not_change_the_output(runs: Path) -> None:
    args = ["eval", "-q", "-m", "map", "-m", "P_10", QRELS, str(runs)]
    one = run_cli(*args, "--jobs", "1")
    two = run_cli(*args, "--jobs", "2")
    assert one[0] == 0 and one == two
    assert one[1].count("\tall\t") == 4 * 2  # four runs, two summary lines each


def test_globs_and_directories_expand_in_a_stable_order(runs: Path) -> None:
    code, by_glob, _ = run_cli("eval", "-m", "map", "-o", "json", QRELS, str(runs / "run*.txt"))
    code2, by_dir, _ = run_cli("eval", "-m", "map", "-o", "json", QRELS, str(runs), str(runs / "run2.txt"))
    assert code == code2 == 0 and by_glob == by_dir  # run2.txt named twice: evaluated once
    docs = json.loads(by_glob)
    assert len(docs) == 4 and all("map_once" in d["summary"] for d in docs)  # the segment default


def test_csv_has_one_header(runs: Path) -> None:
    code, out, _ = run_cli("eval", "-m", "map", "-o", "csv", QRELS, str(runs))
    assert code == 0 and out.count("runid,query,measure,value") == 1 and len(out.splitlines()) == 1 + 4 * 2


def test_a_bad_run_is_named_and_the_others_still_print(runs: Path) -> None:
    (runs / "run9.txt").write_text("anchor_1 Q0 v1 1.00 2.00 0 0.5 r\n")
    code, out, err = run_cli("eval", "-m", "map", "-j", "2", QRELS, str(runs))
    assert code == 2
    assert out.count("map_once ") == 4
    assert f"segeval: error: {runs / 'run9.txt'}, line 1: the rank is 0; expected an integer rank >= 1" in err


def test_no_match_and_bad_jobs(runs: Path) -> None:
    code, _, err = run_cli("eval", QRELS, str(runs / "nothing*.txt"))
    assert code == 2 and "matches nothing" in err
    code, _, err = run_cli("eval", "-j", "0", QRELS, str(runs))
    assert code == 2 and "The '--jobs' parameter must be an integer >= 1. Got 0 instead." in err


def test_compare_with_jobs_and_a_directory(runs: Path) -> None:
    args = ["compare", QRELS, str(runs), "-m", "map", "-o", "json", "--permutations", "300"]
    one, two = run_cli(*args, "-j", "1"), run_cli(*args, "-j", "2")
    assert one[0] == 0 and one == two
    assert json.loads(one[1])["runs"] == ["run2.txt", "run3.txt", "run4.txt", "run5.txt"]


def test_input_errors_survive_pickling() -> None:
    import pickle

    from segeval.core.errors import InputError

    e = InputError("f.txt", "field 4 is 'x'; expected a number", line=3, text="a b c x", kind="bad start")
    back = pickle.loads(pickle.dumps(e))
    assert (str(back), back.path, back.line, back.text, back.kind) == (str(e), "f.txt", 3, "a b c x", "bad start")


def test_progress_line_only_on_a_terminal() -> None:
    import io

    from segeval.executors.progress import Progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Terminal()
    with Progress(4, "runs", stream=tty) as p:
        for _ in range(4):
            p.advance()
    text = tty.getvalue()
    assert "0/4 runs" in text and "4/4 runs" in text and text.endswith("\n")
    assert "0/4 runs, 0s elapsed, ETA -- " in text and "ETA 0s" not in text.split("1/4")[0]  # no estimate yet
    assert re.search(r"1/4 runs, \d+s elapsed, ETA \d+s ", text)
    quiet, plain = Terminal(), io.StringIO()
    with Progress(4, "runs", stream=quiet, quiet=True) as p:
        p.advance()
    with Progress(4, "runs", stream=plain) as p:
        p.advance()
    assert quiet.getvalue() == plain.getvalue() == ""


def test_compare_stops_at_the_first_bad_run_with_any_engine(runs: Path) -> None:
    (runs / "run3.txt").write_text("anchor_1 Q0 v1 1.00 2.00 0 0.5 r\n")
    (runs / "run4.txt").write_text("anchor_1 Q0 v1 1.00 2.00 1 0.5\n")
    args = ["compare", QRELS, str(runs), "-m", "map", "--permutations", "100"]
    one = run_cli(*args, "-j", "1")
    assert one == (2, "", f"segeval: error: {runs / 'run3.txt'}, line 1: the rank is 0; expected an integer rank "
                          f">= 1\n  line 1: anchor_1 Q0 v1 1.00 2.00 0 0.5 r\n")
    assert run_cli(*args, "-j", "2") == run_cli(*args, "--memory", "chunked", "--chunk-lines", "1") == one


def test_evaluate_runs_gives_the_same_evaluations_with_every_engine(runs: Path) -> None:
    from dataclasses import replace

    from segeval.core.settings import EngineOptions, Job, Settings
    from segeval.executors.processes import evaluate_runs, expand_runs
    from segeval.readers.tables import read_qrels
    from segeval.readers.validate import validate_qrels

    q = validate_qrels(read_qrels(QRELS))
    files = [*expand_runs([str(runs)]), str(runs / "missing.txt")]
    job = Job(("map", "P_5"), ("tolerance:15",), Settings(missing_queries="zero"))
    one = evaluate_runs(q, files, replace(job, engine=EngineOptions(jobs=1, quiet=True)))
    assert [r.error is None for r in one] == [True] * 4 + [False] and "no such file" in str(one[-1].error)
    assert all(r.evaluation is not None and len(r.evaluation.queries) == 6 for r in one[:4])
    chunked = evaluate_runs(q, files, replace(job, engine=EngineOptions("chunked", 5, jobs=2, quiet=True)))
    def values(results: list[Any]) -> list[Any]:
        return [None if (e := r.evaluation) is None else (e.queries, [x.name for x in e.requests], e.per_query,
                                                          e.summary, e.notes, e.unevaluated) for r in results]

    assert values(chunked) == values(one)
    assert [str(r.error) for r in chunked] == [str(r.error) for r in one]
