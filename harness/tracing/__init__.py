"""Tracing: a graph's LangChain callbacks in, the run's rows and spans out.

Capture, on the graph's path (as little as possible per callback):
  :mod:`.callback` (the LangChain handler) appends one tuple per callback to the run's log,
  with each payload frozen as it was (:mod:`.frozen`).
Emit, off the graph's path (a background thread or the writer process):
  :mod:`.events` assembles the log into event records; :mod:`.record` is a finished run as
  plain data and turns it into rows (:mod:`.rows`, payloads as text by :mod:`.encode`) and
  spans (:mod:`.spans`, sent where :mod:`.telemetry` says), each event named with its agent
  (:mod:`.agents`), scrubbed by :mod:`harness.secrets.redact`, with the run's ``log_tests`` row
  (:mod:`.verify`), into the store.
"""
