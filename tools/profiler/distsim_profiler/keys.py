"""Event keys as distsim writes them (src/events/event.cpp, Event::key) and the work list.

A compute key is `<op> <dim>=<value>... <dtype>`, a communication key is
`<op> bytes=<B> group=<G> intra` or `... inter per_node=<P>`. The profiler works from the key
alone, so a key list, an exported profile and a work list all name events the same way.
"""

import difflib
import json

from . import UserError

# The operators distsim emits and the dimensions each key carries, in key order (mirrors
# src/events/event_factory.cpp and src/profile/event_key.cpp).
ATTENTION_DIMS = ("b", "heads", "kv_heads", "sq", "skv", "d", "causal")
ROWS_COLS = ("rows", "cols")
ELEMENTWISE_OPS = ("layernorm", "rmsnorm", "rope", "bias_dropout_add", "swiglu", "gelu", "embedding",
                   "cross_entropy", "scale_mask_softmax", "attention_dropout")

COMPUTE_DIMS = {"gemm": ("m", "n", "k"),
                "batched_gemm": ("batch", "m", "n", "k"),
                "flash_attention_fwd": ATTENTION_DIMS,
                "flash_attention_bwd": ATTENTION_DIMS,
                "adam_step": ("params",)}
for _op in ELEMENTWISE_OPS:
    COMPUTE_DIMS[_op] = ROWS_COLS
    COMPUTE_DIMS[_op + "_bwd"] = ROWS_COLS
# TransformerEngine's quantization kernels of fp8 GEMMs (forward only).
FP8_QUANTIZE_OPS = ("fp8_cast_transpose", "layernorm_fp8", "rmsnorm_fp8")
for _op in FP8_QUANTIZE_OPS:
    COMPUTE_DIMS[_op] = ROWS_COLS

COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")
POINT_TO_POINT = ("send_recv", "ring_exchange")
DTYPES = ("fp32", "bf16", "fp16", "fp8")
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1}


def known_operators():
    return sorted(COMPUTE_DIMS) + list(COLLECTIVES) + list(POINT_TO_POINT)


def closest_hint(word, names):
    """' (did you mean 'x'?)' for the closest name, or the list of names when none is close."""
    close = difflib.get_close_matches(word, list(names), n=1)
    if close:
        return " (did you mean '%s'?)" % close[0]
    return " (known: %s)" % ", ".join(names)


class EventSpec:
    """One event parsed from its key. Compute: op, dims, dtype. Communication: op, bytes,
    group, intra, per_node (ranks of the group on each node)."""

    def __init__(self, key, op, dims=None, dtype=None, bytes=0, group=0, intra=True, per_node=0):
        self.key = key
        self.op = op
        self.dims = dims or {}
        self.dtype = dtype
        self.bytes = bytes
        self.group = group
        self.intra = intra
        self.per_node = per_node

    @property
    def is_communication(self):
        return self.op in COLLECTIVES or self.op in POINT_TO_POINT

    def __repr__(self):
        return "EventSpec(%r)" % self.key


def _field(word, name, key):
    prefix = name + "="
    if not word.startswith(prefix):
        raise UserError("event key '%s': expected '%s<n>', got '%s'" % (key, prefix, word))
    value = word[len(prefix):]
    if not value.isdigit():
        raise UserError("event key '%s': %s must be a whole number, got '%s'" % (key, name, value))
    return int(value)


