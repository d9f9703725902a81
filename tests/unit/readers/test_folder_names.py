"""Every folder reader (the THUMOS14 kit's annotation folder, SoccerNet's game folders) keeps to its folder:
a name that would leave it is refused, and each kind of entry (a file, a link to one, a link to a folder, a
link loop, a FIFO, a folder, nothing) is read or refused by one stated rule, with a message naming it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from segeval.core.errors import InputError, SegevalError
from segeval.protocols.detection.read import read_kit_truth
from segeval.protocols.spotting.read import read
from segeval.readers.directories import bad_entry_name
from tests.conftest import examples, run_cli

NAMES = st.one_of(
    st.sampled_from(["", ".", "..", "../outside/Pitch", "/etc/passwd", "a/b", "./Pitch", "Pitch/", "..Pitch",
                     "Pitch..", "Pitch", "P\x00", "\u2028", "-"]),
    st.text(alphabet="./ab\\-_", min_size=1, max_size=8),
)

#: each kind of entry and what reading it gives: None (read), else words of the message
KINDS = {"file": None, "link to a file": None, "missing": "is missing", "FIFO": "is a FIFO",
         "folder": "is a folder", "broken link": "is a broken symbolic link", "link loop": "is a symbolic link loop"}


def _make(path: Path, kind: str, text: str) -> None:
    """``path`` as an entry of ``kind`` (a file holding ``text`` where it is one)."""
    if kind == "file":
        path.write_text(text)
    elif kind == "link to a file":
        (path.parent / "target.txt").write_text(text)
        path.symlink_to("target.txt")
    elif kind == "FIFO":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "broken link":
        path.symlink_to("nowhere")
    elif kind == "link loop":
        path.symlink_to(path.name)


@settings(max_examples=examples(100), deadline=None)
@given(NAMES)
def test_kit_class_names_stay_in_the_folder(name: str) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "kit"
        root.mkdir()
        (Path(tmp) / "outside").mkdir()
        (Path(tmp) / "outside" / "Pitch_test.txt").write_text("v1 1 2\n")  # what an escaping name would reach
        (root / "detclasslist.txt").write_text(f"7 {name}\n")
        (root / "Ambiguous_test.txt").write_text("")
        token = name.split()[0] if name.split() else ""
        file = f"{token}_test.txt"
        if bad_entry_name(file) is None and token:
            (root / file).write_text("v1 1 2\n")
        try:
            truth = read_kit_truth(str(root), "test")
        except InputError as exc:
            assert len(name.split()) != 1 or "/" in token or "\x00" in token, (name, str(exc))
            return
        assert truth.classes == [token] and "/" not in token


@pytest.mark.parametrize("kind", KINDS)
def test_kit_class_files_by_kind(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "kit"
    root.mkdir()
    (root / "detclasslist.txt").write_text("7 Pitch\n")
    (root / "Ambiguous_test.txt").write_text("")
    _make(root / "Pitch_test.txt", kind, "v1 1 2\n")
    if KINDS[kind] is None:
        assert read_kit_truth(str(root), "test").classes == ["Pitch"]
        return
    with pytest.raises(InputError) as caught:
        read_kit_truth(str(root), "test")
    assert str(caught.value).startswith(f"{root / 'Pitch_test.txt'}: {KINDS[kind]}"), str(caught.value)


def _game(root: Path, name: str, file: str, doc: object) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / file).write_text(json.dumps(doc))


EVENT = {"gameTime": "1 - 00:01", "label": "Goal", "position": "1000"}
PREDICTION = {"label": "Goal", "position": "1000", "half": "1", "confidence": "0.5"}


@pytest.mark.parametrize("name", ["", ".", "..", "../Labels-v2.json", "/abs/Labels-v2.json", "a/Labels-v2.json"])
def test_spot_file_names_are_names_of_files(tmp_path: Path, name: str) -> None:
    _game(tmp_path / "gt", "l/s/g1", "Labels-v2.json", {"annotations": [EVENT]})
    _game(tmp_path / "pred", "l/s/g1", "results_spotting.json", {"predictions": [PREDICTION]})
    for option in ("--label-file", "--prediction-file"):
        code, out, err = run_cli("spot", str(tmp_path / "gt"), str(tmp_path / "pred"), option, name)
        assert code == 2 and out == "" and "must be a file name" in err and repr(name) in err, err


def test_spot_follows_linked_game_folders_and_refuses_loops(tmp_path: Path) -> None:
    gt, pred = tmp_path / "gt", tmp_path / "pred"
    _game(gt, "l/s/g1", "Labels-v2.json", {"annotations": [EVENT]})
    _game(tmp_path / "elsewhere", "g2", "Labels-v2.json", {"annotations": [EVENT]})
    (gt / "l/s/g2").symlink_to(tmp_path / "elsewhere" / "g2", target_is_directory=True)
    for game in ("l/s/g1", "l/s/g2"):
        _game(pred, game, "results_spotting.json", {"predictions": [PREDICTION]})
    assert [g.name for g in read(str(gt), str(pred)).games] == ["l/s/g1", "l/s/g2"]  # both games, not one
    (gt / "l/s/loop").symlink_to(gt / "l", target_is_directory=True)
    with pytest.raises(InputError, match="a symbolic link to a folder read already"):
        read(str(gt), str(pred))


@pytest.mark.parametrize("kind", [k for k in KINDS if k not in ("missing", "file", "link to a file")])
def test_spot_label_files_by_kind(tmp_path: Path, kind: str) -> None:
    gt, pred = tmp_path / "gt", tmp_path / "pred"
    (gt / "l/s/g1").mkdir(parents=True)
    _make(gt / "l/s/g1/Labels-v2.json", kind, "")
    _game(pred, "l/s/g1", "results_spotting.json", {"predictions": [PREDICTION]})
    with pytest.raises(SegevalError) as caught:
        read(str(gt), str(pred))
    assert f"Labels-v2.json: {KINDS[kind]}" in str(caught.value)
