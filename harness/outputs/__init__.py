"""Files the harness writes (reports, workbooks): written whole or not at all, beside their
target, never through a link or into a pipe or a device. Imports nothing of the harness but
the safe file reader (which names what a path is)."""

from .replace import NotAFile, replacing, text_file, write_text

__all__ = ["NotAFile", "replacing", "text_file", "write_text"]
