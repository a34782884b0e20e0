#!/usr/bin/env python3
"""PyTorch counterpart of model/bench_test.go: the networks of package
model on one thread, in states per second.

The networks are those of package model and docs/MODEL_FORMAT.md. The
paper's (conv): two convolutions of 32 filters of 2x2 with ReLU, flatten,
then two branches, a dense layer of 128 with ReLU followed by 4 logits and
a log-softmax (the policy) and a dense layer of 128 with ReLU followed by
one output (the heuristic). The inputs are those of BenchmarkForward and
BenchmarkTrainStep: Sokoban 4x10x10, Witness 9x9x9, STP 25x5x5, 4 actions.
The fully connected residual networks (resnet) on the STP input: a dense
layer of U units with ReLU over the flattened input, B residual blocks
h = relu(h + fc2(relu(fc1(h)))), then the same two branches; stp-resnet
has the default U = 128, B = 2, stp-resnet512 U = 512, B = 4, and
rubiks-resnet256, the Rubik's cube's network (6x9x12 input, U = 256,
B = 4, 12 actions).

For each network it measures

  forward   the two heads without autograd (torch.inference_mode), at
            batch 1 and batch 32;
  train     one Adam step (lr 1e-4, eps 1e-7, as nn.Adam) on a trajectory
            of 32 states: forward, the loss of model.Trainer (the Levin
            loss N*mean(-log pi(a_t|s_t)) with N = 100 expansions, plus the
            mean squared error of h), backward, step.

Each measurement runs the operation for at least --min-time seconds after
a warm-up; it is repeated --repeats times and the median is printed, one
line per measurement, as space-separated key=value pairs:

  bench_torch net=sokoban op=forward batch=1 states_per_s=12345.6 repeats=5

Run it with the interpreter that has PyTorch (Debian's: /usr/bin/python3).
It sets OMP_NUM_THREADS, MKL_NUM_THREADS and OPENBLAS_NUM_THREADS to 1
before importing torch, and torch.set_num_threads(1): one thread, as phs
runs each network on one goroutine.
"""

import argparse
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import torch  # noqa: E402  (after the thread settings, which torch reads at import)
from torch import nn  # noqa: E402

# name: (C, H, W, arch, units, blocks, actions)
SHAPES = {
    "sokoban": (4, 10, 10, "conv", 0, 0, 4),
    "witness": (9, 9, 9, "conv", 0, 0, 4),
    "stp": (25, 5, 5, "conv", 0, 0, 4),
    "stp-resnet": (25, 5, 5, "resnet", 128, 2, 4),
    "stp-resnet512": (25, 5, 5, "resnet", 512, 4, 4),
    "rubiks-resnet256": (6, 9, 12, "resnet", 256, 4, 12),
}
EXPANSIONS = 100  # the N of the Levin loss in BenchmarkTrainStep
TRAIN_BATCH = 32


class Net(nn.Module):
    """The two-headed network of docs/MODEL_FORMAT.md."""

    def __init__(self, C, H, W, A, F=32, K=2, D=128):
        super().__init__()
        P = F * (H - 2 * (K - 1)) * (W - 2 * (K - 1))
        self.conv1, self.conv2 = nn.Conv2d(C, F, K), nn.Conv2d(F, F, K)
        self.policy1, self.policy2 = nn.Linear(P, D), nn.Linear(D, A)
        self.heuristic1, self.heuristic2 = nn.Linear(P, D), nn.Linear(D, 1)

    def forward(self, x):
        f = torch.flatten(torch.relu(self.conv2(torch.relu(self.conv1(x)))), 1)
        log_pi = torch.log_softmax(self.policy2(torch.relu(self.policy1(f))), dim=1)
        h = self.heuristic2(torch.relu(self.heuristic1(f)))[:, 0]
        return log_pi, h


