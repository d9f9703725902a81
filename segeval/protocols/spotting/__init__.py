"""Action spotting as SoccerNet's official evaluator scores it (``segeval spot --protocol soccernet``).

One concern per module: :mod:`.read` (the JSON files and the game folders), :mod:`.grid` (the 2 fps
frame grid, the replacement of one frame's earlier entry by a later one, the visibility zones), :mod:`.ap`
(matching within a tolerance, precision/recall over 200 thresholds, 11-point AP, the integration over
tolerances) and :mod:`.report` (text, JSON, CSV).
"""
