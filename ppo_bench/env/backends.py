"""One vector-env interface over three libraries: ale-py, envpool and gymnasium.

`make_vector_env(env_cfg, groups)` returns, for `env.backend` (registry.BACKENDS), a
`VectorEnv`: an object that looks like ale-py 0.12's `AtariVectorEnv` as this project uses it, so the
torch adapter (`envs.TorchEnvs`) and the drivers run unchanged on any of them:

    num_envs, batch_size (num_envs // groups), single_observation_space
    (Box uint8 (4, 84, 84)), single_action_space (Discrete, the minimal set)
    reset(seed=int)          -> obs uint8 [batch_size, 4, 84, 84], info
    step(actions int64[batch_size]) -> obs, rewards, terminations, truncations, info
    send(actions) / recv()   -> the same 5-tuple; send is for the env ids of the last batch received
    close()

`info["env_id"]` (int32) says which envs a batch holds; env i is seeded
seed + i; rewards are int32, in {-1, 0, 1} unless built with
`clip_rewards=False` (PPO sums the unclipped rewards into episode returns and
clips them for training itself); the other info keys are each library's own. With groups > 1 (ale, envpool), reset returns the first batch
of batch_size envs to finish resetting and later recv() calls bring the
others' reset frames, mixed with stepped envs.

Configured alike on all three: env.frameskip emulator frames per step with
the reward summed and clipped to [-1, 1], 84x84 grey frames (INTER_AREA
resize), 4 stacked, max over the last two frames of a step, no sticky actions
(repeat_action_probability 0), up to 30 no-ops at reset, no end of episode on
a life loss, 108000 emulator frames at most per episode, minimal action set,
next-step autoreset (the step after an episode's end returns the reset frame).

Differences that remain (measured with ale-py 0.12.1, envpool 1.2.5, gymnasium 1.4):

- Fire reset: ale-py and envpool press FIRE at reset in games that have it;
  gymnasium's AtariPreprocessing has no fire reset.
- Reset no-ops: all three draw k from 0..29 with their own generator. ale-py
  presses FIRE, then k - 1 no-ops (max(k, 1) frames); envpool does k no-ops,
  then FIRE (k + 1 frames); gymnasium does k + 1 no-ops, no FIRE. ale-py and
  envpool draw k from the same generator and seed, so envpool starts every
  episode one emulator frame later than ale-py. With no-ops off both give
  identical frames (tested); gymnasium's generator (numpy's) differs.
- Frame stack at reset: ale-py returns three zero frames then the reset frame;
  envpool repeats the reset frame four times (its native behaviour, left as
  is: matching it would cost a check on every step); gymnasium is built with
  FrameStackObservation(padding_type="zero") and so matches ale-py.
- Max-pool: all three take the pixel max of the last two frames of a step and
  pool nothing at reset. Only at an episode's last step, when the game ends
  before the step's last frame, do they differ: ale-py and gymnasium stop
  before capturing and pool the frames they hold; envpool pools only a step
  that ran all its frames.
- Episode limit (108000 frames): ale-py counts the frames of agent steps
  after the reset no-ops and ends a step mid-way at the limit; envpool counts
  agent steps (max_episode_steps = ceil(108000 / frameskip)); gymnasium is
  ALE's own max_num_frames_per_episode, which also counts the reset no-ops.
  When the game ends on the step that reaches the limit, ale-py says
  terminated, envpool truncated.
- Reward clipping: ale-py clamps the integer sum to [-1, 1] inside the
  emulator step; envpool takes its sign (float32); gymnasium applies the
  ClipReward wrapper (float64). Same values; the adapters cast to int32.
- Seeding: ale-py reseeds on reset(seed=...); envpool fixes seeds when the
  pool is made, so this adapter makes the pool (its threads and emulators) at
  reset(seed=...), not at construction, and makes a new one on a reseeding
  reset. reset(seed=None) continues all three without reseeding.
- Threads and processes: ale-py and envpool step the emulators on
  env.num_threads C++ threads of this process (envpool writes results
  straight into batch buffers); gymnasium runs one worker process per env,
  actions and results through pipes, frames through shared memory, and
  ignores env.num_threads. The workers are forked: forkserver or spawn would
  re-import the main script, and with it torch, in every worker. They never
  touch torch or CUDA, which makes fork safe here (Python >= 3.12 still warns
  about forking a process that runs threads).
- Batches: ale-py and envpool return async batches of batch_size envs in
  order of completion (ale-py 0.12 can starve an env, ALE issue #641);
  gymnasium's AsyncVectorEnv steps all envs on every call (env_id is always
  0..num_envs-1), so env.backend=gymnasium refuses mode.groups > 1.
- Returned arrays: each call returns new arrays in all three (gymnasium with
  copy=True, a copy out of shared memory).
- Base frames: gymnasium's AtariEnv is built with obs_type="grayscale" so that
  it does not render an RGB frame on every emulator frame that
  AtariPreprocessing never reads (it reads the screen from ALE itself).
"""

