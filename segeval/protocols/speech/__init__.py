"""Spoken content: keyword search (NIST F4DE KWSEval's ATWV/MTWV/OTWV/STWV) on the NIST file formats.

One module per concern: :mod:`.xmlfile` (XML with line numbers), :mod:`.ecf`, :mod:`.rttm`, :mod:`.kwlist`,
:mod:`.kwslist` (the readers), :mod:`.alignment` (occurrences and the one-to-one pairing), :mod:`.twv`
(trials and term-weighted value), :mod:`.report` (KWSEval's tables)."""
