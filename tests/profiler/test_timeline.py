import unittest

import support  # noqa: F401
from distsim_profiler.timeline import Recorder, chrome_trace


class FakeClockRecorder(Recorder):
    """A recorder whose clock reads the times a test gives it, in nanoseconds."""

    def __init__(self, times):
        super().__init__()
        self.times = list(times)

    def now(self):
        return self.times.pop(0)


INFO = {"stage": 1, "tp_rank": 0, "dp_rank": 0}


class RecorderTest(unittest.TestCase):
    def test_a_blocking_collective_splits_the_pass(self):
        # Pass opens at 1000 ns, all-reduce runs 3000–5000, pass closes at 9000: compute 1000–3000,
        # tp_comm 3000–5000, compute 5000–9000.
        recorder = FakeClockRecorder([1000, 3000, 5000, 9000])
        recorder.begin_pass("forward", "fwd", 2)
        recorder.blocking("tp_comm", "tp all_reduce", lambda: None, extra={"bytes": 64})
        recorder.end_pass()
        self.assertEqual(recorder.activities, [
            ("compute", "forward", 1000, 3000, {"phase": "fwd", "mb": 2}),
            ("tp_comm", "tp all_reduce", 3000, 5000, {"phase": "fwd", "mb": 2, "bytes": 64}),
            ("compute", "forward", 5000, 9000, {"phase": "fwd", "mb": 2})])

    def test_an_async_collective_overlaps_compute_until_waited_for(self):
        # Launched at 2000, waited for from 6000 to 7000: compute runs on until 6000.
        recorder = FakeClockRecorder([0, 2000, 6000, 7000, 8000])
        recorder.begin_pass("backward", "bwd", 0)
        token = recorder.started("tp_comm", "tp all_reduce")
        recorder.finish(token, lambda: None)
        recorder.end_pass()
        self.assertEqual([(a[0], a[2], a[3]) for a in recorder.activities],
                         [("compute", 0, 6000), ("tp_comm", 2000, 7000), ("compute", 7000, 8000)])

    def test_trace_is_relative_to_the_iteration_start_in_microseconds(self):
        activities = [("pp_recv_prev", "recv activation", 1_501_000, 1_502_500, {"phase": "fwd", "mb": 0}),
                      ("compute", "forward", 1_502_500, 1_510_000, {"phase": "fwd", "mb": 0})]
        trace = chrome_trace(3, activities, 1_500_000, INFO)
        events = [e for e in trace["traceEvents"] if e["ph"] == "X"]
        self.assertEqual([(e["cat"], e["tid"], e["ts"], e["dur"]) for e in events],
                         [("pp_recv_prev", 3, 1.0, 1.5), ("compute", 0, 2.5, 7.5)])
        self.assertEqual(events[0]["args"], {"phase": "fwd", "mb": 0, "stage": 1})
        threads = {e["tid"]: e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"}
        self.assertEqual(threads, {0: "compute", 3: "pp_recv_prev"})
        self.assertIs(trace["distsim_runner"], INFO)


if __name__ == "__main__":
    unittest.main()
