"""Issue 15 items 1, 3, 8, 9: outputs that name their run, the one output writer, standard output
errors, and stopping on SIGINT/SIGTERM (real subprocesses, held at work by a test hook)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from segeval.executors.processes import run_names
from tests.conftest import ROOT, run_cli, sliced

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq3 0 d5 1\n"
RUN_A = "q1 Q0 d1 1 0.9 same\nq1 Q0 d2 2 0.8 same\nq1 Q0 d4 3 0.7 same\nq2 Q0 d3 1 0.5 same\n"
RUN_B = "q1 Q0 d2 1 0.9 same\nq1 Q0 d1 2 0.8 same\nq2 Q0 d9 1 0.5 same\n"
TEXTS = "d1\tapple banana\nd2\tstone sand\nd3\tapple\nd4\tbanana apple\nd9\tsand\n"
LINKING = ROOT / "examples" / "mediaeval"


@pytest.fixture
def data(tmp_path: Path) -> dict[str, str]:
    """Two document runs of the same name and run tag in two folders, qrels, texts, a segment pair."""
    for folder, text in (("a", RUN_A), ("b", RUN_B)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "run").write_text(text)
    (tmp_path / "qrels").write_text(QRELS)
    (tmp_path / "texts").write_text(TEXTS)
    (tmp_path / "out").mkdir()
    return {"q": str(tmp_path / "qrels"), "a": str(tmp_path / "a" / "run"), "b": str(tmp_path / "b" / "run"),
            "t": str(tmp_path / "texts"), "lq": str(LINKING / "linking.qrels"),
            "lr": str(LINKING / "linking_run.txt")}


# ------------------------------------------------------------------ item 1: every row names its run file

def test_run_names_are_the_file_name_or_enough_folders_to_tell_files_apart() -> None:
    assert run_names(["x/a.txt", "y/b.txt"]) == ["a.txt", "b.txt"]
    assert run_names(["a/run", "b/run", "a/run"]) == ["a/run", "b/run", "a/run#2"]  # a repeat: #2
    assert run_names(["a/b/run", "b/run", "c/b/run"]) == ["a/b/run", "b/run", "c/b/run"]
    names = run_names(["p/q/r", "q/r", "r", "x/q/r"])
    assert len(set(names)) == 4 and all(n.endswith("r") for n in names)


def test_eval_rows_of_several_runs_name_their_file(data: dict[str, str]) -> None:
    # 8-field-like case: both runs have the same tag 'same' and the same file name 'run'
    code, one, _ = run_cli("eval", data["q"], data["a"], "-m", "map", "-m", "P_5")
    assert code == 0 and one.splitlines()[0].split("\t")[0].strip() == "map"  # one run: trec_eval's rows
    code, out, _ = run_cli("eval", data["q"], data["a"], data["b"], "-m", "map", "-m", "P_5")
    rows = [line.split("\t", 1) for line in out.splitlines()]
    assert code == 0 and [r[0] for r in rows] == [data["a"]] * 2 + [data["b"]] * 2
    assert rows[0][1] + "\n" + rows[1][1] + "\n" == one  # after the first column, trec_eval's rows
    code, out, _ = run_cli("eval", data["q"], data["a"], data["b"], "-m", "map", "-o", "csv")
    lines = out.splitlines()
    assert lines[0] == "file,runid,query,measure,value"
    assert [line.split(",")[0] for line in lines[1:]] == [data["a"]] * 2 + [data["b"]] * 2
    code, out, _ = run_cli("eval", data["q"], data["a"], data["b"], "-m", "map", "-o", "json")
    assert [d["file"] for d in json.loads(out)] == [data["a"], data["b"]]


def test_eval_notes_and_errors_name_their_run_file(data: dict[str, str], tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    bad.write_text("q1 Q0 d1 x 0.9 t\n")
    code, _, err = run_cli("eval", data["q"], data["a"], data["b"], str(bad), "-m", "map")
    notes = [line for line in err.splitlines() if line.startswith("note:")]
    # a: q3 missing; b: q3 missing -> one note per run, each naming its file
    assert notes == [f"note: {f}: 1 qrels query has no results in the run and are not averaged (-c counts them "
                     f"as 0)" for f in (data["a"], data["b"])]
    assert code == 2 and f"segeval: error: {bad}, line 1" in err


def test_compare_rows_name_their_file(data: dict[str, str]) -> None:
    code, out, _ = run_cli("compare", data["q"], data["a"], data["b"], "-o", "csv")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("run,file,measure")
    assert [line.split(",")[:2] for line in lines[1:]] == [["a/run", data["a"]], ["b/run", data["b"]]]
    code, out, _ = run_cli("compare", data["q"], data["a"], data["b"], "-o", "json")
    doc = json.loads(out)
    assert doc["runs"] == ["a/run", "b/run"] and doc["files"] == {"a/run": data["a"], "b/run": data["b"]}
    code, out, _ = run_cli("compare", data["q"], data["a"], data["b"], "--baseline", data["b"])
    assert code == 0 and "b/run (baseline)" in out and "\na/run " in out


# ------------------------------------------------------------------ item 3: the one writer

WRITERS: dict[str, Callable[[dict[str, str], str], list[str]]] = {
    "report": lambda d, o: ["report", d["q"], d["a"], d["b"], "-o", o + ".html"],
    "plot pr": lambda d, o: ["plot", "pr", d["q"], d["a"], d["b"], "-o", o + ".svg"],
    "plot diff": lambda d, o: ["plot", "diff", d["q"], d["a"], d["b"], "-o", o + ".svg"],
    "plot dist": lambda d, o: ["plot", "dist", d["q"], d["a"], d["b"], "-o", o + ".png"],
    "plot adr": lambda d, o: ["plot", "adr", d["lq"], d["lr"], "-Q", "anchor_1", "-o", o + ".svg"],
    "show": lambda d, o: ["show", d["lq"], d["lr"], "-Q", "anchor_1", "-o", o + ".html"],
    "incompleteness": lambda d, o: ["incompleteness", d["q"], d["a"], d["b"], "-r", "1", "--fractions", "1,0.5",
                                    "--plot", o + ".svg"],
    "complete-qrels": lambda d, o: ["complete-qrels", d["q"], d["a"], "--texts", d["t"], "-o", o + ".qrels"],
}


def _output(args: list[str]) -> Path:
    return Path(args[args.index("--plot" if "--plot" in args else "-o") + 1])


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("command", WRITERS)
def test_writing_commands_refuse_outputs_they_cannot_write(command: str, data: dict[str, str],
                                                           tmp_path: Path) -> None:
    folder = tmp_path / "out"
    make = WRITERS[command]
    suffix = _output(make(data, "x")).name[1:]  # ".html", ".svg", ...
    # a directory, a missing directory, a name too long, an input (by a symbolic link)
    (folder / f"dir{suffix}").mkdir()
    source = data["lr"] if command in ("plot adr", "show") else data["a"]
    (folder / f"link{suffix}").symlink_to(source)
    cases = {str(folder / "dir"): "it is a directory; expected a file name",
             str(folder / "missing" / "x"): f"the directory {folder / 'missing'} does not exist",
             str(folder / ("n" * 300)): "bytes long; the file system allows at most",
             str(folder / "link"): f"it is the input {source}; choose another output file"}
    before = _listing(folder)
    for out, message in cases.items():
        code, _, err = run_cli(*make(data, out))
        assert code == 2 and message in err and err.startswith("segeval: error: cannot write "), (out, err)
        assert err.count("\n") == 1
    assert _listing(folder) == before and Path(source).stat().st_size > 0


@pytest.mark.parametrize("command", sliced(WRITERS, 5))
def test_an_error_while_writing_leaves_the_old_output_and_no_partial_file(
        command: str, data: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "out"
    args = WRITERS[command](data, str(folder / "result"))
    code, _, err = run_cli(*args)
    assert code == 0, err
    first = _output(args).read_bytes()
    _output(args).write_bytes(b"old")

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)  # the disk fills while the new output is written
    code, _, err = run_cli(*args)
    assert code == 2 and err == f"segeval: error: cannot write {_output(args)}: No space left on device\n"
    assert _listing(folder) == [_output(args).name] and _output(args).read_bytes() == b"old"
    monkeypatch.undo()
    code, _, _ = run_cli(*args)  # and the output is the same as the first time, with its usual permissions
    assert code == 0 and _output(args).read_bytes()[:60] == first[:60]
    assert _listing(folder) == [_output(args).name]


def test_a_device_output_is_written_directly(data: dict[str, str]) -> None:
    code, _, err = run_cli("complete-qrels", data["q"], data["a"], "--texts", data["t"], "-o", "/dev/full")
    assert code == 2 and err == "segeval: error: cannot write /dev/full: No space left on device\n"
    code, _, _ = run_cli("complete-qrels", data["q"], data["a"], "--texts", data["t"], "-o", os.devnull)
    assert code == 0 and Path(os.devnull).is_char_device()


# ------------------------------------------------------------------ subprocesses

def _start(*args: str, env: dict[str, str] | None = None, stdout: int | None = subprocess.PIPE,
           sigint_ignored: bool = False, held: tuple[str, Path] | None = None) -> subprocess.Popen[bytes]:
    """``segeval ARGS`` in a new session; ``sigint_ignored``: started with SIGINT ignored, as a
    background job of a shell script is; ``held``: (point, mark file) of :mod:`tests.support.held`."""
    def ignore() -> None:
        signal.signal(signal.SIGINT, signal.SIG_IGN)

    command = ["-m", "segeval"] if held is None else ["-m", "tests.support.held", held[0], str(held[1])]
    return subprocess.Popen([sys.executable, *command, *args], stdout=stdout, stderr=subprocess.PIPE,
                            cwd=ROOT, env={**os.environ, **(env or {})}, start_new_session=True,
                            preexec_fn=ignore if sigint_ignored else None)


def _session(sid: int) -> list[int]:
    """Live (not zombie) processes of session ``sid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_bytes()
            except OSError:
                continue
            fields = stat[stat.rfind(b")") + 2:].split()
            if int(fields[3]) == sid and fields[0] != b"Z":
                found.append(int(entry))
    return found


