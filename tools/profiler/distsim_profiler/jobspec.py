"""The job the runner executes, described the way distsim takes it: a model file, the strategy
in the paper's notation, batch sizes and a schedule. Torch-free, so it can be unit-tested alone."""

import json
import os
import re

from . import UserError
from .keys import closest_hint

# Megatron's default DP bucket: max(40M, 1M·dp) parameters (src/strategy/strategy.hpp).
BUCKET_MIN_PARAMS = 40_000_000

MODEL_KEYS = ("name", "description", "source", "base", "architecture", "num_layers", "decoder_num_layers",
              "hidden_size", "num_attention_heads", "num_kv_heads", "kv_channels", "ffn_hidden_size", "ffn_type",
              "norm", "position_embedding", "vocab_size", "seq_length", "decoder_seq_length", "tie_embeddings")
REQUIRED_KEYS = ("num_layers", "hidden_size", "num_attention_heads", "vocab_size", "seq_length")
# What the runner builds: a GPT (pre-LayerNorm decoder, GeLU MLP, learned positions). Any other
# value of these keys is refused rather than silently run as a GPT.
GPT_ONLY = {"architecture": "decoder", "ffn_type": "gelu", "norm": "layernorm", "position_embedding": "learned"}
SCHEDULES = ("gpipe", "1f1b")


class ModelShape:
    def __init__(self, name, num_layers, hidden_size, num_heads, ffn_hidden_size, vocab_size, seq_length,
                 tie_embeddings):
        self.name = name
        self.num_layers = num_layers
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.ffn_hidden_size = ffn_hidden_size
        self.vocab_size = vocab_size
        self.seq_length = seq_length
        self.tie_embeddings = tie_embeddings

    @property
    def head_dim(self):
        return self.hidden_size // self.num_heads


def _load_document(path):
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as error:
        raise UserError("--model '%s': cannot read it (%s)" % (path, error.strerror))
    try:
        if path.endswith(".json"):
            return json.loads(text)
        import yaml
        return yaml.safe_load(text)
    except ImportError:
        raise UserError("--model '%s': reading YAML needs PyYAML (python3-yaml); or give a JSON model file" % path)
    except ValueError as error:  # json.JSONDecodeError and yaml.YAMLError both derive from it or Exception
        raise UserError("--model '%s': does not parse (%s)" % (path, error))


def _positive_int(document, key, path):
    value = document[key]
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise UserError("--model '%s': %s must be a positive whole number, got %r" % (path, key, value))
    return value


def read_model(path):
    try:
        document = _load_document(path)
    except Exception as error:  # a YAML syntax error is not a ValueError
        if isinstance(error, UserError):
            raise
        raise UserError("--model '%s': does not parse (%s)" % (path, str(error).splitlines()[0]))
    if not isinstance(document, dict):
        raise UserError("--model '%s': expected a mapping of model keys" % path)
    for key in document:
        if key not in MODEL_KEYS:
            raise UserError("--model '%s': unknown key '%s'%s" % (path, key, closest_hint(key, MODEL_KEYS)))
    if "base" in document:
        raise UserError("--model '%s': the runner reads self-contained model files; 'base' is not supported" % path)
    for key in REQUIRED_KEYS:
        if key not in document:
            raise UserError("--model '%s': missing key '%s'" % (path, key))
    for key, supported in GPT_ONLY.items():
        if document.get(key, supported) != supported:
            raise UserError("--model '%s': %s '%s' is not supported by the runner, which builds a GPT (%s)" % (
                path, key, document[key], ", ".join("%s %s" % item for item in GPT_ONLY.items())))
    heads = _positive_int(document, "num_attention_heads", path)
    hidden = _positive_int(document, "hidden_size", path)
    if document.get("num_kv_heads", heads) != heads or "kv_channels" in document:
        raise UserError("--model '%s': the runner builds multi-head attention with head size hidden/heads; "
                        "num_kv_heads and kv_channels are not supported" % path)
    if hidden % heads != 0:
        raise UserError("--model '%s': hidden_size %d is not a multiple of num_attention_heads %d" %
                        (path, hidden, heads))
    ffn = _positive_int(document, "ffn_hidden_size", path) if "ffn_hidden_size" in document else 4 * hidden
    tie = document.get("tie_embeddings", True)
    if not isinstance(tie, bool):
        raise UserError("--model '%s': tie_embeddings must be true or false, got %r" % (path, tie))
    name = document.get("name") or os.path.splitext(os.path.basename(path))[0]
    return ModelShape(name, _positive_int(document, "num_layers", path), hidden, heads, ffn,
                      _positive_int(document, "vocab_size", path), _positive_int(document, "seq_length", path), tie)


