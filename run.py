"""Entry point: `python run.py [overrides]` runs one job, `python run.py -m ...` a sweep."""

import hydra
from omegaconf import DictConfig

from ppo_bench.config import register_configs
from ppo_bench.runner import run

register_configs()


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    run(cfg)


if __name__ == "__main__":
    main()
