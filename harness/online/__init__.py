"""Online evaluation: production runs scored as they arrive, sampled, within a budget, once.

:class:`~.worker.Worker` (``harness score``) scores the store's runs outside experiments;
:class:`~.inprocess.InProcessScoring` does the same inside the application for
``Harness(scorers=..., sample=...)``; both claim their work in the store with the same keys
(run, scorer name, scorer version), so no run is scored twice by either.
"""

from .budget import Budget, BudgetExhausted
from .counts import Counts, Tally
from .sampling import in_sample, sample_point, sample_rate
from .worker import Worker, WorkerSettings

__all__ = ["Budget", "BudgetExhausted", "Counts", "Tally", "Worker", "WorkerSettings", "in_sample", "sample_point",
           "sample_rate"]
