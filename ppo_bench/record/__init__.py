"""The result record: its fields, checks, provenance, and the statistics over repetitions."""
