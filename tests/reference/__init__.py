"""Differential tests against reference tools' outputs (trec_eval, the MediaEval script, pytrec_eval)."""
