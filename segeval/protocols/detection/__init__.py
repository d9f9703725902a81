"""Temporal action detection and proposals, each benchmark's official protocol (``segeval detect``,
``segeval proposals``; docs/detection.md)."""
