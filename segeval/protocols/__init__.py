"""The protocols: moments, detection, spotting, speech and anchoring, each reader, matching and figures."""
