import math
import unittest

import support

if support.HAVE_TORCH:
    import torch
    from distsim_profiler import UserError, kernels, ops
    from distsim_profiler.keys import COMPUTE_DIMS, parse_key
    from distsim_profiler.parallel import ColumnParallelLinear, ParallelContext, RowParallelLinear

# One small key per operator, in the form distsim writes (src/events/event.cpp).
SMALL_KEYS = [
    "gemm m=8 n=4 k=16 {dtype}",
    "batched_gemm batch=3 m=8 n=4 k=16 {dtype}",
    "flash_attention_fwd b=1 heads=4 kv_heads=2 sq=8 skv=8 d=4 causal=1 {dtype}",
    "flash_attention_bwd b=1 heads=4 kv_heads=2 sq=8 skv=8 d=4 causal=1 {dtype}",
    "adam_step params=64 fp32",
] + ["%s%s rows=8 cols=16 {dtype}" % (op, suffix)
     for op in ("layernorm", "rmsnorm", "rope", "bias_dropout_add", "swiglu", "gelu", "embedding", "cross_entropy",
                "scale_mask_softmax", "attention_dropout")
     for suffix in ("", "_bwd")] + [
    "grouped_gemm groups=3 m=8 n=4 k=16 {dtype}",
    "moe_router rows=8 cols=16 top_k=2 {dtype}",
    "moe_router_bwd rows=8 cols=16 top_k=2 {dtype}",
    "mla_attention_fwd b=1 heads=2 sq=8 skv=8 dqk=12 dv=8 causal=1 {dtype}",
    "mla_attention_bwd b=1 heads=2 sq=8 skv=8 dqk=12 dv=8 causal=1 {dtype}",
] + ["%s%s rows=8 cols=16 {dtype}" % (op, suffix)
      for op in ("moe_permute", "moe_unpermute", "causal_conv1d", "rmsnorm_gated", "ssd_state_passing")
      for suffix in ("", "_bwd")]


