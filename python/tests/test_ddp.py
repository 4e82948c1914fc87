"""kiln.compile under DistributedDataParallel (gloo, 2 processes on
loopback): after one backward the averaged gradients equal the
single-process gradients of the whole batch."""
import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

import kiln


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.a = nn.Linear(8, 8)
        self.b = nn.Linear(8, 16)

    def forward(self, ids, labels):
        h = F.gelu(self.a(self.emb(ids)))
        return F.cross_entropy(self.b(h).flatten(0, 1), labels.flatten())


def data():
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(0, 16, (4, 6), generator=g)
    labels = torch.randint(0, 16, (4, 6), generator=g)
    return ids, labels


def _worker(rank, world, port, state, out_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        model = Net()
        model.load_state_dict(state)
        ids, labels = data()
        shard = slice(rank * 2, rank * 2 + 2)
        # Rank 0 compiles first; rank 1 then finds the library in the cache.
        if rank == 1:
            dist.barrier()
        compiled = kiln.compile(model, (ids[shard], labels[shard]))
        if rank == 0:
            dist.barrier()
        ddp = nn.parallel.DistributedDataParallel(compiled)
        loss = ddp(ids[shard], labels[shard])
        loss.backward()
        torch.save({n: p.grad for n, p in model.named_parameters()},
                   os.path.join(out_dir, "grads%d.pt" % rank))
    finally:
        dist.destroy_process_group()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_ddp_gradients_equal_the_whole_batch(tmp_path):
    torch.manual_seed(0)
    model = Net()
    state = model.state_dict()
    ids, labels = data()
    model(ids, labels).backward()
    mp.spawn(_worker, args=(2, _free_port(), state, str(tmp_path)), nprocs=2, join=True)
    for rank in range(2):
        grads = torch.load(os.path.join(tmp_path, "grads%d.pt" % rank))
        for n, p in model.named_parameters():
            torch.testing.assert_close(grads[n], p.grad, rtol=1e-5, atol=1e-7)
