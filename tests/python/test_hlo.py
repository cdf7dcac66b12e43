# SPDX-License-Identifier: Apache-2.0
"""HLO modules: text and protobuf, the featurizer and the simulator against `tgraph convert` and
`tgraph simulate` on the same file, bit for bit."""

import numpy as np
import pytest

import tgraph

SMALL = """HloModule small

ENTRY main {
  x = f32[64,128]{1,0} parameter(0)
  w = f32[128,256]{1,0} parameter(1)
  d = f32[64,256]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  r = f32[64,16,16]{2,1,0} reshape(d)
  ROOT t = f32[64,16,16]{2,1,0} tanh(r)
}
"""


def same_graph(a, b):
    assert a.keys() == b.keys()
    for k in a.keys():
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), k


def test_text_bytes_and_file_give_the_same_module(hlo_file):
    text = hlo_file.read_text()
    from_str = tgraph.parse_hlo(text)
    from_bytes = tgraph.parse_hlo(text.encode())
    (from_file,) = tgraph.read_hlo(hlo_file)
    for m in (from_str, from_bytes, from_file):
        assert m.format == "HLO text"
        assert m.instruction_count == from_file.instruction_count > 0
        assert m.instruction_names == from_file.instruction_names
    assert from_str.source == "<string>" and from_file.source == str(hlo_file)
    same_graph(tgraph.featurize(from_str), tgraph.featurize(from_file))


def test_proto_bytes_parse_to_the_same_graph(hlo_file):
    m = tgraph.parse_hlo(hlo_file.read_text())
    proto = m.to_proto()
    assert isinstance(proto, bytes)
    p = tgraph.parse_hlo(proto, name="m.pb")
    assert p.format == "xla.HloModuleProto" and p.name == m.name
    assert p.instruction_count == m.instruction_count
    same_graph(tgraph.featurize(m), tgraph.featurize(p))
    same_graph(tgraph.featurize(m), tgraph.featurize(tgraph.parse_hlo(bytearray(proto))))


def test_featurize_equals_tgraph_convert(cli, tmp_path, hlo_file):
    out = tmp_path / "c.npz"
    cli.run("convert", hlo_file, "-o", out)
    g = tgraph.featurize(tgraph.read_hlo(hlo_file)[0])
    with np.load(out) as expected:
        assert sorted(expected.keys()) == sorted(g.keys())
        for k in expected.keys():
            assert expected[k].shape == g[k].shape, k
            if expected[k].dtype.kind == "f":
                assert expected[k].tobytes() == g[k].tobytes(), k  # features bit for bit
            else:
                assert np.array_equal(expected[k], g[k]), k


@pytest.mark.parametrize("sampler", ["random", "default"])
def test_simulate_equals_tgraph_simulate(cli, tmp_path, hlo_file, sampler):
    out = tmp_path / "s.npz"
    cli.run("simulate", hlo_file, "-o", out, "--configs", "60", "--seed", "5", "--sampler", sampler,
            "--params", "noiseSigma=0.01")
    g = tgraph.simulate(tgraph.read_hlo(hlo_file)[0], configs=60, seed=5, sampler=sampler,
                        params={"noiseSigma": 0.01})
    mine = tmp_path / "p.npz"
    g.save(mine)
    assert out.read_bytes() == mine.read_bytes()  # the same graph, written by the same writer
    assert g.config_count > 2 and g.has_runtimes


def test_simulator_prices_configurations(hlo_file):
    m = tgraph.read_hlo(hlo_file)[0]
    sim = tgraph.Simulator(m)
    assert np.array_equal(sim.configurable_nodes, m.configurable_nodes)
    configs = sim.candidates(30, seed=2)
    nc = len(m.configurable_nodes)
    assert configs.dtype == np.float32 and configs.shape[1:] == (nc, 18)
    assert np.all(configs[0] == -1)  # row 0: the compiler default
    ns = sim.runtime(configs)
    assert ns.dtype == np.float64 and ns.shape == (len(configs),) and np.all(ns > 0)
    assert sim.runtime(configs[3]) == ns[3]
    measured, failed = sim.measure(configs, seed=2)
    assert measured.dtype == np.int64 and failed.dtype == bool and not failed[0]
    per_node = sim.breakdown(configs[1])
    assert per_node.shape == (m.instruction_count,)
    bad = configs.copy()
    bad[1, 0, 0] = 7
    with pytest.raises(tgraph.InputError, match=r"configs\[1, 0, 0\]"):
        sim.runtime(bad)
    with pytest.raises(tgraph.InputError, match="is not"):
        sim.runtime(configs[:, :1])
    with pytest.raises(ValueError, match="params"):
        tgraph.Simulator(m, params="noSuchParameter=1")


def test_small_text_module_is_simulated_and_featurized():
    m = tgraph.parse_hlo(SMALL)
    assert m.name == "small" and m.entry == "main" and m.instruction_count == 5
    g = tgraph.simulate(m, configs=20, seed=1)
    assert g.configurable_count == 2 and g["node_feat"].shape == (5, 140)


def test_bad_text_names_line_and_column():
    with pytest.raises(tgraph.InputError) as e:
        tgraph.parse_hlo(SMALL.replace("tanh(r)", "tanh(q)"), name="mine.hlo")
    assert e.value.file == "mine.hlo" and e.value.place.startswith("line 8, column")
    assert str(e.value).startswith("mine.hlo: line 8, column")
    with pytest.raises(tgraph.InputError, match="modules"):
        tgraph.parse_hlo(SMALL + "\n// -----\n" + SMALL.replace("small", "second"))
    assert len(tgraph.parse_hlo_modules(SMALL + "\n// -----\n" + SMALL.replace("small", "second"))) == 2
    with pytest.raises(TypeError):
        tgraph.parse_hlo(42)
    with pytest.raises(tgraph.InputError):
        tgraph.parse_hlo(b"\x0a\x05hello\x12\xff\xff")
