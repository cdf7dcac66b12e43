# SPDX-License-Identifier: Apache-2.0
"""Graphs: the npz's keys, zero-copy read-only views, prune / dedup / base-7 against `tgraph prune`."""

import gc

import numpy as np
import pytest

import tgraph


def assert_same_arrays(expected, graph):
    """Every key of an np.load()ed file, equal bit for bit (values; integer dtypes may widen to int64)."""
    assert sorted(expected.keys()) == sorted(graph.keys())
    for key in expected.keys():
        a, b = expected[key], graph[key]
        assert a.shape == b.shape, key
        if a.dtype.kind == "f":
            assert a.dtype == b.dtype, key
            assert a.tobytes() == b.tobytes(), key  # bit for bit, NaN patterns and -0.0 included
        else:
            assert np.array_equal(a, b), key


def test_keys_values_and_dtypes_match_numpy(layout_files, tile_files):
    for f in layout_files[:2] + tile_files[:1]:
        g = tgraph.load_graph(f)
        with np.load(f) as expected:
            assert_same_arrays(expected, g)
            assert dict(g.items()).keys() == set(expected.keys())
            for key in expected.keys():
                assert g.stored_dtype(key) == expected[key].dtype
        assert g.kind == ("tile" if "config_feat" in g else "layout")
        assert len(g) == len(g.keys()) and list(iter(g)) == g.keys()


def test_arrays_are_zero_copy_read_only_views_that_keep_the_graph_alive(layout_files):
    g = tgraph.load_graph(layout_files[0])
    a = g["node_feat"]
    assert a.base is g  # the numpy array's base object is the Graph itself: no copy was made
    assert not a.flags.writeable and not a.flags.owndata
    b = g["node_feat"]
    assert np.shares_memory(a, b)  # two views of one C++ buffer
    with pytest.raises(ValueError, match="read-only"):
        a[0, 0] = 1.0
    with pytest.raises(ValueError):
        a.setflags(write=True)  # numpy refuses: the base does not own writable memory
    expected = np.array(a)
    del g, b
    gc.collect()
    assert np.array_equal(a, expected)  # still valid: the view holds the graph
    copy = np.array(a)
    copy[0, 0] += 1  # a copy is the user's own
    assert copy.flags.writeable


def test_from_arrays_round_trip_and_validation(layout_files):
    g = tgraph.load_graph(layout_files[0])
    arrays = {k: np.array(v) for k, v in g.items()}
    h = tgraph.Graph.from_arrays(arrays)
    assert_same_arrays(arrays, h)
    compressed = dict(arrays, node_config_feat=g.compressed_configs())
    assert np.array_equal(tgraph.Graph.from_arrays(compressed)["node_config_feat"], g["node_config_feat"])
    bad = dict(arrays)
    bad["edge_index"] = arrays["edge_index"].copy()
    bad["edge_index"][3, 1] = g.node_count + 5
    with pytest.raises(tgraph.InputError) as e:
        tgraph.Graph.from_arrays(bad, source="edited")
    assert e.value.file == "edited" and e.value.place == "edge_index[3,1]"
    assert "out of range" in e.value.problem
    with pytest.raises(tgraph.InputError, match="missing"):
        tgraph.Graph.from_arrays({k: v for k, v in arrays.items() if k != "node_feat"})
    with pytest.raises(tgraph.InputError, match="integers"):
        tgraph.Graph.from_arrays(dict(arrays, edge_index=arrays["edge_index"].astype(np.float64)))
    with pytest.raises(tgraph.InputError, match="not a key"):
        tgraph.Graph.from_arrays(dict(arrays, extra=np.zeros(3)))


