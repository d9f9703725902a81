"""``eval -a A -a B``: every adapter labels for every label measure (it kept only the last one, silently);
an adapter named twice is used once, as trec_eval computes a measure named twice once."""

from __future__ import annotations

import pytest

from tests.conftest import FIXTURES, run_cli

FILES = [str(FIXTURES / "gen_linking.qrels"), str(FIXTURES / "gen_linking.run")]


def rows(*args: str) -> dict[str, str]:
    code, out, err = run_cli("eval", *args, *FILES)
    assert code == 0, err
    return {line.split("\t")[0].strip(): line.split("\t")[2] for line in out.splitlines()}


@pytest.mark.parametrize("memory", ["auto", "chunked"])
def test_each_adapter_gives_what_it_gives_alone(memory: str) -> None:
    measures = ["-m", "map", "-m", "P_5", "--memory", memory, "--chunk-lines", "7"]
    both = rows("-a", "overlap", "-a", "binned:60", "-a", "tiou:0.5", *measures)
    alone = {**rows("-a", "overlap", *measures), **rows("-a", "binned:60", *measures),
             **rows("-a", "tiou:0.5", *measures)}
    assert both == alone and list(both) == ["map", "map_bin", "map_tiou0.5", "P_5", "P_5_bin", "P_5_tiou0.5"]


def test_an_adapter_named_twice_is_used_once() -> None:
    assert rows("-a", "binned:60", "-a", "overlap", "-a", "binned:60", "-m", "map") == \
        rows("-a", "binned:60", "-a", "overlap", "-m", "map")
