"""What goes wrong before an experiment (or a scoring of one) can start."""


class ExperimentError(ValueError):
    """An experiment that cannot start (its name is taken, a check has no judge, ...)."""
