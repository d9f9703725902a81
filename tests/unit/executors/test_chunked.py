"""`--memory chunked`: runs read in chunks and evaluated query by query give the in-memory output."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from segeval.executors import chunks as chunked
from segeval.executors import route
from segeval.readers.blocks import batches, open_blocks
from tests.conftest import full_only, run_cli, sliced
from tests.support.scripts import load_script


@pytest.fixture(autouse=True)
def exact_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """One chunk per batch, so these small runs cross many batch edges (by default chunks are gathered
    into batches of :data:`chunked.BATCH_BYTES`; test_chunked_batches.py covers that)."""
    monkeypatch.setattr(chunked, "BATCH_BYTES", 0)


def _generator() -> ModuleType:
    return load_script("generate_data")


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Generated segment (linking, search .gz) and TREC document qrels and runs."""
    gen = _generator()
    d = tmp_path_factory.mktemp("chunked")
    gen.generate(d / "linking.qrels", d / "linking.run", queries=12, lines=600, videos=40, kind="linking", seed=1)
    gen.generate(d / "search.qrels", d / "search.run.gz", queries=9, lines=400, videos=30, kind="search", seed=2)
    gen.generate_trec(d / "trec.qrels", d / "trec.run", queries=11, lines=700, judged=40, documents=300, seed=3)
    # a run missing some qrels queries and holding one the qrels lack
    lines = (d / "trec.run").read_text().splitlines()
    kept = [x for x in lines if x.split()[0] not in ("303", "307")] + ["999 Q0 DOC-0000001 1 1.5 extra"]
    (d / "trec_missing.run").write_text("\n".join(kept) + "\n")
    return {p.name: p for p in d.iterdir()}


def both(*args: str, chunk_lines: int = 7) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """(in-memory, chunked) results of ``segeval eval ARGS``."""
    whole = run_cli("eval", *args, "--memory", "in-memory")
    parts = run_cli("eval", *args, "--memory", "chunked", "--chunk-lines", str(chunk_lines))
    return whole, parts


CASES = [
    ("linking", []), ("linking", ["-m", "all_trec"]), ("linking", ["-c", "-M", "5", "-J"]),
    ("linking", ["-a", "binned:60", "-o", "json"]), ("linking", ["-a", "tolerance:15", "-m", "official"]),
    ("linking", ["-a", "tiou:0.3", "-o", "csv", "-n"]), ("linking", ["--order", "score", "--trec-eval", "9"]),
    ("search", ["-m", "all_trec"]), ("search", ["-a", "overlap-once", "-c"]),
    ("trec", ["-m", "all_trec"]), ("trec", ["-l", "2", "-m", "ndcg_cut.5,10", "-o", "json"]),
    ("trec_missing", ["-c", "-m", "all_trec"]), ("trec_missing", ["-m", "map", "-m", "P_10"]),
    ("trec_missing", ["--trec-eval", "9", "-M", "10", "-J", "-o", "csv"]),
]


@pytest.mark.parametrize(("name", "flags", "chunk_lines"),
                         sliced([(n, f, 7) for n, f in CASES] + [(n, f, 150) for n, f in CASES[::4]], 3, many=True))
def test_chunked_output_is_the_in_memory_output(data: dict[str, Path], name: str, flags: list[str],
                                                chunk_lines: int) -> None:
    qrels = data[f"{name.split('_')[0]}.qrels"]
    run = data[f"{name}.run"] if f"{name}.run" in data else data[f"{name}.run.gz"]
    whole, parts = both("-q", *flags, str(qrels), str(run), chunk_lines=chunk_lines)
    assert whole[0] == 0 and whole[1]
    assert parts == whole


@pytest.mark.parametrize("name", sliced(["linking", "trec_missing"], 2))
def test_one_line_chunks(data: dict[str, Path], name: str) -> None:
    qrels, run = data[f"{name.split('_')[0]}.qrels"], data[f"{name}.run"]
    whole, parts = both("-q", "-c", "-m", "all_trec", str(qrels), str(run), chunk_lines=1)
    assert whole[0] == 0 and parts == whole


def test_many_runs_chunked_and_with_jobs(data: dict[str, Path]) -> None:
    args = ["-q", "-m", "map", "-m", "P_5", str(data["trec.qrels"]), str(data["trec.run"]),
            str(data["trec_missing.run"])]
    whole, parts = both(*args, "-j", "2")
    assert parts == whole and parts[1].count("\tall\t") == 4


