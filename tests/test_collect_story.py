"""One story in every table: one mark per thing that weakens a figure (noisy, overloaded), the same in
a job's log line as in the tables.
"""

from __future__ import annotations

from ppo_bench.record.parts import UNIT
from test_collect import record


def _job_record(reps, **kw) -> dict:
    rec = record(mode="step", reps=reps, **kw)
    rec["throughput"]["mean"] = sum(reps) / len(reps)  # as the job writes it
    return rec


def test_the_job_log_line_marks_its_figure_as_the_tables_do():
    from ppo_bench.job.parent import summarise_record

    line = summarise_record(_job_record([100.0, 150.0, 70.0], load=5.0, cpus=2))
    assert line.endswith(f"] (noisy, overloaded) {UNIT} over 3 reps"), line
    calm = summarise_record(_job_record([100.0, 101.0, 99.0], load=0.5, cpus=2))
    assert calm.endswith(f"] {UNIT} over 3 reps"), calm
