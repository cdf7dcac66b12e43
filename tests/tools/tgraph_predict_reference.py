#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""What `tgraph predict` computes, in plain PyTorch, for tests/app/tst_modelcli.cpp:

  tgraph_predict_reference.py OUT.npz BATCH WEIGHTS[,WEIGHTS...] GRAPH.npz [GRAPH.npz ...] [-- OUT.npz ...]

Per graph (docs/model.md §6): a layout graph is pruned as in training (prune_reference.py,
§2.2; configs may be base-7 compressed), all configs are scored in np.array_split chunks of at most
BATCH (§6.1) by the module of tgraph_reference.py, and the raw scores are averaged over the
comma-separated weights files (§6.3). A tile graph is scored whole. OUT gets one float32 array
per graph, keyed by the file name without .npz. Several jobs separated by `--` share one torch
start-up. Threads: $TGRAPH_TORCH_THREADS (default 1).
"""
import os
import sys

import numpy as np
import torch

import prune_reference
import tgraph_reference


def graph_arrays(path):
    g = dict(np.load(path))
    if 'config_feat' in g:
        return g
    pruned = prune_reference.prune(g)
    pruned['node_config_feat'] = g['node_config_feat']
    pruned['config_runtime'] = g['config_runtime']
    return pruned


def score(loaded, g, batch):
    model, w, tile = loaded
    inputs = tgraph_reference.graph_inputs(w, g, tile)
    configs = inputs[3].shape[0]
    out = np.empty(configs, dtype=np.float32)
    with torch.no_grad():
        if tile:
            return model(*inputs, None).numpy()
        for rows in np.array_split(np.arange(configs), -(-configs // batch)):
            idx = torch.from_numpy(rows)
            out[rows] = model(*inputs[:3], inputs[3][idx], *inputs[4:], None).numpy()
    return out


def job(args):
    if len(args) < 4:
        sys.exit(__doc__)
    out_path, batch = args[0], int(args[1])
    models = [tgraph_reference.load_model(w) for w in args[2].split(',')]
    result = {}
    for graph_path in args[3:]:
        g = graph_arrays(graph_path)
        total = sum(score(m, g, batch).astype(np.float64) for m in models)
        result[os.path.splitext(os.path.basename(graph_path))[0]] = (total / len(models)).astype(np.float32)
    np.savez(out_path, **result)


def main(args):
    torch.set_num_threads(int(os.environ.get('TGRAPH_TORCH_THREADS', '1')))
    start = 0
    for i, a in enumerate(args + ['--']):
        if a == '--':
            job(args[start:i])
            start = i + 1


if __name__ == '__main__':
    main(sys.argv[1:])
