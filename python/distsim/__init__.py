"""distsim from Python: the simulator's core with the CLI's option names, errors and outputs.

    import distsim
    job = distsim.Job(model="gpt2-345m", gpu="a40", tp=2, pp=2, dp=1)
    r = distsim.simulate(job)
    r.iteration_time_s, r.mfu, r.memory.peak_gib, r.events.unique

Every setting of ``Job`` is a key of the job option table (the job-file keys of ``distsim
simulate --job``), parsed by the same rules; bad input raises ``InputError`` with the CLI's
message. docs/python.md is the reference.
"""

from __future__ import annotations

import json
import numbers
import os
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _distsim
from . import catalog

InputError = _distsim.InputError

__all__ = [
    "InputError",
    "Job",
    "Model",
    "Result",
    "SearchResult",
    "Validation",
    "WhatIf",
    "catalog",
    "options",
    "search",
    "simulate",
    "validate",
    "whatif",
]

_SPEC_KEYS = ("model", "gpu", "cluster")


def options() -> List[Dict[str, Any]]:
    """The job option table: key, flag, type, default, allowed values, help, searchable."""
    return _distsim.option_table()


class Model:
    """A model spec: a built-in name, a model file, a Hugging Face config.json, or fields.

    ``Model(**fields)`` takes the keys of a model file (docs/specs.md), ``base="gpt2-345m"``
    included; ``Model.named("llama-3.1-70b")`` and ``Model.from_hf_config(path)`` read the others.
    Pass it to ``Job(model=...)``.
    """

    def __init__(self, **fields: Any) -> None:
        self._load(json.dumps(fields))

    @classmethod
    def named(cls, name_or_path: str) -> "Model":
        """A built-in model, or a model file in distsim's schema or Hugging Face's."""
        model = cls.__new__(cls)
        model._load(name_or_path)
        return model

    @classmethod
    def from_hf_config(cls, path: str) -> "Model":
        """A Hugging Face config.json (llama, mistral, mixtral, qwen2/3, qwen3_moe, deepseek_v3)."""
        return cls.named(str(path))

    def _load(self, text: str) -> None:
        fields, inline = _distsim.model_spec(text)
        self._fields: Dict[str, Any] = json.loads(fields)
        self._inline: str = inline

    @property
    def fields(self) -> Dict[str, Any]:
        """Every field, as `distsim show` writes it."""
        return dict(self._fields)

    @property
    def name(self) -> str:
        return self._fields["name"]

    def __getattr__(self, key: str) -> Any:
        fields = self.__dict__.get("_fields", {})
        if key in fields:
            return fields[key]
        raise AttributeError(key)

    def __repr__(self) -> str:
        return f"Model({self._inline})"


