"""PyTorch's side of benchmarks/run_data_parallel.sh: the MLP 512-1024-1024-10
(relu between), cross entropy, SGD (lr 0.01), global batch --global-batch
split evenly over --ranks processes, one thread each, random batches cycled
from 16 pre-made ones per rank, as data_parallel_bench.cc does.

One rank trains the plain model (the one-process baseline); more wrap it in
DistributedDataParallel over gloo on 127.0.0.1 (spawned processes). A
warm-up, then --reps timed blocks of --steps steps, each after a barrier.
The share of step time in all-reduce not hidden behind the backward pass is
measured as DDP's step time minus the same steps under no_sync() (no
all-reduce), over DDP's step time.

Prints (rank 0): the median global samples/s with min..max, the unhidden
share, and "RESULT torch <ranks> <samples/s> <unhidden share>".
Usage: /usr/bin/python3 ddp_bench.py --ranks N [--global-batch B] [--steps S] [--reps R]
"""

import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


def make_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(512, 1024), nn.ReLU(), nn.Linear(1024, 1024), nn.ReLU(), nn.Linear(1024, 10))


def time_blocks(model, optimizer, batches, steps, reps, ranks, no_sync=False):
    loss_fn = nn.CrossEntropyLoss()
    i = 0

    def step():
        nonlocal i
        x, y = batches[i % len(batches)]
        i += 1
        optimizer.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        optimizer.step()

    for _ in range(max(3, steps // 4)):
        step()
    seconds = []
    for _ in range(reps):
        if ranks > 1:
            dist.barrier()
        start = time.perf_counter()
        if no_sync:
            with model.no_sync():
                for _ in range(steps):
                    step()
        else:
            for _ in range(steps):
                step()
        seconds.append(time.perf_counter() - start)
    return seconds


def run(rank, args):
    torch.set_num_threads(1)
    ranks = args.ranks
    if ranks > 1:
        os.environ["MASTER_ADDR"] = "127.0.0.1"
        os.environ["MASTER_PORT"] = str(args.port)
        dist.init_process_group("gloo", rank=rank, world_size=ranks)
    batch = args.global_batch // ranks
    generator = torch.Generator().manual_seed(rank)
    batches = [(torch.randn(batch, 512, generator=generator), torch.randint(0, 10, (batch,), generator=generator))
               for _ in range(16)]
    model = make_model()
    if ranks > 1:
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    seconds = time_blocks(model, optimizer, batches, args.steps, args.reps, ranks)
    unhidden = 0.0
    if ranks > 1:
        alone = time_blocks(model, optimizer, batches, args.steps, args.reps, ranks, no_sync=True)
        unhidden = max(0.0, 1 - statistics.median(alone) / statistics.median(seconds))
    rates = [args.global_batch * args.steps / s for s in seconds]
    if rank == 0:
        print(f"torch   {ranks} rank(s), batch {batch} per rank: {statistics.median(rates):8.0f} samples/s "
              f"({min(rates):.0f} .. {max(rates):.0f}), all-reduce not hidden {100 * unhidden:.1f}%")
        print(f"RESULT torch {ranks} {statistics.median(rates):.1f} {unhidden:.4f}", flush=True)
    if ranks > 1:
        dist.destroy_process_group()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=1)
    parser.add_argument("--global-batch", type=int, default=512)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--port", type=int, default=29533)
    args = parser.parse_args()
    if args.ranks == 1:
        run(0, args)
    else:
        mp.spawn(run, args=(args,), nprocs=args.ranks, join=True)


if __name__ == "__main__":
    main()