from __future__ import annotations

import functools
import math
import os
from typing import Any, Protocol

import numpy as np
from gymnasium.spaces import Box, Discrete

from ppo_bench.config import placed
from ppo_bench.config.checks import check_batches
from ppo_bench.registry import BACKENDS

MAX_EPISODE_FRAMES = 108_000
NOOP_MAX = 30
STACK = 4
SCREEN = 84
FRAME_SHAPE = (STACK, SCREEN, SCREEN)
"""What every backend hands the agent: 4 stacked 84x84 grey frames (the agent reads it off the env)."""


class VectorEnv(Protocol):
    """What the drivers ask of a vector env: ale-py 0.12's AtariVectorEnv as this project uses it."""

    num_envs: int
    batch_size: int
    """num_envs // groups: the envs a step or recv returns."""
    single_observation_space: Box
    single_action_space: Discrete

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """The first batch's frames; info["env_id"] says which envs they are."""

    def step(self, actions: np.ndarray) -> tuple:
        """send then recv: (obs, rewards, terminations, truncations, info)."""

    def send(self, actions: np.ndarray) -> None:
        """Actions for the envs of the last batch received."""

    def recv(self) -> tuple:
        """The next batch to finish: (obs, rewards, terminations, truncations, info)."""

    def close(self) -> None: ...


def num_threads(env_cfg: Any, groups: int = 1) -> int:
    """env.num_threads; when it is null, the reference's min(num_envs, 16), no more than the slot's
    cores in a job a launcher placed (the node launcher's slot, SLURM's or Ray's grant: config.placed), and in async batches (groups > 1) no more
    than the cores this process may use less one, left to the loop's own thread.

    ale-py 0.12.1's async batches repeat or starve an env when its emulator threads are short of
    CPU (a race in its action queue; docs/findings.md): with a core left for the loop, the threads
    never wait for one. One batch of all envs has no such race and keeps the reference's count.
    """
    if env_cfg.num_threads:
        return env_cfg.num_threads
    threads = min(env_cfg.num_envs, 16)
    where = placed.current()
    if where is not None:  # a slot or a grant: no more threads than its cores (a Ray grant's count: unpinned)
        threads = min(threads, (where.get("grant") or {}).get("cpus") or len(os.sched_getaffinity(0)))
    if groups > 1:
        threads = min(threads, max(1, len(os.sched_getaffinity(0)) - 1))
    return threads


def make_vector_env(env_cfg: Any, groups: int = 1, clip_rewards: bool = True) -> VectorEnv:
    """The vector env of `env_cfg.backend`, in batches of num_envs // groups (see the module doc).

    The config was validated (config.validate): the backend's package is there and it takes
    these groups. A direct caller still gets one line for a backend that cannot.
    """
    backend = BACKENDS[env_cfg.backend]
    problem = backend.missing()
    if problem:
        raise ValueError(problem)
    check_batches(backend, env_cfg.num_envs, groups)
    return backend.load()(env_cfg, groups, clip_rewards)


def make_ale(env_cfg: Any, groups: int = 1, clip_rewards: bool = True) -> VectorEnv:
    """ale-py's AtariVectorEnv with its defaults: the reference's vector env, no adapter needed."""
    from ale_py.vector_env import AtariVectorEnv

    n = env_cfg.num_envs
    return AtariVectorEnv(
        game=env_cfg.game,
        num_envs=n,
        batch_size=n // groups if groups > 1 else 0,
        frameskip=env_cfg.frameskip,
        num_threads=num_threads(env_cfg, groups),
        reward_clipping=clip_rewards,
    )


def envpool_task(game: str) -> str:
    """envpool's task id for an ALE ROM id: ms_pacman -> MsPacman-v5 (envpool's own capitalisation)."""
    return "".join(part.capitalize() for part in game.split("_")) + "-v5"


def _step_result(obs, rewards, terminations, truncations, info):
    info["env_id"] = np.asarray(info["env_id"], dtype=np.int32)
    return obs, rewards.astype(np.int32), terminations, truncations, info


class _SendRecvEnv:
    """What both adapters share: `step` is `send` then `recv`, as in ale-py, and `send` checks the batch."""

    batch_size: int

    def step(self, actions: np.ndarray):
        self.send(actions)
        return self.recv()

    def _check(self, actions: np.ndarray) -> None:
        assert actions.shape == (self.batch_size,), f"{actions.shape=}, {self.batch_size=}"


