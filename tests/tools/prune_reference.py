#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Reference implementation of TGraph's layout preprocessing in numpy, written from
docs/model.md §2.2-2.4 for cross-checking the C++ core on real files.

  prune_reference.py IN.npz OUT.npz
writes the pruned arrays (node_feat, node_opcode, edge_index, node_config_ids) plus
`unique_configs` (number of distinct node_config_feat rows, np.unique) and
`first_of_group` (row index of the first occurrence of each distinct row, ascending).
"""
import sys

import numpy as np


def prune(d):
    edges = d['edge_index'].astype(np.int64)
    ids = d['node_config_ids'].astype(np.int64).reshape(-1)
    is_config = np.zeros(d['node_feat'].shape[0], dtype=bool)
    is_config[ids] = True
    keep = is_config[edges[:, 0]] | is_config[edges[:, 1]]
    kept_edges = edges[keep]
    kept_nodes = np.unique(kept_edges.reshape(-1))
    assert np.all(np.isin(ids, kept_nodes)), 'a configurable node has no edge'
    new_id = np.full(d['node_feat'].shape[0], -1, dtype=np.int64)
    new_id[kept_nodes] = np.arange(kept_nodes.size)
    return {
        'node_feat': d['node_feat'][kept_nodes],
        'node_opcode': d['node_opcode'].astype(np.int64)[kept_nodes],
        'edge_index': new_id[kept_edges],
        'node_config_ids': new_id[ids],
    }


def main(src, dst):
    d = np.load(src)
    out = prune(d)
    rows = d['node_config_feat'].reshape(d['node_config_feat'].shape[0], -1)
    _, first = np.unique(rows, axis=0, return_index=True)
    out['unique_configs'] = np.array(first.size, dtype=np.int64)
    out['first_of_group'] = np.sort(first).astype(np.int64)
    np.savez(dst, **out)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
