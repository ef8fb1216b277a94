"""Entry point of the writer process (``python -m harness._writer_main``)."""

from harness._writer_process import main

main()
