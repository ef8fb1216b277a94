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


def _errors_are_unknown(store: Any) -> None:
    """Stores written before a run's pass had three values stored an errored score as a fail
    (0): it is now unknown (empty), and so is the pass of a completed run that nothing else
    failed (evaluators.run_passed; the judge, which never gates, left aside as it was)."""
    never_gate = ("evaluators.LLMJudge", "harness.scorers.trajectory_match", "evaluators.agent_overall")
    marks = ", ".join(store.placeholder for _ in never_gate)
    store._execute('UPDATE "scores" SET passed = NULL WHERE error IS NOT NULL AND passed IS NOT NULL')
    store._execute(
        'UPDATE "runs" SET passed = NULL WHERE passed = 0 AND status = \'completed\' '
        'AND EXISTS (SELECT 1 FROM "scores" s WHERE s.run_id = "runs".run_id AND s.error IS NOT NULL '
        f'AND (s.scorer IS NULL OR s.scorer NOT IN ({marks}))) '
        'AND NOT EXISTS (SELECT 1 FROM "scores" s WHERE s.run_id = "runs".run_id AND s.error IS NULL AND s.passed = 0)',
        never_gate)


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
    Migration(11, "a score that could not be made has no pass (unknown, never a fail): scores.passed emptied "
                  "where scores.error is set, and runs.passed emptied where only such a score had failed the run",
              apply=_errors_are_unknown),
    Migration(12, "llm_calls: cache_read_tokens, cache_write_5m_tokens, cache_write_1h_tokens, reasoning_tokens, "
                  "audio_input_tokens, audio_output_tokens, usage_note, cost_note (a call's tokens by kind, priced "
                  "each at its own price) and priced_at, previous_total_cost, previous_price_table (harness reprice); "
                  "runs: cache_read_tokens, cache_write_tokens, reasoning_tokens (their sums per run)"),
    Migration(13, "scores.experiment and scores.case_id: a score's experiment and case beside it, so the scores "
                 "sheet reads alone (filled in from runs)", lambda store: store._execute(
                     'UPDATE "scores" SET experiment = (SELECT r.experiment FROM "runs" r WHERE r.run_id = '
                     '"scores".run_id), case_id = (SELECT r.case_id FROM "runs" r WHERE r.run_id = "scores".run_id)')),
    Migration(14, "scores.higher_is_better: which way a score is better, as its scorer declared it (compare reads it)"),
    Migration(15, "online scoring: the score_claims, score_workers, score_spend and score_holds tables (who scores "
                  "which run with which scorer version, the workers and their counts, what scorers' model calls "
                  "cost per budget window); scores.scorer_version"),
)


SCHEMA_VERSION = MIGRATIONS[-1].version
