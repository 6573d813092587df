"""The typed config schema, its checks, and the refusal of unknown keys."""
