"""Entry point: `python run.py [overrides]` runs one job, `python run.py -m ...` a sweep."""

import sys

from ppo_bench.launch import ahead

if __name__ == "__main__":
    ahead.start_imports(sys.argv[1:])  # a single run's imports (torch) begin now, beside Hydra's start

import hydra  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from ppo_bench.launch import cli  # noqa: E402
from ppo_bench.config.schema import register_configs  # noqa: E402

register_configs()


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    cli.job(cfg)


if __name__ == "__main__":
    sys.exit(cli.main(main))