def parse_strategy(text):
    """'2M1P1D' → (tp 2, pp 1, dp 1): the DistSim paper's notation (M model, P pipeline, D data)."""
    match = re.fullmatch(r"(\d+)M(\d+)P(\d+)D", text or "")
    if not match or min(int(g) for g in match.groups()) < 1:
        raise UserError("--strategy '%s': expected the paper's notation <tp>M<pp>P<dp>D, like 2M1P1D" % text)
    return tuple(int(g) for g in match.groups())


def padded_vocab(vocab, tp):
    """Megatron pads the vocabulary to a multiple of 128·tp (src/events/job_events.cpp)."""
    multiple = 128 * tp
    return (vocab + multiple - 1) // multiple * multiple


def stage_layers(total_layers, stages, stage):
    """(first layer, count) of a pipeline stage; the first stages take the remainder, as distsim."""
    base, extra = divmod(total_layers, stages)
    count = base + (1 if stage < extra else 0)
    return stage * base + min(stage, extra), count


class Job:
    def __init__(self, model, tp, pp, dp, micro_batch_size, global_batch_size, schedule, dtype):
        self.model = model
        self.tp, self.pp, self.dp = tp, pp, dp
        self.micro_batch_size = micro_batch_size
        self.global_batch_size = global_batch_size
        self.schedule = schedule
        self.dtype = dtype

    @property
    def world_size(self):
        return self.tp * self.pp * self.dp

    @property
    def num_microbatches(self):
        return self.global_batch_size // (self.micro_batch_size * self.dp)

    @property
    def strategy(self):
        return "%dM%dP%dD" % (self.tp, self.pp, self.dp)


def build_job(model, strategy, micro_batch_size, global_batch_size, schedule, dtype):
    tp, pp, dp = parse_strategy(strategy)
    if schedule not in SCHEDULES:
        raise UserError("--schedule '%s': unknown schedule%s" % (schedule, closest_hint(schedule, SCHEDULES)))
    if micro_batch_size < 1 or global_batch_size < 1:
        raise UserError("--micro-batch-size and --global-batch-size must be at least 1")
    if global_batch_size % (micro_batch_size * dp) != 0:
        raise UserError("--global-batch-size %d is not a multiple of micro-batch size x dp = %d" % (
            global_batch_size, micro_batch_size * dp))
    if model.num_heads % tp != 0 or model.ffn_hidden_size % tp != 0:
        raise UserError("tp %d must divide num_attention_heads %d and ffn_hidden_size %d" % (
            tp, model.num_heads, model.ffn_hidden_size))
    if pp > model.num_layers:
        raise UserError("pp %d exceeds the model's %d layers" % (pp, model.num_layers))
    return Job(model, tp, pp, dp, micro_batch_size, global_batch_size, schedule, dtype)


class RankCoord:
    """Megatron's default rank order: tp fastest, then dp, then pp (src/strategy/rank_layout.hpp):
    rank = tp + T·(dp + D·pp)."""

    def __init__(self, job, rank):
        self.tp = rank % job.tp
        self.dp = (rank // job.tp) % job.dp
        self.pp = rank // (job.tp * job.dp)


def rank_of(job, tp, dp, pp):
    return tp + job.tp * (dp + job.dp * pp)


def schedule_steps(schedule, stage, stages, microbatches):
    """The order of ('fwd'|'bwd', micro-batch) on one stage, as src/schedule/pipeline_schedule.cpp."""
    if schedule == "gpipe":
        return [("fwd", mb) for mb in range(microbatches)] + [("bwd", mb) for mb in range(microbatches)]
    warmup = min(stages - stage - 1, microbatches)
    steps = [("fwd", mb) for mb in range(warmup)]
    next_forward, next_backward = warmup, 0
    while next_forward < microbatches:
        steps += [("fwd", next_forward), ("bwd", next_backward)]
        next_forward += 1
        next_backward += 1
    steps += [("bwd", mb) for mb in range(next_backward, microbatches)]
    return steps
