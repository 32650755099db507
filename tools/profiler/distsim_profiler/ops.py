"""How each compute operator of distsim's events is run on an event's shapes: a builder takes
the parsed key and returns a zero-argument callable that performs the operator once.

Backward operators run autograd's backward of the forward operator on a graph built once and
kept (retain_graph), so the timed call is exactly the kernels a training step's backward runs.
"""

import torch

from . import UserError, kernels
from .keys import closest_hint

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# torch 2.1 added the fp8 types and torch._scaled_mm, the fp8 GEMM of cuBLASLt; torch 1.13 has neither.
FP8 = getattr(torch, "float8_e4m3fn", None)


class NotMeasurable(Exception):
    """An event this torch or device cannot run; the message says why."""


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


def fp8_gemm_unavailable(device):
    """Why an fp8 GEMM cannot run on `device` with this torch, or None."""
    if FP8 is None or not hasattr(torch, "_scaled_mm"):
        return ("torch %s has no fp8 matmul (torch.float8_e4m3fn and torch._scaled_mm need torch 2.1 or later)"
                % torch.__version__)
    if device.type != "cuda":
        return "fp8 matmul needs a GPU with fp8 tensor cores (compute capability 8.9 or later); this run is on %s" % (
            device.type)
    capability = torch.cuda.get_device_capability(device)
    if capability < (8, 9):
        return "fp8 matmul needs compute capability 8.9 or later (Ada, Hopper, Blackwell); this GPU has %d.%d" % (
            capability)
    return None


def build_fp8_gemm(dims, context):
    """TransformerEngine's fp8 GEMM: e4m3 inputs, bf16 output, B column-major as cuBLASLt wants it."""
    reason = fp8_gemm_unavailable(context.device)
    if reason:
        raise NotMeasurable(reason)
    a = _random((dims["m"], dims["k"]), torch.bfloat16, context).to(FP8)
    b = _random((dims["n"], dims["k"]), torch.bfloat16, context).to(FP8).t()
    scale = torch.ones((), dtype=torch.float32, device=context.device)
    return lambda: torch._scaled_mm(a, b, scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)


def build_fp8_cast_transpose(dims, dtype, context):
    """Reads the tensor and writes a 1-byte copy and that copy's transpose. Without a torch fp8
    type the copy is int8, which moves the same bytes."""
    x = _random((dims["rows"], dims["cols"]), dtype, context)
    target = FP8 if FP8 is not None else torch.int8

    def run():
        copy = x.to(target)
        return copy, copy.t().contiguous()
    return run


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


def _latent_attention_inputs(dims, dtype, context):
    """Latent attention after its up-projections: every head has its own key, and value heads
    (dv) are narrower than query/key heads (dqk)."""
    q = _random((dims["b"], dims["heads"], dims["sq"], dims["dqk"]), dtype, context)
    k = _random((dims["b"], dims["heads"], dims["skv"], dims["dqk"]), dtype, context)
    v = _random((dims["b"], dims["heads"], dims["skv"], dims["dv"]), dtype, context)
    return q, k, v, bool(dims["causal"])


def _attention_pair(make_inputs, fused):
    """Builders for an attention core's forward and backward: the fused kernel `fused` on a GPU
    with torch's fused attention, autograd's backward through it; elsewhere the materialized
    forward and FlashAttention's backward written out (kernels.attention_forward/_backward)."""

    def forward(dims, dtype, context):
        q, k, v, causal = make_inputs(dims, dtype, context)
        if kernels.has_fused_attention(context.device):
            return lambda: fused(q, k, v, causal)
        return lambda: kernels.attention_forward(q, k, v, causal)

    def backward(dims, dtype, context):
        q, k, v, causal = make_inputs(dims, dtype, context)
        if kernels.has_fused_attention(context.device):
            inputs = [t.requires_grad_() for t in (q, k, v)]
            return _backward_of(fused(q, k, v, causal), inputs)
        out = kernels.attention_forward(q, k, v, causal)
        grad_out = torch.randn_like(out)
        return lambda: kernels.attention_backward(q, k, v, out, grad_out, causal)

    return forward, backward


def build_grouped_gemm(dims, dtype, context):
    a = _random((dims["groups"], dims["m"], dims["k"]), dtype, context)
    b = _random((dims["groups"], dims["k"], dims["n"]), dtype, context)
    return lambda: kernels.grouped_gemm(a, b)


def _router_logits(dims, dtype, context):
    return _random((dims["rows"], dims["cols"]), dtype, context, grad=True)


def build_moe_router(dims, dtype, context):
    logits = _router_logits(dims, dtype, context)
    return lambda: kernels.moe_router(logits, dims["top_k"])


