"""The operators distsim's events name, written once and used by both the profiler (which times
them on an event's shapes) and the runner (which trains with them), so that a profiled event is
the very computation the runner performs."""

import sys

import torch
import torch.nn.functional as F

try:  # torch 2.3 or later: choose the SDPA backend explicitly
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    SDPBackend = sdpa_kernel = None

HIDDEN_DROPOUT = 0.1   # Megatron-LM's --hidden-dropout default
ATTENTION_DROPOUT = 0.1   # Megatron-LM's --attention-dropout default
NORM_EPS = 1e-5

_causal_masks = {}


def causal_mask(seq_q, seq_kv, device):
    """True above the diagonal: query i may not see key j > i (cached per shape)."""
    key = (seq_q, seq_kv, str(device))
    if key not in _causal_masks:
        _causal_masks[key] = torch.ones(seq_q, seq_kv, dtype=torch.bool, device=device).triu(1)
    return _causal_masks[key]


def _expand_kv(tensor, heads):
    """Grouped-query attention: each key/value head serves heads / kv_heads query heads."""
    groups = heads // tensor.shape[1]
    return tensor if groups == 1 else tensor.repeat_interleave(groups, dim=1)


def _probabilities(q, k, causal):
    scale = q.shape[-1] ** -0.5
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if causal:
        scores = scores.masked_fill(causal_mask(q.shape[-2], k.shape[-2], q.device), float("-inf"))
    return torch.softmax(scores, dim=-1), scale


def attention_forward(q, k, v, causal):
    """softmax(q kᵀ / √d) v on [batch, heads, seq, head_dim] tensors. FlashAttention's fused
    kernel does not exist on CPU in torch 1.13, so the score matrix is materialized."""
    heads = q.shape[1]
    probabilities, _ = _probabilities(q, _expand_kv(k, heads), causal)
    return torch.matmul(probabilities, _expand_kv(v, heads))


def attention_backward(q, k, v, out, grad_out, causal):
    """FlashAttention's backward (Dao et al., NeurIPS'22, Alg. 4): recompute the probabilities
    from q and k, then dV = Pᵀ dO, dP = dO Vᵀ, dS = P ∘ (dP − rowsum(dO ∘ O)), dQ = dS K, dK = dSᵀ Q."""
    heads = q.shape[1]
    k_full, v_full = _expand_kv(k, heads), _expand_kv(v, heads)
    probabilities, scale = _probabilities(q, k_full, causal)
    grad_v = torch.matmul(probabilities.transpose(-1, -2), grad_out)
    grad_p = torch.matmul(grad_out, v_full.transpose(-1, -2))
    row_dot = (grad_out * out).sum(dim=-1, keepdim=True)
    grad_s = probabilities * (grad_p - row_dot)
    grad_q = torch.matmul(grad_s, k_full) * scale
    grad_k = torch.matmul(grad_s.transpose(-1, -2), q) * scale
    groups = heads // k.shape[1]
    if groups > 1:
        grad_k = grad_k.unflatten(1, (k.shape[1], groups)).sum(dim=2)
        grad_v = grad_v.unflatten(1, (k.shape[1], groups)).sum(dim=2)
    return grad_q, grad_k, grad_v


# Whether SDPA's flash backend takes grouped-query k/v as they are (enable_gqa, torch 2.5 or later);
# cleared at the first refusal.
_flash_gqa = {"native": True}


def has_fused_attention(device):
    """FlashAttention-2 through torch's scaled_dot_product_attention: CUDA and torch 2.3 or later."""
    return device.type == "cuda" and sdpa_kernel is not None


def fused_attention(q, k, v, causal):
    """FlashAttention-2 (Dao 2023) forward through SDPA's flash backend, whose autograd backward
    is FlashAttention's backward: the fused kernels Megatron-LM's attention runs on a GPU. A
    grouped-query k/v is passed as it is (enable_gqa), without repeating its heads."""
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        if k.shape[1] == q.shape[1]:
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        if _flash_gqa["native"]:
            try:
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
            except (RuntimeError, TypeError) as error:
                _flash_gqa["native"] = False
                sys.stderr.write("note: the flash backend refused grouped-query k/v (%s); repeating the k/v heads "
                                 "inside the attention from now on\n" % str(error).splitlines()[0])
        heads = q.shape[1]
        return F.scaled_dot_product_attention(q, _expand_kv(k, heads), _expand_kv(v, heads), is_causal=causal)


