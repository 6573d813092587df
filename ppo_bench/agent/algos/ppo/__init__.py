"""agent.algo=ppo: CleanRL's PPO over async batches: the algorithm (`algorithm`: its loss and update
on the shared on-policy rollout, `onpolicy.learner`) and its keys (`config`)."""
