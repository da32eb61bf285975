"""Seconds of a model's fit with numpy (the default, the baseline) and on a PyTorch device
(``stonegarden train --device``), on the decisions of a ``stonegarden train`` folder's
self-play games, measured in one run: rounds alternate the two so that a change in the
machine's load falls on both alike. Prints the ratio of the device's speed to numpy's and the
largest difference between their weights, and the figures, the command and the code version as
JSON (written to ``--out`` too when given).

    PYTHONPATH=src python3 benchmarks/fit_speed.py --data TRAIN_FOLDER
        [--device torch:cpu] [--steps 400] [--rounds 2] [--out FILE]

Each library runs as it comes: numpy's bincounts on one core, PyTorch's kernels on as many
threads as it takes (``threads`` in the file). No target: the option exists so that a bigger
model can be fitted on an accelerator; this says what it costs or gains on the CPU."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
from provenance import code_version, command, emit, positive_int, run_main

import stonegarden
from stonegarden.learn.devices import parse_device
from stonegarden.learn.train import choices_of, learner_for, read_games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", required=True,
                    help="the data folder of a train run (or the run's --out folder holding it)")
    ap.add_argument("--device", default="torch:cpu")
    ap.add_argument("--steps", type=positive_int, default=400)
    ap.add_argument("--rounds", type=positive_int, default=2)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = ap.parse_args()
    data = Path(args.data)
    if not (data / "settings.json").exists() and (data / "data" / "settings.json").exists():
        data = data / "data"  # the folder train's --out named, which holds its data folder
    try:
        settings = json.loads((data / "settings.json").read_text())
        game = stonegarden.make(settings["game"], **settings["params"])
    except (OSError, ValueError, KeyError, TypeError):
        ap.error(f"--data {args.data!r} is no data folder of stonegarden train (its "
                 "settings.json is missing or damaged)")
    learner = learner_for(game)
    records = read_games(data)
    if not records:
        ap.error(f"--data {args.data!r} holds no self-play game to fit")
    t0 = time.perf_counter()
    choices = choices_of(game, learner, [records[i] for i in sorted(records)])
    built = time.perf_counter() - t0
    devices = [parse_device("numpy"), parse_device(args.device)]
    if devices[1].name == "numpy":
        ap.error("--device numpy is the baseline the device is measured against: name a "
                 "PyTorch device (torch, torch:cpu, ...)")
    if not choices.decisions:
        ap.error(f"--data {args.data!r}: its games hold no choice between two or more moves "
                 "to fit")
    print(f"{game.id}: {len(records)} games, {choices.decisions} decisions, "
          f"{len(choices.rows)} candidates, {learner.num_features} weights "
          f"(read in {built:.0f} s)")
    seconds: dict[str, list[float]] = {d.name: [] for d in devices}
    weights: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for device in devices:
            t0 = time.perf_counter()
            weights[device.name] = device.fit(choices, learner.num_features, steps=args.steps)
            seconds[device.name].append(time.perf_counter() - t0)
            print(f"  {device.name}: {seconds[device.name][-1]:.1f} s")
    base, other = (min(seconds[d.name]) for d in devices)  # unrounded: a short fit is not 0 s
    seconds = {name: [round(s, 2) for s in times] for name, times in seconds.items()}
    gap = float(np.abs(weights[devices[0].name] - weights[devices[1].name]).max())
    print(f"{devices[1].name} fits {base / other:.2f}x as fast as numpy "
          f"(best of {args.rounds}); largest weight difference {gap:.1e}")
    threads = None
    if devices[1].torch_device:
        import torch

        threads = torch.get_num_threads()
    emit({"game": game.id, "params": game.non_default_params(), "data": settings,
          "games": len(records), "decisions": choices.decisions,
          "candidates": len(choices.rows), "weights": learner.num_features,
          "steps": args.steps, "seconds": seconds, "speed_ratio": round(base / other, 3),
          "max_weight_difference": gap,
          "devices": {d.name: d.version for d in devices}, "threads": threads,
          "cpus": os.cpu_count(), "loadavg": os.getloadavg(), "command": command(),
          "code": code_version()}, args.out)


if __name__ == "__main__":
    run_main(main)
