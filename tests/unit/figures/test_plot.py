"""`segeval plot adr`: files written, formats checked, a clear message without matplotlib."""

from __future__ import annotations

import builtins
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

pytest.importorskip("matplotlib")

MUSIC = [str(ROOT / "examples/music/groundtruth.txt"), str(ROOT / "examples/music/run_a.txt")]


@pytest.mark.parametrize(("name", "magic"), [("curve.png", b"\x89PNG"), ("curve.svg", b"<?xml")])
def test_writes_the_figure(tmp_path: Path, name: str, magic: bytes) -> None:
    code, out, err = run_cli("plot", "adr", *MUSIC, "--query", "600.054.278-1.1.1", "-o", str(tmp_path / name))
    assert (code, err) == (0, "")
    assert out.strip() == str(tmp_path / name)
    data = (tmp_path / name).read_bytes()
    assert data.startswith(magic) and len(data) > 5000


def test_segment_qrels(tmp_path: Path) -> None:
    code, _, _ = run_cli("plot", "adr", str(ROOT / "examples/audio/qrels.txt"), str(ROOT / "examples/audio/run.txt"),
                         "-Q", "bird_call", "-o", str(tmp_path / "a.png"))
    assert code == 0 and (tmp_path / "a.png").stat().st_size > 5000


def test_bad_output_suffix_and_unknown_query(tmp_path: Path) -> None:
    code, _, err = run_cli("plot", "adr", *MUSIC, "-Q", "600.054.278-1.1.1", "-o", str(tmp_path / "x.jpg"))
    assert code == 2 and "The 'output' parameter must end in .png or .svg." in err
    code, _, err = run_cli("plot", "adr", *MUSIC, "-Q", "nope", "-o", str(tmp_path / "x.png"))
    assert code == 2 and "The 'query' parameter must name a query of the qrels. Got 'nope' instead." in err


def test_without_matplotlib_the_message_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, _, err = run_cli("plot", "adr", *MUSIC, "-Q", "600.054.278-1.1.1", "-o", str(tmp_path / "x.png"))
    assert code == 2
    assert err == "segeval: error: plotting needs matplotlib: pip install 'segeval[plot]'\n"
