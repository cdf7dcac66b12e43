# SPDX-License-Identifier: Apache-2.0
"""Type stubs of the `tgraph` extension module (app/python; docs/python.md).

TGraph Studio for Python: TpuGraphs graphs as numpy arrays without copies, HLO modules (text and
protobuf), the featurizer, the layout simulator, TGraph models and ensembles, projects.
"""

import os
from typing import Any, Callable, Iterator, Literal, Mapping, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

PathLike = Union[str, "os.PathLike[str]"]
Progress = Optional[Callable[[str, int, int], Any]]
"""Called as progress(label, done, total) at most every 50 ms; raising from it stops the work."""
ConfigChoice = Union[int, Literal["fastest", "slowest", "default"]]

class InputError(ValueError):
    """Bad input: str(e) is the command line's 'FILE: PLACE: PROBLEM'."""

    file: str
    place: str
    problem: str

class Graph:
    """A TpuGraphs layout or tile graph; g['node_feat'] etc. are read-only zero-copy numpy views."""

    @staticmethod
    def from_arrays(arrays: Mapping[str, npt.ArrayLike], source: str = "<arrays>") -> Graph:
        """A graph from npz keys -> arrays (copied and validated)."""
    @property
    def kind(self) -> Literal["layout", "tile"]: ...
    @property
    def source(self) -> str: ...
    @property
    def node_count(self) -> int: ...
    @property
    def edge_count(self) -> int: ...
    @property
    def config_count(self) -> int: ...
    @property
    def configurable_count(self) -> int: ...
    @property
    def has_runtimes(self) -> bool: ...
    @property
    def default_config(self) -> Optional[int]: ...
    @property
    def synthetic_meta(self) -> Optional[str]: ...
    @property
    def old_to_new(self) -> Optional[npt.NDArray[np.int64]]:
        """For a graph made by prune(): the new node of each source node (-1 = dropped)."""
    @property
    def new_to_old(self) -> Optional[npt.NDArray[np.int64]]:
        """For a graph made by prune(): the source node of each node."""
    def keys(self) -> list[str]: ...
    def values(self) -> list[np.ndarray]: ...
    def items(self) -> list[tuple[str, np.ndarray]]: ...
    def get(self, key: str, default: Any = None) -> Any: ...
    def __getitem__(self, key: str) -> np.ndarray: ...
    def __contains__(self, key: str) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[str]: ...
    def stored_dtype(self, key: str) -> Optional[np.dtype[Any]]:
        """The dtype the source file stored `key` with."""
    def save(
        self, path: PathLike, *, compressed: bool = True, compress_configs: bool = False, progress: Progress = None
    ) -> None:
        """Writes the graph as an .npz (atomically)."""
    def prune(self) -> Graph:
        """Pruned to the configurable nodes and their 1-hop neighbours (tgraph prune)."""
    def dedup(self, policy: Literal["keep-first", "keep-min", "none"] = "keep-first") -> Graph:
        """A copy without repeated configurations (tgraph prune --dedup)."""
    def duplicate_configs(self) -> int: ...
    def compressed_configs(self) -> npt.NDArray[np.int32]:
        """node_config_feat base-7 compressed, int32 (C, Nc, 3)."""
    def copy(self) -> Graph: ...
    def __copy__(self) -> Graph: ...
    def __deepcopy__(self, memo: dict[Any, Any]) -> Graph: ...

def load_graph(path: PathLike, *, repad: bool = False, min_configs: int = 0, progress: Progress = None) -> Graph:
    """Reads and validates a TpuGraphs layout or tile .npz."""

def load_npz(path: PathLike, *, progress: Progress = None) -> dict[str, np.ndarray]:
    """Any .npz as numpy.load gives it, read by the C++ reader."""

def compress_configs(node_config_feat: npt.ArrayLike) -> npt.NDArray[np.int32]: ...
def decompress_configs(compressed: npt.ArrayLike) -> npt.NDArray[np.float32]: ...