def _held(args: list[str], point: str, marks: int, tmp_path: Path,
          sigint_ignored: bool = False) -> tuple[subprocess.Popen[bytes], Path]:
    """A segeval process waiting at the point ``point`` (:mod:`tests.support.held`) in ``marks`` processes."""
    mark = tmp_path / "mark"
    process = _start(*args, sigint_ignored=sigint_ignored, held=(point, mark))
    deadline = time.monotonic() + 300  # a hang guard, not a clock: generous for a loaded machine
    while not (mark.exists() and len(mark.read_text().split()) >= marks):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return process, mark


def _stopped(process: subprocess.Popen[bytes], signum: int, *, group: bool) -> tuple[int, str]:
    """Send ``signum`` (to the process group, as Ctrl-C does, or to the process); its exit code and
    stderr.  The process is held for 600 s at its point: ending
    within the 300 s ``communicate`` allows means the signal stopped it there (no clock is asserted)."""
    if group:
        os.killpg(process.pid, signum)
    else:
        process.send_signal(signum)
    _, err = process.communicate(timeout=300)
    return process.returncode, err.decode()


@pytest.mark.parametrize("lane", ["eval in memory", "eval in batches", "me13sh"])
def test_ctrl_c_stops_the_fast_lanes(lane: str, data: dict[str, str], tmp_path: Path) -> None:
    """The pandas-free lanes (which no worker runs) stop at once on Ctrl-C, with exit 130 and no output."""
    args = {"eval in memory": ["eval", data["q"], data["a"]],
            "eval in batches": ["eval", "--memory", "chunked", "--chunk-lines", "1", data["q"], data["a"]],
            "me13sh": ["me13sh", data["lq"], data["lr"]]}[lane]
    process, _ = _held(args, "lane", 1, tmp_path)
    returned, err = _stopped(process, signal.SIGINT, group=True)
    assert (returned, err) == (130, "segeval: interrupted by SIGINT; stopped\n")


