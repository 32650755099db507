"""Checks a profile file against the interchange format of docs/profiler.md and the work lists
it was made from: usage: check_profile.py PROFILE HARDWARE WORK_LIST..."""

import json
import re
import sys

TOP_FIELDS = ["format", "version", "hardware", "profiler", "library", "measured_at", "device_seconds", "events"]
EVENT_FIELDS = ["key", "median_us", "mean_us", "min_us", "max_us", "stdev_us", "samples"]


def fail(message):
    sys.exit("check_profile: " + message)


def main(profile_path, hardware, work_lists):
    profile = json.load(open(profile_path, encoding="utf-8"))
    if sorted(profile) != sorted(TOP_FIELDS):
        fail("top-level fields %s, expected %s" % (sorted(profile), sorted(TOP_FIELDS)))
    if profile["format"] != "distsim-profile" or profile["version"] != 1:
        fail("format/version %r/%r" % (profile["format"], profile["version"]))
    if profile["hardware"] != hardware:
        fail("hardware %r, expected %r" % (profile["hardware"], hardware))
    if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", profile["measured_at"]):
        fail("measured_at %r is not a UTC ISO-8601 time" % profile["measured_at"])
    if not profile["device_seconds"] > 0 or not profile["library"].startswith("torch "):
        fail("device_seconds %r / library %r" % (profile["device_seconds"], profile["library"]))
    wanted = {event["key"] for path in work_lists for event in json.load(open(path, encoding="utf-8"))["events"]}
    measured = [event["key"] for event in profile["events"]]
    if len(measured) != len(set(measured)):
        fail("a key is measured twice")
    if set(measured) != wanted:
        fail("measured keys differ from the work lists: missing %s, extra %s" % (
            sorted(wanted - set(measured)), sorted(set(measured) - wanted)))
    for event in profile["events"]:
        if sorted(event) != sorted(EVENT_FIELDS):
            fail("%s: fields %s" % (event["key"], sorted(event)))
        if not 0 < event["min_us"] <= event["median_us"] <= event["max_us"]:
            fail("%s: min <= median <= max does not hold" % event["key"])
        if not event["min_us"] <= event["mean_us"] <= event["max_us"] or event["stdev_us"] < 0:
            fail("%s: mean or stdev out of range" % event["key"])
        if not isinstance(event["samples"], int) or event["samples"] < 1:
            fail("%s: samples %r" % (event["key"], event["samples"]))
    print("profile %s: %d events for %s, structure ok" % (profile_path, len(measured), hardware))


if __name__ == "__main__":
    if len(sys.argv) < 4:
        fail("usage: check_profile.py PROFILE HARDWARE WORK_LIST...")
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