class EnvpoolVectorEnv(_SendRecvEnv):
    """envpool's Atari pool set up as ale-py's AtariVectorEnv defaults; the pool is made at reset(seed)."""

    def __init__(self, env_cfg: Any, groups: int = 1, clip_rewards: bool = True):
        import envpool

        n, frameskip = env_cfg.num_envs, env_cfg.frameskip
        self.num_envs = n
        self.batch_size = n // groups
        self.task = envpool_task(env_cfg.game)
        if self.task not in envpool.list_all_envs():
            raise ValueError(f"env.game={env_cfg.game}: envpool has no {self.task}")
        self.options = dict(
            num_envs=n,
            batch_size=self.batch_size,
            num_threads=num_threads(env_cfg, groups),
            frame_skip=frameskip,
            img_height=SCREEN,
            img_width=SCREEN,
            gray_scale=True,
            stack_num=STACK,
            noop_max=NOOP_MAX,
            repeat_action_probability=0.0,
            reward_clip=clip_rewards,
            use_fire_reset=True,
            episodic_life=False,
            zero_discount_on_life_loss=False,
            full_action_space=False,
            use_inter_area_resize=True,
            max_episode_steps=math.ceil(MAX_EPISODE_FRAMES / frameskip),
        )
        spec = envpool.make_spec(self.task, **self.options)
        self.single_observation_space = Box(0, 255, FRAME_SHAPE, np.uint8)
        assert spec.observation_space.shape == FRAME_SHAPE, spec.observation_space
        self.single_action_space = Discrete(int(spec.action_space.n))
        self._make = functools.partial(envpool.make, self.task, env_type="gymnasium", **self.options)
        self._pool = None
        self._ids = None  # env ids of the last batch received: send() steps these

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options:
            raise ValueError("the envpool adapter takes no reset options")
        if seed is not None or self._pool is None:
            self.close()
            seed = int(np.random.SeedSequence().entropy % 2**31) if seed is None else seed
            self._pool = self._make(seed=seed)
        obs, info = self._pool.reset()
        info["env_id"] = self._ids = np.asarray(info["env_id"], dtype=np.int32)
        return obs, info

    def send(self, actions: np.ndarray) -> None:
        self._check(actions)
        self._pool.send(actions.astype(np.int32, copy=False), self._ids)  # envpool takes int32 only

    def recv(self):
        result = _step_result(*self._pool.recv())
        self._ids = result[-1]["env_id"]
        return result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def make_gymnasium_env(game: str, frameskip: int, clip_rewards: bool = True):
    """One ale-py AtariEnv with gymnasium's Atari wrappers, set up as AtariVectorEnv's defaults.

    Module-level so that AsyncVectorEnv can pickle it for its worker processes.
    """
    import ale_py
    import gymnasium as gym
    from ale_py.registration import rom_id_to_name
    from gymnasium.wrappers import AtariPreprocessing, ClipReward, FrameStackObservation

    gym.register_envs(ale_py)
    env = gym.make(
        f"ALE/{rom_id_to_name(game)}-v5",
        frameskip=1,
        repeat_action_probability=0.0,
        full_action_space=False,
        max_num_frames_per_episode=MAX_EPISODE_FRAMES,
        obs_type="grayscale",
    )
    env = AtariPreprocessing(env, noop_max=NOOP_MAX, frame_skip=frameskip, screen_size=SCREEN,
                             terminal_on_life_loss=False, grayscale_obs=True, scale_obs=False)
    if clip_rewards:
        env = ClipReward(env, -1, 1)
    return FrameStackObservation(env, STACK, padding_type="zero")


class GymnasiumVectorEnv(_SendRecvEnv):
    """gymnasium's AsyncVectorEnv (one process per env, frames in shared memory) over ale-py's AtariEnv."""

    def __init__(self, env_cfg: Any, groups: int = 1, clip_rewards: bool = True):
        from gymnasium.vector import AsyncVectorEnv, AutoresetMode

        n = env_cfg.num_envs
        self.num_envs = self.batch_size = n
        fn = functools.partial(make_gymnasium_env, env_cfg.game, env_cfg.frameskip, clip_rewards)
        self.envs = AsyncVectorEnv([fn] * n, shared_memory=True, copy=True, context="fork",
                                   autoreset_mode=AutoresetMode.NEXT_STEP)
        self.single_observation_space = self.envs.single_observation_space
        assert self.single_observation_space.shape == FRAME_SHAPE, self.single_observation_space
        assert self.single_observation_space.dtype == np.uint8, self.single_observation_space
        self.single_action_space = self.envs.single_action_space
        self._ids = np.arange(n, dtype=np.int32)
        self._pending = False  # a send() whose results were not received yet

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        obs, info = self.envs.reset(seed=seed, options=options)
        info["env_id"] = self._ids.copy()
        return obs, info

    def send(self, actions: np.ndarray) -> None:
        self._check(actions)
        self.envs.step_async(actions)
        self._pending = True

    def recv(self):
        self._pending = False
        obs, rewards, terminations, truncations, info = self.envs.step_wait()
        info["env_id"] = self._ids.copy()
        return _step_result(obs, rewards, terminations, truncations, info)

    def close(self) -> None:
        if self.envs.closed:
            return
        if self._pending:  # collect the outstanding step, else AsyncVectorEnv warns while closing
            try:
                self.recv()
            except Exception:
                self.envs.close(terminate=True)
                return
        self.envs.close()