def test_queries_straddle_chunks_and_selection(data: dict[str, Path]) -> None:
    from segeval.core.settings import EngineOptions, Job, Settings
    from segeval.executors.chunks import evaluate_run
    from segeval.readers.tables import read_qrels

    q = read_qrels(data["linking.qrels"])
    chosen = ["query_3", "query_7"]
    job = Job(("map", "P_5"), settings=Settings(queries=tuple(chosen)), engine=EngineOptions("in-memory"))
    whole = evaluate_run(q, data["linking.run"], job)
    parts = evaluate_run(q, data["linking.run"], replace(job, engine=EngineOptions("chunked", 13)))
    assert parts.evaluation.queries == whole.evaluation.queries == chosen
    assert parts.evaluation.per_query == whole.evaluation.per_query
    assert parts.evaluation.summary == whole.evaluation.summary and parts.runid == whole.runid == "synthetic"


def test_not_grouped_falls_back_with_a_note(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["linking.run"].read_text().splitlines()
    shuffled = tmp_path / "shuffled.run"
    shuffled.write_text("\n".join(lines[1::2] + lines[::2]) + "\n")  # every query's lines split in two
    whole, parts = both("-q", str(data["linking.qrels"]), str(shuffled), chunk_lines=1000)
    assert whole[0] == parts[0] == 0 and whole[1] == parts[1]
    note = f"note: {shuffled} is not grouped by query (query 'query_1' appears again on line 301); reading it in memory"
    assert parts[2] == note + "\n" + whole[2]
    assert "not grouped" not in whole[2]


def test_auto_reads_big_files_in_chunks(data: dict[str, Path], tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    lines = data["linking.run"].read_text().splitlines()
    shuffled = tmp_path / "shuffled.run"
    shuffled.write_text("\n".join(lines[::-1]) + "\n")  # grouped, but in reverse: the note shows the path taken
    (tmp_path / "split.run").write_text("\n".join(lines[1::2] + lines[::2]) + "\n")
    args = ["-m", "map", str(data["linking.qrels"]), str(tmp_path / "split.run")]
    assert "not grouped" not in run_cli("eval", *args)[2]  # small: in memory
    monkeypatch.setattr(route, "AUTO_BYTES", 1000)
    assert "not grouped" in run_cli("eval", *args)[2]
    assert "not grouped" not in run_cli("eval", *args, "--memory", "in-memory")[2]
    assert route.read_in_chunks(str(data["search.run.gz"]), "auto")[0]
    monkeypatch.setattr(route, "AUTO_BYTES", data["search.run.gz"].stat().st_size * 4 + 1)
    assert not route.read_in_chunks(str(data["search.run.gz"]), "auto")[0]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_bad_line_in_a_later_chunk_names_its_absolute_line(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["linking.run"].read_text().splitlines()
    lines[500] = lines[500].replace(" Q0 ", " Q0 x ", 1)
    bad = _write(tmp_path / "bad.run", lines)
    whole, parts = both(str(data["linking.qrels"]), str(bad))
    assert parts == whole and parts[0] == 2
    assert f"{bad}, line 501: has 9 fields; expected 8 fields for a MediaEval linking run line" in parts[2]
    assert f"  line 501: {lines[500]}" in parts[2]


def test_a_malformed_line_wins_over_an_earlier_bad_value(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["linking.run"].read_text().splitlines()
    f = lines[20].split()
    f[3], f[4] = "9.00", "1.00"  # end before start, early
    lines[20] = " ".join(f)
    lines[400] = lines[400].replace(" Q0 ", " Q0 x ", 1)  # a malformed line, later
    bad = _write(tmp_path / "bad.run", lines)
    whole, parts = both(str(data["linking.qrels"]), str(bad))
    assert parts == whole and "line 401: has 9 fields" in parts[2]
    lines[400] = lines[400].replace(" Q0 x ", " Q0 ", 1)
    lines[410] = lines[410].replace(" 1 ", " 0 ", 1) if " 1 " in lines[410] else lines[410]
    bad = _write(tmp_path / "bad2.run", lines)
    whole, parts = both(str(data["linking.qrels"]), str(bad))
    assert parts == whole and parts[0] == 2
    assert "line 21: the end time (60 s) is earlier than the start time (540 s)" in parts[2]
    assert f"  line 21: {lines[20]}" in parts[2]


def test_a_document_twice_in_a_later_chunk(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["trec.run"].read_text().splitlines()
    f, g = lines[600].split(), lines[603].split()
    assert f[0] == g[0]
    g[2] = f[2]
    lines[603] = " ".join(g)
    bad = _write(tmp_path / "dup.run", lines)
    whole, parts = both(str(data["trec.qrels"]), str(bad))
    assert parts == whole and parts[0] == 2
    assert (f"{bad}, line 604: document '{f[2]}' appears again for query '{f[0]}' (first on line 601)"
            in parts[2])
    whole, parts = both("--lenient", "-q", str(data["trec.qrels"]), str(bad))
    assert parts == whole and parts[0] == 3 and "skipped" in parts[2]


def test_lenient_lists_the_same_lines_in_the_same_order(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["search.run.gz"].read_bytes()
    text = gzip.decompress(lines).decode().splitlines()
    text[5] = text[5] + " extra fields here"
    f = text[100].split()
    f[3], f[4] = "9.00", "1.00"
    text[100] = " ".join(f)
    text[250] = text[250].replace(" Q0 ", " Q0 ", 1).replace(text[250].split()[6], "-3", 1)
    text[390] = "garbage"
    bad = tmp_path / "bad.run.gz"
    bad.write_bytes(gzip.compress(("\n".join(text) + "\n").encode()))
    whole, parts = both("--lenient", "-q", str(data["search.qrels"]), str(bad))
    assert parts == whole and parts[0] == 3
    skipped = [x for x in parts[2].splitlines() if x.startswith("segeval: skipped")]
    assert [x.split(", line ")[1].split(":")[0] for x in skipped] == ["6", "391", "101", "251"]


def test_crlf_bom_and_blank_lines(data: dict[str, Path], tmp_path: Path) -> None:
    lines = data["trec.run"].read_text().splitlines()
    crlf = tmp_path / "crlf.run"
    crlf.write_bytes(b"\xef\xbb\xbf" + b"\r\n".join(x.encode() for x in lines[:300]) + b"\r\n\r\n\n"
                     + b"\r\n".join(x.encode() for x in lines[300:]) + b"\r\n")
    whole, parts = both("-q", str(data["trec.qrels"]), str(crlf))
    assert whole[0] == 0 and parts == whole
    plain = run_cli("eval", "-q", str(data["trec.qrels"]), str(data["trec.run"]))
    assert parts[1] == plain[1]


def test_file_level_errors_match(data: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    qrels = str(data["trec.qrels"])
    (tmp_path / "blank.run").write_text("\n  \n\n")
    (tmp_path / "empty.run").write_text("")
    (tmp_path / "fake.run.gz").write_text("301 Q0 D 1 1 r\n")
    full = gzip.compress(data["trec.run"].read_bytes())
    (tmp_path / "cut.run.gz").write_bytes(full[: len(full) // 2])
    (tmp_path / "two.run.gz").write_bytes(gzip.compress(b"301 Q0 DOC-1 1 2.0 r\n") + gzip.compress(
        b"301 Q0 DOC-2 2 1.0 r\n") + b"trailing garbage")
    for name in ("blank.run", "empty.run", "fake.run.gz", "cut.run.gz", "two.run.gz", "missing.run"):
        whole, parts = both(qrels, str(tmp_path / name))
        assert parts == whole, name
    two = str(tmp_path / "two.run.gz")  # two members, then text: refused, naming the byte where it starts
    at = len((tmp_path / "two.run.gz").read_bytes()) - len(b"trailing garbage") + 1
    assert both(qrels, two)[1] == (2, "", f"segeval: error: {two}: has other data after its gzip data, from byte "
                                          f"{at} of the file: 'trailing garbage'; expected only gzip members (as "
                                          f"'cat a.gz b.gz' makes)\n")
    monkeypatch.setenv("SEGEVAL_MAX_LINE_BYTES", "100")
    lines = data["trec.run"].read_text().splitlines()
    lines[450] += " " + "x" * 200
    long_line = _write(tmp_path / "long.run", lines)
    whole, parts = both(qrels, str(long_line))
    assert parts == whole and "line 451 is longer than 100 bytes" in parts[2]


def test_line_chunks_cover_the_file(tmp_path: Path) -> None:
    text = b"".join(b"line %d\n" % i for i in range(1, 101)) + b"last without newline"
    path = tmp_path / "f.txt"
    path.write_bytes(text)
    got = list(batches(open_blocks(path, block=10), 7, 0))
    assert b"".join(data for _, data in got) == text
    assert [first for first, _ in got] == list(range(1, 102, 7))
    assert all(data.startswith(b"line %d\n" % first) for first, data in got[:-1])
    gz = tmp_path / "f.txt.gz"
    gz.write_bytes(gzip.compress(text))
    assert b"".join(d for _, d in batches(open_blocks(gz, block=16), 3, 0)) == text


def test_bad_memory_options() -> None:
    code, _, err = run_cli("eval", "--memory", "lots", "q", "r")
    assert code == 2
    assert "The 'memory' parameter must be one of 'auto', 'chunked', 'in-memory'. Got 'lots' instead." in err
    code, _, err = run_cli("eval", "--chunk-lines", "0", "q", "r")
    assert code == 2 and "The '--chunk-lines' parameter must be an integer >= 1. Got 0 instead." in err


def test_progress_line_for_a_big_run_on_a_terminal(data: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    args = ["-m", "map", "-a", "overlap", str(data["linking.qrels"]), str(data["linking.run"]), "--memory", "chunked"]
    plain = run_cli("eval", *args)
    tty = Terminal()
    monkeypatch.setattr(sys, "stderr", tty)
    from segeval.cli import main

    assert main(["eval", *args]) == 0
    assert "MiB, " in tty.getvalue() and "ETA" in tty.getvalue() and tty.getvalue().endswith("\n")
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(["eval", *args, "--quiet"]) == 0 and quiet.getvalue() == ""
    assert plain[0] == 0 and plain[2] == ""


@full_only
def test_compare_chunked_is_compare_in_memory(data: dict[str, Path], tmp_path: Path) -> None:
    def thinned(name: str) -> list[str]:
        lines = data[name].read_text().splitlines()
        for k in (2, 3):
            _write(tmp_path / f"{k}.{name}", [x for i, x in enumerate(lines) if i % k])
        return [str(data[name]), str(tmp_path / f"2.{name}"), str(tmp_path / f"3.{name}")]

    cases = [
        [str(data["linking.qrels"]), *thinned("linking.run"), "-a", "binned:60", "-m", "map", "-m", "P_5"],
        [str(data["trec.qrels"]), *thinned("trec_missing.run"), str(data["trec.run"]), "-m", "map", "-m", "ndcg"],
    ]
    for args in cases:
        args = ["compare", *args, "--permutations", "200"]
        whole = run_cli(*args, "-o", "json", "--memory", "in-memory")
        assert whole[0] == 0 and whole[2] == "" and len(json.loads(whole[1])["runs"]) >= 3
        assert run_cli(*args, "-o", "json", "--memory", "chunked", "--chunk-lines", "7") == whole
        assert run_cli(*args, "--memory", "chunked", "--chunk-lines", "7", "-j", "2") == run_cli(*args, "-j", "1")
    # a run not grouped by query: read whole, with eval's note on stderr; a bad line: the same error
    lines = data["linking.run"].read_text().splitlines()
    split = _write(tmp_path / "split.run", lines[1::2] + lines[::2])
    args = ["compare", str(data["linking.qrels"]), str(data["linking.run"]), str(split), "--permutations", "200"]
    whole, parts = run_cli(*args, "--memory", "in-memory"), run_cli(*args, "--memory", "chunked")
    assert whole[:2] == parts[:2] and whole[2] == "" and f"note: {split} is not grouped by query" in parts[2]
    bad = _write(tmp_path / "bad.run", [*lines[:300], lines[300].replace(" Q0 ", " Q0 x ", 1), *lines[301:]])
    args = ["compare", str(data["linking.qrels"]), str(data["linking.run"]), str(bad)]
    whole = run_cli(*args, "--memory", "in-memory")
    assert whole[0] == 2 and whole[1] == "" and whole[2].startswith(f"segeval: error: {bad}, line 301: has 9 fields")
    assert run_cli(*args, "--memory", "chunked", "--chunk-lines", "7") == whole