@pytest.mark.parametrize(("signum", "group", "code", "name"), sliced([(signal.SIGINT, True, 130, "SIGINT"),
                                                                     (signal.SIGTERM, False, 143, "SIGTERM"),
                                                                     (signal.SIGINT, False, 130, "SIGINT")], 2,
                                                                    many=True))
def test_a_signal_stops_eval_with_two_workers(signum: int, group: bool, code: int, name: str,
                                              data: dict[str, str], tmp_path: Path) -> None:
    process, mark = _held(["eval", data["q"], data["a"], data["b"], "-j", "2"], "evaluate", 2, tmp_path)
    workers = [int(p) for p in mark.read_text().split()]
    assert process.pid not in workers  # both runs are at work in worker processes
    returned, err = _stopped(process, signum, group=group)
    assert (returned, err) == (code, f"segeval: interrupted by {name}; stopped\n")
    assert _session(process.pid) == []


@pytest.mark.parametrize("sigint_ignored", sliced([False, True], 2))
def test_sigint_stops_svm_completion_and_leaves_no_output(sigint_ignored: bool, data: dict[str, str],
                                                          tmp_path: Path) -> None:
    out = tmp_path / "out" / "completed"
    process, _ = _held(["complete-qrels", data["q"], data["a"], "--texts", data["t"], "-o", str(out),
                        "--classifier", "svm"], "svm", 1, tmp_path, sigint_ignored)
    returned, err = _stopped(process, signal.SIGINT, group=True)
    assert (returned, err) == (130, "segeval: interrupted by SIGINT; stopped\n")
    assert _listing(tmp_path / "out") == [] and _session(process.pid) == []


