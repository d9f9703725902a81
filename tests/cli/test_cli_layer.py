"""The CLI as one tool: every reading command takes --time-format, every table command -o
text|json|csv, counted nouns agree, every option has help, and --help loads no heavy module."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer

from segeval.cli.commands import load
from tests.conftest import FIXTURES, ROOT, run_cli, sliced

app = load()  # every command

QUERIES = ("anchor_1", "anchor_2", "anchor_3")


def _mmss_to_seconds(token: str) -> str:
    minutes, seconds = token.split(".")
    return str(int(minutes) * 60 + int(seconds))  # M.S: 59.16 is 59 min 16 s = 3556 s


def _write(folder: Path, seconds: bool) -> dict[str, Path]:
    """Qrels, two runs (B: A's ranking reversed), a groups file and a transcript, times M.S or seconds."""
    folder.mkdir()
    conv = _mmss_to_seconds if seconds else str

    def times(line: str, fields: tuple[int, ...] = (3, 4)) -> str:
        tokens = line.split()
        for i in fields:
            tokens[i] = conv(tokens[i])
        return " ".join(tokens)

    qrels = [times(x) for x in (FIXTURES / "gen_linking.qrels").read_text().splitlines()
             if x.split()[0] in QUERIES]
    run = [x.split() for x in (FIXTURES / "gen_linking.run").read_text().splitlines() if x.split()[0] in QUERIES]
    reversed_run = []
    for q in QUERIES:
        mine = [t for t in run if t[0] == q]
        for i, t in enumerate(reversed(mine), 1):
            reversed_run.append([*t[:5], str(i), f"{100 - i}.5", "B"])
    videos = sorted({x.split()[2] for x in qrels})
    transcript = [f"{v} {conv(f'{m}.00')} {conv(f'{m}.30')} words about topic {m % 3} here"
                  for v in videos for m in range(0, 60, 5)]
    paths = {"q": folder / "q", "A": folder / "A", "B": folder / "B", "g": folder / "g", "t": folder / "t"}
    paths["q"].write_text("\n".join(qrels) + "\n")
    paths["A"].write_text("\n".join(times(" ".join(t)) for t in run) + "\n")
    paths["B"].write_text("\n".join(times(" ".join(t)) for t in reversed_run) + "\n")
    paths["g"].write_text("A a\nB b\n")
    paths["t"].write_text("\n".join(transcript) + "\n")
    return paths


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Path], dict[str, Path]]:
    root = tmp_path_factory.mktemp("twins")
    return _write(root / "mmss", seconds=False), _write(root / "seconds", seconds=True)


# each command reading qrels or runs: its arguments (Q, A, B, G, T: the files; OUT: a file it writes)
READING = {
    "eval": ["eval", "-q", "-j", "1", "-m", "map", "-m", "P_5", "Q", "A", "B"],
    "me13sh": ["me13sh", "Q", "A"],
    "check": ["check", "Q", "A"],
    "compare": ["compare", "-j", "1", "-m", "map", "-m", "P_5", "Q", "A", "B"],
    "correlate": ["correlate", "Q", "A", "B", "--adapter2", "tolerance:15"],
    "report": ["report", "Q", "A", "B", "-o", "OUT.html"],
    "pool": ["pool", "Q", "A", "B", "--groups", "G", "-d", "5"],
    "pool-bias": ["pool-bias", "Q", "A", "B", "--groups", "G", "-d", "5", "--quiet"],
    "incompleteness": ["incompleteness", "Q", "A", "B", "-r", "2", "--fractions", "1,0.5", "--quiet"],
    "complete-qrels": ["complete-qrels", "Q", "A", "B", "--texts", "T", "-o", "OUT", "-d", "5"],
    "show": ["show", "Q", "A", "-Q", "anchor_2", "--explain"],
    "plot adr": ["plot", "adr", "Q", "A", "-Q", "anchor_2", "-o", "OUT.svg"],
    "plot pr": ["plot", "pr", "Q", "A", "B", "-o", "OUT.svg"],
    "plot diff": ["plot", "diff", "Q", "A", "B", "-o", "OUT.svg"],
    "plot dist": ["plot", "dist", "Q", "A", "B", "-o", "OUT.svg"],
}
FILES = {"Q": "q", "A": "A", "B": "B", "G": "g", "T": "t"}


