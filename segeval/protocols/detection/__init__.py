"""Temporal action detection and proposals, each benchmark's official protocol (``segeval detect``,
``segeval proposals``): reading the benchmark files (:mod:`.read`), matching predictions to instances
(:mod:`.match`, also the ``tiou-best`` adapter), average precision (:mod:`.ap`), the protocols
(:mod:`.evaluate`), proposals' average recall (:mod:`.proposals`), the result tables (:mod:`.report`) and
the segeval lines of a detection file (:mod:`.lines`).  The conventions are in docs/detection.md."""
