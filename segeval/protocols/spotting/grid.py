"""The official frame grid: each game half 120 minutes of frames at the class set's rate, one cell per frame
and class (docs/spotting.md, "The official conventions")."""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from segeval.core.words import plural
from segeval.protocols.spotting.read import ClassSet, Spotting

#: a half: 120 minutes
HALF_SECONDS = 120 * 60


def frame_of(position_ms: int, framerate: int = 2) -> int:
    """The frame of a position, as the official ``int(framerate * (int(position) / 1000))``, clamped."""
    return min(int(framerate * (position_ms / 1000)), HALF_SECONDS * framerate - 1)


@dataclass
class Cells:
    """One half and class of one game: events (by frame, +1 visible, -1 not shown) and predictions (by frame)."""

    event_frames: list[int]
    event_values: list[int]
    pred_frames: list[int]
    pred_scores: list[float]

    def zone_values(self) -> list[int]:
        """The visibility (+1, -1) of the zone of every prediction; -1 when the half has no event."""
        if not self.event_frames:
            return [-1] * len(self.pred_frames)
        frames = self.event_frames
        # zone i starts at (frames[i-1] + frames[i]) // 2 (the first at 0), the official `closest` vector
        starts = [0] + [(frames[i - 1] + frames[i]) // 2 for i in range(1, len(frames))]
        return [self.event_values[bisect_right(starts, f) - 1] for f in self.pred_frames]


@dataclass
class Grid:
    """Every (game, half, class) cell list, and what the grid did to the input (for notes)."""

    cells: list[list[Cells]]  # [game × half][class]
    classes: ClassSet
    replaced_events: int
    replaced_predictions: int
    clamped: int


def build(spotting: Spotting) -> Grid:
    """The cells of every game half (game order, half 1 then 2) and class."""
    cells: list[list[Cells]] = []
    rate, n_classes = spotting.classes.framerate, len(spotting.classes.classes)
    last, beyond = HALF_SECONDS * rate - 1, HALF_SECONDS * 1000
    replaced_events = replaced_predictions = clamped = 0
    for game in spotting.games:
        for half in (1, 2):
            events: list[dict[int, int]] = [{} for _ in range(n_classes)]
            preds: list[dict[int, float]] = [{} for _ in range(n_classes)]
            for e in game.events:
                if e.half != half:
                    continue
                if e.seconds is None:
                    frame = frame_of(e.position_ms, rate)
                    clamped += frame == last and e.position_ms >= beyond
                else:
                    frame = min(rate * e.seconds, last)
                replaced_events += frame in events[e.cls]
                events[e.cls][frame] = 1 if e.visible else -1
            for p in game.predictions:
                if p.half != half:
                    continue
                frame = frame_of(p.position_ms, rate)
                clamped += frame == last and p.position_ms >= beyond
                replaced_predictions += frame in preds[p.cls]
                preds[p.cls][frame] = p.confidence
            row = []
            for c in range(n_classes):
                ev = sorted(events[c].items())
                pr = sorted((f, s) for f, s in preds[c].items() if s >= 0)
                row.append(Cells([f for f, _ in ev], [v for _, v in ev], [f for f, _ in pr], [s for _, s in pr]))
            cells.append(row)
    return Grid(cells, spotting.classes, replaced_events, replaced_predictions, clamped)


def notes(grid: Grid) -> list[str]:
    """What the grid changed, as the official evaluator changes it."""
    fps = f"{grid.classes.framerate} fps"
    replaced = ((grid.replaced_events, "ground-truth event", "event"), (grid.replaced_predictions, "prediction", ""))
    out = [
        f"{plural(n, what)} on the {fps} frame and class of an earlier {kind or what} of their game half: the "
        f"later one replaces it, as in the official evaluator"
        for n, what, kind in replaced
        if n
    ]
    if grid.clamped:
        out.append(
            f"{plural(grid.clamped, 'position')} at or beyond 120 minutes put on the last frame of the half "
            f"({HALF_SECONDS * grid.classes.framerate - 1:,} at {fps}), as the official evaluator does"
        )
    return out