def fused_latent_attention(q, k, v, causal):
    """Latent attention's fused core, whose value heads are narrower than its query/key heads
    (TransformerEngine runs it with cuDNN's fused attention): SDPA limited to its fused backends,
    of which those that take such heads run it; never the materializing math backend."""
    fused = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
    if hasattr(SDPBackend, "CUDNN_ATTENTION"):
        fused.insert(0, SDPBackend.CUDNN_ATTENTION)
    with sdpa_kernel(fused):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)


def attention(q, k, v, causal):
    """The training step's attention core: fused on a GPU, the recomputing CoreAttention elsewhere."""
    if has_fused_attention(q.device):
        return fused_attention(q, k, v, causal)
    return CoreAttention.apply(q, k, v, causal)


class CoreAttention(torch.autograd.Function):
    """Attention whose backward recomputes the probabilities, as FlashAttention does: the
    runner's attention therefore runs exactly the profiler's flash_attention_fwd/_bwd."""

    @staticmethod
    def forward(ctx, q, k, v, causal):
        out = attention_forward(q, k, v, causal)
        ctx.save_for_backward(q, k, v, out)
        ctx.causal = causal
        return out

    @staticmethod
    def backward(ctx, grad_out):
        q, k, v, out = ctx.saved_tensors
        grad_q, grad_k, grad_v = attention_backward(q, k, v, out, grad_out.contiguous(), ctx.causal)
        return grad_q, grad_k, grad_v, None


def layer_norm(x, weight, bias):
    return F.layer_norm(x, (x.shape[-1],), weight, bias, NORM_EPS)


def rms_norm(x, weight):
    """RMSNorm (Zhang and Sennrich, NeurIPS'19), accumulated in fp32 as fused kernels do: torch's
    own kernel on a GPU where torch has one (2.4 or later), else written out."""
    if x.is_cuda and hasattr(F, "rms_norm"):
        return F.rms_norm(x, (x.shape[-1],), weight, NORM_EPS)
    xf = x.float()
    normalized = xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + NORM_EPS)
    return normalized.to(x.dtype) * weight


def gelu(x):
    return F.gelu(x)


def swiglu(x):
    """SwiGLU (Shazeer 2020) on the concatenated [gate, up] projection: silu(gate) · up."""
    gate, up = x.chunk(2, dim=-1)
    return F.silu(gate) * up


def geglu(x):
    """GeGLU (Shazeer 2020) on the concatenated [gate, up] projection: gelu(gate) · up."""
    gate, up = x.chunk(2, dim=-1)
    return F.gelu(gate) * up


def relu(x):
    return F.relu(x)


def squared_relu(x):
    """Squared ReLU (So et al. 2021, Primer), the activation of Nemotron-4's MLP."""
    return torch.square(F.relu(x))


def scale_mask_softmax(scores):
    """Megatron-LM's fused scale + causal mask + softmax of the unfused attention core, on scores
    flattened to [batch·heads·seq_q, seq_kv]: row r is query position r mod seq_kv."""
    rows, cols = scores.shape
    positions = torch.arange(rows, device=scores.device).remainder(cols).unsqueeze(1)
    masked = torch.arange(cols, device=scores.device).unsqueeze(0) > positions
    return torch.softmax((scores * cols ** -0.5).masked_fill(masked, float("-inf")), dim=-1)


def attention_dropout(probabilities, dropout=ATTENTION_DROPOUT):
    """Dropout on the attention probabilities (unfused core)."""
    return F.dropout(probabilities, p=dropout, training=True)


def bias_dropout_add(x, bias, residual, dropout=HIDDEN_DROPOUT):
    """Megatron's fused bias + dropout + residual add after each block."""
    return residual + F.dropout(x + bias, p=dropout, training=True)


def rotary_dim(cols):
    """The rotated width for a rope event: the key holds only the q+k width, so the rotation
    runs over the largest common head size that divides it."""
    for width in (128, 64, 32, 16, 8, 4, 2):
        if cols % width == 0:
            return width
    return 1


