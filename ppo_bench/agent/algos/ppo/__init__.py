"""agent.algo=ppo: CleanRL's PPO over async batches, in one place: the algorithm (`algorithm`),
its keys (`config`), the episodes and GAE on next-step-autoreset envs (`episodes`) and each env's
rollout rows (`rollout`)."""
