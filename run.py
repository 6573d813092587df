"""Entry point: `python run.py [overrides]` runs one job, `python run.py -m ...` a sweep.

Everything runs under `__name__ == "__main__"`: multiprocessing imports this file again (as
`__mp_main__`) in every job's child forked from the fork server, and at module level its imports
(Hydra, the launchers, the record's statistics: scipy.stats) would run again before each job's
child reached its first line."""

import sys

if __name__ == "__main__":
    from ppo_bench.launch import ahead

    ahead.start_imports(sys.argv[1:])  # its jobs' imports (torch) begin now, beside Hydra's start

    import hydra
    from omegaconf import DictConfig

    from ppo_bench.launch import cli
    from ppo_bench.config.schema import register_configs

    register_configs()

    @hydra.main(version_base="1.3", config_path="conf", config_name="config")
    def main(cfg: DictConfig) -> None:
        cli.job(cfg)

    sys.exit(cli.main(main))