def _setting_value(key: str, value: Any) -> Union[bool, str]:
    """The value as a job file would hold it; the option table parses it."""
    if isinstance(value, bool):
        return value
    if key in _SPEC_KEYS:
        if isinstance(value, Model):
            return value._inline
        if isinstance(value, Mapping):
            return json.dumps(dict(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, (str, numbers.Real)):
        return str(value)
    if hasattr(value, "__fspath__"):
        return str(value.__fspath__())
    raise InputError(f"{key}: expected a number, a name or true/false, got a {type(value).__name__}")


class Job:
    """One training job: ``Job(**settings)`` with the keys of the job option table.

    Each value is checked here, as the CLI checks a flag; the job as a whole (sizes that must
    divide, memory) is checked when it is simulated. ``job.settings`` holds what was given.

    ``megatron_args`` (a launch script, an arguments file or the argument text),
    ``torchtitan`` (a job TOML file) or ``megatron_bridge`` (a ConfigContainer YAML file)
    describes the job as the framework launches it, as the CLI's ``--megatron-args``,
    ``--torchtitan`` and ``--megatron-bridge`` do; the other settings go over it.
    ``job.assumptions`` and ``job.ignored`` say what reading it assumed and left out.
    """

    def __init__(
        self,
        megatron_args: Optional[str] = None,
        torchtitan: Optional[str] = None,
        megatron_bridge: Optional[str] = None,
        **settings: Any,
    ) -> None:
        given: List[Tuple[str, Union[bool, str]]] = [
            (key, _setting_value(key, value)) for key, value in settings.items()
        ]
        self._launch = (megatron_args, torchtitan, megatron_bridge)
        self.assumptions: List[str] = []
        self.ignored: List[str] = []
        if all(launch is None for launch in self._launch):
            _distsim.check_job_settings(given)
            self._values = given
        else:
            launch = _distsim.launch_settings(*(_launch_text(launch) for launch in self._launch), given)
            self._values = list(launch["settings"])
            self.assumptions = list(launch["assumptions"])
            self.ignored = list(launch["ignored"])
        self.settings: Dict[str, Any] = dict(settings)

    def replace(self, **settings: Any) -> "Job":
        """A copy with some settings changed (or added), on the same launch."""
        merged = dict(self.settings)
        merged.update(settings)
        megatron_args, torchtitan, megatron_bridge = self._launch
        return Job(megatron_args=megatron_args, torchtitan=torchtitan, megatron_bridge=megatron_bridge, **merged)

    def __repr__(self) -> str:
        launch = [
            f"{name}={value!r}"
            for name, value in zip(_LAUNCHES, self._launch)
            if value is not None
        ]
        inner = ", ".join(launch + [f"{key}={value!r}" for key, value in self.settings.items()])
        return f"Job({inner})"


_LAUNCHES = ("megatron_args", "torchtitan", "megatron_bridge")


def _launch_text(value: Any) -> str:
    """A launch argument as text: a path-like's path, or the text itself; empty for none."""
    if value is None:
        return ""
    if hasattr(value, "__fspath__"):
        return str(value.__fspath__())
    if isinstance(value, str):
        if not value:
            raise InputError(
                "a launch (megatron_args, torchtitan or megatron_bridge): expected a path or text, got an empty one"
            )
        return value
    raise InputError(
        "a launch (megatron_args, torchtitan or megatron_bridge): expected a path or text, "
        f"got a {type(value).__name__}"
    )


class _Fields:
    """A JSON object's keys as attributes (``r.events.unique``), the dict in ``.data``."""

    def __init__(self, data: Dict[str, Any]) -> None:
        self.data = data

    def __getattr__(self, key: str) -> Any:
        data = self.__dict__.get("data", {})
        if key in data:
            value = data[key]
            return _Fields(value) if isinstance(value, dict) else value
        raise AttributeError(key)

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __repr__(self) -> str:
        return repr(self.data)


class _Memory(_Fields):
    @property
    def peak_gib(self) -> float:
        """The peak of the busiest stage per device, in GiB (2^30 bytes)."""
        return self.data["peak_bytes"] / 2**30


class Result:
    """A simulated iteration: the numbers of `distsim simulate --json` as attributes.

    ``r.summary`` is that JSON object; ``r.iteration_time_s``, ``r.mfu``, ``r.tokens_per_s``,
    ... read its keys; ``r.memory`` and ``r.events`` its sub-objects.
    """

    def __init__(self, simulation: Any, inputs: Sequence[Tuple[str, str]] = (),
                 whole_iteration: Optional[Callable[[], Any]] = None) -> None:
        self._simulation = simulation
        self._inputs = list(inputs)
        self._whole_iteration = whole_iteration
        self._json: str = simulation.to_json()
        self.summary: Dict[str, Any] = json.loads(self._json)

    def __getattr__(self, key: str) -> Any:
        summary = self.__dict__.get("summary", {})
        if key in summary:
            value = summary[key]
            return _Fields(value) if isinstance(value, dict) else value
        raise AttributeError(key)

    @property
    def memory(self) -> _Memory:
        return _Memory(self.summary["memory"])

    @property
    def goodput(self) -> Optional[_Fields]:
        """The run's goodput (`goodput` of the JSON: ETTR, failures, checkpoint, time to train) when
        the job gives a goodput setting such as ``tokens=15e12`` (docs/goodput.md); else None."""
        value = self.summary.get("goodput")
        return None if value is None else _Fields(value)

    @property
    def jitter(self) -> Optional[_Fields]:
        """The step-time distribution under the job's kernel jitter (`jitter` of the JSON: mean,
        p50, p90, p99, slowdown, each sample) when it has one (docs/variability.md); else None."""
        value = self.summary.get("jitter")
        return None if value is None else _Fields(value)

    @property
    def devices(self) -> List[Dict[str, Any]]:
        """One record per rank (rank, node, stage, tp, dp, busy and idle seconds): the `devices` of
        `distsim simulate --json --json-ranks`, made when asked for, as it grows with the GPU count."""
        ranks = json.loads(self._simulation.to_json(every_rank=True))["devices"]
        return [dict(device) for device in ranks]

    @property
    def world_size(self) -> int:
        return self._simulation.world_size

    def timeline(self, rank: int = 0) -> List[Dict[str, Any]]:
        """The rank's activities, each stream's in the order it runs them: stream, kind, start_s,
        end_s (and the exact start_ns, end_ns), micro_batch, layer, phase, event (key) and label."""
        return self._simulation.timeline(rank)

    def to_json(self) -> str:
        """Byte for byte what `distsim simulate --json` prints for the same job."""
        return self._json

    def to_text(self) -> str:
        """What `distsim simulate` prints."""
        return self._simulation.to_text()

    def write_trace(self, path: str, ranks: str = "replica") -> None:
        """A Chrome/Perfetto trace, as `--trace` writes it (ranks: "replica" or "all")."""
        _refuse_overwriting_an_input("write_trace", path, self._inputs)
        self._simulation.write_trace(str(path), ranks)

    def write_chakra(self, prefix: str, ranks: str = "replica") -> None:
        """The iteration as Chakra execution traces for ASTRA-sim, as `--chakra PREFIX` writes them:
        PREFIX.<rank>.et for each rank (ranks: "replica" or "all") and PREFIX.comm_groups.json
        (docs/chakra.md). A result whose steady state stood for part of the iteration is simulated
        whole first, as `--chakra` does."""
        simulation = self._simulation
        if not simulation.whole_iteration and self._whole_iteration is not None:
            simulation = self._whole_iteration()
        simulation.write_chakra(str(prefix), ranks)

    def write_report(self, path: str) -> None:
        """The self-contained HTML report, as `--report` writes it."""
        _refuse_overwriting_an_input("write_report", path, self._inputs)
        self._simulation.write_report(str(path))

    def __repr__(self) -> str:
        return f"Result(strategy={self.summary['strategy']!r}, iteration_time_s={self.summary['iteration_time_s']!r})"


def _path_or_none(value: Any) -> Optional[str]:
    return None if value is None else str(value)


def _job_inputs(job: Job, profile_db: Any) -> List[Tuple[str, str]]:
    """The files a job reads, as (what, path): its settings and launch that name files, the profile database."""
    named = [(key, str(value)) for key, value in job._values if isinstance(value, str)]
    named += [(name, _launch_text(value)) for name, value in zip(_LAUNCHES, job._launch) if value is not None]
    if profile_db is not None:
        named.append(("profile_db", str(profile_db)))
    return [(what, path) for what, path in named if os.path.isfile(path)]


def _refuse_overwriting_an_input(method: str, path: Any, inputs: Sequence[Tuple[str, str]]) -> None:
    """As the CLI refuses an output flag onto an input: the same regular file, links followed."""
    target = str(path)
    if not os.path.isfile(target):
        return
    for what, source in inputs:
        if os.path.samefile(target, source):
            raise InputError(f"{method} '{target}' is the job's {what} '{source}'; writing it would destroy the "
                             "input, give another path")


def simulate(
    job: Job,
    *,
    all_ranks: bool = False,
    max_tasks: Optional[int] = None,
    profile_db: Optional[str] = None,
) -> Result:
    """Simulates one iteration of the job, as `distsim simulate` with the same flags.

    The GIL is released while it runs, so threads can simulate several jobs at once.
    ``profile_db``: as --profile-db; by default the default database is used when it exists.
    """
    if not isinstance(job, Job):
        raise TypeError(f"simulate: expected a distsim.Job, got a {type(job).__name__}")
    profile = _path_or_none(profile_db)
    return Result(_distsim.simulate(job._values, all_ranks, max_tasks, profile), _job_inputs(job, profile_db),
                  lambda: _distsim.simulate(job._values, all_ranks, max_tasks, profile, True))


class SearchResult:
    """A finished search: ``candidates`` (one dict per candidate, status and reason included),
    ``top`` (the ranking), ``pareto_front`` (labels) and the counts, as `distsim search --json`."""

    def __init__(self, outcome: Any, inputs: Sequence[Tuple[str, str]] = ()) -> None:
        self._outcome = outcome
        self._inputs = list(inputs)
        self._json: str = outcome.to_json()
        self.summary: Dict[str, Any] = json.loads(self._json)
        self.candidates: List[Dict[str, Any]] = [
            {**candidate, "reason": candidate.get("reason", "")} for candidate in self.summary["candidates"]
        ]
        self.top: List[Dict[str, Any]] = self.summary["top"]
        self.pareto_front: List[str] = self.summary["pareto_front"]

    def __getattr__(self, key: str) -> Any:
        summary = self.__dict__.get("summary", {})
        if key in summary:
            return summary[key]
        raise AttributeError(key)

    def to_json(self) -> str:
        """Byte for byte what `distsim search --json` prints for the same job and lists."""
        return self._json

    def to_text(self) -> str:
        return self._outcome.to_text()

    def write_csv(self, path: str) -> None:
        _refuse_overwriting_an_input("write_csv", path, self._inputs)
        self._outcome.write_csv(str(path))

    def write_report(self, path: str) -> None:
        _refuse_overwriting_an_input("write_report", path, self._inputs)
        self._outcome.write_report(str(path))


def _list_items(name: str, values: Any) -> List[str]:
    if isinstance(values, (str, bool, int)):
        values = [values]
    items: List[str] = []
    for value in values:
        if isinstance(value, bool):
            items.append("true" if value else "false")
        else:
            items.append(str(value))
    return items


def search(
    job: Job,
    *,
    threads: Optional[int] = None,
    top: int = 10,
    simulate_oom: bool = False,
    memory_headroom: Optional[Union[str, float]] = None,
    max_memory_gib: Optional[float] = None,
    profile_db: Optional[str] = None,
    front_within: Optional[Union[str, float]] = None,
    progress: Optional[Callable[[int, int], Any]] = None,
    **lists: Any,
) -> SearchResult:
    """Simulates every combination of the searched settings, as `distsim search`.

    ``lists``: per searchable key (``distsim.options()`` marks them; ``micro_batch_sizes`` and
    ``schedules`` are also taken), the values to try, or "all"; a searchable setting of the job
    pins its value; the rest try every valid value. ``threads`` defaults to every core; the
    result does not depend on it. ``front_within`` is how far the Pareto front reaches, as
    ``--front-within``: a factor of at least 1 over the best (2 by default) or "all".
    ``progress(done, total)`` is called after each simulated candidate, from a worker thread,
    holding the GIL.
    """
    if not isinstance(job, Job):
        raise TypeError(f"search: expected a distsim.Job, got a {type(job).__name__}")
    listed = [(name, _list_items(name, values)) for name, values in lists.items()]
    headroom = None if memory_headroom is None else str(memory_headroom)
    gib = None if max_memory_gib is None else float(max_memory_gib)
    reach = None if front_within is None else str(front_within)
    outcome = _distsim.search(job._values, listed, threads, top, simulate_oom, headroom, gib,
                              _path_or_none(profile_db), reach, progress)
    return SearchResult(outcome, _job_inputs(job, profile_db))


class Validation:
    """Simulated against published iteration times: ``rows`` (one per simulated run: id, run,
    source, measured and predicted seconds, error_pct, assumed), ``excluded``, ``overall``,
    ``by_source``, as `distsim validate --json`."""

    def __init__(self, outcome: Any) -> None:
        self._outcome = outcome
        self._json: str = outcome.to_json()
        self.summary: Dict[str, Any] = json.loads(self._json)
        self.rows: List[Dict[str, Any]] = self.summary["rows"]
        self.excluded: List[Dict[str, Any]] = self.summary["excluded"]
        self.overall: Dict[str, Any] = self.summary["overall"]
        self.by_source: List[Dict[str, Any]] = self.summary["by_source"]

    def to_json(self) -> str:
        """Byte for byte what `distsim validate --json` prints."""
        return self._json

    def to_text(self, per_row: bool = False) -> str:
        return self._outcome.to_text(per_row)


def validate(csv: Optional[str] = None, *, threads: Optional[int] = None,
             gpus: Optional[List[Any]] = None) -> Validation:
    """Simulates the runs of a calibration CSV (default: the built-in set), as `distsim validate`.

    ``gpus`` lists parts the rows name that the catalog lacks (another memory size or power
    limit), each a GPU file path or a mapping of its keys, as `distsim validate --gpu`.
    """
    specs = [_setting_value("gpu", gpu) for gpu in (gpus or [])]
    return Validation(_distsim.validate(_path_or_none(csv), threads, specs))


class WhatIf:
    """A what-if replay of a per-rank step timeline, as `distsim whatif --json` (docs/whatif.md):
    ``launch_slowdown``, ``straggler_slowdown``, the attributions ``by_stage``, ``by_dp_rank`` and
    ``by_op_type`` (each a list of {group, slowdown}, largest first), ``steps`` and ``notes``."""

    def __init__(self, outcome: Any) -> None:
        self._outcome = outcome
        self._json: str = outcome.to_json()
        self.summary: Dict[str, Any] = json.loads(self._json)
        self.launch_slowdown: float = self.summary["launch_slowdown"]
        self.straggler_slowdown: float = self.summary["straggler_slowdown"]
        self.by_stage: List[Dict[str, Any]] = self.summary["by_stage"]
        self.by_dp_rank: List[Dict[str, Any]] = self.summary["by_dp_rank"]
        self.by_op_type: List[Dict[str, Any]] = self.summary["by_op_type"]
        self.steps: List[Dict[str, Any]] = self.summary["steps"]
        self.notes: List[str] = self.summary["notes"]

    def to_json(self) -> str:
        """Byte for byte what `distsim whatif --json` prints."""
        return self._json

    def to_text(self) -> str:
        """Byte for byte what `distsim whatif` prints."""
        return self._outcome.to_text()


def whatif(trace: Any) -> WhatIf:
    """Replays a measured per-rank step timeline, or distsim's own trace, as `distsim whatif`."""
    return WhatIf(_distsim.whatif(str(trace)))
