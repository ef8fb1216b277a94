"""Experiments: a graph run over a dataset of cases, recorded in the store, and compared."""
