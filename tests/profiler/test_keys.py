import json
import os
import subprocess
import tempfile
import unittest

import support  # puts tools/profiler on the path
from distsim_profiler import UserError, keys
from distsim_profiler.keys import parse_key, read_skip_keys, read_work_lists


class ParseKeyTest(unittest.TestCase):
    # Keys written by hand in the form docs/profile_db.md gives (src/events/event_key.cpp writes them).
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

    def test_flag_is_zero_or_one(self):
        with self.assertRaises(UserError) as caught:
            parse_key("flash_attention_fwd b=1 heads=2 kv_heads=2 sq=8 skv=8 d=4 causal=2 bf16")
        self.assertEqual(str(caught.exception), "event key 'flash_attention_fwd b=1 heads=2 kv_heads=2 sq=8 skv=8 "
                                                "d=4 causal=2 bf16': causal must be 0 or 1")

    def test_group_of_one_is_refused(self):
        # A collective needs two ranks (the minimum the binary's table gives for group).
        with self.assertRaises(UserError) as caught:
            parse_key("all_reduce bytes=8 group=1 intra")
        self.assertEqual(str(caught.exception),
                         "event key 'all_reduce bytes=8 group=1 intra': operator 'all_reduce' needs group >= 2")


# The communication operators comm.build_operation runs (tools/profiler/distsim_profiler/comm.py).
COMMUNICATION_OPERATIONS = {"all_reduce", "all_gather", "reduce_scatter", "send_recv", "ring_exchange", "all_to_all"}


class OperatorTableTest(unittest.TestCase):
    """The profiler's view of distsim's operator table, read from the binary (DISTSIM_BIN)."""

    def test_table_comes_from_the_binary(self):
        # Written by hand from docs/profile_db.md: a GEMM's key carries m, n, k; attention's seven
        # dimensions; element sizes of the dtypes, the block formats' with their scale bytes: mxfp8
        # 1 + 1/32 (one E8M0 per 32 elements), nvfp4 1/2 + 1/16 (one E4M3 per 16).
        self.assertEqual(keys.COMPUTE_DIMS["gemm"], ("m", "n", "k"))
        self.assertEqual(keys.COMPUTE_DIMS["flash_attention_fwd"],
                         ("b", "heads", "kv_heads", "sq", "skv", "d", "causal"))
        self.assertEqual(set(keys.COLLECTIVES), {"all_reduce", "all_gather", "reduce_scatter", "all_to_all"})
        self.assertEqual(set(keys.POINT_TO_POINT), {"send_recv", "ring_exchange"})
        self.assertEqual(keys.DTYPE_BYTES, {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "mxfp8": 1.03125,
                                            "nvfp4": 0.5625})

    def test_a_missing_binary_is_named(self):
        with self.assertRaises(UserError) as caught:
            keys.load_operator_table("/nonexistent/distsim")
        self.assertEqual(str(caught.exception),
                         "DISTSIM_BIN '/nonexistent/distsim': cannot run it (No such file or directory)")

    def test_a_binary_that_is_not_distsim_is_refused(self):
        with self.assertRaises(UserError) as caught:
            keys.load_operator_table("/bin/echo")  # prints its arguments, not JSON
        self.assertIn("did not print JSON", str(caught.exception))
        self.assertIn("is /bin/echo a distsim binary?", str(caught.exception))

    def test_unset_variable_says_what_to_set(self):
        saved = os.environ.pop("DISTSIM_BIN", None)
        saved_path = os.environ.get("PATH")
        os.environ["PATH"] = ""
        try:
            with self.assertRaises(UserError) as caught:
                keys.distsim_binary()
        finally:
            os.environ["PATH"] = saved_path
            if saved is not None:
                os.environ["DISTSIM_BIN"] = saved
        self.assertIn("set DISTSIM_BIN to its path", str(caught.exception))

    def test_a_saved_table_reads_as_the_binary_prints_it(self):
        binary_table = keys.load_operator_table(keys.distsim_binary())
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "operators.json")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(subprocess.run([keys.distsim_binary(), "list", "operators", "--json"],
                                            stdout=subprocess.PIPE, text=True, check=True).stdout)
            saved_table = keys.load_operator_table_file(path)
        self.assertEqual(saved_table.operators, binary_table.operators)
        self.assertEqual(saved_table.dtype_bytes, binary_table.dtype_bytes)

    def test_a_saved_table_that_is_missing_or_not_json_is_named(self):
        with self.assertRaises(UserError) as caught:
            keys.load_operator_table_file("/nonexistent/operators.json")
        self.assertEqual(str(caught.exception),
                         "DISTSIM_OPERATORS '/nonexistent/operators.json': cannot read it (No such file or directory)")
        with tempfile.NamedTemporaryFile("w", suffix=".json") as handle:
            handle.write("{not json")
            handle.flush()
            with self.assertRaises(UserError) as caught:
                keys.load_operator_table_file(handle.name)
        self.assertIn("not JSON", str(caught.exception))
        self.assertIn("write it with `distsim list operators --json`", str(caught.exception))

    def test_every_operator_key_written_here_is_read_by_distsim(self):
        # One key per operator of the table, written by format_key with distinct values, imported
        # by `distsim db import` (which parses every key with the same table) and exported again.
        written = []
        for name, entry in keys.operator_table().operators.items():
            for intra in (True, False):
                spec = keys.EventSpec(None, name, dtype="fp16", bytes=4096, group=4, intra=intra,
                                      per_node=4 if intra else 2)
                fields = [field for field in entry["fields"] if field["type"] in ("dim", "flag")]
                spec.dims = {field["name"]: (1 if field["type"] == "flag" else 3 + 7 * index)
                             for index, field in enumerate(fields)}
                key = keys.format_key(spec)
                self.assertEqual(keys.parse_key(key).dims, spec.dims)
                if key not in written:
                    written.append(key)
        binary = keys.distsim_binary()
        with tempfile.TemporaryDirectory() as directory:
            profile = os.path.join(directory, "profile.json")
            with open(profile, "w") as handle:
                json.dump({"format": "distsim-profile", "version": 1, "hardware": "h100-sxm",
                           "profiler": "test_keys", "library": "none", "measured_at": "2026-11-23T08:00:00Z",
                           "device_seconds": 1,
                           "events": [{"key": key, "median_us": 1, "mean_us": 1, "min_us": 1, "max_us": 1,
                                       "stdev_us": 0, "samples": 1} for key in written]}, handle)
            database = os.path.join(directory, "profiles.sqlite")
            imported = subprocess.run([binary, "db", "import", profile, "--profile-db", database],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertEqual(imported.returncode, 0, imported.stderr)
            exported = os.path.join(directory, "exported.json")
            subprocess.run([binary, "db", "export", "--profile-db", database, "--output", exported], check=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            with open(exported) as handle:
                keys_back = [entry["key"] for entry in json.load(handle)["events"]]
        self.assertEqual(sorted(keys_back), sorted(written))

    @unittest.skipUnless(support.HAVE_TORCH, "ops.py needs torch")
    def test_the_profiler_measures_every_operator_of_the_table(self):
        from distsim_profiler import ops
        table = keys.operator_table()
        compute = {name for name in table.names() if not table.is_communication(name)}
        communication = {name for name in table.names() if table.is_communication(name)}
        self.assertEqual(set(ops.BUILDERS), compute)
        self.assertEqual(COMMUNICATION_OPERATIONS, communication)


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
