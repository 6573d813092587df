"""ppo_bench: how fast a PPO training loop runs on ALE's vector envs, and where the time goes."""

__version__ = "0.1.0"
