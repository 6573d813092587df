"""ppo_bench: how fast a PPO training loop runs on ALE's vector envs, and where the time goes."""

import time

__version__ = "0.1.0"

IMPORTS_BEGAN = time.monotonic()
"""When this process began importing the project (CLOCK_MONOTONIC, one clock for the machine): in a
job's fork server, when its preload began (see job.imports, which reports what it took)."""