class Module:
    """An HLO module (text or protobuf, with a tuning record's runs), verified. Immutable."""

    @property
    def name(self) -> str: ...
    @property
    def entry(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def format(self) -> str: ...
    @property
    def instruction_count(self) -> int: ...
    @property
    def computation_count(self) -> int: ...
    @property
    def run_count(self) -> int: ...
    @property
    def collection(self) -> Literal["layout", "tile"]: ...
    @property
    def instruction_names(self) -> list[str]: ...
    @property
    def configurable_nodes(self) -> npt.NDArray[np.int64]: ...
    @property
    def warnings(self) -> list[str]: ...
    def to_proto(self) -> bytes:
        """The module as a serialized xla.HloModuleProto."""
    def featurize(
        self, *, collection: Optional[Literal["layout", "tile"]] = None, sort_edges: bool = True, repad: bool = False
    ) -> Graph: ...

def parse_hlo(data: Union[str, bytes, bytearray, memoryview], *, name: str = "<string>") -> Module:
    """One module from HLO text (str or bytes) or a serialized protobuf (bytes)."""

def parse_hlo_modules(data: Union[str, bytes, bytearray, memoryview], *, name: str = "<string>") -> list[Module]: ...
def read_hlo(path: PathLike) -> list[Module]: ...
def featurize(
    module: Module,
    *,
    collection: Optional[Literal["layout", "tile"]] = None,
    sort_edges: bool = True,
    repad: bool = False,
) -> Graph:
    """The module's TpuGraphs graph, as tgraph convert makes it."""

SimulatorParams = Union[None, str, Mapping[str, Union[int, float]]]

class Simulator:
    """The analytical cost simulator prepared for one module."""

    def __init__(
        self, module: Module, configurable_nodes: Optional[npt.ArrayLike] = None, params: SimulatorParams = None
    ) -> None: ...
    @property
    def configurable_nodes(self) -> npt.NDArray[np.int64]: ...
    def candidates(
        self, count: int, *, sampler: Literal["random", "default"] = "random", seed: int = 1, guided: bool = True
    ) -> npt.NDArray[np.float32]:
        """Up to `count` distinct configurations (C, Nc, 18), row 0 the compiler default."""
    def runtime(self, configs: npt.ArrayLike) -> Any:
        """Noise-free ns: float64 (C,) for (C, Nc, 18), a float for one (Nc, 18)."""
    def measure(
        self, configs: npt.ArrayLike, *, seed: int = 1
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]: ...
    def breakdown(self, config: npt.ArrayLike) -> npt.NDArray[np.float64]: ...

def simulate(
    module: Module,
    *,
    configs: int = 200,
    sampler: Literal["random", "default"] = "random",
    seed: int = 1,
    params: SimulatorParams = None,
) -> Graph:
    """The module's layout graph with simulated runtimes, as tgraph simulate writes it."""

class Scores:
    """One graph's prediction."""

    @property
    def file(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> Literal["layout", "tile"]: ...
    @property
    def nodes(self) -> int: ...
    @property
    def nodes_before_pruning(self) -> int: ...
    @property
    def scores(self) -> npt.NDArray[np.float32]: ...
    @property
    def ranking(self) -> npt.NDArray[np.int64]: ...
    @property
    def runtimes(self) -> npt.NDArray[np.int64]: ...
    @property
    def attention(self) -> list[list[dict[str, Any]]]:
        """Per member, per layer: layer, gate, cross, node_gate, node_cross."""
    def metrics(self, target: Literal["raw", "normalized"] = "raw") -> dict[str, Any]:
        """kendall_tau, opa, slowdown1/5/10 (tile_score) as tgraph eval computes them."""
    def __len__(self) -> int: ...

class Explanation:
    """Why the model ranks configuration A against B."""

    file: str
    config_a: int
    config_b: int
    label_a: str
    label_b: str
    score_a: float
    score_b: float
    bias: float
    runtime_a: int
    runtime_b: int
    rank_a: int
    rank_b: int
    members: int
    module_source: str
    simulated_total_a: float
    simulated_total_b: float
    differing_nodes: int
    @property
    def config_scores(self) -> npt.NDArray[np.float64]: ...
    @property
    def nodes(self) -> dict[str, Any]:
        """Equal-length per-node arrays (pandas.DataFrame takes the dict)."""
    @property
    def layouts(self) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]: ...
    @property
    def gradients(self) -> Optional[tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]]: ...
    @property
    def simulated(self) -> list[dict[str, Any]]: ...
    def ranked(self, order: Literal["effect", "share"] = "effect") -> npt.NDArray[np.int64]: ...
    def to_json(self, order: Literal["effect", "share"] = "effect", top: int = 0) -> str: ...

