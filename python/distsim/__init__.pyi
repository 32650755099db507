from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from . import catalog as catalog

_Path = Union[str, PathLike[str]]
_SettingValue = Union[bool, int, float, str, "Model", Dict[str, Any], PathLike[str]]

class InputError(ValueError): ...

def options() -> List[Dict[str, Any]]: ...

class Model:
    def __init__(self, **fields: Any) -> None: ...
    @classmethod
    def named(cls, name_or_path: _Path) -> Model: ...
    @classmethod
    def from_hf_config(cls, path: _Path) -> Model: ...
    @property
    def fields(self) -> Dict[str, Any]: ...
    @property
    def name(self) -> str: ...
    def __getattr__(self, key: str) -> Any: ...

class Job:
    settings: Dict[str, Any]
    assumptions: List[str]
    ignored: List[str]
    def __init__(
        self,
        megatron_args: Optional[Union[str, PathLike[str]]] = ...,
        torchtitan: Optional[Union[str, PathLike[str]]] = ...,
        megatron_bridge: Optional[Union[str, PathLike[str]]] = ...,
        *,
        model: Union[str, Model, Dict[str, Any], PathLike[str]] = ...,
        seq_length: int = ...,
        cluster: Union[str, Dict[str, Any], PathLike[str]] = ...,
        gpu: Union[str, Dict[str, Any], PathLike[str]] = ...,
        gpus_per_node: int = ...,
        strategy: str = ...,
        tp: int = ...,
        pp: int = ...,
        dp: int = ...,
        cp: int = ...,
        cp_comm_type: str = ...,
        cp_a2a_size: int = ...,
        micro_batch_size: int = ...,
        global_batch_size: int = ...,
        schedule: str = ...,
        dtype: str = ...,
        fp8: bool = ...,
        precision: str = ...,
        bf16_layers_at_start: int = ...,
        bf16_layers_at_end: int = ...,
        attention: str = ...,
        attention_kernel: str = ...,
        virtual_stages: int = ...,
        sequence_parallel: bool = ...,
        recompute: str = ...,
        distributed_optimizer: bool = ...,
        sharding: str = ...,
        shard_group_size: int = ...,
        overlap_grad_reduce: bool = ...,
        p2p_scatter_gather: bool = ...,
        gradient_bucket_size: int = ...,
        host_time: str = ...,
        pipeline_layout: str = ...,
        first_stage_layers: int = ...,
        last_stage_layers: int = ...,
        account_for_embedding_in_pipeline_split: bool = ...,
        account_for_loss_in_pipeline_split: bool = ...,
        stage_gpus: str = ...,
        ep: int = ...,
        etp: int = ...,
        moe_dispatcher: str = ...,
        moe_imbalance: Union[float, str] = ...,
        overlap_moe_expert_parallel_comm: bool = ...,
        moe_shared_expert_overlap: bool = ...,
        moe_router_fusion: bool = ...,
        moe_pad_expert_input_to_capacity: bool = ...,
        nodes: int = ...,
        slow_ranks: str = ...,
        kernel_jitter: str = ...,
        jitter_samples: int = ...,
        jitter_seed: int = ...,
        tokens: float = ...,
        gpu_hour_price: float = ...,
        failure_rate_gpu: float = ...,
        failure_rate_hbm: float = ...,
        failure_rate_host: float = ...,
        failure_rate_network: float = ...,
        failure_rate_software: float = ...,
        checkpoint_interval: int = ...,
        checkpoint_save: str = ...,
        storage_bandwidth: float = ...,
        staging_bandwidth: float = ...,
        restart_time: float = ...,
    ) -> None: ...
    def replace(self, **settings: _SettingValue) -> Job: ...

class _Fields:
    data: Dict[str, Any]
    def __getattr__(self, key: str) -> Any: ...
    def __getitem__(self, key: str) -> Any: ...

class _Memory(_Fields):
    @property
    def peak_gib(self) -> float: ...
    peak_bytes: int
    capacity_bytes: int
    fits: bool
    peak_stage: int
    stages: List[Dict[str, Any]]

class _Events(_Fields):
    unique: int
    instances: int
    dedup_ratio: float
    profiled: int
    extrapolated: int
    analytical: int

class Result:
    summary: Dict[str, Any]
    iteration_time_s: float
    mfu: float
    mfu_peak_tflops: float
    tflops_per_gpu: float
    throughput_samples_per_s: float
    tokens_per_s: float
    bubble_fraction: float
    num_microbatches: int
    strategy: str
    simulated: str
    job: _Fields
    events: _Events
    stages: List[Dict[str, Any]]
    rank_layout: _Fields
    @property
    def memory(self) -> _Memory: ...
    @property
    def goodput(self) -> Optional[_Fields]: ...
    @property
    def jitter(self) -> Optional[_Fields]: ...
    @property
    def devices(self) -> List[Dict[str, Any]]: ...
    @property
    def world_size(self) -> int: ...
    def timeline(self, rank: int = 0) -> List[Dict[str, Any]]: ...
    def to_json(self) -> str: ...
    def to_text(self) -> str: ...
    def write_trace(self, path: _Path, ranks: str = "replica") -> None: ...
    def write_chakra(self, prefix: _Path, ranks: str = "replica") -> None: ...
    def write_report(self, path: _Path) -> None: ...
    def __getattr__(self, key: str) -> Any: ...

def simulate(
    job: Job,
    *,
    all_ranks: bool = False,
    max_tasks: Optional[int] = None,
    profile_db: Optional[_Path] = None,
) -> Result: ...

class SearchResult:
    summary: Dict[str, Any]
    candidates: List[Dict[str, Any]]
    top: List[Dict[str, Any]]
    pareto_front: List[str]
    def to_json(self) -> str: ...
    def to_text(self) -> str: ...
    def write_csv(self, path: _Path) -> None: ...
    def write_report(self, path: _Path) -> None: ...
    def __getattr__(self, key: str) -> Any: ...

def search(
    job: Job,
    *,
    threads: Optional[int] = None,
    top: int = 10,
    simulate_oom: bool = False,
    memory_headroom: Optional[Union[str, float]] = None,
    max_memory_gib: Optional[float] = None,
    profile_db: Optional[_Path] = None,
    front_within: Optional[Union[str, float]] = None,
    progress: Optional[Callable[[int, int], Any]] = None,
    **lists: Union[str, Sequence[Union[str, int, bool]]],
) -> SearchResult: ...

class Validation:
    summary: Dict[str, Any]
    rows: List[Dict[str, Any]]
    excluded: List[Dict[str, Any]]
    overall: Dict[str, Any]
    by_source: List[Dict[str, Any]]
    def to_json(self) -> str: ...
    def to_text(self, per_row: bool = False) -> str: ...

def validate(
    csv: Optional[_Path] = None,
    *,
    threads: Optional[int] = None,
    gpus: Optional[List[Union[str, Dict[str, Any], PathLike[str]]]] = None,
) -> Validation: ...

class WhatIf:
    summary: Dict[str, Any]
    launch_slowdown: float
    straggler_slowdown: float
    by_stage: List[Dict[str, Any]]
    by_dp_rank: List[Dict[str, Any]]
    by_op_type: List[Dict[str, Any]]
    steps: List[Dict[str, Any]]
    notes: List[str]
    def to_json(self) -> str: ...
    def to_text(self) -> str: ...

def whatif(trace: _Path) -> WhatIf: ...
