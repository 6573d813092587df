"""Collect result files into tables, chart arrays and a plot.

    python -m ppo_bench.collect PATH [PATH...] [--out DIR] [--baseline DIR] [--no-plot]

Every `**/result.json` under the paths is read (never written), also inside a sweep packed as a
compressed archive (`python -m ppo_bench.collect sweep.tar.gz`; .tar.gz, .tgz or .tar.xz, given or met
in a folder), read in memory, never extracted, by the same rules as a folder (see sources); its summary
goes where its folder's would, `<archive's name without .tar.gz>/summary`. An archive is read whole or
not at all: one damaged (cut short, a wrong checksum, a damaged header) stops the collection before
anything is written, in one line naming it, what is wrong and how many result files were read before
the damage, since those tabled alone would read as the whole sweep. A file given by its path is a
result file when it is named result.json (one that cannot be read is listed as unusable, as in its
folder) or reads as a record under another name; any other file (a stray notes.json given by mistake)
stops the collection in one line before anything is written, so that the sweep's own summary is not
replaced by one of "1 unusable". What may be compared or merged is decided by the configs, not by where
the files lie:

- Results whose configs differ in anything but the mode subtree, `env.num_envs`,
  `round`, `schedule.profile` and `schedule.interleave` (which only add a repetition
  after the timed ones, or a probe's after each) measure different things, so they
  are never merged: each distinct rest-of-config (plus the device the job really ran
  on; the config may say "auto") is a group, named by the keys in which the groups
  differ. A key that the schema gained after a file was written reads as its
  default there, and the old `agent.compile` reads as `agent.runtime` (true:
  compiled, false: eager). table.csv also has `backend` and `runtime` as plain columns.
- Jobs that differ only in `round` are repetitions of one measurement: their
  reps are pooled. Rounds run back to back also give a paired speed-up (per
  round, mode over step), which survives drift that an unpaired ratio does not;
  a round is one round of one sweep folder, so sides from two sweeps never pair.
- One measurement is counted once, however many files hold it: a duplicate is
  a file whose host, clock readings (job start and end, measurement start and
  end) and raw reps and seconds equal another's (`results.Record.fingerprint`),
  as in a copied sweep folder collected with its original. The file still in
  the folder its job wrote it to is kept; the copies are listed.
- A measurement that overlaps another job's run on the same host (its set-up,
  warm-up or measurement; failed jobs too) was disturbed. One sweep runs its
  jobs one after another, so this means a second sweep writing into the
  folder, or a parallel launcher: such jobs are marked contended, never
  trusted silently. Jobs the node launcher ran side by side on cores and GPUs
  of their own (their `placement`) are not contended but `shared_node`; where
  timed jobs that shared the node and jobs that ran alone are collected
  together, table.md says that throughput compared across them is not like
  for like (learning runs pool their seeds as ever). Jobs measured while the
  1-minute load exceeded the CPU count are marked overloaded, and those measured
  while the hypervisor took over 1% of the CPUs' time, stolen.
- Nothing is dropped silently: failed jobs, skipped ones (a combination that
  does not apply, never a failure; also one an older runner recorded as failed,
  record.checks.not_applicable), unusable files (a file with a number that
  is not finite, NaN or Infinity, among them), jobs without a record (a job folder
  without result.json, or a job that the sweep's `.jobs.jsonl` says it launched:
  each job notes itself there as it starts and as it ends, so one whose folder
  could not even be made is named: "no record written" where it ended, else
  "killed, or still running"), folders that could not be read and paths that do
  not exist are listed in table.md, after a count of every job by outcome;
  unusable files (each with its reason: "empty file", "not valid JSON:
  truncated", "permission denied", "a folder, not a file", a figure that
  disagrees with the record's own others...), unreadable folders and missing
  paths are also said on stderr and make the exit status 1; jobs with no record make
  it 3, and the last line says how many (cli.EXIT_STATUS). Only `set_aside/` folders are
  passed over: they hold an earlier sweep's results that `set_aside=true` moved out of this
  one's way (collect such a folder by its own path).

Groups that differ only in `env.backend` are also put side by side (a section of table.md and
backends.csv): per configuration, mode and num_envs, each backend's throughput and its ratio to
ale-py's, unpaired over the pooled reps and paired by round, so one table says which backend
serves the loop best. Groups that differ only in `agent.runtime` likewise, beside the compiled
agent (runtimes.csv). The probe a key cannot change (agent_only for backends, env_only for
runtimes) is left out of its table. Where a backend ran more than one loop mode at a num_envs,
a "best loop" row compares each backend's fastest loop (by pooled mean) with ale-py's fastest,
paired round by round on those two loops: the answer whatever loop each serves best. The
loops are picked on the same reps the ratio is computed from, which favours slightly the backend
that ran more loops; its chart arrays name the two loops at each num_envs.

Each loop row is also held to the bound of its design (bound_per_design): where every env waits for its
own batch with nothing to overlap it (one batch, or batches with no more envs than emulator
threads and cores), the chain bound 1 / (1/env probe + 1/(groups x agent probe)), capped by the
limit; else the limit, min over the probes. table.csv says which (`bound_kind`) and why
(`bound_why`), with the loop's share of it, pooled and paired by round: its one efficiency, which
table.md's `eff` columns, the page's headline and its hover all give (the limit is an input, never a
second efficiency).

Jobs run with `schedule.profile=true` also give a table of where the loop
step's time goes (phases.csv, and a section of table.md), averaged over rounds.

Loop jobs run with `schedule.interleave` (a probe of the emulators, or the other of step and sendrecv, timed in turn with each of the
loop's reps, in the same process) also give the loop over that probe paired rep by rep within
the job, all pairs of a configuration's jobs pooled and each job's own beside them, since the
emulators drift more between processes than within one (interleaved.csv, and a section of
table.md); without such jobs there is neither. Where the agent probe ran beside them (same
sweep, groups and num_envs), each rep is also held to its design's bound computed from that
rep's env probe and the round's agent probe (columns of interleaved.csv, and a table of its
own): a chain bound paired with the emulators in the same process. Where the env probe also ran
in jobs of its own at a cell, the section sets the interleaved reps against theirs: the limit
divides by those jobs, and this says whether the two timings of the same emulators agree.

Learning runs (`agent.algo=ppo schedule=learn`: a result with a `learning` record)
also give a Learning section of table.md (final return as the interquartile mean
over seeds with a bootstrap interval, time to target counted from the job's start, and
configurations that differ only in mode, or only in agent.overlap, compared at equal env
steps), returns.csv, returns.json and two figures (returns_vs_env_steps.png,
returns_vs_wall_s.png); without learning runs there are
none of these. Files from before `agent.algo` read as "reference", today's workload.
A learning run's seed is pooled like a round (seeds are samples of one
configuration); a reference job's seed stays part of its identity, as before. In the
throughput tables a learning configuration is one more group (named by its differing
keys, agent.algo among them) whose reps are its seeds' loop env-steps/s, and table.csv
says each row's `algo`: the reference workload's rows are unchanged.

table.md describes itself: it opens with what was measured (game, network, runtime, backend,
device and CPU models, torch and ale-py versions, commit, every command that ran into each sweep
folder; also each chart.json's `meta.measured`), a legend explains the columns and marks its tables
show and no others, a ratio whose interval contains 1 is marked (?) and one spanning over a factor of 4
(wide), a cell noisy, contended, overloaded, stolen or on a shared node carries that word (record.marks, as the
page and a job's log line do), and a cell weakened by its jobs' warnings is marked (wN), the warning
said under its table. A throughput's
interval is the t-interval on its log reps (stats.summary), never below zero, around the mean.

Figures are rounded only when rendered (table.md, chart arrays); table.csv keeps
full precision and the raw reps, so a later collection can use it as a baseline.
Every .json and .js it writes is strict JSON: a figure that is not finite is null.

The out dir. A summary is written all or nothing: its files go first into a folder of their own
inside the out dir (`.collect-*`), then are swapped in by renames with Ctrl-C and SIGTERM held back,
so whatever stops a collection (Ctrl-C, a full disk, an error) leaves the previous summary as it
was, and no half-written file or temporary folder. Only a collection killed outright (SIGKILL) leaves
its folder, `.collect-<pid>-*`: the next collection into that dir removes it, saying so in one line
(under the out dir's lock, and only where that pid's process is gone). On the command line a stop is
one line and exit status 130 (143 SIGTERM, 129 SIGHUP) wherever it lands, saying whether the previous
summary is kept (see cli). A collection never deletes a file it did not
write. It records what it wrote in the out dir's manifest, `.collect.json` (each file's path and
sha256, and the folders it created); the next collection into that dir deletes
exactly the files listed there that are still as written (a file changed since
is kept), and a listed folder only when that leaves it empty. Nothing else is
deleted: not a user's files, not an earlier summary in a folder below (`collect
SWEEP --out SWEEP` keeps SWEEP/summary), and nothing at all in a dir without a
manifest (one written before the manifest keeps its old files; the collector's
own file names are overwritten). While writing, a collection holds an exclusive
flock on the out dir: a second collection into it waits (one line on stderr), up
to 60 s, then stops with one line naming the holder's pid. A path it cannot use
(--out, --baseline) ends it with one line naming the path, exit 1.

The package has one module per section of the summary, each with its statistics, its part
of table.md and its files, and each importing only the modules listed before it: sources (find
the result files, in folders and archives, and the sweeps' notes, multirun.yaml and history),
load (read the result files; what cannot be used; the Collection), common (what several sections
share: mode order, pooled reps, round pairing, table cells and their marks), measured (what was
measured: table.md's opening lines, chart.json's meta), probe_limit (the limit the probes set, min
over them; which group's probe a row takes), bound_per_design (the one bound each loop's design
holds it to, the chain of an env waiting for its batch or the limit, and the loop's share of it),
interleaved (loops timed with a probe in the same job: the loop over the probe and over its
bound, rep by rep; interleaved.csv), throughput (table.csv, the speed-ups, the chart arrays and
throughput.png per group), side_by_side (backends.csv, runtimes.csv, side_by_side.*), phases
(phases.csv), startup (where each job's start-up went: startup.csv), equal_steps (learning curves
at equal env steps and the pairs compared there), learning (returns.*), integrity (what was not
used or not trusted), baseline (each row against --baseline: regressions, improvements, no change
shown), report (the sections in order, table.md, the out dir's lock, manifest and cleanup) and cli
(collect() and main()). Mode, backend and runtime names and their order come from
ppo_bench.registry, never from here.
"""

import sys
from pathlib import Path

from ppo_bench.signals import block_stops


def _run_as_command() -> bool:
    """Whether this process is the collector's command line: `python -m ppo_bench.collect` (while Python
    locates the module, importing its package, sys.argv[0] is "-m"; sys.orig_argv names the module) or
    the `ppo-bench-collect` script (sys.argv[0])."""
    return sys.argv[0] == "-m" and __name__ in sys.orig_argv or Path(sys.argv[0]).name == "ppo-bench-collect"


# Both import this package, and with it pandas (seconds on a loaded machine), before cli.main can take
# a stop: a Ctrl-C then printed a traceback (also where it came in a weakref callback of the import
# system, after which the collection ran on), and SIGTERM ended the process with no line. For them, and
# only for them (a sweep imports the package too, with stops of its own), stops are held back until
# main lets them through, inside its one-line handling (signals.stops_noted), and again once it has
# its outcome: the process then only exits.
if _run_as_command():
    block_stops()

from .cli import collect, main  # noqa: E402
from .load import CollectError, Collection  # noqa: E402

__all__ = ["Collection", "CollectError", "collect", "main"]
