"""Event keys as distsim writes them, and the work list.

distsim's operator table (src/events/operator.cpp) defines every operator: the first word of its
keys, its class and the fields after the name in key order. The profiler reads that table from
the distsim binary (`distsim list operators --json`), named by the DISTSIM_BIN environment
variable or found as `distsim` on PATH, so the two cannot drift apart. A GPU host without a distsim
binary reads the same table from a file that binary wrote (`distsim list operators --json >
operators.json`), named by DISTSIM_OPERATORS. A compute key is
`<op> <dim>=<value>... <dtype>`, a communication key is `<op> bytes=<B> group=<G> intra` or
`... inter per_node=<P>`. The profiler works from the key alone, so a key list, an exported
profile and a work list all name events the same way.
"""

import difflib
import json
import os
import shutil
import subprocess

from . import UserError

BINARY_VARIABLE = "DISTSIM_BIN"
TABLE_FILE_VARIABLE = "DISTSIM_OPERATORS"
TABLE_FORMAT = "distsim-operators"
TABLE_VERSION = 1


def closest_hint(word, names):
    """' (did you mean 'x'?)' for the closest name, or the list of names when none is close."""
    close = difflib.get_close_matches(word, list(names), n=1)
    if close:
        return " (did you mean '%s'?)" % close[0]
    return " (known: %s)" % ", ".join(names)


class OperatorTable:
    """The operators and dtypes of `distsim list operators --json`, in the binary's order."""

    def __init__(self, document, source):
        if not isinstance(document, dict) or document.get("format") != TABLE_FORMAT:
            raise UserError("%s: expected the output of `distsim list operators --json` (\"format\": \"%s\")" %
                            (source, TABLE_FORMAT))
        if document.get("version") != TABLE_VERSION:
            raise UserError("%s: operator table version %r, this profiler reads version %d" %
                            (source, document.get("version"), TABLE_VERSION))
        self.operators = {entry["name"]: entry for entry in document["operators"]}
        self.dtype_bytes = {entry["name"]: entry["bytes"] for entry in document["dtypes"]}

    def names(self):
        return list(self.operators)

    def is_communication(self, op):
        entry = self.operators.get(op)
        return entry is not None and entry["kind"] == "communication"

    def compute_dims(self):
        """{operator: names of its dim and flag fields in key order} for the compute operators."""
        return {name: tuple(field["name"] for field in entry["fields"] if field["type"] in ("dim", "flag"))
                for name, entry in self.operators.items() if entry["kind"] == "compute"}

    def of_class(self, event_class):
        return tuple(name for name, entry in self.operators.items() if entry["class"] == event_class)


def distsim_binary():
    """The distsim binary: $DISTSIM_BIN, else `distsim` on PATH."""
    path = os.environ.get(BINARY_VARIABLE) or shutil.which("distsim")
    if not path:
        raise UserError("the profiler reads the operator table from the distsim binary: set %s to its path "
                        "(for example %s=build/src/cli/distsim) or put distsim on PATH" %
                        (BINARY_VARIABLE, BINARY_VARIABLE))
    return path


def load_operator_table(binary):
    """Runs `BINARY list operators --json` and reads its table; UserError names the binary."""
    command = [binary, "list", "operators", "--json"]
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
    except OSError as error:
        raise UserError("%s '%s': cannot run it (%s)" % (BINARY_VARIABLE, binary, error.strerror))
    if result.returncode != 0:
        raise UserError("'%s' exited with %d: %s" % (" ".join(command), result.returncode, result.stderr.strip()))
    try:
        document = json.loads(result.stdout)
    except ValueError as error:
        raise UserError("'%s' did not print JSON (%s); is %s a distsim binary?" % (" ".join(command), error, binary))
    return OperatorTable(document, "'%s'" % " ".join(command))


def load_operator_table_file(path):
    """Reads a table saved from `distsim list operators --json`; UserError names the file."""
    source = "%s '%s'" % (TABLE_FILE_VARIABLE, path)
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except OSError as error:
        raise UserError("%s: cannot read it (%s)" % (source, error.strerror))
    except ValueError as error:
        raise UserError("%s: not JSON (%s); write it with `distsim list operators --json`" % (source, error))
    return OperatorTable(document, source)


_table = None


def operator_table():
    """The operator table, read once per process: from $DISTSIM_OPERATORS when set, else the binary."""
    global _table
    if _table is None:
        saved = os.environ.get(TABLE_FILE_VARIABLE)
        _table = load_operator_table_file(saved) if saved else load_operator_table(distsim_binary())
    return _table


# The names the profiler used before the table came from the binary, now views of it, read when
# first used: COMPUTE_DIMS {op: dims in key order}, COLLECTIVES, POINT_TO_POINT, DTYPES,
# DTYPE_BYTES {dtype: bytes per element}.
_TABLE_VIEWS = {
    "COMPUTE_DIMS": lambda table: table.compute_dims(),
    "COLLECTIVES": lambda table: table.of_class("collective"),
    "POINT_TO_POINT": lambda table: table.of_class("point_to_point"),
    "DTYPES": lambda table: tuple(table.dtype_bytes),
    "DTYPE_BYTES": lambda table: dict(table.dtype_bytes),
}


def __getattr__(name):
    if name in _TABLE_VIEWS:
        return _TABLE_VIEWS[name](operator_table())
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def known_operators():
    return operator_table().names()


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
        return operator_table().is_communication(self.op)

    def __repr__(self):
        return "EventSpec(%r)" % self.key


