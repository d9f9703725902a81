"""Sound event detection as DCASE task 4 scores it: sed_eval's event- and segment-based figures and
psds_eval's PSDS (docs/sed.md)."""
