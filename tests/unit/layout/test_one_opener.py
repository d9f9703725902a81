"""One opener: every input file is read through ``segeval/readers/files.py`` (the input limits, gzip, streams, a
message naming the file). A reader that opens a user file itself (``open(``, ``Path.read_text()``,
``.read_bytes()``, ``ElementTree.parse``, ``json.load``, ``pd.read_csv(path)`` ...) bypasses them, as the speech
scorers' XML and RTTM readers once did: such a call anywhere else fails this test unless it is listed below
with the reason it reads no user input."""

from __future__ import annotations

import ast
import functools

from tests.conftest import ROOT

PACKAGE = ROOT / "segeval"
OPENER = "segeval/readers/files.py"

#: calls that open or read a file, whatever the receiver (``Path(p).open()``, ``gzip.open``, ``os.open`` ...)
_ANY_RECEIVER = {"open", "read_text", "read_bytes", "fdopen", "iterparse", "ParseFile", "file_digest", "fromfile",
                 "loadtxt", "genfromtxt", "read_csv", "read_table", "read_fwf", "read_json", "read_parquet",
                 "read_feather", "read_pickle", "read_excel", "read_xml", "read_html"}
#: calls that read a file only on these receivers (``ast.parse`` or a family's ``parse`` read none)
_ON_RECEIVER = {"parse": {"ElementTree", "ET", "etree", "minidom", "sax", "expatbuilder"},
                "load": {"json", "pickle", "np", "numpy", "yaml", "tomllib", "marshal", "joblib", "torch"}}
#: module-level functions of the opener called through the module (``files.read_bytes(path)``) are fine
_OPENER_NAMES = {"files"}

#: (module, call) -> why it reads no user input
ALLOWED = {
    ("segeval/executors/interrupt.py", "open"): "the process table (/proc/PID/stat), to stop child processes",
    ("segeval/executors/interrupt.py", "os.open"): "/dev/null, written over standard error when it is closed",
    ("segeval/reports/output.py", "os.open"): "outputs written (a FIFO, a folder fsynced after the rename), not read",
    ("segeval/reports/output.py", "os.fdopen"): "the output file opened above, written",
    ("segeval/cli/streams.py", "os.open"): "/dev/null in place of a closed standard stream",
    ("segeval/reports/html.py", "files().joinpath().read_text"): "the report's own script and style (package data)",
}


def _name(node: ast.expr) -> str:
    """The dotted text of a called expression (``os.open``, ``Path(p).read_text`` as ``Path().read_text``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    if isinstance(node, ast.Call):
        return f"{_name(node.func)}()"
    return "<expr>"


def readers(source: str) -> list[tuple[int, str]]:
    """(line, call) of every call in ``source`` that opens or reads a file."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("open", "fdopen"):
            found.append((node.lineno, func.id))
        elif isinstance(func, ast.Attribute):
            receiver = func.value.id if isinstance(func.value, ast.Name) else None
            if receiver in _OPENER_NAMES:
                continue
            if func.attr in _ANY_RECEIVER or receiver in _ON_RECEIVER.get(func.attr, ()):
                found.append((node.lineno, _name(func)))
    return found


@functools.cache
def found() -> dict[str, list[tuple[int, str]]]:
    """Per module of the package (its path from the root), its calls that open or read a file (parsed once)."""
    return {str(p.relative_to(ROOT)): readers(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))}


def test_the_finder_finds_each_kind_of_reader() -> None:
    """The check can fail: each way of reading a file that it looks for is found in a snippet."""
    snippet = "\n".join([
        "open(p)", "Path(p).read_text()", "p.read_bytes()", "gzip.open(p)", "io.open(p)", "os.open(p, 0)",
        "ElementTree.parse(p)", "ET.iterparse(p)", "json.load(f)", "np.load(p)", "pd.read_csv(p)",
        "parser.ParseFile(f)", "np.fromfile(p)", "hashlib.file_digest(f, 'sha256')",
        # not readers: the opener's own functions, a measure family's parse, the AST
        "read_bytes(p)", "files.read_bytes(p)", "read_text(p)", "fam.parse('p=1')", "ast.parse(s)",
    ])
    assert [call for _, call in readers(snippet)] == [
        "open", "Path().read_text", "p.read_bytes", "gzip.open", "io.open", "os.open", "ElementTree.parse",
        "ET.iterparse", "json.load", "np.load", "pd.read_csv", "parser.ParseFile", "np.fromfile",
        "hashlib.file_digest"]


def test_files_are_opened_by_the_opener_only() -> None:
    stray = [f"{module}:{line}: {call}(...)" for module, calls in found().items() if module != OPENER
             for line, call in calls if (module, call) not in ALLOWED]
    assert stray == [], ("read input through segeval/readers/files.py (read_bytes, read_text, read_utf8, "
                         "open_blocks), or list the call in ALLOWED with why it reads no user input:\n"
                         + "\n".join(stray))


def test_every_allowed_call_is_still_there() -> None:
    """An exception that no longer occurs is removed (the list stays the code's)."""
    used = {(module, call) for module, calls in found().items() for _, call in calls}
    assert sorted(set(ALLOWED) - used) == []


def test_the_opener_holds_the_readers() -> None:
    """The opener is where files are opened (the test above would pass vacuously if it moved)."""
    calls = {call for _, call in found()[OPENER]}
    assert "open" in calls