def _args(template: list[str], paths: dict[str, Path], out: Path) -> list[str]:
    def one(a: str) -> str:
        if a in FILES:
            return str(paths[FILES[a]])
        return str(out) + a[3:] if a.startswith("OUT") else a
    return [one(a) for a in template]


def _leaf_commands() -> list[tuple[str, Any]]:
    root: Any = typer.main.get_command(app)
    found = []
    for name, command in root.commands.items():
        if hasattr(command, "commands"):  # a group such as plot
            found += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
        else:
            found.append((name, command))
    return found


def test_every_command_reading_qrels_or_runs_is_listed() -> None:
    readers = {name for name, command in _leaf_commands()
               if any(p.name in ("qrels", "run", "runs", "run_a", "files") for p in command.params)}
    # anchoring: its own formats, seconds twins in test_anchoring; sample-eval: documents only, no times;
    # fix: writes the run back in its own time format (test_submission)
    assert readers == set(READING) | {"anchoring", "sample-eval", "fix"}


def _stable(svg: str) -> str:
    """A figure without what changes between two drawings of it: the date and matplotlib's random ids."""
    return re.sub(r"<dc:date>.*?</dc:date>|\b[a-z]?[0-9a-f]{10}\b", "", svg)


@pytest.mark.parametrize("command", sliced(sorted(READING), 3))
def test_time_format_seconds_gives_the_numbers_of_the_mmss_twin(
        command: str, twins: tuple[dict[str, Path], dict[str, Path]], tmp_path: Path) -> None:
    if command.startswith("plot") or command == "report":
        pytest.importorskip("matplotlib")
    if command == "complete-qrels":
        pytest.importorskip("sklearn")
    mmss, seconds = twins
    template = READING[command]
    code, out_a, err_a = run_cli(*_args(template, mmss, tmp_path / "a"))
    assert code == 0, err_a
    code, out_b, err_b = run_cli(*_args(template, seconds, tmp_path / "b"), "--time-format", "seconds")
    assert code == 0, err_b

    def neutral(text: str, side: str) -> str:
        return text.replace(str(tmp_path / side), "OUT").replace(str(mmss["q"].parent), "DIR").replace(
            str(seconds["q"].parent), "DIR")

    if command == "show":  # --explain writes times as the files do: M.S on the mmss side
        out_a = re.sub(r"\b(\d+)\.(\d\d)\b", lambda m: _mmss_to_seconds(m[0]), out_a)
        assert "overlap-once" in out_a and "269-354" in out_a  # 4.29-5.54 in M.S
    assert neutral(out_a, "a") == neutral(out_b, "b")
    assert neutral(err_a, "a") == neutral(err_b, "b")
    if command == "report":  # the page, but for the provenance (file names, sizes, checksums, date)
        pages = [_stable(re.sub(r"<h2[^>]*>Provenance.*", "", (tmp_path / f"{s}.html").read_text(), flags=re.S))
                 for s in "ab"]
        assert pages[0] == pages[1]
    if command.startswith("plot"):
        svgs = [_stable((tmp_path / f"{s}.svg").read_text()) for s in "ab"]
        assert len(svgs[0]) > 1000 and svgs[0] == svgs[1]


def test_without_the_time_format_seconds_are_read_as_mmss_and_refused(
        twins: tuple[dict[str, Path], dict[str, Path]]) -> None:
    _, seconds = twins
    code, _, err = run_cli("pool", str(seconds["q"]), str(seconds["A"]), str(seconds["B"]))
    assert code == 2 and str(seconds["q"]) in err


# ---- -o text|json|csv
TABLES = {
    "check": ["check", "Q", "A"],
    "compare": ["compare", "-j", "1", "-m", "map", "Q", "A", "B"],
    "correlate": ["correlate", "Q", "A", "B", "--adapter2", "tolerance:15"],
    "pool": ["pool", "Q", "A", "B", "--groups", "G", "-d", "5"],
    "pool-bias": ["pool-bias", "Q", "A", "B", "--groups", "G", "-d", "5", "--quiet"],
    "incompleteness": ["incompleteness", "Q", "A", "B", "-r", "2", "--fractions", "1,0.5", "--quiet"],
    "eval": ["eval", "-j", "1", "-m", "map", "Q", "A", "B"],
    "measures": ["measures"],
}


