import unittest

import support  # noqa: F401
from distsim_profiler import UserError
from distsim_profiler.keys import WorkItem, WorkList, parse_key
from distsim_profiler.profile import choose_hardware, embedding_facts, merge_results
from distsim_profiler.runner import describe_times
from distsim_profiler.stats import median_index


class HardwareTest(unittest.TestCase):
    def test_defaults_to_the_work_list_gpu(self):
        self.assertEqual(choose_hardware(None, ["local-cpu"]), "local-cpu")

    def test_several_gpus_need_a_choice(self):
        with self.assertRaises(UserError) as caught:
            choose_hardware(None, ["a40", "h100-sxm"])
        self.assertEqual(str(caught.exception),
                         "the work lists are for several gpus (a40, h100-sxm); "
                         "profile one at a time or pass --hardware")

    def test_name_with_a_space_is_refused(self):
        with self.assertRaises(UserError) as caught:
            choose_hardware("my gpu", [])
        self.assertIn("without spaces or quotes", str(caught.exception))


class EmbeddingFactsTest(unittest.TestCase):
    def test_vocabulary_rows_and_reads(self):
        # embedding rows=4 cols=8 bf16 moving 192 bytes = 4·8·2 · (2 reads + 1 write): a learned
        # position table is added; the table's rows come from cross_entropy's cols (512).
        items = [WorkItem(parse_key("embedding rows=4 cols=8 bf16"), 192.0),
                 WorkItem(parse_key("cross_entropy rows=4 cols=512 bf16"), 0.0)]
        rows, reads = embedding_facts(WorkList(items, []))
        self.assertEqual((rows, reads), (512, {"embedding rows=4 cols=8 bf16": 2}))


class MergeTest(unittest.TestCase):
    def test_records_in_order_with_point_to_point_minimum_and_skips(self):
        payload = {"keys": ["gelu rows=1 cols=2 bf16", "send_recv bytes=8 group=2 intra",
                            "all_reduce bytes=8 group=4 intra"],
                   "kinds": ["compute", "communication", "communication"]}
        rank0 = {"gelu rows=1 cols=2 bf16": {"samples": [2000, 4000, 3000], "note": None},
                 "send_recv bytes=8 group=2 intra": {"samples": [5000, 1000]},
                 "all_reduce bytes=8 group=4 intra": {"skipped": "needs 4 ranks on one node (this launch has 2)"}}
        rank1 = {"send_recv bytes=8 group=2 intra": {"samples": [2000, 3000]},
                 "all_reduce bytes=8 group=4 intra": {"skipped": "needs 4 ranks on one node (this launch has 2)"}}
        records, skipped, notes = merge_results(payload, [rank0, rank1])
        # send/recv per sample: min(5000, 2000) = 2000, min(1000, 3000) = 1000 → median 1.5 µs.
        self.assertEqual([(r["key"], r["median_us"]) for r in records],
                         [("gelu rows=1 cols=2 bf16", 3.0), ("send_recv bytes=8 group=2 intra", 1.5)])
        self.assertEqual(skipped, [("all_reduce bytes=8 group=4 intra",
                                    "needs 4 ranks on one node (this launch has 2)")])
        self.assertEqual(notes, [])


class RunnerHelpersTest(unittest.TestCase):
    def test_median_index_takes_the_lower_middle(self):
        self.assertEqual(median_index([30.0, 10.0, 20.0]), 2)
        self.assertEqual(median_index([4.0, 1.0, 3.0, 2.0]), 3)

    def test_spread_line(self):
        # (12 − 8) / 10 = 40 %.
        self.assertEqual(describe_times([10000.0, 8000.0, 12000.0]),
                         "iteration times 10.000, 8.000, 12.000 ms; "
                         "median 10.000 ms, spread (max - min) / median 40.0 %")


if __name__ == "__main__":
    unittest.main()
