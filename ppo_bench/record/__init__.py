"""The result record: its type and parts (results, parts, typed), what a job is (identity), its checks,
provenance, the sweep folder's file names, and the statistics over repetitions."""
