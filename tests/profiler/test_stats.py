import unittest

import support  # noqa: F401
from distsim_profiler.stats import median, pairwise_min, summarize_ns


class StatsTest(unittest.TestCase):
    def test_summary_of_three_samples(self):
        # 1000, 2000, 4000 ns: median 2000, mean 7000/3 = 2333.33, sample variance
        # ((-1333.33)² + (-333.33)² + 1666.67²) / 2 = 2333333.3, so stdev 1527.525 ns.
        summary = summarize_ns([4000, 1000, 2000])
        self.assertEqual(summary, {"median_us": 2.0, "mean_us": 2.333, "min_us": 1.0, "max_us": 4.0,
                                   "stdev_us": 1.528, "samples": 3})

    def test_median_of_an_even_count_is_the_midpoint(self):
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_one_sample_has_no_spread(self):
        self.assertEqual(summarize_ns([1500])["stdev_us"], 0.0)

    def test_a_zero_reading_becomes_one_nanosecond(self):
        # The importer refuses durations <= 0; a clock that read 0 ns is below its resolution.
        self.assertEqual(summarize_ns([0])["min_us"], 0.001)

    def test_point_to_point_keeps_the_faster_side_of_each_sample(self):
        send = [10, 50, 30]
        recv = [20, 40, 30]
        self.assertEqual(pairwise_min([send, recv]), [10, 40, 30])

    def test_sides_must_have_as_many_samples(self):
        with self.assertRaises(ValueError):
            pairwise_min([[1, 2], [1]])


if __name__ == "__main__":
    unittest.main()
