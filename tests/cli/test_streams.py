"""Reading any readable file: pipes, FIFOs, '-', process substitution; file-level errors; limits
enforced while streaming (issue 15, items 1/4, 2, 3, 5, 6)."""

from __future__ import annotations

import bz2
import gzip
import itertools
import lzma
import os
import re
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from segeval.core.errors import InputError, ParameterError
from segeval.executors.processes import expand_runs
from segeval.readers import files
from segeval.readers.blocks import batches, open_blocks
from segeval.readers.files import read_blocks, read_bytes
from segeval.reports.trec import prefixed
from tests.conftest import FIXTURES, ROOT, full_only, run_cli, sliced

QRELS, RUN = FIXTURES / "gen_linking.qrels", FIXTURES / "gen_linking.run"
ENGINES = (("--memory", "auto"), ("--memory", "chunked", "--chunk-lines", "50"), ("--memory", "in-memory"))
LINE = b"q1 Q0 v1 1.00 2.00 1 0.5 r\n"
E = "segeval: error: "


class Stdin:
    """A stand-in for ``sys.stdin`` whose bytes come from ``chunks`` (an endless generator is fine)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self.buffer = self
        self.chunks, self.pending, self.taken = chunks, b"", 0

    def read(self, size: int = -1) -> bytes:
        parts, have = [self.pending], len(self.pending)
        while size < 0 or have < size:
            more = next(self.chunks, b"")
            if not more:
                break
            parts.append(more)
            have += len(more)
        self.pending = b"".join(parts)
        out, self.pending = (self.pending, b"") if size < 0 else (self.pending[:size], self.pending[size:])
        self.taken += len(out)
        return out

    def close(self) -> None:  # what a forked worker does to its standard input
        self.chunks = iter(())


def stdin(monkeypatch: pytest.MonkeyPatch, data: bytes, piece: int = 1000) -> Stdin:
    s = Stdin(iter([data[i:i + piece] for i in range(0, len(data), piece)]))
    monkeypatch.setattr(sys, "stdin", s)
    return s


def endless(unit: bytes) -> Iterator[bytes]:
    while True:
        yield unit * 1000


def same_output(a: str, b: str, name_a: str, name_b: str) -> bool:
    return a.replace(name_a, "X") == b.replace(name_b, "X")


# ----------------------------------------------------------------- 1/4: pipes and '-'

#: each engine and each of plain and gzip in the README's suite (in turn); every pairing in the full step
STDIN_CASES = [*((e, i % 2 == 1) for i, e in enumerate(ENGINES)),
               *(pytest.param(e, i % 2 == 0, marks=full_only) for i, e in enumerate(ENGINES))]


@pytest.mark.parametrize(("engine", "compress"), STDIN_CASES)
def test_stdin_reads_like_the_file(monkeypatch: pytest.MonkeyPatch, engine: tuple[str, ...], compress: bool) -> None:
    data = RUN.read_bytes()
    stdin(monkeypatch, gzip.compress(data) if compress else data, piece=3)  # 3 bytes a read: no size assumption
    code, out, err = run_cli("eval", *engine, "-q", str(QRELS), "-")
    ref = run_cli("eval", *engine, "-q", str(QRELS), str(RUN))
    assert (code, out) == ref[:2] and code == 0
    notes = ref[2].replace(str(RUN), "-")  # the run's own notes (values above 1 ...), naming the stream
    assert err == notes  # chunked too: a copy of the stream lets a reader that gives up leave it to the next


@pytest.mark.parametrize("auto_bytes", [None, 100])
@pytest.mark.parametrize("engine", sliced(ENGINES, 2))
@pytest.mark.parametrize("kind", ["segments", "documents"])
@pytest.mark.parametrize("route", [(), ("--time-format", "seconds")])  # the lanes, then the table route alone
def test_an_ungrouped_stream_is_noted_as_its_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str,
                                                  route: tuple[str, ...], engine: tuple[str, ...],
                                                  auto_bytes: int | None) -> None:
    # a stream's size is unknown until it is read: once read, auto judges it as the same file (no "not
    # grouped" note below AUTO_BYTES, the note from it on); --memory chunked notes both
    from segeval.executors import route as routes

    if auto_bytes is not None:
        monkeypatch.setattr(routes, "AUTO_BYTES", auto_bytes)
    qrels, run = (QRELS, RUN) if kind == "segments" else (FIXTURES / "judged_only.qrels", FIXTURES / "judged_only.run")
    lines = run.read_bytes().splitlines(keepends=True)
    ungrouped = tmp_path / "ungrouped.run"
    ungrouped.write_bytes(b"".join(lines[1:] + lines[:1]))  # the first query appears again on the last line
    ref = run_cli("eval", *engine, *route, "-q", str(qrels), str(ungrouped))
    stdin(monkeypatch, ungrouped.read_bytes())
    code, out, err = run_cli("eval", *engine, *route, "-q", str(qrels), "-")
    assert (code, out) == ref[:2] and code == 0
    assert err == ref[2].replace(str(ungrouped), "-")
    noted = engine[1] == "chunked" or (engine[1] == "auto" and auto_bytes is not None)
    assert ("not grouped by query" in err) == noted


@full_only  # the slice: the stdin tests above
def test_every_reading_command_accepts_stdin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    lines = RUN.read_text().splitlines()
    other = tmp_path / "other.run"
    other.write_text("\n".join(x for i, x in enumerate(lines) if i % 3) + "\n")
    run_copy = tmp_path / "gen.run"  # the same bytes under a file name
    shutil.copy(RUN, run_copy)
    (tmp_path / "groups").write_text("- g1\nother.run g2\n")  # a groups file names only the runs given
    (tmp_path / "groups2").write_text("gen.run g1\nother.run g2\n")
    gt = tmp_path / "gt.jsonl"
    gt.write_text('{"qid": 1, "vid": "a", "relevant_windows": [[0, 10]]}\n')
    preds = b'{"qid": 1, "pred_relevant_windows": [[0, 8, 0.9], [20, 30, 0.5]]}\n'
    (tmp_path / "preds.jsonl").write_bytes(preds)
    trec_q, trec_r, texts = tmp_path / "q", tmp_path / "r", tmp_path / "t.tsv"
    trec_q.write_text("1 0 d1 1\n1 0 d3 0\n1 0 d4 0\n")
    trec_r.write_text("1 Q0 d1 1 4 x\n1 Q0 d2 2 3 x\n1 Q0 d3 3 2 x\n1 Q0 d4 4 1 x\n")
    texts.write_text("d1\tA a, b\nd2\ta c\nd3\tb c c\nd4\tc\n")
    Q, O2, G = str(QRELS), str(other), str(tmp_path / "groups")
    cases: list[tuple[list[str], list[str], bytes, str | None]] = [  # (with '-', with the file, stdin, output)
        (["eval", Q, "-"], ["eval", Q, str(run_copy)], RUN.read_bytes(), None),
        (["me13sh", Q, "-"], ["me13sh", Q, str(run_copy)], RUN.read_bytes(), None),
        (["check", Q, "-"], ["check", Q, str(run_copy)], RUN.read_bytes(), None),
        (["check", "-", str(RUN)], ["check", Q, str(RUN)], QRELS.read_bytes(), None),  # qrels from stdin
        (["compare", Q, "-", O2], ["compare", Q, str(run_copy), O2], RUN.read_bytes(), None),
        (["pool", Q, "-", O2, "-d", "5"], ["pool", Q, str(run_copy), O2, "-d", "5"], RUN.read_bytes(), None),
        (["pool-bias", Q, "-", O2, "-d", "5", "--groups", G], ["pool-bias", Q, str(run_copy), O2, "-d", "5",
                                                              "--groups", G + "2"], RUN.read_bytes(), None),
        (["incompleteness", Q, "-", O2], ["incompleteness", Q, str(run_copy), O2], RUN.read_bytes(), None),
        (["mr", str(gt), "-"], ["mr", str(gt), str(tmp_path / "preds.jsonl")], preds, None),
        (["report", Q, "-", O2, "-m", "map", "-o", "OUT"], ["report", Q, str(run_copy), O2, "-m", "map", "-o", "OUT"],
         RUN.read_bytes(), "report.html"),
        (["plot", "pr", Q, "-", O2, "-o", "OUT"], ["plot", "pr", Q, str(run_copy), O2, "-o", "OUT"], RUN.read_bytes(),
         "pr.svg"),
        (["complete-qrels", str(trec_q), "-", "--texts", str(texts), "-o", "OUT"],
         ["complete-qrels", str(trec_q), str(trec_r), "--texts", str(texts), "-o", "OUT"], trec_r.read_bytes(),
         "done.qrels"),
        (["complete-qrels", "-", str(trec_r), "--texts", str(texts), "-o", "OUT"],
         ["complete-qrels", str(trec_q), str(trec_r), "--texts", str(texts), "-o", "OUT"], trec_q.read_bytes(),
         "done.qrels"),
    ]
    for piped, plain, data, output in cases:
        outs = []
        for args in (piped, plain):
            target = str(tmp_path / output) if output else ""  # the same name: the same messages
            if args is piped:
                stdin(monkeypatch, data)
            code, out, err = run_cli(*[target if x == "OUT" else x for x in args])
            assert code == 0, (args, err)
            outs.append((out, err, Path(target).read_bytes() if output and output.endswith("qrels") else b""))
        (out_a, err_a, file_a), (out_b, err_b, file_b) = outs
        names = [str(run_copy), "gen.run", str(tmp_path / "preds.jsonl"), str(trec_r), str(trec_q), Q]
        for name in names:
            out_b, err_b = out_b.replace(name, "-"), err_b.replace(name, "-")
            out_a, err_a = out_a.replace(name, "-"), err_a.replace(name, "-")
        out_a, out_b = (re.sub(r"(?m)^runid .*\n", "", x) for x in (out_a, out_b))  # me13sh: the file's stem
        out_a, out_b = (re.sub(r"[ \t]+", " ", x) for x in (out_a, out_b))  # columns as wide as the names
        if piped[0] != "report" and piped[0] != "plot":
            assert (out_a, err_a, file_a) == (out_b, err_b, file_b), piped


def test_stdin_at_most_once(monkeypatch: pytest.MonkeyPatch) -> None:
    stdin(monkeypatch, RUN.read_bytes())
    assert run_cli("eval", str(QRELS), "-", "-") == (
        2, "", f"{E}standard input ('-') may be given once per command. Got it 2 times.\n")
    assert run_cli("me13sh", "-", "-") == (
        2, "", f"{E}standard input ('-') may be given once per command. Got it 2 times.\n")
    with pytest.raises(ParameterError, match=r"may name standard input \('-'\) once\. Got it 3 times"):
        expand_runs(["-", "a", "-", "-"])


def test_stream_errors_show_their_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # a value error is found after reading: its line comes from the kept content, not a second read
    stdin(monkeypatch, LINE + b"q1 Q0 v1 3.00 2.00 2 0.4 r\n")
    code, _, err = run_cli("me13sh", str(QRELS), "-")
    assert code == 2 and err.endswith("\n  line 2: q1 Q0 v1 3.00 2.00 2 0.4 r\n"), err


SHELL = shutil.which("bash")


@full_only
@pytest.mark.skipif(SHELL is None or not hasattr(os, "mkfifo"), reason="needs bash and FIFOs")
def test_pipes_in_a_real_shell(tmp_path: Path) -> None:
    gz = tmp_path / "run.gz"
    gz.write_bytes(gzip.compress(RUN.read_bytes()))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    segeval = f"{sys.executable} -m segeval"
    script = f"""
    set -u
    Q={QRELS}
    {segeval} eval -q "$Q" {RUN} > ref.txt
    {segeval} eval -q "$Q" <(zcat {gz}) - < <(zcat {gz}) > two.txt; echo "rc $?"
    zcat {gz} | {segeval} eval -q "$Q" /dev/stdin > dev_stdin.txt; echo "rc $?"
    (gzip -dc {gz} > {fifo} &)
    {segeval} me13sh "$Q" {fifo} > fifo.txt; echo "rc $?"
    {segeval} me13sh "$Q" {RUN} > fifo_ref.txt
    cat {gz} | {segeval} eval -q --memory chunked "$Q" - > chunked.txt 2> chunked.err; echo "rc $?"
    """
    done = subprocess.run([SHELL, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout == "rc 0\nrc 0\nrc 0\nrc 0\n", done.stderr
    one = (tmp_path / "ref.txt").read_text()
    rows = [line.split("\t", 1) for line in (tmp_path / "two.txt").read_text().splitlines(keepends=True)]
    assert "".join(r[1] for r in rows) == one + one  # two runs: each row opens with its run file
    files = [r[0] for r in rows]
    assert files[0].startswith("/dev/fd/") and files == [files[0]] * (len(rows) // 2) + ["-"] * (len(rows) // 2)
    assert (tmp_path / "dev_stdin.txt").read_text() == one
    fifo_out = (tmp_path / "fifo.txt").read_text()  # me13sh's runid is the file name
    assert fifo_out.replace("fifo           ", "gen_linking.run") == (tmp_path / "fifo_ref.txt").read_text()
    assert (tmp_path / "chunked.txt").read_text() == one
    assert "cannot read again" not in (tmp_path / "chunked.err").read_text()  # read in chunks, as a file


# ------------------------------------------------- 2, 5: gzip members and what follows them

def test_gzip_then_plain_text_is_refused(tmp_path: Path) -> None:
    head = gzip.compress(LINE)
    run = tmp_path / "run.gz"
    run.write_bytes(head + b"q1 Q0 v1 3.00 4.00 2 0.4 r\n")  # the second line would vanish without a word
    message = (f"{E}{run}: has other data after its gzip data, from byte {len(head) + 1} of the file: "
               f"'q1 Q0 v1 3.00 4.00 2 0.4 r\\n'; expected only gzip members (as 'cat a.gz b.gz' makes)\n")
    assert run_cli("me13sh", str(QRELS), str(run)) == (2, "", message)
    for engine in ENGINES:
        assert run_cli("eval", *engine, str(QRELS), str(run)) == (2, "", message)


def test_multi_member_gzip_reads_the_same_everywhere(tmp_path: Path) -> None:
    data = RUN.read_bytes()
    cut = [0, 7, len(data) // 3, data.index(b"\n", len(data) // 2) + 1, len(data) - 1, len(data)]
    members = b"".join(gzip.compress(data[a:b]) for a, b in itertools.pairwise(cut))
    assert gzip.decompress(members) == data  # 5 members, split inside a line and between lines
    run = tmp_path / "members.run.gz"
    run.write_bytes(members)
    def anonymous(result: tuple[int, str, str], path: Path) -> tuple[int, str, str]:
        return result[0], result[1], result[2].replace(str(path), "RUN")  # notes name the run file

    ref = anonymous(run_cli("eval", "-q", str(QRELS), str(RUN)), RUN)
    assert ref[0] == 0
    for engine in ENGINES:
        assert anonymous(run_cli("eval", *engine, "-q", str(QRELS), str(run)), run) == ref, engine
    two = run_cli("eval", "-j", "2", "-q", str(QRELS), str(run), str(RUN))[1]
    assert two == prefixed(ref[1], str(run)) + prefixed(ref[1], str(RUN))  # each row names its run file
    me13sh = [run_cli("me13sh", str(QRELS), str(r))[1].split("\n", 1) for r in (run, RUN)]
    assert me13sh[0][1] == me13sh[1][1] and me13sh[0][0].startswith("runid")  # all but the runid (file) line
    for block in (1, 5, 64):  # block edges anywhere: inside a header, a member, between members
        assert b"".join(open_blocks(run, block=block)) == data
        assert b"".join(d for _, d in batches(open_blocks(run, block=block), 9, 0)) == data


# ---------------------------------------------------------------- 3: clear file-level messages

@pytest.mark.parametrize(("kind", "tool"), [("bzip2", "bunzip2"), ("xz", "unxz"), ("zip", "unzip"), ("zstd", "unzstd")])
def test_other_compressions_are_named(tmp_path: Path, kind: str, tool: str) -> None:
    path = tmp_path / "run.txt"
    if kind == "bzip2":
        path.write_bytes(bz2.compress(RUN.read_bytes()))
    elif kind == "xz":
        path.write_bytes(lzma.compress(RUN.read_bytes()))
    elif kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("run.txt", RUN.read_bytes())
    else:
        path.write_bytes(b"\x28\xb5\x2f\xfd\x04\x58\x45\x00\x00")  # a zstd frame header (zstd is not in the stdlib)
    message = (f"{E}{path}: is {kind}-compressed; expected plain text or gzip (decompress it first, such as with "
               f"{tool})\n")
    assert run_cli("me13sh", str(QRELS), str(path)) == (2, "", message)
    for engine in ENGINES:
        assert run_cli("eval", *engine, str(QRELS), str(path)) == (2, "", message)
    assert run_cli("eval", str(path), str(RUN)) == (2, "", message)  # as qrels too


def test_path_problems(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    long = "x" * 300
    cases = {
        str(loop): f"{loop}: is a symbolic link loop (too many levels of symbolic links); expected a file",
        "": "'': is an empty file name; expected the path of a file",
        str(tmp_path): f"{tmp_path}: is a directory, expected a file",
        str(tmp_path / long): f"{tmp_path / long}: is a file name too long for the system; expected a shorter path",
        str(tmp_path / "missing"): f"{tmp_path / 'missing'}: no such file",
        str(RUN) + "/x": f"{RUN}/x: no such file (a part of the path is not a directory)",
    }
    for path, message in cases.items():
        for args in (("me13sh", str(QRELS), path), ("eval", "--memory", "chunked", str(QRELS), path),
                     ("check", path, str(RUN)), ("mr", path, str(RUN))):
            if path == str(tmp_path) and args[0] == "eval":
                continue  # eval reads the files of a directory of runs
            code, out, err = run_cli(*args)
            assert code == 2 and (out == "" or args[0] == "check"), args  # check also prints its counts
            assert err.startswith(f"segeval: {'' if args[0] == 'check' else 'error: '}{message}\n"), (args, err)


@pytest.mark.parametrize("variable", ["SEGEVAL_MAX_INPUT_BYTES", "SEGEVAL_MAX_LINE_BYTES", "SEGEVAL_MAX_GZIP_RATIO"])
@pytest.mark.parametrize("value", ["-1", "0", "abc", "1.5", "", "1e9"])
def test_bad_limit_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, value: str) -> None:
    monkeypatch.setenv(variable, value)
    run = tmp_path / "run.gz"
    run.write_bytes(gzip.compress(RUN.read_bytes()))
    default = {"SEGEVAL_MAX_INPUT_BYTES": 2 * 1024**3, "SEGEVAL_MAX_LINE_BYTES": 16 * 1024**2,
               "SEGEVAL_MAX_GZIP_RATIO": 100}[variable]
    message = (f"{E}The {variable} environment variable must be a whole number >= 1 (default {default}). "
               f"Got {value!r} instead.\n")
    for engine in ENGINES:
        assert run_cli("eval", *engine, str(QRELS), str(run)) == (2, "", message)
    assert run_cli("me13sh", str(QRELS), str(run)) == (2, "", message)


# -------------------------------------------------------- 6: limits enforced while streaming

BLOCK = 4 * 1024**2


@pytest.mark.parametrize("memory", ["auto", "chunked", "in-memory"])
def test_endless_streams_stop_at_their_limit(monkeypatch: pytest.MonkeyPatch, memory: str) -> None:
    # /dev/zero, /dev/urandom, a runaway line, endless valid lines: refused after at most a block more
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "1000")
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "100000")
    cases = [
        (b"\x00", "-, line 1: contains a NUL byte; expected a text line\n  line 1: " + "\\0" * 100 + "..."),
        (b"q1 Q0 v1 1.00 2.00 1 0.5 r\n\xff\x00", "-, line 2: contains a NUL byte; expected a text line\n"
                                                  "  line 2: \ufffd\\0q1 Q0 v1 1.00 2.00 1 0.5 r"),
        (b"a", "-: line 1 is longer than 1000 bytes; expected text lines (SEGEVAL_MAX_LINE_BYTES raises the limit)"),
        (LINE, None),
    ]
    for unit, problem in cases:
        s = Stdin(endless(unit))
        monkeypatch.setattr(sys, "stdin", s)
        code, out, err = run_cli("eval", "--memory", memory, str(QRELS), "-")
        if problem is None:  # a stream is read whole, so the size limit applies to every engine
            problem = ("-: is larger than 100000 bytes; expected a smaller file (SEGEVAL_MAX_INPUT_BYTES raises the "
                       "limit)")
        assert (code, out, err) == (2, "", f"{E}{problem}\n"), unit  # an error alone (no note on chunked)
        assert s.taken <= BLOCK + 100_000  # nothing read beyond the block that broke the limit


def test_gzip_bombs_stop_early(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "1000")
    nul_first = tmp_path / "nul.gz"
    nul_first.write_bytes(gzip.compress(b"q1 Q0 v\x001 1.00 2.00 1 0.5 r\n" + LINE * 100_000))
    long_first = tmp_path / "long.gz"
    long_first.write_bytes(gzip.compress(b"a" * 10_000_000))
    valid = tmp_path / "valid.gz"  # valid lines expanding 300 times
    valid.write_bytes(gzip.compress(LINE * 400_000) * 3)
    monkeypatch.setattr(files, "GZIP_RATIO_FROM", 10_000)
    cases = [
        (nul_first, f"{nul_first}, line 1: contains a NUL byte; expected a text line\n"
                    f"  line 1: q1 Q0 v\\01 1.00 2.00 1 0.5 r\n"),
        (long_first, f"{long_first}: line 1 is longer than 1000 bytes; expected text lines (SEGEVAL_MAX_LINE_BYTES "
                     f"raises the limit)\n"),
        (valid, re.compile(re.escape(f"{valid}: expands more than 100 times (its first ") + r"\d+ bytes give 4 MiB: "
                           + re.escape("a gzip bomb?); expected a gzip file of text (SEGEVAL_MAX_GZIP_RATIO raises "
                                       "the limit)\n"))),
    ]
    for path, message in cases:
        for args in [("me13sh", str(QRELS), str(path)), *[("eval", *e, str(QRELS), str(path)) for e in ENGINES],
                     ("eval", "--lenient", str(QRELS), str(path))]:
            code, out, err = run_cli(*args)
            assert (code, out) == (2, ""), args
            if isinstance(message, str):
                assert err == E + message, args
            else:
                assert message.fullmatch(err[len(E):]), (args, err)
    monkeypatch.setenv("SEGEVAL_MAX_GZIP_RATIO", "1000")  # raised: read
    assert run_cli("eval", "-q", str(QRELS), str(valid))[0] == 0


def test_size_limit_without_reading_a_large_regular_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("SEGEVAL_MAX_INPUT_BYTES", "1000")
    big = tmp_path / "big.run"
    big.write_bytes(LINE * 100)
    with pytest.raises(InputError, match=r"is larger than 1000 bytes"):
        read_bytes(big)
    assert b"".join(read_blocks(big, max_bytes=None)) == LINE * 100  # the chunked path has no total limit


@full_only
def test_random_member_splits_and_block_sizes(tmp_path: Path) -> None:
    # the generator that found the chunked path's multi-member bug: after a member ending as the
    # output filled, zlib's unconsumed_tail repeated unused_data (225 of 480 cases failed before)
    import random

    data, path, rng = RUN.read_bytes(), tmp_path / "m.gz", random.Random(1)
    for _ in range(15):
        cut = sorted([0, len(data), *rng.sample(range(len(data)), rng.randint(1, 6))])
        path.write_bytes(b"".join(gzip.compress(data[a:b], rng.choice([1, 6, 9])) for a, b in itertools.pairwise(cut)))
        for block in (1, 7, 64, 1000, 4096, BLOCK):
            assert b"".join(read_blocks(path, max_bytes=None, block=block)) == data, (cut, block)
    assert read_bytes(path) == data


def test_limits_name_the_right_line_at_any_block_size(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # generated files: random line lengths, one NUL or one line over the limit somewhere; the line
    # reported must be the first offending one counted by brute force, whatever the block size
    import random

    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "50")
    rng, path = random.Random(7), tmp_path / "f.txt"
    for trial in range(40):
        lines = [b"x" * rng.randint(0, 50) for _ in range(rng.randint(1, 40))]
        bad = rng.randrange(len(lines))
        if trial % 2:
            lines[bad] = b"y" * rng.randint(51, 200)
            expected = f"{path}: line {bad + 1} is longer than 50 bytes"
        else:
            at = rng.randint(0, len(lines[bad]))
            lines[bad] = lines[bad][:at] + b"\x00" + lines[bad][at:]
            expected = f"{path}, line {bad + 1}: contains a NUL byte"
        data = b"\n".join(lines) + rng.choice([b"", b"\n"])
        path.write_bytes(data if rng.random() < 0.5 else gzip.compress(data))
        for block in (1, 3, 16, 51, 64, 4096):
            with pytest.raises(InputError) as caught:
                b"".join(read_blocks(path, max_bytes=None, block=block))
            assert str(caught.value).startswith(expected), (trial, block, str(caught.value))


def test_a_note_is_named_by_its_run_unless_it_names_it_as_a_word() -> None:
    from segeval.core.errors import named

    # the standard input '-' is named although '-a overlap' holds a dash; a file the note names is not named twice
    assert named("note: -a overlap gives more", "-") == "note: -: -a overlap gives more"
    assert named("note: 3 lines of run.txt were skipped", "run.txt") == "note: 3 lines of run.txt were skipped"
    assert named("note: /abs/run.txt: x", "run.txt") == "note: /abs/run.txt: x"
    assert named("note: run.txt.gz is another file", "run.txt") == "note: run.txt: run.txt.gz is another file"