def rope(x, cos, sin):
    """Rotary embedding (Su et al. 2021) on [tokens, cols] viewed as [tokens, cols / r, r], with
    per-token cos/sin tables of width r broadcast over the heads."""
    width = cos.shape[-1]
    view = x.unflatten(-1, (x.shape[-1] // width, width))
    first, second = view.chunk(2, dim=-1)
    rotated = torch.cat((-second, first), dim=-1)
    return (view * cos + rotated * sin).flatten(-2)


MAMBA_CONV_TAPS = 4  # Nemotron-H's conv_kernel


def causal_conv1d(x, weight, bias):
    """Mamba-2's causal depthwise convolution with SiLU over a [tokens, channels] input (what
    causal_conv1d_fn computes): each channel sees itself and the weight's taps - 1 tokens before."""
    channels_first = x.t().unsqueeze(0)
    out = F.conv1d(channels_first, weight.unsqueeze(1), bias, padding=weight.shape[1] - 1, groups=x.shape[1])
    return F.silu(out[..., : x.shape[0]]).squeeze(0).t()


def rmsnorm_gated(x, z, weight):
    """Mamba-2's gate and norm: RMSNorm of x · silu(z), accumulated in fp32 (mamba_ssm's
    layernorm_gated with norm_before_gate False; over whole rows here, which moves the bytes of its
    per-group norm)."""
    gated = x.float() * F.silu(z.float())
    normalized = gated * torch.rsqrt(gated.pow(2).mean(dim=-1, keepdim=True) + NORM_EPS)
    return normalized.to(x.dtype) * weight


def ssd_state_passing(states, decay):
    """The SSD scan's recurrence between chunks: each fp32 chunk state decayed and added into the
    next (mamba_ssm's _state_passing_fwd; one step over every row here, which moves the same bytes)."""
    previous = torch.roll(states, 1, dims=0)
    return states + decay.unsqueeze(1) * previous


def embedding(ids, table):
    return F.embedding(ids, table)


def cross_entropy_loss(logits, targets):
    """Cross-entropy accumulated in fp32, as Megatron's (vocab-parallel) loss does."""
    return F.cross_entropy(logits.float(), targets)


def moe_router(logits, top_k):
    """Megatron-Core's router after the gating GEMM (moe_utils.py topk_softmax_with_capacity,
    dropless, softmax scoring): fp32 softmax over the experts, the top_k of each token, and the
    dense [tokens, experts] probabilities and boolean routing map the dispatcher reads. Sigmoid
    scoring (DeepSeek-V3) reads and writes the same tensors."""
    scores = torch.softmax(logits, dim=-1, dtype=torch.float32)
    probs, chosen = torch.topk(scores, top_k, dim=-1)
    routing_probs = torch.zeros_like(logits).scatter(1, chosen, probs.type_as(logits))
    routing_map = torch.zeros_like(logits, dtype=torch.int32).scatter(1, chosen, 1).bool()
    return routing_probs, routing_map


def moe_permute(tokens, order):
    """The dispatcher's permutation (moe_utils.py permute): token copies gathered into expert
    order with index_select; its backward adds them back by index."""
    return tokens.index_select(0, order)


def moe_unpermute(expert_outputs, probs, order):
    """The combine's unpermutation (moe_utils.py unpermute): expert outputs weighted by their
    router probabilities and added back into token order with scatter_add."""
    weighted = expert_outputs * probs.unsqueeze(-1)
    positions = order.unsqueeze(1).expand(-1, expert_outputs.shape[1])
    return torch.zeros_like(weighted).scatter_add(0, positions, weighted)


def grouped_gemm(inputs, weights):
    """The experts' GEMMs, one product per local expert with the same token count each
    ([groups, m, k] · [groups, k, n]), as one strided batched GEMM."""
    return torch.bmm(inputs, weights)


def new_adam(parameters, lr=1e-4):
    """On a GPU, torch's fused Adam: one kernel reads the parameter, gradient and both moments
    and writes them back, as Megatron's FusedAdam (Apex/TransformerEngine) does. Elsewhere the
    single-tensor loop (foreach=False), the same code path for one flat tensor on any torch."""
    parameters = list(parameters)
    if all(p.is_cuda for p in parameters) and int(torch.__version__.split(".")[0]) >= 2:
        return torch.optim.Adam(parameters, lr=lr, fused=True)
    return torch.optim.Adam(parameters, lr=lr, foreach=False)
