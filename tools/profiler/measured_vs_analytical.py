#!/usr/bin/env python3
"""Measured versus analytical, per event and per operator kind: reads a profile file (the
profiler's output or `distsim db export`) and the `distsim events --json` work lists it was
measured from, made with an empty profile database so that their durations are the analytical
model's, and prints Markdown tables (docs/cost_models.md, "Measured on an H100").

Usage: measured_vs_analytical.py PROFILE WORK_LIST... [--events]

The error of an event is (analytical - measured) / measured. A kind is the operator, with the
GEMMs split by dtype. Needs only the Python standard library."""

import argparse
import json
import math
import statistics
import sys


def read_json(path):
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError) as error:
        sys.exit("measured_vs_analytical: error: '%s': %s" % (path, error))


def analytical_events(paths):
    """key -> the work-list event, for compute events priced by the analytical model."""
    events = {}
    for path in paths:
        for event in read_json(path).get("events", []):
            if event.get("class") == "collective":
                continue
            if event.get("source") != "analytical":
                sys.exit("measured_vs_analytical: error: '%s': event '%s' is priced from '%s', not the analytical "
                         "model; make the work lists with an empty profile database" % (
                             path, event["key"], event.get("source")))
            events.setdefault(event["key"], event)
    return events


def kind_of(event):
    return "gemm %s" % event["dtype"] if event["op"] == "gemm" else event["op"]


def pair_up(profile, events):
    rows = []
    for record in profile["events"]:
        event = events.get(record["key"])
        if event is None:
            continue
        measured, predicted = record["median_us"], event["duration_us"]
        rows.append({"key": record["key"], "kind": kind_of(event), "measured": measured, "analytical": predicted,
                     "error": (predicted - measured) / measured})
    return rows


def percent(value):
    return "%+.1f %%" % (100 * value)


def summary_table(rows):
    kinds = {}
    for row in rows:
        kinds.setdefault(row["kind"], []).append(row)
    lines = ["| kind | events | measured µs (sum) | analytical µs (sum) | median error | mean abs error "
             "| geometric mean analytical / measured | error range |",
             "|---|---|---|---|---|---|---|---|"]
    for kind in sorted(kinds, key=lambda k: -sum(r["measured"] for r in kinds[k])):
        group = kinds[kind]
        errors = sorted(r["error"] for r in group)
        geometric = math.exp(statistics.mean(math.log(r["analytical"] / r["measured"]) for r in group))
        lines.append("| %s | %d | %.0f | %.0f | %s | %.1f %% | %.3f | %s … %s |" % (
            kind, len(group), sum(r["measured"] for r in group), sum(r["analytical"] for r in group),
            percent(statistics.median(errors)), 100 * statistics.mean(abs(e) for e in errors), geometric,
            percent(errors[0]), percent(errors[-1])))
    errors = [abs(r["error"]) for r in rows]
    lines.append("| all | %d | %.0f | %.0f | %s | %.1f %% | %.3f | |" % (
        len(rows), sum(r["measured"] for r in rows), sum(r["analytical"] for r in rows),
        percent(statistics.median(r["error"] for r in rows)), 100 * statistics.mean(errors),
        math.exp(statistics.mean(math.log(r["analytical"] / r["measured"]) for r in rows))))
    return lines


def event_table(rows):
    lines = ["| event | measured median µs | analytical µs | error |", "|---|---|---|---|"]
    for row in sorted(rows, key=lambda r: (r["kind"], r["key"])):
        lines.append("| `%s` | %.1f | %.1f | %s |" % (row["key"], row["measured"], row["analytical"],
                                                       percent(row["error"])))
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(prog="measured_vs_analytical.py", description=__doc__.splitlines()[0])
    parser.add_argument("profile", help="profile file (distsim-profile JSON)")
    parser.add_argument("work_lists", nargs="+", help="`distsim events --json` work lists, empty profile database")
    parser.add_argument("--events", action="store_true", help="also print the table of every event")
    args = parser.parse_args(argv)
    profile = read_json(args.profile)
    rows = pair_up(profile, analytical_events(args.work_lists))
    if not rows:
        sys.exit("measured_vs_analytical: error: no event of '%s' is in the work lists" % args.profile)
    unmatched = len(profile["events"]) - len(rows)
    print("%d events of '%s' (hardware %s, %s), %d not in the work lists.\n" % (
        len(rows), profile.get("hardware"), profile.get("hardware"), profile.get("library"), unmatched))
    print("\n".join(summary_table(rows)))
    if args.events:
        print()
        print("\n".join(event_table(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
