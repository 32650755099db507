#!/usr/bin/env python3
"""The calibration reader reads names by the one name rule, not by the spellings of one file.

Every text column of data/published_calibration.csv is respelled by that rule (docs/input_formats.md,
"Names"): each letter's case flipped, and outside parentheses '-' and '_' swapped and spaces made
'_'; inside parentheses (remarks, which some columns read for facts such as "head_dim 128") only
the case flips. The GPU column keeps its case, since a stated power limit is read as "500 W". The
respelled set must simulate the same rows to the same predicted times as the set itself.

usage: respelled_set.py DISTSIM CSV
"""
import csv, io, json, subprocess, sys, tempfile

# The columns whose values are names or phrases; numbers and the MoE layer pattern stay.
TEXT_COLUMNS = ["model", "arch", "ffn_activation", "moe", "precision", "gpu", "intra_node_link",
                "sequence_parallel", "recompute", "optimizer_sharding", "comm_overlap", "framework",
                "etp", "moe_dispatcher"]


def respelled(text, flip_case=True):
    out, depth = [], 0
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")" and depth > 0:
            depth -= 1
        elif depth == 0 and c in "-_ ":
            c = {"-": "_", "_": "-", " ": "_"}[c]
        out.append(c.swapcase() if flip_case else c)
    return "".join(out)


def predictions(distsim, path):
    out = subprocess.run([distsim, "validate", "--csv", path, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"validate --csv {path} failed: {out.stderr.strip()[:300]}")
    rows = json.loads(out.stdout)["rows"]
    return {row["id"]: row["predicted_iteration_s"] for row in rows}


def main():
    distsim, path = sys.argv[1], sys.argv[2]
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for column in TEXT_COLUMNS:
            if row.get(column):
                row[column] = respelled(row[column], flip_case=column != "gpu")
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False, newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    original, changed = predictions(distsim, path), predictions(distsim, out.name)
    failures = [f"{i}: {original.get(i)} -> {changed.get(i)}" for i in sorted(set(original) | set(changed))
                if original.get(i) != changed.get(i)]
    print(f"{len(original)} rows simulate as written, {len(changed)} respelled")
    if failures:
        print("respelled rows read differently:\n  " + "\n  ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
