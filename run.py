"""Entry point: `python run.py [overrides]` runs one job, `python run.py -m ...` a sweep."""

import sys

import hydra
from omegaconf import DictConfig

from ppo_bench.launch import cli
from ppo_bench.config.schema import register_configs

register_configs()


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    cli.job(cfg)


if __name__ == "__main__":
    sys.exit(cli.main(main))
