"""A2C for ppo_bench, as a plugin: `register()` adds it to the algorithms, its keys to the schema.

ppo_bench calls `register()` in every process that checks or builds a job, once it has imported
this package (config.plugins): found by the entry point in pyproject.toml where the package is
installed, or named on the command line (`plugins=[path/to/ppo_bench_a2c]`). Nothing here imports
torch: the config check and the collector read the entry and the config alone.
"""

from ppo_bench.registry import ALGOS, Algo


def register() -> None:
    # learns: it keeps a tracker of the returns; clips_rewards_itself: the envs hand over unclipped
    # rewards, the base sign-clips them for training; overlaps: the base keeps two rollouts apart
    ALGOS.add(Algo("a2c", "ppo_bench_a2c.algorithm:A2C", config="ppo_bench_a2c.config:A2CConfig", learns=True,
                   clips_rewards_itself=True, overlaps=True))
