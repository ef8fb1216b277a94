"""Writers: who turns a finished run's record into stored rows and spans, and where (in the
caller, a background thread, or the writer process). :class:`Writer` is the interface and
its threading contract; :func:`make_writer` picks one."""

from .base import InlineWriter, Writer
from .dispatch import MAX_PENDING_BYTES, WRITERS, make_writer, max_pending_bytes, writer_kind
from .process import ProcessWriter
from .thread import ThreadWriter

__all__ = ["MAX_PENDING_BYTES", "WRITERS", "InlineWriter", "ProcessWriter", "ThreadWriter", "Writer", "make_writer",
           "max_pending_bytes", "writer_kind"]
