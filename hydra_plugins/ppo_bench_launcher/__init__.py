"""ppo_bench's Hydra launcher: hydra/launcher=node (node_launcher.py)."""
