"""Summary statistics of timed samples, in the interchange file's units."""

import math


def median_index(values):
    """Index of the median value (the lower one of an even count)."""
    ordered = sorted(range(len(values)), key=lambda i: (values[i], i))
    return ordered[(len(values) - 1) // 2]


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def summarize_ns(samples_ns):
    """median/mean/min/max/stdev in µs (three decimals, i.e. whole nanoseconds) and the count.

    The standard deviation is the sample one (n − 1); a single sample has none, reported as 0.
    Times are rounded up to at least 1 ns so that a record is never zero (the importer refuses
    non-positive durations).
    """
    if not samples_ns:
        raise ValueError("no samples")
    values = [max(1, int(value)) for value in samples_ns]
    count = len(values)
    mean = sum(values) / count
    variance = sum((value - mean) ** 2 for value in values) / (count - 1) if count > 1 else 0.0

    def us(ns):
        return round(ns / 1000.0, 3)

    return {"median_us": us(median(values)), "mean_us": us(mean), "min_us": us(min(values)),
            "max_us": us(max(values)), "stdev_us": us(math.sqrt(variance)), "samples": count}


def pairwise_min(sample_lists):
    """Per-sample minimum over the members of a communication (DistSim: a point-to-point
    transfer's time is the smaller of the SEND and RECV durations, which leaves out the wait
    for the later side to arrive)."""
    lengths = {len(samples) for samples in sample_lists}
    if len(lengths) != 1:
        raise ValueError("members took different numbers of samples: %s" % sorted(lengths))
    return [min(values) for values in zip(*sample_lists)]
