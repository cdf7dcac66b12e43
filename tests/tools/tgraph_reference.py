#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Plain PyTorch reference of the TGraph layout and tile models, written from
docs/model.md §2.7, §3 and §5, for the C++ parity test (tests/model/tst_model.cpp).

  tgraph_reference.py WEIGHTS.npz GRAPH.npz OUT.npz [WEIGHTS.npz GRAPH.npz OUT.npz ...]

WEIGHTS is a weights npz as written by model/nn/weights.h (state-dict names, normalizer.*, meta.*;
a tile-model file has head.* and config_normalizer.*). GRAPH is a TpuGraphs npz: a layout graph
(node_config_feat, float (C, Nc, 18) or base-7 compressed (C, Nc, 3)) or a tile graph
(config_feat). All configs are scored in one batch, in eval mode. OUT gets `scores` (C,) float32
and, per layer L (linear, linear2, convs.K), `gate.L` and, with cross-attn, `cross.L`: the
layer's channel gates and cross-config softmax weights averaged over nodes, (C, channels).

Deliberately written the straightforward way, independent of the C++ code paths: activations
are (C, N, F), X0 is built explicitly, SAGE aggregates raw features and then projects.
Several triples per call share one torch start-up. load_model() and graph_inputs() are also
used by tgraph_predict_reference.py (chunked ensemble scoring) and bench/model_torch.py.
"""
import sys

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def instance_norm(h):
    """Per (config, channel) over the node axis; biased variance, eps 1e-5, no affine."""
    mean = h.mean(dim=1, keepdim=True)
    var = h.var(dim=1, unbiased=False, keepdim=True)
    return (h - mean) / torch.sqrt(var + 1e-5)


class ChannelGate(nn.Module):
    def __init__(self, channels, reduction=8):
        super().__init__()
        self.linear1 = nn.Linear(channels, channels // reduction)
        self.linear2 = nn.Linear(channels // reduction, channels)

    def forward(self, h):
        g = torch.sigmoid(self.linear2(F.relu(self.linear1(h))))
        return h * g, g


class CrossConfigAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.tensor(0.5))

    def forward(self, h):
        a = torch.softmax(h / self.temperature, dim=0)  # over configs
        return torch.cat([h, h * a], dim=-1), a


class Sage(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin_l = nn.Linear(fin, fout)
        self.lin_r = nn.Linear(fin, fout, bias=False)

    def forward(self, h, src, dst):
        n = h.shape[1]
        total = torch.zeros_like(h).index_add_(1, dst, h[:, src])
        count = torch.zeros(n, dtype=h.dtype).index_add_(0, dst, torch.ones(dst.shape[0], dtype=h.dtype))
        mean = total / count.clamp(min=1.0)[None, :, None]
        return self.lin_l(mean) + self.lin_r(h)


class LinearActNorm(nn.Module):
    def __init__(self, fin, fout, cross):
        super().__init__()
        self.linear = nn.Linear(fin, fout)
        self.cross_attn = CrossConfigAttention() if cross else None
        self.attn = ChannelGate(fout)

    def forward(self, x, maps, name):
        h, g = self.attn(instance_norm(self.linear(x)))
        if maps is not None:
            maps['gate.' + name] = g.mean(dim=1)
        if self.cross_attn is not None:
            h, a = self.cross_attn(h)
            if maps is not None:
                maps['cross.' + name] = a.mean(dim=1)
        return F.gelu(h)


class Block(nn.Module):
    def __init__(self, fin, fout, cross, residual_after_activation):
        super().__init__()
        self.conv = Sage(fin, fout)
        self.cross_attn = CrossConfigAttention() if cross else None
        self.attn = ChannelGate(fout)
        self.residual_after_activation = residual_after_activation
        self.dropout = nn.Dropout(0.2)

    def forward(self, h, src, dst, maps, name):
        eta, g = self.attn(self.conv(instance_norm(h), src, dst))
        if maps is not None:
            maps['gate.' + name] = g.mean(dim=1)
        if self.cross_attn is not None:
            eta, a = self.cross_attn(eta)
            if maps is not None:
                maps['cross.' + name] = a.mean(dim=1)
        if self.residual_after_activation:
            out = h + F.gelu(eta)
        else:
            out = F.gelu(h + eta)
        return self.dropout(out)


class Encoder(nn.Module):
    """Base for both models: attributes registered on the model itself, as the state dict names."""

    def build(self, fin, hidden, blocks, cross, residual_after_activation, op_table):
        width = hidden // 2 if cross else hidden
        self.embedding_op = nn.Embedding(op_table, 16)
        self.embedding_layout_cfg = nn.Embedding(8, 4)
        self.linear = LinearActNorm(fin, width, cross)
        self.linear2 = LinearActNorm(hidden, width, cross)
        self.convs = nn.ModuleList(
            [Block(hidden, width, cross, residual_after_activation) for _ in range(blocks)])

    def encode(self, x, src, dst, maps):
        h = self.linear(x, maps, 'linear')
        h = self.linear2(h, maps, 'linear2')
        for k, block in enumerate(self.convs):
            h = block(h, src, dst, maps, 'convs.%d' % k)
        return h


class LayoutModel(Encoder):
    def __init__(self, hidden, blocks, cross, residual_after_activation, op_table):
        super().__init__()
        self.build(246, hidden, blocks, cross, residual_after_activation, op_table)
        self.classifier = nn.Linear(hidden, 1)

    def forward(self, numeric, layout_tokens, opcodes, config_tokens, src, dst, maps):
        c, n = config_tokens.shape[0], numeric.shape[0]
        table = self.embedding_layout_cfg.weight
        x0 = torch.cat([
            numeric.expand(c, n, 134),
            table[config_tokens].reshape(c, n, 72),
            table[layout_tokens].reshape(n, 24).expand(c, n, 24),
            self.embedding_op(opcodes).expand(c, n, 16),
        ], dim=-1)
        h = self.encode(x0, src, dst, maps)
        return self.classifier(h.mean(dim=1)).squeeze(-1)


class TileModel(Encoder):
    def __init__(self, hidden, blocks, cross, residual_after_activation, op_table):
        super().__init__()
        self.build(174, hidden, blocks, cross, residual_after_activation, op_table)
        self.config_mlp = nn.Sequential(nn.Linear(24, hidden), nn.Dropout(0.2), nn.GELU(),
                                        nn.Linear(hidden, hidden))
        self.head = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.Dropout(0.2), nn.GELU(),
                                  nn.Linear(hidden, hidden), nn.Dropout(0.2), nn.GELU(),
                                  nn.Linear(hidden, 1))

    def forward(self, numeric, layout_tokens, opcodes, config_feat, src, dst, maps):
        n = numeric.shape[0]
        table = self.embedding_layout_cfg.weight
        x = torch.cat([numeric, table[layout_tokens].reshape(n, 24), self.embedding_op(opcodes)], dim=-1)
        h = self.encode(x[None], src, dst, maps)[0]  # config axis of size 1
        c = config_feat.shape[0]
        cfg = self.config_mlp(config_feat)
        hmax = h.max(dim=0).values.expand(c, -1)
        hmean = h.mean(dim=0).expand(c, -1)
        return self.head(torch.cat([cfg, hmax, hmean], dim=-1)).squeeze(-1)


def flag(w, key):
    return bool(int(w[key])) if key in w.files else False


def decompress(compressed):
    """Base-7 (C, Nc, 3) -> values (C, Nc, 18): digit k of group g is value 6g+k, plus -1."""
    d = compressed.astype(np.int64)
    out = np.empty(d.shape[:2] + (18,), dtype=np.float32)
    for g in range(3):
        v = d[:, :, g].copy()
        for k in range(6):
            out[:, :, 6 * g + k] = v % 7 - 1
            v //= 7
    return out


def load_model(weights_path):
    """The module for a weights npz, in eval mode; returns (model, weights arrays, is_tile)."""
    w = np.load(weights_path)
    tile = 'head.0.weight' in w.files
    cross = flag(w, 'meta.use_cross_attn')
    residual_after = flag(w, 'meta.residual_after_activation')
    op_table = w['embedding_op.weight'].shape[0]
    blocks = len({k.split('.')[1] for k in w.files if k.startswith('convs.')})
    if tile:
        hidden = w['head.3.weight'].shape[0]
        model = TileModel(hidden, blocks, cross, residual_after, op_table)
    else:
        hidden = w['classifier.weight'].shape[1]
        model = LayoutModel(hidden, blocks, cross, residual_after, op_table)
    extra = {'normalizer.mean', 'normalizer.std', 'meta.use_cross_attn', 'meta.residual_after_activation',
             'meta.bidirectional_edges', 'config_normalizer.mean', 'config_normalizer.std'}
    # Checkpoints carry training state under these prefixes besides the weights-file keys.
    state_prefixes = ('optimizer.', 'scheduler.', 'rng.', 'train.', 'checkpoint.')
    state = {k: torch.from_numpy(np.asarray(w[k], dtype=np.float32)) for k in w.files
             if k not in extra and not k.startswith(state_prefixes)}
    model.load_state_dict(state, strict=True)
    model.eval()
    return model, w, tile


def graph_inputs(w, g, tile):
    """Model inputs of a graph (dict of arrays from np.load): all configs, in file order.

    Layout: (numeric, layout_tokens, opcodes, config_tokens (C, N, 18), src, dst); select config
    rows with config_tokens[rows]. Tile: (numeric, layout_tokens, opcodes, standardized
    config_feat (C, 24), src, dst)."""
    feat = g['node_feat'].astype(np.float32)
    mean = w['normalizer.mean'].astype(np.float64)
    std = w['normalizer.std'].astype(np.float64)
    numeric = torch.from_numpy(((feat[:, :134].astype(np.float64) - mean) / std).astype(np.float32))
    layout_tokens = torch.from_numpy(feat[:, 134:140].astype(np.int64) + 2)
    opcodes = torch.from_numpy(g['node_opcode'].astype(np.int64).reshape(-1))
    edges = torch.from_numpy(g['edge_index'].astype(np.int64).reshape(-1, 2))
    consumer, producer = edges[:, 0], edges[:, 1]
    if flag(w, 'meta.bidirectional_edges'):
        src, dst = torch.cat([consumer, producer]), torch.cat([producer, consumer])
    else:
        src, dst = consumer, producer  # a producer averages its consumers
    if tile:
        cf = torch.from_numpy(g['config_feat'].astype(np.float32))
        cf = (cf - torch.from_numpy(w['config_normalizer.mean'].astype(np.float32))) \
            / torch.from_numpy(w['config_normalizer.std'].astype(np.float32))
        return numeric, layout_tokens, opcodes, cf, src, dst
    cfg = g['node_config_feat']
    if cfg.shape[-1] == 3:
        cfg = decompress(cfg)
    ids = torch.from_numpy(g['node_config_ids'].astype(np.int64).reshape(-1))
    values = torch.full((cfg.shape[0], feat.shape[0], 18), -2, dtype=torch.int64)
    values[:, ids] = torch.from_numpy(cfg.astype(np.int64))
    return numeric, layout_tokens, opcodes, values + 2, src, dst


def run(weights_path, graph_path, out_path):
    model, w, tile = load_model(weights_path)
    inputs = graph_inputs(w, np.load(graph_path), tile)
    maps = {}
    with torch.no_grad():
        scores = model(*inputs, maps)
    out = {'scores': scores.numpy().astype(np.float32)}
    out.update({k: v.numpy().astype(np.float32) for k, v in maps.items()})
    np.savez(out_path, **out)


def main(args):
    if not args or len(args) % 3:
        sys.exit(__doc__)
    torch.set_num_threads(2)
    for i in range(0, len(args), 3):
        run(*args[i:i + 3])


if __name__ == '__main__':
    main(sys.argv[1:])
