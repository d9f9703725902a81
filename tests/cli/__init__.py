"""Tests through the command line: exit codes, messages, streams, outputs, signals."""
