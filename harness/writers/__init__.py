"""Writers: who turns a finished run's record into stored rows, and where (inline, a
background thread, or the writer process)."""

from .dispatch import ENV_WRITER, WRITERS, RunWriter

__all__ = ["ENV_WRITER", "WRITERS", "RunWriter"]