def parse_key(key):
    """Parses a key the way distsim writes it; raises UserError naming the key otherwise."""
    words = key.split(" ")
    op = words[0]
    if op in COMPUTE_DIMS:
        names = COMPUTE_DIMS[op]
        if len(words) != len(names) + 2:
            raise UserError("event key '%s': operator '%s' takes %s and a dtype" %
                            (key, op, " ".join(n + "=" for n in names)))
        dims = {name: _field(word, name, key) for name, word in zip(names, words[1:-1])}
        dtype = words[-1]
        if dtype not in DTYPES:
            raise UserError("event key '%s': unknown dtype '%s'%s" % (key, dtype, closest_hint(dtype, DTYPES)))
        spec = EventSpec(key, op, dims=dims, dtype=dtype)
    elif op in COLLECTIVES or op in POINT_TO_POINT:
        if len(words) not in (4, 5) or words[3] not in ("intra", "inter") or (len(words) == 5) != (words[3] == "inter"):
            raise UserError("event key '%s': operator '%s' takes bytes= group= and intra, or inter per_node=" %
                            (key, op))
        group = _field(words[2], "group", key)
        intra = words[3] == "intra"
        per_node = group if intra else _field(words[4], "per_node", key)
        spec = EventSpec(key, op, bytes=_field(words[1], "bytes", key), group=group, intra=intra,
                         per_node=per_node)
    else:
        raise UserError("event key '%s': unknown operator '%s'%s" % (key, op, closest_hint(op, known_operators())))
    if format_key(spec) != key:
        raise UserError("event key '%s' is not written the way distsim writes it; expected '%s'" %
                        (key, format_key(spec)))
    return spec


def format_key(spec):
    if spec.is_communication:
        text = "%s bytes=%d group=%d %s" % (spec.op, spec.bytes, spec.group, "intra" if spec.intra else "inter")
        return text if spec.intra else text + " per_node=%d" % spec.per_node
    dims = " ".join("%s=%d" % (name, spec.dims[name]) for name in COMPUTE_DIMS[spec.op])
    return "%s %s %s" % (spec.op, dims, spec.dtype)


class WorkItem:
    """An event to measure, with what the work list adds beyond its key."""

    def __init__(self, spec, bytes_moved=None, source=None):
        self.spec = spec
        self.bytes_moved = bytes_moved
        self.source = source


class WorkList:
    def __init__(self, items, gpu_names):
        self.items = items
        self.gpu_names = gpu_names


def _gpu_names(document):
    names = []
    jobs = document.get("jobs")
    if isinstance(jobs, list):
        names += [job.get("gpu") for job in jobs if isinstance(job, dict)]
    if isinstance(document.get("job"), dict):
        names.append(document["job"].get("gpu"))
    return [name for name in names if isinstance(name, str)]


def read_work_lists(paths):
    """The union of the events of several `distsim events --json` files, first occurrence first."""
    items = {}
    gpu_names = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
        except OSError as error:
            raise UserError("work list '%s': cannot read it (%s)" % (path, error.strerror))
        except ValueError as error:
            raise UserError("work list '%s': not JSON (%s)" % (path, error))
        events = document.get("events") if isinstance(document, dict) else None
        if not isinstance(events, list):
            raise UserError("work list '%s': expected the output of `distsim events --json` "
                            "(an object with an \"events\" list)" % path)
        for index, entry in enumerate(events):
            if not isinstance(entry, dict) or not isinstance(entry.get("key"), str):
                raise UserError("work list '%s': events[%d] has no \"key\" string" % (path, index))
            key = entry["key"]
            if key not in items:
                items[key] = WorkItem(parse_key(key), entry.get("bytes_moved"), entry.get("source"))
        for name in _gpu_names(document):
            if name not in gpu_names:
                gpu_names.append(name)
    return WorkList(list(items.values()), gpu_names)


def read_skip_keys(path):
    """Keys to leave out: a text file with one key per line (blank lines and '#' comments
    ignored), or a profile file in the interchange format (its measured keys)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise UserError("--skip-keys '%s': cannot read it (%s)" % (path, error.strerror))
    if text.lstrip().startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as error:
            raise UserError("--skip-keys '%s': looks like JSON but does not parse (%s)" % (path, error))
        if not isinstance(document, dict) or document.get("format") != "distsim-profile":
            raise UserError("--skip-keys '%s': a JSON file must be a distsim profile "
                            "(\"format\": \"distsim-profile\")" % path)
        return {entry["key"] for entry in document.get("events", []) if isinstance(entry, dict) and "key" in entry}
    return {line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")}
