"""Schema versions of the store and the steps that bring an older store forward.

A store records the version of its tables (``harness_meta.schema_version``). Opening a store:

- of the current version: nothing to do (one read);
- older (or made before versions were recorded, which is version 1): in one transaction
  that other openers wait for, every table and column the schema declares and the store
  lacks is added (new columns are extras, which follow the spec columns at the end of a
  sheet, so ``ALTER TABLE ... ADD COLUMN`` keeps the schema's order), then the data steps
  of each newer version run, then the new version is recorded;
- newer than this code knows: refused with one line (an older harness must not write
  rows a newer one would misread).

A schema change appends a :class:`Migration` here; additive changes (a new extra column, a
new table) need no ``apply`` step.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    change: str  # what the version added, for people reading the store's history
    apply: Callable[[Any], None] | None = None  # a data step on the Store, once its tables are in shape


def _number_threads(store: Any) -> None:
    from .threads import renumber

    renumber(store)


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "the fifteen sheets, assessment_records and export_marks"),
    Migration(2, "runs.experiment, runs.case_id, runs.repeat_index: a run's place in an experiment"),
    Migration(3, "runs.note (what a run's evidence lacked); consistency_scores.run_ids and cross_model_eval.run_ids "
                 "(the runs a group row covers, written once per group)"),
    Migration(4, "runs.passed (a run's pass/fail against its case's checks) and the experiments table "
                 "(name, graph target, dataset and its hash, git commit, models, when)"),
    Migration(5, "the scores table (every judgement of a run: built-in checks, judges, user scorers, labels); "
                 "runs.inputs, runs.outputs and runs.reference (what an experiment's run can be scored again from)"),
    Migration(6, "langgraph_events.traceback, tool_calls.traceback, llm_calls.traceback: where a failed node, tool "
                 "or model call failed"),
    Migration(7, "agent_path on langgraph_events, llm_calls, tool_calls and prompts: the chain of subgraphs a row "
                 "ran in (multi-agent graphs)"),
    Migration(8, "langgraph_events.handoff_to and tool_calls.handoff_to: where a handoff between agents went"),
    Migration(9, "scores.rater: who gave a person's label, so labels of one run and name by several people "
                 "are kept side by side"),
    Migration(10, "runs.turn, runs.interrupts, runs.resume, runs.resumed_from (a run's place in its thread, the "
                 "interrupts it stopped at, what it resumed with and which run it resumed); scores.thread_id (a "
                 "thread scorer's score); the runs_thread index; the turns of the threads already stored",
              apply=_number_threads),
)

SCHEMA_VERSION = MIGRATIONS[-1].version
