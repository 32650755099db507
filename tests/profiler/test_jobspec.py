import os
import tempfile
import unittest

import support
from distsim_profiler import UserError
from distsim_profiler.jobspec import (RankCoord, build_job, padded_vocab, parse_strategy, rank_of, read_model,
                                      schedule_steps, stage_layers)


class StrategyTest(unittest.TestCase):
    def test_paper_notation(self):
        self.assertEqual(parse_strategy("2M1P1D"), (2, 1, 1))
        self.assertEqual(parse_strategy("4M8P16D"), (4, 8, 16))

    def test_bad_notation(self):
        for text in ("2M1P", "2m1p1d", "0M1P1D", ""):
            with self.assertRaises(UserError) as caught:
                parse_strategy(text)
            self.assertIn("expected the paper's notation <tp>M<pp>P<dp>D, like 2M1P1D", str(caught.exception))

    def test_megatron_rank_order(self):
        # rank = tp + T·(dp + D·pp) with T = D = P = 2: rank 5 = 1 + 2·(0 + 2·1) is tp 1, dp 0, pp 1.
        job = build_job(read_model(os.path.join(support.FIXTURES, "micro_gpt.yaml")), "2M2P2D", 1, 2, "1f1b", "fp32")
        coord = RankCoord(job, 5)
        self.assertEqual((coord.tp, coord.dp, coord.pp), (1, 0, 1))
        self.assertEqual(rank_of(job, 1, 0, 1), 5)


class ShapeTest(unittest.TestCase):
    def test_vocabulary_padding(self):
        # Megatron pads to a multiple of 128·tp: 1000 → 1024 at tp 2 (multiple of 256), 50257 → 50304 at tp 1.
        self.assertEqual(padded_vocab(1000, 2), 1024)
        self.assertEqual(padded_vocab(50257, 1), 50304)

    def test_first_stages_take_the_remainder(self):
        # 5 layers on 2 stages: 3 then 2.
        self.assertEqual(stage_layers(5, 2, 0), (0, 3))
        self.assertEqual(stage_layers(5, 2, 1), (3, 2))


class ScheduleTest(unittest.TestCase):
    def test_gpipe_runs_all_forwards_first(self):
        self.assertEqual(schedule_steps("gpipe", 0, 2, 2), [("fwd", 0), ("fwd", 1), ("bwd", 0), ("bwd", 1)])

    def test_1f1b_first_of_two_stages_warms_up_with_one_forward(self):
        # Warm-up p − s − 1 = 1 forward, then forward/backward pairs, then the last backward.
        self.assertEqual(schedule_steps("1f1b", 0, 2, 4), [("fwd", 0), ("fwd", 1), ("bwd", 0), ("fwd", 2), ("bwd", 1),
                                                          ("fwd", 3), ("bwd", 2), ("bwd", 3)])

    def test_1f1b_last_stage_alternates(self):
        self.assertEqual(schedule_steps("1f1b", 1, 2, 2), [("fwd", 0), ("bwd", 0), ("fwd", 1), ("bwd", 1)])


class ModelFileTest(unittest.TestCase):
    def write(self, text):
        handle = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        handle.write(text)
        handle.close()
        self.addCleanup(os.unlink, handle.name)
        return handle.name

    def test_fixture(self):
        model = read_model(os.path.join(support.FIXTURES, "tiny_gpt_cpu.yaml"))
        # ffn defaults to 4h = 1024 and embeddings are tied, as in distsim's model reader.
        self.assertEqual((model.name, model.num_layers, model.hidden_size, model.num_heads, model.head_dim,
                          model.ffn_hidden_size, model.vocab_size, model.seq_length, model.tie_embeddings),
                         ("tiny-gpt-cpu", 4, 256, 4, 64, 1024, 1024, 128, True))

    def test_unknown_key_names_the_closest(self):
        path = self.write("num_layers: 2\nhidden_size: 64\nnum_attention_heads: 4\nvocab_size: 8\nseq_lenght: 4\n")
        with self.assertRaises(UserError) as caught:
            read_model(path)
        self.assertEqual(str(caught.exception),
                         "--model '%s': unknown key 'seq_lenght' (did you mean 'seq_length'?)" % path)

    def test_refuses_what_is_not_a_gpt(self):
        path = self.write("num_layers: 2\nhidden_size: 64\nnum_attention_heads: 4\nvocab_size: 8\nseq_length: 4\n"
                          "norm: rmsnorm\n")
        with self.assertRaises(UserError) as caught:
            read_model(path)
        self.assertIn("norm 'rmsnorm' is not supported by the runner, which builds a GPT", str(caught.exception))

    def test_missing_key(self):
        path = self.write("num_layers: 2\nhidden_size: 64\n")
        with self.assertRaises(UserError) as caught:
            read_model(path)
        self.assertEqual(str(caught.exception), "--model '%s': missing key 'num_attention_heads'" % path)


class JobTest(unittest.TestCase):
    def setUp(self):
        self.model = read_model(os.path.join(support.FIXTURES, "tiny_gpt_cpu.yaml"))

    def test_micro_batches_per_replica(self):
        # 16 sequences in micro-batches of 2 over 2 replicas: 4 per replica.
        self.assertEqual(build_job(self.model, "1M1P2D", 2, 16, "1f1b", "bf16").num_microbatches, 4)

    def test_global_batch_must_divide(self):
        with self.assertRaises(UserError) as caught:
            build_job(self.model, "1M1P2D", 2, 6, "1f1b", "bf16")
        self.assertEqual(str(caught.exception), "--global-batch-size 6 is not a multiple of micro-batch size x dp = 4")

    def test_unknown_schedule(self):
        with self.assertRaises(UserError) as caught:
            build_job(self.model, "1M2P1D", 2, 8, "gpip", "bf16")
        self.assertEqual(str(caught.exception), "--schedule 'gpip': unknown schedule (did you mean 'gpipe'?)")

    def test_tp_must_divide_the_heads(self):
        with self.assertRaises(UserError) as caught:
            build_job(self.model, "8M1P1D", 2, 8, "1f1b", "bf16")
        self.assertIn("tp 8 must divide num_attention_heads 4", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
