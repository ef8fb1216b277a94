"""Writers: who turns a finished run's record into stored rows, and where (inline, a
background thread, or the writer process)."""

from .dispatch import ENV_MAX_PENDING, ENV_WRITER, MAX_PENDING_BYTES, WRITERS, RunWriter, max_pending_bytes

__all__ = ["ENV_MAX_PENDING", "ENV_WRITER", "MAX_PENDING_BYTES", "WRITERS", "RunWriter", "max_pending_bytes"]
