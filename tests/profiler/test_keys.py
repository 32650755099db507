import json
import os
import tempfile
import unittest

import support  # noqa: F401  (puts tools/profiler on the path)
from distsim_profiler import UserError
from distsim_profiler.keys import COMPUTE_DIMS, parse_key, read_skip_keys, read_work_lists


class ParseKeyTest(unittest.TestCase):
    # Keys written by hand in the form of src/events/event.cpp (Event::key).
    def test_gemm(self):
        spec = parse_key("gemm m=256 n=768 k=256 bf16")
        self.assertEqual((spec.op, spec.dims, spec.dtype), ("gemm", {"m": 256, "n": 768, "k": 256}, "bf16"))
        self.assertFalse(spec.is_communication)

    def test_attention_dims_in_key_order(self):
        spec = parse_key("flash_attention_bwd b=2 heads=4 kv_heads=1 sq=128 skv=128 d=64 causal=1 fp16")
        self.assertEqual(list(spec.dims.items()), [("b", 2), ("heads", 4), ("kv_heads", 1), ("sq", 128),
                                                   ("skv", 128), ("d", 64), ("causal", 1)])

    def test_intra_node_collective_has_the_whole_group_per_node(self):
        spec = parse_key("all_reduce bytes=131072 group=2 intra")
        self.assertEqual((spec.bytes, spec.group, spec.intra, spec.per_node), (131072, 2, True, 2))
        self.assertTrue(spec.is_communication)

    def test_inter_node_point_to_point(self):
        spec = parse_key("send_recv bytes=4096 group=2 inter per_node=1")
        self.assertEqual((spec.op, spec.intra, spec.per_node), ("send_recv", False, 1))

    def test_ring_exchange_is_a_point_to_point_event_of_its_group(self):
        # Context parallelism's K/V rotation over 4 ranks, 2 per node (src/events/event_factory.cpp).
        spec = parse_key("ring_exchange bytes=4194304 group=4 inter per_node=2")
        self.assertEqual((spec.op, spec.group, spec.intra, spec.per_node), ("ring_exchange", 4, False, 2))
        self.assertTrue(spec.is_communication)

    def test_unknown_operator_names_the_closest(self):
        with self.assertRaises(UserError) as caught:
            parse_key("layernrom rows=1 cols=2 bf16")
        self.assertEqual(str(caught.exception),
                         "event key 'layernrom rows=1 cols=2 bf16': unknown operator 'layernrom' "
                         "(did you mean 'layernorm'?)")

    def test_unknown_dtype(self):
        with self.assertRaises(UserError) as caught:
            parse_key("gelu rows=1 cols=2 bf8")
        self.assertIn("unknown dtype 'bf8'", str(caught.exception))

    def test_wrong_field_name(self):
        with self.assertRaises(UserError) as caught:
            parse_key("gemm m=1 k=2 n=3 bf16")
        self.assertEqual(str(caught.exception), "event key 'gemm m=1 k=2 n=3 bf16': expected 'n=<n>', got 'k=2'")

    def test_missing_dtype(self):
        with self.assertRaises(UserError) as caught:
            parse_key("gemm m=1 n=2 k=3")
        self.assertEqual(str(caught.exception),
                         "event key 'gemm m=1 n=2 k=3': operator 'gemm' takes m= n= k= and a dtype")

    def test_leading_zero_is_not_how_distsim_writes_keys(self):
        with self.assertRaises(UserError) as caught:
            parse_key("gemm m=01 n=2 k=3 bf16")
        self.assertIn("expected 'gemm m=1 n=2 k=3 bf16'", str(caught.exception))

    def test_inter_needs_per_node(self):
        with self.assertRaises(UserError) as caught:
            parse_key("all_reduce bytes=8 group=4 inter")
        self.assertIn("takes bytes= group= and intra, or inter per_node=", str(caught.exception))

    def test_every_operator_of_distsim_is_known(self):
        # The operator list of src/profile/event_key.cpp (operator_shapes).
        expected = {"gemm", "batched_gemm", "flash_attention_fwd", "flash_attention_bwd", "adam_step"}
        for op in ("layernorm", "rmsnorm", "rope", "bias_dropout_add", "swiglu", "gelu", "embedding",
                   "cross_entropy", "scale_mask_softmax", "attention_dropout"):
            expected |= {op, op + "_bwd"}
        expected |= {"fp8_cast_transpose", "layernorm_fp8", "rmsnorm_fp8"}
        self.assertEqual(set(COMPUTE_DIMS), expected)


class WorkListTest(unittest.TestCase):
    def write(self, directory, name, document):
        path = os.path.join(directory, name)
        with open(path, "w") as handle:
            handle.write(document if isinstance(document, str) else json.dumps(document))
        return path

    def test_merges_lists_keeping_first_occurrence(self):
        with tempfile.TemporaryDirectory() as directory:
            first = self.write(directory, "a.json", {"job": {"gpu": "a40"}, "events": [
                {"key": "gelu rows=4 cols=8 bf16", "bytes_moved": 128.0, "source": "analytical"},
                {"key": "all_reduce bytes=64 group=2 intra"}]})
            second = self.write(directory, "b.json", {"job": {"gpu": "a40"}, "events": [
                {"key": "all_reduce bytes=64 group=2 intra"}, {"key": "gemm m=1 n=2 k=3 bf16"}]})
            work = read_work_lists([first, second])
        self.assertEqual([item.spec.key for item in work.items],
                         ["gelu rows=4 cols=8 bf16", "all_reduce bytes=64 group=2 intra", "gemm m=1 n=2 k=3 bf16"])
        self.assertEqual(work.items[0].bytes_moved, 128.0)
        self.assertEqual(work.gpu_names, ["a40"])

    def test_rejects_a_file_without_events(self):
        with tempfile.TemporaryDirectory() as directory:
            path = self.write(directory, "summary.json", {"iteration_time_s": 1})
            with self.assertRaises(UserError) as caught:
                read_work_lists([path])
        self.assertIn("expected the output of `distsim events --json`", str(caught.exception))

    def test_rejects_broken_json(self):
        with tempfile.TemporaryDirectory() as directory:
            path = self.write(directory, "broken.json", '{"events": [')
            with self.assertRaises(UserError) as caught:
                read_work_lists([path])
        self.assertIn("not JSON", str(caught.exception))

    def test_skip_keys_from_text_and_from_a_profile(self):
        with tempfile.TemporaryDirectory() as directory:
            text = self.write(directory, "keys.txt", "# measured last week\ngelu rows=4 cols=8 bf16\n\n")
            profile = self.write(directory, "profile.json", {"format": "distsim-profile", "events": [
                {"key": "gemm m=1 n=2 k=3 bf16", "median_us": 1.0}]})
            self.assertEqual(read_skip_keys(text), {"gelu rows=4 cols=8 bf16"})
            self.assertEqual(read_skip_keys(profile), {"gemm m=1 n=2 k=3 bf16"})

    def test_skip_keys_json_must_be_a_profile(self):
        with tempfile.TemporaryDirectory() as directory:
            path = self.write(directory, "other.json", {"events": []})
            with self.assertRaises(UserError) as caught:
                read_skip_keys(path)
        self.assertIn("must be a distsim profile", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
