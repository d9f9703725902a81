"""`--engine dask`: (run, query-partition) tasks on a Dask cluster give the single-process output."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, full_only, run_cli

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


@full_only
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


@full_only
def test_dask_starts_a_local_cluster_without_an_address(runs: dict[str, list[str]]) -> None:
    args = ["-q", "-a", "tolerance:15", str(FIXTURES / "gen_linking.qrels"), *runs["linking"]]
    single = run_cli("eval", *args, "-j", "1")
    assert single[0] == 0 and run_cli("eval", *args, "--engine", "dask", "-j", "2") == single


def test_unreachable_scheduler_and_bad_options(runs: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    from segeval.executors import dask as dask_engine

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
    code = ("import sys, segeval, segeval.cli, segeval.executors.processes, segeval.executors.chunks; "
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


@full_only  # the slice: the scheduler fixture's cluster above
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


@full_only
def test_relative_run_paths_on_workers_in_another_folder(runs: dict[str, list[str]], tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers started in another folder read the runs named relative to segeval's folder (they failed
    with 'no such file'); messages still name the runs as given."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the workers start here
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        folder = Path(runs["trec"][0]).parent
        monkeypatch.chdir(folder)
        names = [Path(r).name for r in runs["trec"]]
        args = ["eval", "-m", "map", "trec.qrels", *names]
        single = run_cli(*args)
        assert single[0] == 0 and run_cli(*args, "--engine", "dask", "--scheduler", cluster.scheduler_address) == single
        (folder / "bad.run").write_text("x y\n")
        code, _, err = run_cli("eval", "-m", "map", "trec.qrels", "bad.run", "--engine", "dask", "--scheduler",
                               cluster.scheduler_address)
        assert code == 2 and "bad.run, line 1" in err and str(folder) not in err
    finally:
        cluster.close()


def test_a_cluster_without_workers_is_an_error(runs: dict[str, list[str]]) -> None:
    """No worker at the start: an error naming the cluster (it was 'internal error: TimeoutError')."""
    cluster = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    try:
        code, out, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "dask", "--scheduler",
                                 cluster.scheduler_address, "--dask-timeout", "0.5")
        assert (code, out) == (2, "")
        assert f"The Dask cluster at {cluster.scheduler_address} has no worker at the start (waited 0.5 s" in err
        assert "internal error" not in err and "Traceback" not in err
    finally:
        cluster.close()


@full_only
def test_the_last_worker_leaving_is_an_error(runs: dict[str, list[str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """The last worker leaves during the evaluation: an error after WORKER_WAIT seconds (it hung)."""
    from segeval.executors import dask as dask_engine

    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0",
                                       silence_logs=logging.ERROR)
    read = dask_engine._read

    def leaving(*args: object) -> object:  # the worker reading the run closes as it reads it
        worker = distributed.get_worker()
        worker.loop.add_callback(worker.close)
        return read(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(dask_engine, "_read", leaving)
    try:
        code, out, err = run_cli("eval", runs["trec_qrels"][0], runs["trec"][0], "--engine", "dask", "--scheduler",
                                 cluster.scheduler_address, "--dask-timeout", "1")
        assert (code, out) == (2, "")
        assert "has no worker any more (the last one left during the evaluation) (waited 1 s" in err
    finally:
        cluster.close()


@full_only  # separate Dask processes
def test_real_scheduler_and_workers_killed_one_then_the_other(runs: dict[str, list[str]], tmp_path: Path) -> None:
    """A scheduler and two workers as separate processes: with one killed the output is unchanged; with
    both killed, exit 2 naming the scheduler and the wait (never a hang)."""
    import signal
    import time

    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--port", "0",
                                  "--dashboard-address", ":0", "--scheduler-file", str(file)],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        deadline = time.monotonic() + 300  # a hang guard for a loaded machine, not a clock
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        address = json.loads(file.read_text())["address"]
        workers = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                                     "--nthreads", "1", "--no-nanny", "--dashboard-address", ":0"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                   for _ in range(2)]
        args = ["eval", "-m", "map", runs["trec_qrels"][0], *runs["trec"]]
        single = run_cli(*args)
        dask = [*args, "--engine", "dask", "--scheduler", address, "--dask-timeout", "20"]
        assert run_cli(*dask) == single
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait()
        assert run_cli(*dask) == single
        workers[1].send_signal(signal.SIGKILL)
        workers[1].wait()
        with distributed.Client(address, timeout=300) as client:  # until the scheduler has noticed both deaths
            deadline = time.monotonic() + 300
            while client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.1)
        code, out, err = run_cli(*dask[:-1], "2")
        assert (code, out) == (2, "") and f"The Dask cluster at {address} has no worker" in err and "2 s" in err
    finally:
        for p in [*workers, scheduler]:
            p.kill()
            p.wait()
