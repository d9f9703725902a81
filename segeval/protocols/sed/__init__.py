"""Sound event detection as DCASE task 4 scores it (docs/sed.md)."""