@pytest.mark.parametrize("command", sorted(TABLES))
@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_table_commands_print_json_and_csv(command: str, fmt: str,
                                           twins: tuple[dict[str, Path], dict[str, Path]], tmp_path: Path) -> None:
    mmss, _ = twins
    code, out, err = run_cli(*_args(TABLES[command], mmss, tmp_path / "x"), "-o", fmt)
    assert code == 0, err
    if fmt == "json":
        assert json.loads(out) is not None
    else:
        blocks = [b for b in out.split("\n\n") if b.strip()]
        for block in blocks:
            rows = list(csv.reader(io.StringIO(block)))
            assert len({len(r) for r in rows}) == 1, block  # every row as wide as the header


def _text_rows(out: str) -> list[list[str]]:
    return [line.split("\t") for line in out.splitlines()[1:]]


@pytest.mark.parametrize("command", ["pool-bias", "incompleteness"])
def test_json_rows_are_the_text_rows_at_full_precision(
        command: str, twins: tuple[dict[str, Path], dict[str, Path]], tmp_path: Path) -> None:
    mmss, _ = twins
    args = _args(TABLES[command], mmss, tmp_path / "x")
    text, as_json, as_csv = (run_cli(*args, "-o", f)[1] for f in ("text", "json", "csv"))
    specs = {"pool-bias": [".3f", "", "", ".4f", ".3f", ".4f", "+.4f", ".4f"], "incompleteness": ["g", ".4f", ".4f",
                                                                                                  ".4f"]}[command]
    rows = json.loads(as_json)
    header = text.splitlines()[0].split("\t")
    assert list(rows[0]) == header == as_csv.splitlines()[0].split(",")
    assert len(rows) == len(_text_rows(text)) > 0
    for row, line in zip(rows, _text_rows(text), strict=True):
        values = list(row.values())
        assert [values[0], *(format(v, s) for v, s in zip(values[1:], specs, strict=True))] == line


def test_correlate_text_names_runs_as_the_json(twins: tuple[dict[str, Path], dict[str, Path]],
                                               tmp_path: Path) -> None:
    mmss, _ = twins
    args = _args(TABLES["correlate"], mmss, tmp_path / "x")
    doc = json.loads(run_cli(*args, "-o", "json")[1])
    assert doc["runs"] == ["A", "B"]  # run names, as every other command shows them, not paths
    text = run_cli(*args)[1]  # text by default
    runs, coefficients = text.split("\n\n")
    assert runs.splitlines()[1:] == [f"{n}\t{a:.4f}\t{b:.4f}" for n, a, b in
                                     zip(doc["runs"], doc["setting1"], doc["setting2"], strict=True)]
    assert dict(r.split("\t") for r in coefficients.splitlines()[1:])["swapped_pairs"] == str(doc["swapped_pairs"])


def test_pool_json_holds_both_tables(twins: tuple[dict[str, Path], dict[str, Path]], tmp_path: Path) -> None:
    mmss, _ = twins
    args = _args(TABLES["pool"], mmss, tmp_path / "x")
    text, doc = run_cli(*args)[1], json.loads(run_cli(*args, "-o", "json")[1])
    runs, groups = text.split("\n\n")
    assert [[str(v) for v in r.values()] for r in doc["runs"]] == _text_rows(runs)
    assert [[str(v) for v in r.values()] for r in doc["groups"]] == _text_rows(groups)


def test_a_table_format_out_of_its_domain_is_refused(twins: tuple[dict[str, Path], dict[str, Path]]) -> None:
    mmss, _ = twins
    code, _, err = run_cli("pool", str(mmss["q"]), str(mmss["A"]), "-o", "xml")
    assert code == 2 and "'output'" in err and "xml" in err


# ---- words
def test_one_problem_is_singular(tmp_path: Path) -> None:
    (tmp_path / "q").write_text("q1 0 d1 1\n")
    (tmp_path / "r").write_text("q1 Q0 d1 1 0.5 run\nq1 Q0 d2 x 0.4 run\n")  # line 2: rank is no number
    code, out, _ = run_cli("check", str(tmp_path / "q"), str(tmp_path / "r"))
    assert code == 2 and out.splitlines()[-1] == "1 problem"