@unittest.skipUnless(support.HAVE_TORCH, "needs torch")
class DispatchTest(unittest.TestCase):
    def context(self):
        return ops.BuildContext(torch.device("cpu"))

    def test_every_operator_has_a_builder(self):
        self.assertEqual(set(ops.BUILDERS), set(COMPUTE_DIMS))

    def test_block_formats_are_not_measured_and_say_why(self):
        for key in ("mxfp8_quantize rows=8 cols=32 bf16", "nvfp4_quantize rows=8 cols=32 bf16",
                    "gemm m=8 n=4 k=32 nvfp4", "gemm m=8 n=4 k=32 mxfp8"):
            with self.subTest(key=key):
                with self.assertRaises(ops.NotMeasurable) as caught:
                    ops.build(parse_key(key), self.context())
                self.assertIn("the analytical model prices", str(caught.exception))

    def test_every_operator_runs_in_fp32_and_bf16(self):
        for template in SMALL_KEYS:
            for dtype in ("fp32", "bf16"):
                with self.subTest(key=template.format(dtype=dtype)):
                    run, used, _ = ops.build(parse_key(template.format(dtype=dtype)), self.context())
                    run()
                    self.assertIn(used, ("fp32", "bf16"))

    def test_scale_mask_softmax_hides_later_keys(self):
        # Two rows of 2 scores each for one head, seq 2: row 0 (query 0) sees only key 0, so its
        # probabilities are [1, 0]; row 1 sees both equal scores: [0.5, 0.5].
        probabilities = kernels.scale_mask_softmax(torch.zeros(2, 2))
        torch.testing.assert_close(probabilities, torch.tensor([[1.0, 0.0], [0.5, 0.5]]))

    def test_batched_gemm_multiplies_each_matrix(self):
        run, _, _ = ops.build(parse_key("batched_gemm batch=3 m=8 n=4 k=16 fp32"), self.context())
        self.assertEqual(tuple(run().shape), (3, 8, 4))

    def test_fp16_gemm_falls_back_with_a_note_when_the_cpu_lacks_it(self):
        run, used, note = ops.build(parse_key("gemm m=8 n=4 k=16 fp16"), self.context())
        run()
        if used == "fp32":  # torch 1.13 on CPU: "addmm_impl_cpu_" not implemented for 'Half'
            self.assertIn("fp16 is not supported on cpu", note)

    def test_fp8_gemm_is_skipped_where_torch_has_no_fp8_matmul(self):
        # On CPU, whatever the torch version, there are no fp8 tensor cores; Debian's torch 1.13
        # has no fp8 type at all. A bf16 time under an fp8 key would be wrong, so it is not measured.
        reason = ops.fp8_gemm_unavailable(torch.device("cpu"))
        if ops.FP8 is None:
            self.assertEqual(reason, "torch %s has no fp8 matmul (torch.float8_e4m3fn and torch._scaled_mm need "
                                     "torch 2.1 or later)" % torch.__version__)
        else:
            self.assertIn("this run is on cpu", reason)
        with self.assertRaises(ops.NotMeasurable) as caught:
            ops.build(parse_key("gemm m=8 n=4 k=16 fp8"), self.context())
        self.assertEqual(str(caught.exception), reason)

    def test_only_gemms_run_in_fp8(self):
        with self.assertRaises(ops.NotMeasurable) as caught:
            ops.build(parse_key("gelu rows=8 cols=16 fp8"), self.context())
        self.assertEqual(str(caught.exception), "distsim runs only linear-layer GEMMs in fp8, not 'gelu'")

    def test_fp8_quantization_kernels_run_in_bf16(self):
        # The cast writes a 1-byte copy [8 x 16] and its transpose [16 x 8]; the fused norms are timed
        # as the bf16 norm, which moves the same bytes.
        run, used, _ = ops.build(parse_key("fp8_cast_transpose rows=8 cols=16 bf16"), self.context())
        copy, transposed = run()
        self.assertEqual((used, copy.element_size(), tuple(transposed.shape)), ("bf16", 1, (16, 8)))
        for op in ("layernorm_fp8", "rmsnorm_fp8"):
            _, used, note = ops.build(parse_key("%s rows=8 cols=16 bf16" % op), self.context())
            self.assertEqual((used, note), ("bf16", "measured as the bf16 %s, which moves the same bytes" % op[:-4]))

    def test_unknown_operator(self):
        with self.assertRaises(UserError) as caught:
            ops.check_operator("gelu_bwdd")
        self.assertEqual(str(caught.exception),
                         "the profiler cannot run operator 'gelu_bwdd' (did you mean 'gelu_bwd'?)")


