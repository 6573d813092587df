"""What any on-policy learner with per-env rollouts builds on, below the algorithms that use it:
episode bookkeeping on next-step-autoreset envs (`episodes`), advantages and returns (`advantages`),
each env's own rollout rows under async batches (`rollout`), and the rollout plumbing between the
drivers' calls and a learner's update (`learner.RolloutLearner`, whose docstring says what a learner
on it writes). PPO is one such learner (`ppo`); a learner added from outside the package (A2C, ...)
subclasses `RolloutLearner` and writes its loss."""
