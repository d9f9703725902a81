"""Spoken content: keyword search (NIST F4DE KWSEval's ATWV/MTWV/OTWV/STWV) on the NIST file formats."""
