"""`--engine dask`: (run, query-partition) tasks on a Dask cluster give the single-process output."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli

distributed = pytest.importorskip("distributed", reason="the dask extra (pip install 'segeval[dask]')")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """A local cluster of two single-threaded worker processes, for the whole module."""
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    """Three document runs and three segment runs (generated fixtures thinned differently)."""
    d = tmp_path_factory.mktemp("dask")
    out: dict[str, list[str]] = {"trec": [], "linking": []}
    trec = [f"{300 + q} Q0 DOC-{(q * 37 + i * 11) % 400:04d} {i + 1} {((q * i) % 97) / 10:.1f} base"
            for q in range(1, 16) for i in range(60)]
    qrels = [f"{300 + q} 0 DOC-{(q * 53 + j * 7) % 400:04d} {(q + j) % 4}" for q in range(1, 18) for j in range(40)]
    (d / "trec.qrels").write_text("\n".join(qrels) + "\n")
    linking = (FIXTURES / "gen_linking.run").read_text().splitlines()
    for k in (2, 3, 5):
        (d / f"t{k}.run").write_text("\n".join(x.replace("base", f"run{k}") for i, x in enumerate(trec) if i % k)
                                     + "\n")
        (d / f"l{k}.run").write_text("\n".join(x for i, x in enumerate(linking) if i % k) + "\n")
        out["trec"].append(str(d / f"t{k}.run"))
        out["linking"].append(str(d / f"l{k}.run"))
    out["trec_qrels"] = [str(d / "trec.qrels")]
    return out


def test_dask_on_an_existing_cluster_is_byte_identical(scheduler: str, runs: dict[str, list[str]]) -> None:
    cases = [
        ["-q", "-m", "all_trec", runs["trec_qrels"][0], *runs["trec"]],
        ["-c", "-o", "json", "-m", "map", "-m", "ndcg_cut_10", runs["trec_qrels"][0], *runs["trec"]],
        ["-q", "-a", "binned:60", "-m", "official", str(FIXTURES / "gen_linking.qrels"), *runs["linking"]],
        ["-q", "-o", "csv", "-c", "-J", str(FIXTURES / "gen_linking.qrels"), *runs["linking"]],
    ]
    for args in cases:
        single = run_cli("eval", *args, "--jobs", "1")
        assert single[0] == 0 and single[1]
        assert run_cli("eval", *args, "--engine", "dask", "--scheduler", scheduler) == single


def test_dask_reports_errors_as_one_process_does(scheduler: str, runs: dict[str, list[str]], tmp_path: Path) -> None:
    lines = Path(runs["trec"][0]).read_text().splitlines()
    twice = [*lines[:300], lines[250], *lines[300:]]  # a document twice for one query, on line 301
    (tmp_path / "dup.run").write_text("\n".join(twice) + "\n")
    (tmp_path / "bad.run").write_text("\n".join([*lines[:40], "301 Q0 DOC-1 x 1.0 r"]) + "\n")
    args = ["-m", "map", runs["trec_qrels"][0], runs["trec"][1], str(tmp_path / "dup.run"), str(tmp_path / "bad.run")]
    single = run_cli("eval", *args, "-j", "1")
    assert single[0] == 2 and "line 301: document" in single[2] and "bad.run, line 41" in single[2]
    assert run_cli("eval", *args, "--engine", "dask", "--scheduler", scheduler) == single
    lenient = run_cli("eval", "--lenient", "-q", *args, "-j", "1")
    assert lenient[0] == 3
    assert run_cli("eval", "--lenient", "-q", *args, "--engine", "dask", "--scheduler", scheduler) == lenient
    unknown = run_cli("eval", "-m", "nonsense", *args[2:4], "-j", "1")
    assert unknown[0] == 2
    assert run_cli("eval", "-m", "nonsense", *args[2:4], "--engine", "dask", "--scheduler", scheduler) == unknown


def test_dask_starts_a_local_cluster_without_an_address(runs: dict[str, list[str]]) -> None:
    args = ["-q", "-a", "tolerance:15", str(FIXTURES / "gen_linking.qrels"), *runs["linking"]]
    single = run_cli("eval", *args, "-j", "1")
    assert single[0] == 0 and run_cli("eval", *args, "--engine", "dask", "-j", "2") == single


def test_unreachable_scheduler_and_bad_options(runs: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    from segeval.engines import dask as dask_engine

    monkeypatch.setattr(dask_engine, "CONNECT_TIMEOUT", "0.5s")
    code, out, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "dask",
                             "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and out == ""
    assert "Cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'" in err and "dask scheduler" in err
    code, _, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--scheduler", "tcp://127.0.0.1:9")
    assert code == 2 and "The 'scheduler' parameter needs --engine dask" in err
    code, _, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "dask", "--memory", "chunked")
    assert code == 2 and "The 'memory' parameter must be 'auto' or 'in-memory' with --engine dask" in err
    code, _, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "spark")
    assert code == 2 and "The 'engine' parameter must be one of 'processes', 'dask'. Got 'spark' instead." in err


def test_missing_dask_is_explained(runs: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # the import fails as when not installed
    code, _, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "dask")
    assert code == 2 and "install it with pip install 'segeval[dask]'" in err


def test_dask_is_not_imported_at_startup() -> None:
    code = ("import sys, segeval, segeval.cli, segeval.engines.runs, segeval.engines.chunked; "
            "sys.exit(any(m == 'dask' or m.startswith(('dask.', 'distributed')) for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


def test_compare_with_dask_is_byte_identical(scheduler: str, runs: dict[str, list[str]], tmp_path: Path) -> None:
    cases = [
        [runs["trec_qrels"][0], *runs["trec"], "-m", "map", "-m", "ndcg_cut_10", "-m", "P_5"],
        [str(FIXTURES / "gen_linking.qrels"), *runs["linking"], "-a", "binned:60", "-m", "map", "-m", "P_10"],
    ]
    for args in cases:
        args = ["compare", *args, "-o", "json", "--permutations", "200"]
        single = run_cli(*args, "--jobs", "1")
        assert single[0] == 0 and single[2] == "" and len(json.loads(single[1])["runs"]) == 3
        assert run_cli(*args, "--engine", "dask", "--scheduler", scheduler, "--quiet") == single
    # the first run (in order) that fails stops the comparison, naming its file and line
    lines = Path(runs["trec"][0]).read_text().splitlines()
    (tmp_path / "bad.run").write_text("\n".join([*lines[:40], "301 Q0 DOC-1 x 1.0 r", *lines[40:]]) + "\n")
    args = ["compare", runs["trec_qrels"][0], *runs["trec"][:2], str(tmp_path / "bad.run"), runs["trec"][2]]
    single = run_cli(*args, "-j", "1")
    assert single[0] == 2 and single[1] == "" and single[2].startswith(f"segeval: error: {tmp_path / 'bad.run'}, "
                                                                       f"line 41: ")
    assert run_cli(*args, "--engine", "dask", "--scheduler", scheduler) == single


def test_compare_with_dask_starts_a_local_cluster(runs: dict[str, list[str]]) -> None:
    args = ["compare", runs["trec_qrels"][0], *runs["trec"], "-m", "map", "-o", "text", "--permutations", "200"]
    single = run_cli(*args, "-j", "1")
    assert single[0] == 0 and run_cli(*args, "--engine", "dask", "-j", "2") == single


def test_compare_checks_the_engine_options_as_eval(runs: dict[str, list[str]]) -> None:
    files = [runs["trec_qrels"][0], *runs["trec"][:2]]
    for flags in (["--scheduler", "tcp://127.0.0.1:9"], ["--engine", "dask", "--memory", "chunked"],
                  ["--engine", "spark"], ["--memory", "lots"], ["--chunk-lines", "0"], ["-j", "0"]):
        code, out, err = run_cli("compare", *files, *flags)
        assert (code, out) == (2, "") and err.startswith("segeval: error: The '")
        assert (code, out, err) == run_cli("eval", *files, *flags)