class Block(nn.Module):
    """A residual block of the resnet architecture."""

    def __init__(self, U):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(U, U), nn.Linear(U, U)

    def forward(self, h):
        return torch.relu(h + self.fc2(torch.relu(self.fc1(h))))


class ResNet(nn.Module):
    """The two-headed resnet network of docs/MODEL_FORMAT.md."""

    def __init__(self, C, H, W, A, U=128, B=2, D=128):
        super().__init__()
        self.input = nn.Linear(C * H * W, U)
        self.blocks = nn.ModuleList(Block(U) for _ in range(B))
        self.policy1, self.policy2 = nn.Linear(U, D), nn.Linear(D, A)
        self.heuristic1, self.heuristic2 = nn.Linear(U, D), nn.Linear(D, 1)

    def forward(self, x):
        f = torch.relu(self.input(torch.flatten(x, 1)))
        for block in self.blocks:
            f = block(f)
        log_pi = torch.log_softmax(self.policy2(torch.relu(self.policy1(f))), dim=1)
        h = self.heuristic2(torch.relu(self.heuristic1(f)))[:, 0]
        return log_pi, h


def rate(fn, states, min_time):
    """Runs fn until min_time seconds have passed; returns states/s."""
    n = 0
    start = time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_time:
            return n * states / elapsed


def measure(fn, states, min_time, repeats, warmup):
    """Returns the median of repeats measurements of rate(fn), after
    warmup seconds of fn."""
    rate(fn, states, warmup)
    return statistics.median(rate(fn, states, min_time) for _ in range(repeats))


def bench_network(name, args, gen):
    C, H, W, arch, U, B, A = SHAPES[name]
    net = Net(C, H, W, A) if arch == "conv" else ResNet(C, H, W, A, U, B)
    results = []

    for batch in (1, 32):
        x = (torch.rand(batch, C, H, W, generator=gen) < 0.25).float()

        def forward():
            with torch.inference_mode():
                net(x)

        results.append(("forward", batch, measure(forward, batch, args.min_time, args.repeats, args.warmup)))

    T = TRAIN_BATCH
    x = torch.zeros(T, C, H, W)
    x.view(T, -1)[torch.arange(T), torch.arange(T)] = 1
    actions = torch.arange(T) % 4  # as BenchmarkTrainStep
    cost_to_go = torch.arange(T, 0, -1, dtype=torch.float32)
    opt = torch.optim.Adam(net.parameters(), lr=1e-4, eps=1e-7)

    def train():
        opt.zero_grad(set_to_none=False)
        log_pi, h = net(x)
        levin = -EXPANSIONS * log_pi[torch.arange(T), actions].mean()
        mse = torch.mean((h - cost_to_go) ** 2)
        (levin + mse).backward()
        opt.step()

    results.append(("train", T, measure(train, T, args.min_time, args.repeats, args.warmup)))
    return results


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nets", default=",".join(SHAPES), help="comma-separated networks (default: %(default)s)")
    p.add_argument("--repeats", type=int, default=5, help="measurements per figure; the median is printed (default: %(default)s)")
    p.add_argument("--min-time", type=float, default=0.5, help="seconds per measurement (default: %(default)s)")
    p.add_argument("--warmup", type=float, default=0.2, help="seconds of warm-up before measuring (default: %(default)s)")
    args = p.parse_args()
    nets = args.nets.split(",")
    for n in nets:
        if n not in SHAPES:
            p.error(f"unknown network {n!r}; want some of {', '.join(SHAPES)}")
    if args.repeats < 1 or args.min_time <= 0:
        p.error("--repeats must be at least 1 and --min-time positive")

    torch.set_num_threads(1)
    torch.manual_seed(1)
    gen = torch.Generator().manual_seed(1)
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '')}", file=sys.stderr)
    for name in nets:
        for op, batch, r in bench_network(name, args, gen):
            print(f"bench_torch net={name} op={op} batch={batch} states_per_s={r:.1f} repeats={args.repeats}", flush=True)


if __name__ == "__main__":
    main()