def test_plural() -> None:
    from segeval.core.words import plural

    assert [plural(n, "problem") for n in (0, 1, 2)] == ["0 problems", "1 problem", "2 problems"]
    assert plural(1, "query", "queries") == "1 query" and plural(3, "query", "queries") == "3 queries"


# a count written before a plural noun in an f-string, such as f"{n} problems" or f"({len(x)} fields)"
COUNTED = re.compile(r"(?<! of )\{(?:len\([^{}]*\)|n|count|skipped|total|[a-z_]*\.count\([^{}]*\))\} [a-z]+s\b")
#: counts that are never 1 where they are written (the line, and why)
NEVER_ONE = {"segeval/cli/run.py": "count(STDIN) > 1",
             "segeval/protocols/moments/didemo.py": "len(ids) - len(data) > 0 follows 'the last'",
             "segeval/protocols/moments/lines.py": "len(q.windows) > 1 (TVR)"}


def test_no_count_is_written_before_a_fixed_plural() -> None:
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}" for p in sorted((ROOT / "segeval").rglob("*.py"))
             for i, line in enumerate(p.read_text().splitlines(), 1) if COUNTED.search(line)
             and str(p.relative_to(ROOT)) not in NEVER_ONE]
    assert found == []


# ---- help
@pytest.mark.parametrize("name", [n for n, _ in _leaf_commands()])
def test_every_option_and_argument_has_help(name: str) -> None:
    command = dict(_leaf_commands())[name]
    missing = [p.name for p in command.params if not (getattr(p, "help", None) or "").strip()]
    assert missing == []
    assert "--kind" not in " ".join(getattr(p, "help", "") or "" for p in command.params) or any(
        "--kind" in p.opts for p in command.params)  # "in the --kind format" only where there is a --kind


def test_the_command_list_is_not_cut() -> None:
    code, out, _ = run_cli("--help")
    assert code == 0 and "..." not in out.split("Commands:")[1]


HEAVY = ("numpy", "pandas", "scipy", "matplotlib", "dask", "sklearn", "intervaltree")

_NO_HEAVY_MODULE = """
import contextlib, io, json, sys
import segeval, segeval.cli.run

def heavy():
    return sorted({m.split('.')[0] for m in sys.modules} & set(HEAVY))

assert not heavy(), f'import segeval.cli.run loaded {heavy()}'
for args in DISPATCHES:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = segeval.cli.run.main(args)
    assert code == 0 and out.getvalue().strip(), f'segeval {args}: exit {code}, output {out.getvalue()!r}'
    assert not heavy(), f'segeval {" ".join(args)} loaded {heavy()}'
segeval.Segment('v', 0.0, 1.0)  # the check can fail: a lazy name that needs NumPy loads it
assert 'numpy' in heavy()
"""


def test_import_help_version_and_measures_load_no_heavy_module() -> None:
    # start-up stays light: --version, --help, every command's --help and 'segeval measures' (the
    # measure declarations, not the functions) load none of the heavy modules, in one process
    dispatches = [["--version"], ["--help"], ["measures"], ["measures", "-o", "json"], ["plot", "--help"],
                  *([*name.split(), "--help"] for name, _ in _leaf_commands())]
    assert len(dispatches) > 20
    code = f"HEAVY = {HEAVY!r}\nDISPATCHES = {dispatches!r}\n{_NO_HEAVY_MODULE}"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", sliced([n for n, _ in _leaf_commands() if " " not in n], 2))
def test_a_command_alone_helps_and_refuses_as_in_the_app(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    # the CLI builds only the named command's parser (segeval.cli.run.app_for): same help, same usage errors
    from segeval.cli.run import app_for

    alone = app_for([name, "--help"])
    assert alone is not app and [c.name for c in alone.registered_commands] == [name]
    outputs = []
    for which in (app, alone):
        for args in ([name, "--help"], [name, "--no-such-option"]):
            try:
                which(args=args, prog_name="segeval", standalone_mode=False)
            except Exception as exc:  # the usage error, as the CLI shows it
                show = getattr(exc, "show", None)
                if callable(show):
                    show()
            outputs.append(capsys.readouterr())
    assert outputs[:2] == outputs[2:] and "--no-such-option" in outputs[1].err
    assert app_for(["plot", "pr"]) is app and app_for(["--version"]) is app and app_for([]) is app
