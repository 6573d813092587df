"""The names in a sweep's folder that the sweep writes and the collector reads, said once."""

RESULT = "result.json"  # in a job's folder: its record (results.Record.write)
JOB_NOTES = ".jobs.jsonl"  # in a sweep folder: a line per job as it starts and as it ends (launch.launching.note_job)
MULTIRUN = "multirun.yaml"  # in a sweep folder: Hydra's record of the sweep, its command among it
SET_ASIDE = "set_aside"  # in a sweep folder: <UTC time>/ per move, earlier results at their relative paths (sweep.set_aside)
SUMMARY = "summary"  # in a sweep folder: the collector's tables and page, written at the sweep's end
LOCK = ".sweep.lock"  # in a sweep folder: held by the sweep that runs in it
