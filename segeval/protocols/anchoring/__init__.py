"""The anchoring protocol of MediaEval Search and Hyperlinking: its anchors reader and evaluation."""
