"""The adapters are declared once (segeval/adapters/registry.py: KINDS): the spec parser, the help, the docs
table, the lazy imports and the tests' lists come from the declarations, and every declared parameter's
domain is checked the same way by a spec, a constructor and ``Settings``."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import segeval.adapters
from segeval.adapters.base import Adapter
from segeval.adapters.registry import ADAPTER_HELP, EXAMPLES, KINDS, docs_table, make_adapter
from segeval.core.domains import Domain
from segeval.core.errors import ParameterError
from segeval.core.settings import Settings
from tests.conftest import ROOT, run_cli


def _subclasses(cls: type) -> set[type]:
    return {c for sub in cls.__subclasses__() for c in {sub} | _subclasses(sub)}


def test_docs_table_is_the_declarations() -> None:
    page = (ROOT / "docs" / "adapters.md").read_text()
    block = page[page.index("<!-- table: "):].split("\n", 1)[1].split("<!-- table end -->")[0]
    assert block == docs_table(), ("docs/adapters.md's table differs from the declarations; paste the output of "
                                   "python -c 'from segeval.adapters.registry import docs_table; print(docs_table())'")


def test_every_adapter_class_is_declared_and_lazily_importable() -> None:
    import segeval.adapters.registry as registry

    declared = {getattr(segeval.adapters, k.cls) for k in KINDS}
    assert declared == _subclasses(Adapter)
    assert {type(make_adapter(e)) for e in EXAMPLES} == declared  # every kind has an example
    source = ast.parse((ROOT / "segeval" / "adapters" / "__init__.py").read_text())
    typed = {a.name for node in ast.walk(source) if isinstance(node, ast.If) for sub in node.body
             if isinstance(sub, ast.ImportFrom) for a in sub.names}
    assert typed == set(segeval.adapters.__all__)  # what type checkers see (if TYPE_CHECKING) is what loads
    assert registry.BY_NAME.keys() == {k.name for k in KINDS}


def test_each_example_round_trips_and_has_its_row_suffix() -> None:
    for k in KINDS:
        for row in k.rows:
            first = make_adapter(row.examples[0])
            for e in row.examples:
                a = make_adapter(e)
                assert make_adapter(a.spec).spec == a.spec and a.spec.split(":")[0] == k.name
                assert a.suffix.rstrip("sbzf") == first.suffix.rstrip("sbzf")  # variants add flag letters only


def test_the_help_is_the_grammar() -> None:
    assert ADAPTER_HELP == ("exact, overlap, overlap-once, binned[:B[:start|span]], tolerance[:T], "
                            "tiou[:theta[:strict][:empty0][:best][:float32]], tiou-best[:theta], "
                            "collar[:t[:p[:onset]]]")
    for command in ("eval", "show", "me13sh"):
        code, out, _ = run_cli(command, "--help")
        text = re.sub(r"\s+", "", out)
        assert code == 0
        assert command == "me13sh" or re.sub(r"\s+", "", ADAPTER_HELP) in text, command


def test_loading_the_declarations_loads_no_numpy() -> None:
    code = "import sys, segeval.adapters.registry, segeval.core.settings; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def _bad(domain: Domain) -> list[tuple[Any, str]]:
    """Values outside a domain: (as a constructor or Settings gets it, as a spec writes it)."""
    if domain.whole:
        least = int(domain.low)
        return [(least - 1, str(least - 1)), (1.5, "1.5"), ("x", "x"), (True, "+")]
    if domain.numbers:  # on or below the low end, above the high end, NaN
        low, high = domain.low if domain.open_low else domain.low - 0.5, domain.high * 1.0000001
        return [(low, repr(low)), (high, repr(high)), (float("nan"), "nan")]
    return [("end", "end"), (1, "1")]


@pytest.mark.parametrize(("kind", "position"), [(k, i) for k in KINDS for i in range(len(k.params))],
                         ids=lambda x: x.name if hasattr(x, "name") else str(x))
def test_each_parameter_domain_is_checked_before_any_work(kind: Any, position: int) -> None:
    p = kind.params[position]
    lead = [str(getattr(Settings(), q.setting)) for q in kind.params[:position]]
    cls = getattr(segeval.adapters, kind.cls)
    for value, text in _bad(p.domain):
        spec = ":".join([kind.name, *lead, text])
        with pytest.raises(ParameterError) as spec_error:
            make_adapter(spec)
        assert str(spec_error.value) == (f"The 'adapter' parameter {spec!r}: {p.what} must be {p.domain}. "
                                         f"Got {text!r} instead.")
        with pytest.raises(ParameterError, match=re.escape(f"The '{p.keyword}' parameter must be {p.domain}. "
                                                           f"Got {value!r} instead.")):
            cls(**{p.keyword: value})
        with pytest.raises(ParameterError, match=re.escape(f"The '{p.setting}' parameter must be {p.domain}. "
                                                           f"Got {value!r} instead.")):
            Settings(**{p.setting: value})


DOCUMENT_ROUTES = ([], ["--memory", "in-memory"], ["--memory", "chunked"], ["-q", "-m", "map"])


@pytest.mark.parametrize("spec", [e for e in EXAMPLES if make_adapter(e).times])
def test_an_adapter_of_times_refuses_a_document_run(spec: str, tmp_path: Path) -> None:
    # a document run has no times: such an adapter would score every result unjudged (binned read NaN as a bin)
    qrels, run = str(ROOT / "examples/ir/qrels.txt"), str(ROOT / "examples/ir/run.txt")
    expected = f"must name an adapter of document runs (exact): {make_adapter(spec).spec} matches time spans"
    for route in DOCUMENT_ROUTES:
        code, out, err = run_cli("eval", *route, "-a", spec, qrels, run)
        assert (code, out) == (2, "") and expected in err, (route, err)
    other = tmp_path / "other.txt"
    other.write_bytes(Path(run).read_bytes())
    code, out, err = run_cli("compare", "-a", spec, qrels, run, str(other), "-m", "map")
    assert code == 2 and "must name an adapter of document runs" in err
    import segeval

    with pytest.raises(ParameterError, match="document runs"):
        segeval.evaluate(qrels, run, adapter=spec)


def test_every_command_with_an_adapter_refuses_one_of_times_for_documents(tmp_path: Path) -> None:
    # the hunt after eval's silent zeros: every command taking -a/--adapter, with a document run
    qrels, run = str(ROOT / "examples/ir/qrels.txt"), str(ROOT / "examples/ir/run.txt")
    other = tmp_path / "other.txt"
    other.write_bytes(Path(run).read_bytes())
    groups = tmp_path / "groups.txt"
    groups.write_text("run.txt a\nother.txt b\n")
    texts = tmp_path / "texts.tsv"
    texts.write_text("".join(f"d{i}\tword{i}\n" for i in range(1, 10)))
    runs = [qrels, run, str(other)]
    commands = {
        "compare": ["compare", *runs, "-m", "map"],
        "correlate": ["correlate", *runs, "-m", "map", "--measure2", "P_10"],
        "report": ["report", *runs, "-m", "map", "-o", str(tmp_path / "r.html")],
        "pool": ["pool", *runs, "--groups", str(groups)],
        "pool-bias": ["pool-bias", *runs, "--groups", str(groups)],
        "incompleteness": ["incompleteness", *runs, "-r", "2"],
        "complete-qrels": ["complete-qrels", *runs, "--texts", str(texts), "-o", str(tmp_path / "c.qrels")],
        "plot pr": ["plot", "pr", qrels, run, "-o", str(tmp_path / "p.svg")],
        "plot adr": ["plot", "adr", qrels, run, "-Q", "301", "-o", str(tmp_path / "a.svg")],
    }
    for name, args in commands.items():
        assert run_cli(*args, "-a", "exact")[0] == 0, name
        written = {f for f in tmp_path.iterdir() if f.suffix in (".svg", ".html", ".qrels")}
        for f in written:
            f.unlink()
        code, out, err = run_cli(*args, "-a", "tiou:0.5")
        assert (code, out) == (2, ""), name
        assert "must name an adapter of document runs (exact): tiou:0.5 matches time spans" in err, (name, err)
        assert not any(f.exists() for f in written), name  # refused before any output


def test_exact_is_the_one_adapter_of_document_runs() -> None:
    assert [e for e in EXAMPLES if not make_adapter(e).times] == ["exact"]
    qrels, run = str(ROOT / "examples/ir/qrels.txt"), str(ROOT / "examples/ir/run.txt")
    assert run_cli("eval", "-a", "exact", qrels, run)[1] == run_cli("eval", qrels, run)[1]