@pytest.mark.parametrize("command", sliced(["show", "report", "plot pr", "complete-qrels"], 4))
def test_an_interrupt_while_writing_leaves_no_partial_output(command: str, data: dict[str, str],
                                                             tmp_path: Path) -> None:
    folder = tmp_path / "out"
    args = WRITERS[command](data, str(folder / "result"))
    process, _ = _held(args, "write", 1, tmp_path)
    assert len(_listing(folder)) == 1 and _listing(folder)[0].endswith(".part")  # written, not renamed yet
    returned, err = _stopped(process, signal.SIGTERM, group=False)
    assert (returned, err) == (143, "segeval: interrupted by SIGTERM; stopped\n") and _listing(folder) == []


def test_a_full_disk_on_standard_output_is_an_error(data: dict[str, str]) -> None:
    with open("/dev/full", "wb") as full:
        process = _start("eval", "-q", data["q"], data["a"], stdout=full.fileno())
        _, err = process.communicate(timeout=300)
    assert process.returncode == 2
    assert err.decode() == "segeval: error: cannot write standard output: No space left on device\n"


def test_a_reader_that_leaves_ends_the_output_quietly(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("".join(f"q{i} 0 d{i} 1\n" for i in range(3000)))
    (tmp_path / "r").write_text("".join(f"q{i} Q0 d{i} 1 1 t\n" for i in range(3000)))
    process = _start("eval", "-q", "-m", "P", str(tmp_path / "q"), str(tmp_path / "r"))  # ~1.5 MB of rows
    assert process.stdout is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `| head -1` does
    _, err = process.communicate(timeout=300)
    assert first.startswith(b"P_5 ") and (process.returncode, err) == (0, b"")


def test_mr_write_lines_goes_through_the_writer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gt, submission = ROOT / "examples" / "tvr" / "gt.jsonl", ROOT / "examples" / "tvr" / "submission.json"
    prefix = tmp_path / "lines"
    (tmp_path / "lines.run").symlink_to(submission)
    code, _, err = run_cli("mr", "-p", "tvr", "--write-lines", str(prefix), str(gt), str(submission))
    assert code == 2 and f"cannot write {prefix}.run: it is the input {submission}" in err
    assert _listing(tmp_path) == ["lines.run"]  # checked before anything is written
    (tmp_path / "lines.run").unlink()

    def full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    code, _, err = run_cli("mr", "-p", "tvr", "--write-lines", str(prefix), str(gt), str(submission))
    assert code == 2 and err == f"segeval: error: cannot write {prefix}.qrels: No space left on device\n"
    assert _listing(tmp_path) == []
