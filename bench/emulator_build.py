"""What building ale-py's emulators costs, and whether threads overlap it.

    python bench/emulator_build.py [--game pong] [--counts 1 4 16]

Times AtariVectorEnv's constructor (and its first reset) for each count, ALEInterface().loadROM
alone (what each emulator of the vector env does in its constructor), and both again split over
two threads: where the threads take as long as one, the work holds the GIL.
"""

from __future__ import annotations

import argparse
import threading
import time

from ale_py import ALEInterface, roms
from ale_py.vector_env import AtariVectorEnv


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def in_threads(fn, *args, threads: int = 2) -> float:
    workers = [threading.Thread(target=fn, args=args) for _ in range(threads)]
    t = time.perf_counter()
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--game", default="pong")
    p.add_argument("--counts", type=int, nargs="+", default=[1, 4, 16])
    args = p.parse_args()
    kept = []  # built envs stay alive until the end, so a destructor's cost falls outside the clocks

    def vector(n: int) -> None:
        kept.append(AtariVectorEnv(game=args.game, num_envs=n, frameskip=5, num_threads=min(n, 16)))

    path = roms.get_rom_path(args.game)

    def load(k: int) -> None:
        for _ in range(k):
            kept.append(ALEInterface())
            kept[-1].loadROM(path)

    for n in args.counts:
        build = timed(vector, n)
        reset = timed(lambda: kept[-1].reset(seed=0))
        print(f"AtariVectorEnv({n}): built in {build:.3f} s ({build / n:.3f} s an emulator), first reset {reset:.3f} s")
    n = max(args.counts)
    one = timed(load, n)
    print(f"loadROM x{n}, one thread: {one:.3f} s ({one / n:.3f} s each)")
    print(f"loadROM x{n // 2} in each of two threads: {in_threads(load, n // 2):.3f} s")
    print(f"AtariVectorEnv({n}), one thread: {timed(vector, n):.3f} s; "
          f"AtariVectorEnv({n // 2}) in each of two threads: {in_threads(vector, n // 2):.3f} s")


if __name__ == "__main__":
    main()
