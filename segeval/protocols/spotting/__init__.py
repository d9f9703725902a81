"""Action spotting as SoccerNet's official evaluator scores it (``segeval spot``, docs/spotting.md)."""