@unittest.skipUnless(support.HAVE_TORCH, "needs torch")
class KernelTest(unittest.TestCase):
    def naive_attention(self, q, k, v, causal):
        heads = q.shape[1]
        k = k.repeat_interleave(heads // k.shape[1], dim=1)
        v = v.repeat_interleave(heads // v.shape[1], dim=1)
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        if causal:
            scores = scores.masked_fill(torch.ones(q.shape[2], k.shape[2], dtype=torch.bool).triu(1), float("-inf"))
        return torch.softmax(scores, dim=-1) @ v

    def check_against_autograd(self, seed, batch, heads, kv_heads, seq, qk_dim, v_dim):
        """The recomputing forward and backward on causal attention give the plain formula's output
        and autograd's gradients of it."""
        generator = torch.Generator().manual_seed(seed)

        def tensor(*shape, grad=True):
            return torch.randn(*shape, dtype=torch.float64, generator=generator, requires_grad=grad)
        q = tensor(batch, heads, seq, qk_dim)
        k = tensor(batch, kv_heads, seq, qk_dim)
        v = tensor(batch, kv_heads, seq, v_dim)
        grad_out = tensor(batch, heads, seq, v_dim, grad=False)
        out = self.naive_attention(q, k, v, True)
        expected = torch.autograd.grad(out, (q, k, v), grad_out)
        got = kernels.attention_backward(q.detach(), k.detach(), v.detach(), out.detach(), grad_out, True)
        for want, have in zip(expected, got):
            torch.testing.assert_close(have, want)
        torch.testing.assert_close(kernels.attention_forward(q, k, v, True), out)

    def test_flash_style_backward_matches_autograd(self):
        # Grouped-query: 4 query heads on 2 KV heads.
        self.check_against_autograd(0, batch=2, heads=4, kv_heads=2, seq=6, qk_dim=8, v_dim=8)

    def test_flash_style_backward_takes_narrower_value_heads(self):
        # Latent attention: query/key heads of 12, value heads of 8, no grouping.
        self.check_against_autograd(1, batch=1, heads=2, kv_heads=2, seq=5, qk_dim=12, v_dim=8)

    def test_router_keeps_the_top_k_softmax_probabilities(self):
        # Logits 0, ln 3, 0, ln 4: softmax 1/9, 3/9, 1/9, 4/9; the top 2 are experts 3 and 1.
        logits = torch.tensor([[0.0, math.log(3.0), 0.0, math.log(4.0)]], dtype=torch.float64)
        probs, routing_map = kernels.moe_router(logits, 2)
        torch.testing.assert_close(probs, torch.tensor([[0.0, 3 / 9, 0.0, 4 / 9]], dtype=torch.float64))
        self.assertEqual(routing_map.tolist(), [[False, True, False, True]])

    def test_permute_gathers_and_unpermute_scatters_back_weighted(self):
        # Order [2, 0, 1]: the permuted rows are tokens 2, 0, 1. Unpermuting rows 3, 1, 2 with
        # probabilities 0.5, 1, 2 puts 0.5·3 at token 2, 1·1 at token 0 and 2·2 at token 1.
        tokens = torch.tensor([[1.0], [2.0], [3.0]])
        order = torch.tensor([2, 0, 1])
        permuted = kernels.moe_permute(tokens, order)
        self.assertEqual(permuted.tolist(), [[3.0], [1.0], [2.0]])
        back = kernels.moe_unpermute(permuted, torch.tensor([0.5, 1.0, 2.0]), order)
        self.assertEqual(back.tolist(), [[1.0], [4.0], [1.5]])

    def test_grouped_gemm_multiplies_each_expert_by_its_own_weights(self):
        run, used, note = ops.build(parse_key("grouped_gemm groups=3 m=8 n=4 k=16 fp32"), self.context())
        self.assertEqual((tuple(run().shape), used), ((3, 8, 4), "fp32"))
        self.assertEqual(note, "measured as one strided batched GEMM (torch.bmm) of the equal-sized groups")
        a, b = torch.randn(2, 3, 5), torch.randn(2, 5, 4)
        torch.testing.assert_close(kernels.grouped_gemm(a, b)[1], a[1] @ b[1])

    def context(self):
        return ops.BuildContext(torch.device("cpu"))

    def test_rope_with_zero_angle_is_the_identity(self):
        x = torch.randn(3, 16)
        cos, sin = torch.ones(3, 1, 16), torch.zeros(3, 1, 16)
        torch.testing.assert_close(kernels.rope(x, cos, sin), x)

    def test_rotary_width_divides_the_columns(self):
        self.assertEqual([kernels.rotary_dim(c) for c in (2560, 96, 6)], [128, 32, 2])

    def test_parallel_linears_at_tp_1_are_plain_matmuls(self):
        parallel = ParallelContext(type("Job", (), {"tp": 1})(), None, None, None)
        x = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
        w = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        b = torch.randn(4, dtype=torch.float64, requires_grad=True)
        torch.autograd.gradcheck(lambda x, w, b: ColumnParallelLinear.apply(x, w, b, parallel), (x, w, b))
        torch.autograd.gradcheck(lambda x, w: RowParallelLinear.apply(x, w, parallel), (x, w))


if __name__ == "__main__":
    unittest.main()