def build_moe_router_backward(dims, dtype, context):
    """The logits' gradient from the chosen probabilities' gradient (the routing map has none)."""
    logits = _router_logits(dims, dtype, context)
    return _backward_of(kernels.moe_router(logits, dims["top_k"])[0], [logits])


def _order(dims, context):
    """Where each of the rows goes: a fixed random permutation of the rows."""
    generator = torch.Generator().manual_seed(dims["rows"])
    return torch.randperm(dims["rows"], generator=generator).to(context.device)


def _permute_inputs(dims, dtype, context):
    return _random((dims["rows"], dims["cols"]), dtype, context, grad=True), _order(dims, context)


def _unpermute_inputs(dims, dtype, context):
    expert_outputs = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    probs = torch.rand(dims["rows"], dtype=dtype, device=context.device).requires_grad_()
    return expert_outputs, probs, _order(dims, context)


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


def _conv1d_inputs(dims, dtype, context):
    x = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    weight = _random((dims["cols"], kernels.MAMBA_CONV_TAPS), dtype, context, grad=True)
    bias = _random((dims["cols"],), dtype, context, grad=True)
    return x, weight, bias


def _gated_norm_inputs(dims, dtype, context):
    x = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    z = _random((dims["rows"], dims["cols"]), dtype, context, grad=True)
    weight = torch.ones(dims["cols"], dtype=dtype, device=context.device, requires_grad=True)
    return x, z, weight


def _state_inputs(dims, dtype, context):
    """The states are fp32 whatever the job's type, as mamba_ssm keeps them."""
    states = _random((dims["rows"], dims["cols"]), torch.float32, context, grad=True)
    decay = torch.rand(dims["rows"], dtype=torch.float32, device=context.device).requires_grad_()
    return states, decay


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


def unscale(gradient, found_inf, inverse_scale):
    """The dynamic loss scaler's unscale and inf/NaN check: CUDA's fused kernel, or the same
    read and write of the gradient where that kernel does not exist (CPU)."""
    if gradient.is_cuda:
        torch._amp_foreach_non_finite_check_and_unscale_([gradient], found_inf, inverse_scale)
    else:
        gradient.mul_(inverse_scale)
        found_inf.copy_((~torch.isfinite(gradient)).any())


def build_adam_step(dims, dtype, context):
    """Megatron's optimizer step for model parameters in `dtype`: fp32 main parameters and
    gradients; fp16 unscales and checks the gradients, every dtype takes the gradient norm, Adam
    updates the main parameters, and fp16/bf16 copy them into the model's."""
    main = torch.zeros(dims["params"], dtype=torch.float32, device=context.device, requires_grad=True)
    main.grad = torch.randn_like(main)
    model = None if dtype == torch.float32 else torch.zeros(dims["params"], dtype=dtype, device=context.device)
    optimizer = kernels.new_adam([main])
    found_inf = torch.zeros(1, device=context.device)
    inverse_scale = torch.ones(1, device=context.device)

    def step():
        if dtype == torch.float16:
            unscale(main.grad, found_inf, inverse_scale)
        torch.linalg.vector_norm(main.grad)
        optimizer.step()
        if model is not None:
            model.copy_(main.detach())

    return step


BUILDERS = {
    "gemm": build_gemm,
    "batched_gemm": build_batched_gemm,
    "grouped_gemm": build_grouped_gemm,
    "moe_router": build_moe_router,
    "moe_router_bwd": build_moe_router_backward,
    "adam_step": build_adam_step,
}
BUILDERS["flash_attention_fwd"], BUILDERS["flash_attention_bwd"] = _attention_pair(
    _attention_inputs, kernels.fused_attention)
BUILDERS["mla_attention_fwd"], BUILDERS["mla_attention_bwd"] = _attention_pair(
    _latent_attention_inputs, kernels.fused_latent_attention)
for _name, _inputs, _function in [
        ("layernorm", lambda d, t, c: _norm_inputs(d, t, c, True), kernels.layer_norm),
        ("rmsnorm", lambda d, t, c: _norm_inputs(d, t, c, False), kernels.rms_norm),
        ("gelu", _rows_cols, kernels.gelu),
        ("swiglu", lambda d, t, c: _rows_cols(d, t, c, width_factor=2), kernels.swiglu),
        ("geglu", lambda d, t, c: _rows_cols(d, t, c, width_factor=2), kernels.geglu),
        ("relu", _rows_cols, kernels.relu),
        ("squared_relu", _rows_cols, kernels.squared_relu),
        ("bias_dropout_add", _bias_dropout_add_inputs, kernels.bias_dropout_add),
        ("rope", _rope_inputs, kernels.rope),
        ("embedding", _embedding_inputs, _embedding),
        ("cross_entropy", _cross_entropy_inputs, kernels.cross_entropy_loss),
        ("scale_mask_softmax", _rows_cols, kernels.scale_mask_softmax),
        ("attention_dropout", _rows_cols, kernels.attention_dropout),
        ("moe_permute", _permute_inputs, kernels.moe_permute),
        ("moe_unpermute", _unpermute_inputs, kernels.moe_unpermute),
        ("causal_conv1d", _conv1d_inputs, kernels.causal_conv1d),
        ("rmsnorm_gated", _gated_norm_inputs, kernels.rmsnorm_gated),
        ("ssd_state_passing", _state_inputs, kernels.ssd_state_passing)]:
    BUILDERS[_name], BUILDERS[_name + "_bwd"] = _forward_backward_pair(_inputs, _function)
