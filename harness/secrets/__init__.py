"""Secrets: the rules that recognise a credential, and the redactor that scrubs them.

A ground-floor package: tracing, scoring, the CLI and the audit all scrub text with it, and
it imports nothing of the harness but the configuration (which names the environment it
reads).
"""