def _expected_fields(entry):
    """'m= n= k= and a dtype', 'bytes= group= and intra, or inter per_node=' (as distsim says it)."""
    parts = []
    for field in entry["fields"]:
        if field["type"] == "dtype":
            parts.append("and a dtype")
        elif field["type"] == "placement":
            parts.append("and intra, or inter per_node=")
        elif field["type"] == "optional_dim":
            parts.append("[%s=]" % field["name"])
        else:
            parts.append(field["name"] + "=")
    return " ".join(parts)


class _KeyReader:
    """Reads the words of a key after the operator's name, one field of the table at a time."""

    def __init__(self, key, entry):
        self.key = key
        self.entry = entry
        self.words = key.split(" ")
        self.next = 1

    def fields_do_not_match(self):
        return UserError("event key '%s': operator '%s' takes %s" %
                         (self.key, self.entry["name"], _expected_fields(self.entry)))

    def word(self):
        if self.next >= len(self.words):
            raise self.fields_do_not_match()
        self.next += 1
        return self.words[self.next - 1]

    def number(self, name, minimum):
        word = self.word()
        prefix = name + "="
        if not word.startswith(prefix):
            raise UserError("event key '%s': expected '%s<n>', got '%s'" % (self.key, prefix, word))
        value = word[len(prefix):]
        if not (value.isascii() and value.isdigit()):
            raise UserError("event key '%s': %s must be a whole number, got '%s'" % (self.key, name, value))
        if int(value) < minimum:
            raise UserError("event key '%s': operator '%s' needs %s >= %d" % (self.key, self.entry["name"], name,
                                                                              minimum))
        return int(value)

    def read(self):
        variable = any(field["type"] in ("placement", "optional_dim") for field in self.entry["fields"])
        if not variable and len(self.words) != len(self.entry["fields"]) + 1:
            raise self.fields_do_not_match()
        spec = EventSpec(self.key, self.entry["name"])
        for field in self.entry["fields"]:
            self.read_field(field, spec)
        if self.next != len(self.words):
            raise self.fields_do_not_match()
        return spec

    def read_field(self, field, spec):
        kind, name = field["type"], field["name"]
        if kind in ("dim", "flag"):
            spec.dims[name] = self.number(name, field["minimum"])
            if kind == "flag" and spec.dims[name] > 1:
                raise UserError("event key '%s': %s must be 0 or 1" % (self.key, name))
        elif kind == "optional_dim":
            if self.next < len(self.words) and self.words[self.next].startswith(name + "="):
                spec.dims[name] = self.number(name, field["minimum"])
        elif kind == "dtype":
            spec.dtype = self.word()
            dtypes = list(operator_table().dtype_bytes)
            if spec.dtype not in dtypes:
                raise UserError("event key '%s': unknown dtype '%s'%s" % (self.key, spec.dtype,
                                                                         closest_hint(spec.dtype, dtypes)))
        elif kind == "bytes":
            spec.bytes = self.number(name, field["minimum"])
        elif kind == "group":
            spec.group = self.number(name, field["minimum"])
        elif kind == "placement":
            self.read_placement(field, spec)
        else:
            raise UserError("operator '%s': the binary's table has a field type '%s' this profiler does not know" %
                            (self.entry["name"], kind))

    def read_placement(self, field, spec):
        where = self.word()
        if where not in ("intra", "inter"):
            raise self.fields_do_not_match()
        spec.intra = where == "intra"
        spec.per_node = spec.group if spec.intra else self.number("per_node", field["minimum"])


def parse_key(key):
    """Parses a key the way distsim writes it; raises UserError naming the key otherwise."""
    op = key.split(" ")[0]
    entry = operator_table().operators.get(op)
    if entry is None:
        raise UserError("event key '%s': unknown operator '%s'%s" % (key, op, closest_hint(op, known_operators())))
    spec = _KeyReader(key, entry).read()
    if format_key(spec) != key:
        raise UserError("event key '%s' is not written the way distsim writes it; expected '%s'" %
                        (key, format_key(spec)))
    return spec


def _format_field(field, spec):
    kind, name = field["type"], field["name"]
    if kind == "optional_dim":
        return "%s=%d" % (name, spec.dims[name]) if spec.dims.get(name) else None
    if kind in ("dim", "flag"):
        return "%s=%d" % (name, spec.dims[name])
    if kind == "dtype":
        return spec.dtype
    if kind == "bytes":
        return "%s=%d" % (name, spec.bytes)
    if kind == "group":
        return "%s=%d" % (name, spec.group)
    return "intra" if spec.intra else "inter per_node=%d" % spec.per_node


def format_key(spec):
    fields = operator_table().operators[spec.op]["fields"]
    words = [_format_field(field, spec) for field in fields]
    return " ".join([spec.op] + [word for word in words if word is not None])


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


def _gpu_name(job):
    """The GPU of an echoed job: a built-in name, or the mapping of a GPU given as a file."""
    gpu = job.get("gpu") if isinstance(job, dict) else None
    return gpu.get("name") if isinstance(gpu, dict) else gpu


def _gpu_names(document):
    names = []
    jobs = document.get("jobs")
    if isinstance(jobs, list):
        names += [_gpu_name(entry.get("job")) for entry in jobs if isinstance(entry, dict)]
    names.append(_gpu_name(document.get("job")))
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
