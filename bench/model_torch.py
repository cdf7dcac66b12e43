#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python side of `tgraph-bench model`: times the plain PyTorch reference module
(tests/tools/tgraph_reference.py) on the same weights and graph as the C++ run.

  model_torch.py WEIGHTS.npz GRAPH.npz CONFIGS REPEAT THREADS [--no-step]

Scores the first CONFIGS configs of GRAPH. forward = eval mode under torch.no_grad();
step = train mode forward + pairwise hinge loss (docs/model.md §4.1, 1/C^2) + backward + AdamW step
(lr 1e-3, weight decay 1e-5). Prints one line: forward=<best s> step=<best s> peak_rss=<bytes>.
"""
import os
import resource
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'tools'))
import tgraph_reference  # noqa: E402


def hinge(scores, runtimes):
    """Mean over the C x C grid of 1[r_i > r_j] * max(0, 1 - (s_i - s_j))."""
    slower = (runtimes[:, None] > runtimes[None, :]).to(scores.dtype)
    return (slower * torch.relu(1 - (scores[:, None] - scores[None, :]))).sum() / scores.shape[0] ** 2


def main(args):
    weights, graph, configs, repeat, threads = args[0], args[1], int(args[2]), int(args[3]), int(args[4])
    do_step = '--no-step' not in args
    torch.set_num_threads(threads)
    model, w, tile = tgraph_reference.load_model(weights)
    g = np.load(graph)
    inputs = list(tgraph_reference.graph_inputs(w, g, tile))
    inputs[3] = inputs[3][:configs].contiguous()
    runtimes = torch.from_numpy(g['config_runtime'].astype(np.int64)[:configs])

    forward = float('inf')
    model.eval()
    for _ in range(repeat):
        start = time.perf_counter()
        with torch.no_grad():
            model(*inputs, None)
        forward = min(forward, time.perf_counter() - start)

    step = float('nan')
    if do_step:
        step = float('inf')
        model.train()
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=1e-5)
        for _ in range(repeat):
            start = time.perf_counter()
            optimizer.zero_grad()
            loss = hinge(model(*inputs, None), runtimes)
            loss.backward()
            optimizer.step()
            step = min(step, time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print('forward=%.6f step=%.6f peak_rss=%d' % (forward, step, peak))


if __name__ == '__main__':
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    main(sys.argv[1:])