BUILDERS["fp8_cast_transpose"] = build_fp8_cast_transpose
# TransformerEngine's norm writing an fp8 output (and its transpose) moves the bytes of a bf16
# norm (read 2, write 1 + 1 per element); torch has no such kernel, so the bf16 norm stands in.
BUILDERS["layernorm_fp8"] = BUILDERS["layernorm"]
BUILDERS["rmsnorm_fp8"] = BUILDERS["rmsnorm"]


def _block_format_unavailable(op):
    def builder(dims, dtype, context):
        raise NotMeasurable("'%s' is TransformerEngine's block-scaled quantization (Blackwell); torch has no "
                            "kernel that moves its bytes, so the analytical model prices it" % op)
    return builder


BUILDERS["mxfp8_quantize"] = _block_format_unavailable("mxfp8_quantize")
BUILDERS["nvfp4_quantize"] = _block_format_unavailable("nvfp4_quantize")
STAND_IN_NOTES = {
    "layernorm_fp8": "measured as the bf16 layernorm, which moves the same bytes",
    "rmsnorm_fp8": "measured as the bf16 rmsnorm, which moves the same bytes",
    "fp8_cast_transpose": None if FP8 is not None else "no torch fp8 type here; cast to int8, the same bytes",
    "grouped_gemm": "measured as one strided batched GEMM (torch.bmm) of the equal-sized groups",
    "moe_permute": "measured as a gather of the rows in a random order: the bytes of the permutation, "
                   "without a token's top-k copies reading the same row",
    "moe_unpermute": "measured as a weighted scatter-add of the rows in a random order, without the "
                     "top-k copies of a token adding into one row",
}
STAND_IN_NOTES["rmsnorm_gated"] = ("measured as the gate and one RMSNorm over each whole row, which moves the bytes "
                                   "of mamba_ssm's per-group norm")
STAND_IN_NOTES["ssd_state_passing"] = ("measured as one decay-and-add step over every fp32 state, the bytes of the "
                                       "recurrence without its sequential order over the chunks")
STAND_IN_NOTES["rmsnorm_gated_bwd"] = STAND_IN_NOTES["rmsnorm_gated"]
STAND_IN_NOTES["ssd_state_passing_bwd"] = STAND_IN_NOTES["ssd_state_passing"]
STAND_IN_NOTES["moe_permute_bwd"] = STAND_IN_NOTES["moe_permute"]
STAND_IN_NOTES["moe_unpermute_bwd"] = STAND_IN_NOTES["moe_unpermute"]


def check_operator(op):
    if op not in BUILDERS:
        raise UserError("the profiler cannot run operator '%s'%s" % (op, closest_hint(op, sorted(BUILDERS))))


def _unsupported_dtype(error):
    text = str(error)
    return "not implemented for" in text or "Unsupported" in text or "unsupported" in text


def build(spec, context):
    """(callable, dtype used, note). A dtype torch cannot run on this device falls back to fp32
    with a note. fp8 GEMMs run with torch._scaled_mm where torch and the GPU have it; elsewhere
    NotMeasurable says why, since a bf16 time would be a wrong fp8 one."""
    check_operator(spec.op)
    builder = BUILDERS[spec.op]
    wanted = spec.dtype
    note = STAND_IN_NOTES.get(spec.op)
    if spec.dims.get("window"):
        raise NotMeasurable("sliding-window attention needs a windowed fused kernel (TransformerEngine's "
                            "window_size), which torch's scaled_dot_product_attention does not run; the "
                            "analytical model prices it")
    if wanted in ("mxfp8", "nvfp4"):
        raise NotMeasurable("%s GEMMs need TransformerEngine's block-scaled kernels (Blackwell), which the profiler "
                            "does not run; the analytical model prices them" % wanted)
    if wanted == "fp8":
        if spec.op != "gemm":
            raise NotMeasurable("distsim runs only linear-layer GEMMs in fp8, not '%s'" % spec.op)
        run = build_fp8_gemm(spec.dims, context)
        run()
        return run, "fp8", None
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

