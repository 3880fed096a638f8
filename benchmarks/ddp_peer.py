"""The PyTorch peer of ``nn_data_parallel.py``: ``DistributedDataParallel`` over gloo.

    python benchmarks/ddp_peer.py --ranks 2 [--batch 1024] [--steps 8]

Starts ``--ranks`` processes (``torch.multiprocessing``, gloo on localhost), each pinned
to its own core with one torch thread, as ``nn_data_parallel.py`` runs phylanx's ranks,
and trains the same 784-512-512-10 MLP (relu, softmax cross-entropy, SGD 0.01) on the
same random data: each rank its near-equal share of every global batch, gradients
averaged by DDP (its default buckets: the first 1 MB, then 25 MB, all-reduced as each
bucket's gradients are ready during the backward pass).  Prints, as phylanx's worker
does, ``RESULT <ranks> <median s/step> <steps...>`` (rank 0's wall-clock steps after
the first two) and one ``CPU <rank> <median CPU s/step>`` line per rank.  Without torch
it prints ``NOT INSTALLED`` and exits 0: torch is optional (docs/performance.md says
how to install its CPU wheel).
"""
from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time

import numpy as np


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def data(batch: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """The data of ``nn_data_parallel.py``'s MLP worker (same seeds, same shapes)."""
    x = np.random.default_rng(0).random((batch * (steps + 2), 784), np.float32)
    y = np.random.default_rng(1).integers(0, 10, len(x))
    return x, y


def rank_main(rank: int, ranks: int, port: int, batch: int, steps: int, out) -> None:
    import torch
    import torch.distributed as tdist
    from nn_data_parallel import pin
    from torch.nn.parallel import DistributedDataParallel
    torch.set_num_threads(1)
    pin(rank)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                             rank=rank, world_size=ranks)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    ddp = DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()        # softmax + sparse cross-entropy
    x, y = data(batch, steps)
    base, extra = divmod(batch, ranks)           # the shard of phylanx's shard_bounds
    lo = rank * base + min(rank, extra)
    hi = lo + base + (1 if rank < extra else 0)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    walls, cpus = [], []
    for step in range(steps + 2):
        start, cpu = time.perf_counter(), time.process_time()
        rows = slice(step * batch + lo, step * batch + hi)
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(ddp(xt[rows]), yt[rows])
        loss.backward()                          # DDP all-reduces the buckets here
        opt.step()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    tdist.barrier()
    out.put((rank, walls[2:], cpus[2:]))
    tdist.destroy_process_group()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--batch", type=int, default=1024, help="global batch")
    parser.add_argument("--steps", type=int, default=8, help="timed steps")
    args = parser.parse_args()
    try:
        import torch.multiprocessing as mp
    except ImportError:
        print("NOT INSTALLED", flush=True)
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=rank_main, args=(r, args.ranks, port, args.batch,
                                                 args.steps, out))
             for r in range(args.ranks)]
    for p in procs:
        p.start()
    results = {}
    try:
        for _ in procs:
            rank, walls, cpus = out.get(timeout=600)
            results[rank] = (walls, cpus)
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.kill()
    walls = results[0][0]
    print(f"RESULT {args.ranks} {statistics.median(walls):.6f} "
          f"{' '.join(f'{s:.4f}' for s in walls)}", flush=True)
    for rank in sorted(results):
        print(f"CPU {rank} {statistics.median(results[rank][1]):.6f}", flush=True)


if __name__ == "__main__":
    main()
