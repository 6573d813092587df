"""What any on-policy learner with per-env rollouts builds on, below the algorithms that use it:
episode bookkeeping on next-step-autoreset envs (`episodes`), advantages and returns (`advantages`)
and each env's own rollout rows under async batches (`rollout`)."""