@pytest.mark.parametrize("dedup", ["none", "keep-first", "keep-min"])
@pytest.mark.parametrize("compress", [False, True])
def test_prune_dedup_compress_equal_tgraph_prune(cli, tmp_path, layout_files, dedup, compress):
    src = layout_files[1]
    out = tmp_path / "cli.npz"
    cli.run("prune", src, "-o", out, "--dedup", dedup, *(["--compress"] if compress else []))
    g = tgraph.load_graph(src).prune().dedup(dedup)
    mine = tmp_path / "py.npz"
    g.save(mine, compress_configs=compress)
    with np.load(out) as a, np.load(mine) as b:
        assert sorted(a.keys()) == sorted(b.keys())
        for k in a.keys():
            assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape and a[k].tobytes() == b[k].tobytes(), k
    assert out.read_bytes() == mine.read_bytes()  # the same writer, byte for byte
    back = tgraph.load_graph(out)  # base-7 files read back as float (C, Nc, 18)
    assert back["node_config_feat"].tobytes() == g["node_config_feat"].tobytes()
    with np.load(out) as a:
        feat = a["node_config_feat"]
        assert feat.dtype == (np.int32 if compress else np.float32)
        assert np.array_equal(tgraph.decompress_configs(feat) if compress else feat, back["node_config_feat"])


def test_prune_maps_and_tile_refusal(layout_files, tile_files):
    g = tgraph.load_graph(layout_files[0])
    p = g.prune()
    assert g.old_to_new is None and p.old_to_new.shape == (g.node_count,)
    kept = p.new_to_old
    assert np.all(np.diff(kept) > 0) and len(kept) == p.node_count
    assert np.array_equal(p.old_to_new[kept], np.arange(p.node_count))
    assert np.array_equal(p["node_feat"], g["node_feat"][kept])
    assert p.new_to_old.base is p
    t = tgraph.load_graph(tile_files[0])
    with pytest.raises(tgraph.InputError, match="tile graph"):
        t.prune()


def test_base7_functions(layout_files):
    g = tgraph.load_graph(layout_files[0])
    c = tgraph.compress_configs(g["node_config_feat"])
    assert c.dtype == np.int32 and c.shape == g["node_config_feat"].shape[:2] + (3,)
    assert np.array_equal(c, g.compressed_configs())
    assert tgraph.decompress_configs(c).tobytes() == g["node_config_feat"].tobytes()
    with pytest.raises(tgraph.InputError):
        tgraph.compress_configs(np.full((2, 3, 18), 9.0, np.float32))
    with pytest.raises(tgraph.InputError, match="not"):
        tgraph.compress_configs(np.zeros((2, 3), np.float32))


def test_load_npz_is_numpy_load(layout_files, tile_files):
    for f in layout_files[:1] + tile_files[:1]:
        got = tgraph.load_npz(f)
        with np.load(f) as expected:
            assert list(got) == list(expected.keys())
            for k in expected.keys():
                assert got[k].dtype == expected[k].dtype and got[k].shape == expected[k].shape
                assert got[k].tobytes() == expected[k].tobytes()
                assert got[k].flags.writeable  # owned by numpy (a capsule frees the C++ buffer)


def test_save_round_trip(tmp_path, layout_files):
    g = tgraph.load_graph(layout_files[2])
    for compressed in (True, False):
        out = tmp_path / f"g{compressed}.npz"
        g.save(out, compressed=compressed)
        with np.load(out) as a:
            assert_same_arrays(a, g)


def test_reading_reports_progress_and_stops_when_the_callback_raises(tmp_path, layout_files):
    # A graph large enough for several progress steps: 4,000 configurations of the first file's.
    g = tgraph.load_graph(layout_files[0])
    arrays = {k: np.array(v) for k, v in g.items()}
    reps = 4000 // g.config_count + 1
    arrays["node_config_feat"] = np.tile(arrays["node_config_feat"], (reps, 1, 1))
    arrays["config_runtime"] = np.tile(arrays["config_runtime"], reps)
    big = tmp_path / "big.npz"
    tgraph.Graph.from_arrays(arrays).save(big, compressed=False)
    seen = []
    h = tgraph.load_graph(big, progress=lambda label, done, total: seen.append((label, done, total)))
    assert h.config_count == g.config_count * reps
    assert seen[0][1] == 0 and seen[-1][1] > 0  # from the start to the last step read

    def stop(label, done, total):
        raise LookupError("stop reading")

    with pytest.raises(LookupError, match="stop reading"):
        tgraph.load_graph(big, progress=stop)
    with pytest.raises(LookupError):
        h.save(tmp_path / "copy.npz", progress=stop)
    assert not (tmp_path / "copy.npz").exists()  # a cancelled write leaves nothing behind
    assert [p.name for p in tmp_path.iterdir()] == ["big.npz"]
