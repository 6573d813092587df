"""agent.algo=ppo: CleanRL's PPO over async batches: the algorithm (`algorithm`) and its keys
(`config`); what it builds on, any on-policy learner shares (`onpolicy`)."""
