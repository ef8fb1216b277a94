"""The peak memory of the process that asks, for benchmarks that measure a child process.

``ru_maxrss`` will not do there: Linux carries it across ``fork`` and ``exec``, so a child
reports at least the peak of the benchmark that started it. ``VmHWM`` is the high-water
mark of the process's own address space, which ``exec`` starts afresh.
"""

from __future__ import annotations


def own_peak_mb() -> float:
    """This process's peak resident memory in MB (``VmHWM`` of ``/proc/self/status``)."""
    with open("/proc/self/status", encoding="ascii") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    return int(kb) / 1024
