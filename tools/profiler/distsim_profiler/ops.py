"""How each compute operator of distsim's events is run on an event's shapes: a builder takes
the parsed key and returns a zero-argument callable that performs the operator once.

Backward operators run autograd's backward of the forward operator on a graph built once and
kept (retain_graph), so the timed call is exactly the kernels a training step's backward runs.
"""

import torch

from . import UserError, kernels
from .keys import closest_hint

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


class BuildContext:
    """What a builder needs beyond the key: where to allocate, and facts the key leaves out."""

    def __init__(self, device, embedding_rows=None, embedding_reads=None):
        self.device = device
        self.embedding_rows = embedding_rows   # vocabulary rows of the embedding table
        self.embedding_reads = embedding_reads  # 2 when a learned position table is added


def _random(shape, dtype, context, grad=False):
    return torch.randn(*shape, dtype=dtype, device=context.device).requires_grad_(grad)


def _backward_of(outputs, inputs):
    """The callable that runs the backward of `outputs` with respect to `inputs`."""
    grad_output = torch.randn_like(outputs)
    return lambda: torch.autograd.grad(outputs, inputs, grad_output, retain_graph=True)


def build_gemm(dims, dtype, context):
    a = _random((dims["m"], dims["k"]), dtype, context)
    b = _random((dims["k"], dims["n"]), dtype, context)
    return lambda: torch.matmul(a, b)


def build_batched_gemm(dims, dtype, context):
    """torch.bmm, as Megatron-LM's unfused attention core runs QKᵀ and P·V."""
    a = _random((dims["batch"], dims["m"], dims["k"]), dtype, context)
    b = _random((dims["batch"], dims["k"], dims["n"]), dtype, context)
    return lambda: torch.bmm(a, b)


def _attention_inputs(dims, dtype, context):
    q = _random((dims["b"], dims["heads"], dims["sq"], dims["d"]), dtype, context)
    k = _random((dims["b"], dims["kv_heads"], dims["skv"], dims["d"]), dtype, context)
    v = _random((dims["b"], dims["kv_heads"], dims["skv"], dims["d"]), dtype, context)
    return q, k, v, bool(dims["causal"])


def build_attention_forward(dims, dtype, context):
    q, k, v, causal = _attention_inputs(dims, dtype, context)
    return lambda: kernels.attention_forward(q, k, v, causal)


def build_attention_backward(dims, dtype, context):
    q, k, v, causal = _attention_inputs(dims, dtype, context)
    out = kernels.attention_forward(q, k, v, causal)
    grad_out = torch.randn_like(out)
    return lambda: kernels.attention_backward(q, k, v, out, grad_out, causal)


def _norm_inputs(dims, dtype, context, with_bias):
    x = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    weight = torch.ones(dims["cols"], dtype=dtype, device=context.device, requires_grad=True)
    bias = torch.zeros(dims["cols"], dtype=dtype, device=context.device, requires_grad=True)
    return (x, weight, bias) if with_bias else (x, weight)


def _forward_backward_pair(make_inputs, function):
    """Builders for an operator's forward and its backward from one definition."""

    def forward(dims, dtype, context):
        inputs = make_inputs(dims, dtype, context)
        return lambda: function(*inputs)

    def backward(dims, dtype, context):
        inputs = make_inputs(dims, dtype, context)
        return _backward_of(function(*inputs), [t for t in inputs if t.requires_grad])

    return forward, backward


def _rows_cols(dims, dtype, context, width_factor=1):
    return (_random((dims["rows"], width_factor * dims["cols"]), dtype, context, grad=True),)


def _bias_dropout_add_inputs(dims, dtype, context):
    x = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    bias = _random((dims["cols"],), dtype, context, grad=True)
    residual = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    return x, bias, residual


def _rope_inputs(dims, dtype, context):
    width = kernels.rotary_dim(dims["cols"])
    x = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    angles = torch.rand(dims["rows"], 1, width, device=context.device)
    return x, angles.cos().to(dtype), angles.sin().to(dtype)


def _embedding_inputs(dims, dtype, context):
    rows = context.embedding_rows or dims["rows"]
    ids = torch.randint(0, rows, (dims["rows"],), device=context.device)
    table = _random((rows, dims["cols"]), dtype, context, grad=True)
    if context.embedding_reads == 2:
        return ids, table, _random((dims["rows"], dims["cols"]), dtype, context)
    return ids, table


def _embedding(ids, table, positions=None):
    out = kernels.embedding(ids, table)
    return out if positions is None else out + positions


def _cross_entropy_inputs(dims, dtype, context):
    logits = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    targets = torch.randint(0, dims["cols"], (dims["rows"],), device=context.device)
    return logits, targets


def build_adam_step(dims, dtype, context):
    # Mixed-precision training keeps fp32 master weights; the event is fp32 whatever the job's dtype.
    parameter = torch.zeros(dims["params"], dtype=torch.float32, device=context.device, requires_grad=True)
    parameter.grad = torch.randn_like(parameter)
    optimizer = kernels.new_adam([parameter])
    return optimizer.step


BUILDERS = {
    "gemm": build_gemm,
    "batched_gemm": build_batched_gemm,
    "flash_attention_fwd": build_attention_forward,
    "flash_attention_bwd": build_attention_backward,
    "adam_step": build_adam_step,
}
for _name, _inputs, _function in [
        ("layernorm", lambda d, t, c: _norm_inputs(d, t, c, True), kernels.layer_norm),
        ("rmsnorm", lambda d, t, c: _norm_inputs(d, t, c, False), kernels.rms_norm),
        ("gelu", _rows_cols, kernels.gelu),
        ("swiglu", lambda d, t, c: _rows_cols(d, t, c, width_factor=2), kernels.swiglu),
        ("bias_dropout_add", _bias_dropout_add_inputs, kernels.bias_dropout_add),
        ("rope", _rope_inputs, kernels.rope),
        ("embedding", _embedding_inputs, _embedding),
        ("cross_entropy", _cross_entropy_inputs, kernels.cross_entropy_loss),
        ("scale_mask_softmax", _rows_cols, kernels.scale_mask_softmax),
        ("attention_dropout", _rows_cols, kernels.attention_dropout)]:
    BUILDERS[_name], BUILDERS[_name + "_bwd"] = _forward_backward_pair(_inputs, _function)


def check_operator(op):
    if op not in BUILDERS:
        raise UserError("the profiler cannot run operator '%s'%s" % (op, closest_hint(op, sorted(BUILDERS))))


def _unsupported_dtype(error):
    text = str(error)
    return "not implemented for" in text or "Unsupported" in text or "unsupported" in text


def build(spec, context):
    """(callable, dtype used, note). A dtype torch cannot run on this device falls back to fp32
    with a note; fp8 has no torch 1.13 type and runs in bf16 (GEMM inputs are what fp8 changes)."""
    check_operator(spec.op)
    builder = BUILDERS[spec.op]
    wanted = spec.dtype
    note = None
    if wanted == "fp8":
        wanted, note = "bf16", "fp8 has no torch type here; measured in bf16"
    try:
        run = builder(spec.dims, TORCH_DTYPES[wanted], context)
        run()
        return run, wanted, note
    except RuntimeError as error:
        if wanted == "fp32" or not _unsupported_dtype(error):
            raise
        run = builder(spec.dims, torch.float32, context)
        run()
        reason = str(error).splitlines()[0]
        return run, "fp32", "%s is not supported on %s (%s); measured in fp32" % (wanted, context.device, reason)