class Model:
    """A TGraph model or an ensemble, all of one kind."""

    @staticmethod
    def load(weights: Union[PathLike, Sequence[PathLike]]) -> Model: ...
    @property
    def kind(self) -> Literal["layout", "tile"]: ...
    @property
    def paths(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def score(
        self,
        graph: Union[Graph, PathLike],
        *,
        batch_configs: int = 128,
        tta: int = 0,
        tta_seed: int = 101,
        attention: bool = False,
        progress: Progress = None,
    ) -> Scores: ...
    def predict(
        self,
        graph: Union[Graph, PathLike],
        *,
        batch_configs: int = 128,
        tta: int = 0,
        tta_seed: int = 101,
        progress: Progress = None,
    ) -> npt.NDArray[np.float32]:
        """Scores (C,) in configuration order; higher = predicted slower."""
    def explain(
        self,
        graph: Graph,
        a: ConfigChoice = "fastest",
        b: ConfigChoice = "default",
        *,
        batch_configs: int = 128,
        counterfactuals: bool = True,
        gradients: bool = True,
        rank_all: bool = True,
        module: Optional[Module] = None,
        params: str = "",
        progress: Progress = None,
    ) -> Explanation: ...

def set_threads(threads: int) -> None:
    """LibTorch threads for the models (0 = every core), before the first Model.load."""

def set_precision(precision: Literal["auto", "fp32", "bf16"]) -> None:
    """The models' matrix products from the next call on, as tgraph --precision (auto: bf16 where the CPU has
    AMX-BF16 or AVX512-BF16, fp32 elsewhere)."""

def precision() -> str:
    """What the products run in: 'fp32', 'bf16 (AVX512-BF16)', 'bf16 (emulated: no bf16 units)', ..."""

def runtime_version() -> str: ...
def release_idle_memory() -> None: ...

class Project:
    """A .tgproj project file; read-only unless write=True."""

    def __init__(self, path: PathLike, *, write: bool = False) -> None: ...
    @property
    def path(self) -> str: ...
    @property
    def schema_version(self) -> int: ...
    def experiments(self) -> list[str]: ...
    def runs(self, experiment: Optional[str] = None) -> list[dict[str, Any]]: ...
    def run(self, run: str) -> dict[str, Any]: ...
    def params(self, run: str) -> dict[str, str]: ...
    def tags(self, run: str) -> dict[str, str]: ...
    def metric_keys(self, run: str) -> list[str]: ...
    def metric(
        self, run: str, key: str, *, context: Optional[str] = None, max_points: int = 0
    ) -> dict[str, np.ndarray]: ...
    def latest_metrics(self, runs: Sequence[str] = ...) -> list[dict[str, Any]]: ...
    def graph_metrics(self, run: str, step: int = -1) -> list[dict[str, Any]]: ...
    def predictions(self, run: str, step: int, graph: str) -> dict[str, np.ndarray]: ...
    def artifacts(self, run: str) -> list[dict[str, Any]]: ...
    def set_tag(self, run: str, key: str, value: str) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Project: ...
    def __exit__(self, *args: Any) -> None: ...

def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike) -> float: ...
def ordered_pair_accuracy(runtimes: npt.ArrayLike, scores: npt.ArrayLike) -> float: ...
def top_k_slowdown(runtimes: npt.ArrayLike, scores: npt.ArrayLike, k: int = 1) -> float: ...
