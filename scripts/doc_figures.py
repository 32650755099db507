#!/usr/bin/env python3
"""The figures that README.md and docs/*.md quote from distsim's own output.

In the Markdown each such figure sits between `<!-- fig NAME -->` and `<!-- /fig -->` (inline, or
around a whole fenced block). FIGURES below says, for every NAME, which distsim command produces
it and how it is formatted. Two modes:

  scripts/doc_figures.py --distsim build/src/cli/distsim --write
      runs the commands and rewrites every marked figure in place;
  scripts/doc_figures.py --distsim build/src/cli/distsim --check
      (the CTest doc_figures) prints each marked figure that differs from what distsim gives now,
      each marker with an unknown name and each figure no document marks, and exits 1 if any.

`--bench-dir build/bench` adds the figures that only the benchmarks print (task and device counts
of build/bench/simulate_bench, the bandwidth sweep of build/bench/calibration_sweep, about 80 s of
CPU); without it those are skipped and said so. Timings are never
figures here: they depend on the machine, and the documents give the command and the machine
next to them instead.
"""

import argparse
import json
import pathlib
import re
import subprocess
import sys

MARKER = re.compile(r"<!-- fig ([A-Za-z0-9_.\-]+) -->(.*?)<!-- /fig -->", re.DOTALL)

# The paper's use case (Lu et al., CF'23, Fig. 9: BERT-exLarge on 4 x 4 A10, global batch 16).
# The paper's space: only the (tensor, pipeline, data) split varies; every other searched setting
# is pinned (for `distsim events --search`, which varies only the split, they are the job's).
PAPER_PINS = ["--cp", "1", "--sequence-parallel", "false", "--recompute", "none", "--distributed-optimizer", "false"]
BERT = ["--model", "bert-exlarge", "--gpu", "a10", "--nodes", "4", "--gpus-per-node", "4", "--global-batch-size", "16"]
GPT3 = ["--model", "gpt3-175b", "--gpu", "a100-80gb", "--nodes", "128", "--global-batch-size", "1536",
        "--micro-batch-sizes", "1,2,4", "--schedules", "gpipe,1f1b"]
BERT_SEARCH = [*BERT, *PAPER_PINS, "--micro-batch-size", "1", "--schedule", "1f1b"]
GPT3_SEARCH = [*GPT3, *PAPER_PINS]
LLAMA70B_FP8_JOB = ["--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--nodes", "8", "--strategy", "4M4P4D",
                    "--schedule", "interleaved", "--virtual-stages", "5", "--sequence-parallel",
                    "--distributed-optimizer", "--overlap-grad-reduce", "--micro-batch-size", "1",
                    "--global-batch-size", "128"]
MEMORY_EXAMPLE = ["simulate", "--model", "gpt3-175b", "--gpu", "a100-80gb", "--strategy", "8M8P1D",
                  "--micro-batch-size", "1", "--global-batch-size", "8", "--sequence-parallel",
                  "--recompute", "selective"]

# Llama 3 405B's pre-training setting with the default failure rates (docs/goodput.md).
GOODPUT_LLAMA3 = ["simulate", "--model", "llama-3.1-405b", "--cluster", "dgx-h100", "--nodes", "2048", "--tp", "8",
                  "--pp", "16", "--dp", "128", "--micro-batch-size", "1", "--global-batch-size", "2048",
                  "--seq-length", "8192", "--schedule", "interleaved", "--virtual-stages", "8",
                  "--sequence-parallel", "--account-for-embedding-in-pipeline-split",
                  "--account-for-loss-in-pipeline-split", "--distributed-optimizer", "--recompute", "full",
                  "--tokens", "15.6e12"]

# Context parallelism's worked example 2 (docs/features.md): Llama 3.1 8B, s = 8192, c = 2, t = 1.
CP_EVENTS = ["events", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--strategy", "1M1P4D", "--cp", "2",
             "--seq-length", "8192", "--micro-batch-size", "1", "--global-batch-size", "4", "--json"]

# Zero-bubble schedules against 1F1B on a pipeline-heavy job (README.md, docs/features.md):
# Llama 3.1 70B on 4 x 8 H100, 4M8P1D, 16 micro-batches of one sequence.
ZB_JOB = ["simulate", "--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--nodes", "4", "--strategy", "4M8P1D",
          "--sequence-parallel", "--micro-batch-size", "1", "--global-batch-size", "16", "--json"]

# A cluster of two GPU types, two hosts of H100 and two of A100 (docs/mixed_gpus.md).
MIXED_JOB = ["simulate", "--cluster",
             str(pathlib.Path(__file__).resolve().parent.parent / "tests/fixtures/clusters/h100_and_a100.yaml"),
             "--model", "llama-3.1-8b", "--tp", "8", "--pp", "4", "--dp", "1", "--global-batch-size", "64",
             "--micro-batch-size", "1", "--json"]

# The OSDI'25 straggler traces beside the checkout (../shared/reference/stragglers, docs/whatif.md).
STRAGGLERS = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "reference" / "stragglers"

# Each source is one run: ("distsim", args), parsed as JSON when the args ask for --json;
# ("shared", args) the same on a file of ../shared, skipped where that folder is absent; or
# ("bench", name) for a Google Benchmark binary's JSON. A figure names its source, or a tuple of
# sources when it combines several runs.
SOURCES = {
    "search_bert": ("distsim", ["search", *BERT_SEARCH, "--top", "0", "--json"]),
    "search_gpt3": ("distsim", ["search", *GPT3_SEARCH, "--top", "0", "--json"]),
    "census_bert": ("distsim", ["events", *BERT, "--search", "--json"]),
    "census_gpt3": ("distsim", ["events", *GPT3, "--search", "--json"]),
    "validate": ("distsim", ["validate", "--json"]),
    "llama70b_bf16": ("distsim", ["simulate", *LLAMA70B_FP8_JOB, "--json"]),
    "llama70b_fp8": ("distsim", ["simulate", *LLAMA70B_FP8_JOB, "--fp8", "--json"]),
    "memory_example": ("distsim", MEMORY_EXAMPLE),
    "goodput_llama3": ("distsim", GOODPUT_LLAMA3),
    "jitter_default": ("distsim", ["simulate", "--kernel-jitter", "lognormal:0.1"]),
    "mixed_even": ("distsim", MIXED_JOB),
    "mixed_balanced": ("distsim", [*MIXED_JOB, "--pipeline-layout", "balanced"]),
    **{f"zb_{name}": ("distsim", [*ZB_JOB, "--schedule", name]) for name in ("1f1b", "zb-h1", "zb-h2")},
    **{f"zb_{name}": ("distsim", [*ZB_JOB, "--schedule", name, "--virtual-stages", "2"])
       for name in ("zbv", "dualpipe", "dualpipev")},
    "cp_events": ("distsim", CP_EVENTS),
    **{f"whatif_{trace}": ("shared", ["whatif", str(STRAGGLERS / f"timeline-{trace.upper()}.json.gz"), "--json"])
       for trace in ("st", "se")},
    "whatif_st_text": ("shared", ["whatif", str(STRAGGLERS / "timeline-ST.json.gz")]),
    "simulate_bench": ("bench", "simulate_bench"),
    "calibration_sweep": ("bench", "calibration_sweep"),
}

# Measured iterations per second on the paper's cluster (Lu et al., CF'23, §6.2): the best
# (1M8P2D), the second and the worst (16M1P1D) settings.
PAPER_MEASURED_ITS = {"best": 2.97, "second": 2.90, "worst": 0.396}


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def strategy_of(candidate):
    return candidate["label"].split(" ")[0]


def ranked(search):
    ok = [c for c in search["candidates"] if c["status"] == "ok"]
    return sorted(ok, key=lambda c: -c["iterations_per_s"])


def rank_of(search, strategy):
    for index, candidate in enumerate(ranked(search)):
        if strategy_of(candidate) == strategy:
            return index + 1, candidate
    raise KeyError(strategy)


def by_rank(search):
    order = ranked(search)
    return {"best": order[0], "second": order[1], "worst": order[-1]}


def vs_paper(search):
    picks = by_rank(search)
    return [picks[k]["iterations_per_s"] / PAPER_MEASURED_ITS[k] for k in PAPER_MEASURED_ITS]


def source_stats(validation, prefix):
    for entry in validation["by_source"]:
        if entry["source"].startswith(prefix):
            return entry
    raise KeyError(prefix)


CALIBRATION_CSV = pathlib.Path(__file__).resolve().parent.parent / "data" / "published_calibration.csv"

# The README's accuracy categories, in its table's order.
CATEGORIES = ("hopper_bf16", "hopper_fp8", "blackwell", "fsdp", "moe", "ampere_volta")


def calibration_category(entry):
    """A calibration row's category: mixture of experts, FSDP, Blackwell, Hopper by precision, or Ampere/Volta."""
    gpu = entry["gpu"].split("(")[0].strip().upper()
    if entry.get("moe", "").strip():
        return "moe"
    if "FSDP" in entry["optimizer_sharding"].upper():
        return "fsdp"
    if gpu.startswith(("B200", "B300", "GB200", "GB300")):
        return "blackwell"
    if gpu.startswith(("H100", "H200")):
        return "hopper_fp8" if entry["precision"].upper().startswith("FP8") else "hopper_bf16"
    return "ampere_volta"


def category_stats(validation, category):
    """Rows given, rows simulated and the MAPE over them ("–" when none simulated) for one category."""
    import csv
    with open(CALIBRATION_CSV, newline="", encoding="utf-8") as table:
        ids = {entry["id"] for entry in csv.DictReader(table) if calibration_category(entry) == category}
    errors = [abs(r["error_pct"]) for r in validation["rows"] if r["id"] in ids]
    return {"rows": len(ids), "simulated": len(errors),
            "mape": f"{sum(errors) / len(errors):.1f}" if errors else "–"}


# The MoE models of the calibration set, by the start of their name in its model column.
MOE_MODELS = {"qwen3_30b": "Qwen3_30B_a3B", "qwen3_235b": "Qwen3_235B_a22B", "deepseek_v3": "DeepSeekV3",
              "gpt_oss_120b": "GPT OSS 120B"}


def moe_model_stats(validation, prefix):
    """Rows given, rows simulated and the MAPE over them ("–" when none simulated) for one MoE model."""
    import csv
    with open(CALIBRATION_CSV, newline="", encoding="utf-8") as table:
        ids = {entry["id"] for entry in csv.DictReader(table)
               if calibration_category(entry) == "moe" and entry["model"].startswith(prefix)}
    errors = [abs(r["error_pct"]) for r in validation["rows"] if r["id"] in ids]
    return {"rows": len(ids), "simulated": len(errors),
            "mape": f"{sum(errors) / len(errors):.1f}" if errors else "–"}


def row(validation, row_id):
    return next(r for r in validation["rows"] if r["id"] == row_id)


def worst_row(validation, prefix):
    rows = [r for r in validation["rows"] if r["source"].startswith(prefix)]
    return max(rows, key=lambda r: abs(r["error_pct"]))


def signed_pct(value, digits=1):
    text = f"{value:.{digits}f}"
    return text.replace("-", "−")


def census_iteration_range(census):
    times = [job["iteration_time_s"] for job in census["jobs"]]
    return min(times), max(times)


def bench_counter(bench, name, counter):
    entry = next(b for b in bench["benchmarks"] if b["name"] == name)
    return int(round(entry[counter]))


def event_us(events, prefix):
    """The duration of the event whose key starts with `prefix`, in whole microseconds."""
    return f"{next(e for e in events['events'] if e['key'].startswith(prefix))['duration_us']:.0f}"


def sweep_point(text, scale):
    """(MAPE %, max %) at one scale of build/bench/calibration_sweep's table."""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[0] == f"{scale:.3f}":
            return float(fields[1]), float(fields[2])
    raise KeyError(scale)


def held_out(text):
    """(scale, held-out MAPE %) per source, in the order calibration_sweep prints them."""
    found = re.findall(r"scale ([0-9.]+)  held-out MAPE ([0-9.]+) %", text)
    return [(float(scale), float(mape)) for scale, mape in found]


# The fitted memory-bound bandwidth fraction that the sweep scales (src/cost/analytical_cost_model.cpp).
KERNEL_BANDWIDTH_FRACTION = 0.78


def memory_block(text):
    """The memory table's header, stage 0 and the peak line, as docs/memory_model.md shows them."""
    lines = text.splitlines()
    start = lines.index("memory per GPU (GiB):")
    peak = next(line for line in lines if line.startswith("peak memory:"))
    return "\n".join(["```", *lines[start:start + 3], "...", peak, "```"])


def attribution(analysis, key, group):
    return next(a["slowdown"] for a in analysis[key] if a["group"] == group)


def whatif_block(text):
    """`distsim whatif` on ST as docs/whatif.md shows it: the trace by its file name, the operation
    types' line cut after three."""
    lines = text.replace(str(STRAGGLERS) + "/", "").splitlines()
    lines[-1] = ", ".join(lines[-1].split(", ")[:3]) + ", ..."
    return "\n".join(["```", *lines, "```"])


def jitter_block(text):
    """The kernel-jitter paragraph of the default job's summary, as docs/variability.md shows it."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("kernel jitter "))
    return "\n".join(["```", *lines[start:start + 2], "```"])


def goodput_block(text):
    """The goodput section down to its ETTR line, as docs/goodput.md shows it."""
    lines = text.splitlines()
    start = lines.index("goodput (docs/goodput.md):")
    ettr = next(i for i, line in enumerate(lines) if line.startswith("  ETTR:"))
    return "\n".join(["```", *lines[start:ettr + 1], "  ...", "```"])


SOURCES_BY_PREFIX = {
    "SC21": "Narayanan et al., SC21",
    "README": "NVIDIA Megatron-LM README",
    "Korthikanti": "Korthikanti et al.",
    "DGXC": "NVIDIA DGX Cloud",
    "NeMoLong": "NVIDIA NeMo Framework performance summary, long",
    "Bridge": "NVIDIA Megatron-Bridge",
}

FIGURES = {
    # The paper's use case, `distsim search` (README.md).
    "bert.valid": ("search_bert", lambda s: str(s["valid"])),
    "bert.candidates": ("search_bert", lambda s: str(s["candidates_total"])),
    "bert.best.strategy": ("search_bert", lambda s: strategy_of(by_rank(s)["best"])),
    "bert.best.its": ("search_bert", lambda s: f"{by_rank(s)['best']['iterations_per_s']:.3f}"),
    "bert.second.strategy": ("search_bert", lambda s: strategy_of(by_rank(s)["second"])),
    "bert.second.its": ("search_bert", lambda s: f"{by_rank(s)['second']['iterations_per_s']:.3f}"),
    "bert.worst.strategy": ("search_bert", lambda s: strategy_of(by_rank(s)["worst"])),
    "bert.worst.its": ("search_bert", lambda s: f"{by_rank(s)['worst']['iterations_per_s']:.3f}"),
    "bert.best_worst": ("search_bert", lambda s: f"{s['best_worst_ratio']:.2f}"),
    "bert.1M8P2D.rank": ("search_bert", lambda s: ordinal(rank_of(s, "1M8P2D")[0])),
    "bert.1M8P2D.its": ("search_bert", lambda s: f"{rank_of(s, '1M8P2D')[1]['iterations_per_s']:.3f}"),
    "bert.vs_paper.min": ("search_bert", lambda s: f"{min(vs_paper(s)):.2f}"),
    "bert.vs_paper.max": ("search_bert", lambda s: f"{max(vs_paper(s)):.2f}"),
    # The GPT-3 search of the speed paragraph (README.md).
    "gpt3.candidates": ("search_gpt3", lambda s: f"{s['candidates_total']:,}"),
    "gpt3.invalid": ("search_gpt3", lambda s: str(s["invalid"])),
    "gpt3.out_of_memory": ("search_gpt3", lambda s: str(s["out_of_memory"])),
    "gpt3.simulated": ("search_gpt3", lambda s: str(s["valid"] - s["out_of_memory"])),
    # Validation against published runs (README.md, docs/cost_models.md §8).
    "validate.rows": ("validate", lambda v: str(v["overall"]["rows"])),
    "validate.mape": ("validate", lambda v: f"{v['overall']['mape_pct']:.1f}"),
    "validate.max": ("validate", lambda v: f"{v['overall']['max_abs_pct']:.1f}"),
    "validate.clean.rows": ("validate", lambda v: str(v["overall_without_assumptions"]["rows"])),
    "validate.clean.mape": ("validate", lambda v: f"{v['overall_without_assumptions']['mape_pct']:.1f}"),
    "validate.clean.max": ("validate", lambda v: f"{v['overall_without_assumptions']['max_abs_pct']:.1f}"),
    "validate.given": ("validate", lambda v: str(len(v["rows"]) + len(v["excluded"]))),
    **{f"validate.cat.{category}.{field}": ("validate", lambda v, c=category, f=field: str(category_stats(v, c)[f]))
       for category in CATEGORIES for field in ("rows", "simulated", "mape")},
    **{f"validate.moe.{model}.{field}": ("validate", lambda v, p=prefix, f=field: str(moe_model_stats(v, p)[f]))
       for model, prefix in MOE_MODELS.items() for field in ("rows", "simulated", "mape")},
    **{f"validate.{key}.rows": ("validate", lambda v, p=prefix: str(source_stats(v, p)["rows"]))
       for key, prefix in SOURCES_BY_PREFIX.items()},
    **{f"validate.{key}.mape": ("validate", lambda v, p=prefix: f"{source_stats(v, p)['mape_pct']:.1f}")
       for key, prefix in SOURCES_BY_PREFIX.items()},
    **{f"validate.{key}.max": ("validate", lambda v, p=prefix: f"{source_stats(v, p)['max_abs_pct']:.1f}")
       for key, prefix in SOURCES_BY_PREFIX.items()},
    **{f"validate.{key}.max_row": ("validate", lambda v, p=prefix: worst_row(v, p)["id"])
       for key, prefix in SOURCES_BY_PREFIX.items()},
    **{f"validate.{row_id}.error": ("validate", lambda v, r=row_id: signed_pct(row(v, r)["error_pct"]))
       for row_id in ("R202", "R203", "R214", "R215", "N177", "N183", "N186", "N189", "N192")},
    # Event census and profiling cost (README.md, docs/profiling_cost.md).
    **{f"census.{name}.{field}": (f"census_{name}", fn)
       for name in ("bert", "gpt3")
       for field, fn in {
           "jobs": lambda c: str(len(c["jobs"])),
           "unique": lambda c: str(c["unique"]),
           "summed": lambda c: str(c["sum_of_job_unique"]),
           "shared": lambda c: str(c["shared_by_several_jobs"]),
           "instances": lambda c: f"{c['instances']:,}",
           "dedup": lambda c: f"{c['dedup_ratio']:,.0f}",
           "profiling_s": lambda c: f"{c['profiling_cost']['profile_device_seconds']:.1f}",
           "measured": lambda c: str(c["profiling_cost"]["measured_events"]),
       }.items()},
    "census.bert.direct_s": ("census_bert", lambda c: f"{c['profiling_cost']['direct_device_seconds']:,.1f}"),
    "census.bert.ratio_pct": ("census_bert", lambda c: f"{100 * c['profiling_cost']['ratio']:.2f}"),
    "census.gpt3.direct_s": ("census_gpt3", lambda c: f"{c['profiling_cost']['direct_device_seconds']:,.0f}"),
    "census.bert.direct_s_rounded": ("census_bert", lambda c: f"{c['profiling_cost']['direct_device_seconds']:,.0f}"),
    "census.bert.profiling_s_rounded": ("census_bert",
                                        lambda c: f"{c['profiling_cost']['profile_device_seconds']:.0f}"),
    "census.bert.iteration_min": ("census_bert", lambda c: f"{census_iteration_range(c)[0]:.2f}"),
    "census.bert.iteration_max": ("census_bert", lambda c: f"{census_iteration_range(c)[1]:.1f}"),
    "census.gpt3.direct_s_sci": ("census_gpt3",
                                 lambda c: f"{c['profiling_cost']['direct_device_seconds'] / 1e7:.1f} × 10⁷"),
    "census.gpt3.ratio_pct_1": ("census_gpt3", lambda c: f"{100 * c['profiling_cost']['ratio']:.4f}"),
    "census.gpt3.ratio_pct_3": ("census_gpt3", lambda c: f"{100 * c['profiling_cost']['ratio']:.6f}"),
    "census.gpt3.profiling_s_rounded": ("census_gpt3",
                                        lambda c: f"{c['profiling_cost']['profile_device_seconds']:.0f}"),
    # fp8 GEMMs on Llama 3.1 70B (docs/features.md).
    "fp8.llama70b.bf16_s": ("llama70b_bf16", lambda j: f"{j['iteration_time_s']:.3f}"),
    "fp8.llama70b.fp8_s": ("llama70b_fp8", lambda j: f"{j['iteration_time_s']:.3f}"),
    "fp8.llama70b.speedup": (("llama70b_bf16", "llama70b_fp8"),
                             lambda bf16, fp8: f"{bf16['iteration_time_s'] / fp8['iteration_time_s']:.2f}"),
    # Zero-bubble schedules against 1F1B (README.md, docs/features.md).
    **{f"zb.{short}.{what}": (f"zb_{name}", fn)
       for short, name in {"1f1b": "1f1b", "h1": "zb-h1", "h2": "zb-h2", "zbv": "zbv", "dualpipe": "dualpipe",
                           "dualpipev": "dualpipev"}.items()
       for what, fn in {"s": lambda j: f"{j['iteration_time_s']:.3f}",
                        "bubble_pct": lambda j: f"{100 * j['bubble_fraction']:.1f}"}.items()},
    **{f"zb.{short}.peak_gib": (f"zb_{short}", lambda j: f"{j['memory']['peak_bytes'] / 2**30:.1f}")
       for short in ("zbv", "dualpipe", "dualpipev")},
    **{f"zb.{short}.speedup": (("zb_1f1b", f"zb_{name}"),
                               lambda base, zb: f"{base['iteration_time_s'] / zb['iteration_time_s']:.2f}")
       for short, name in {"h1": "zb-h1", "h2": "zb-h2"}.items()},
    # Context parallelism, worked example 2 (docs/features.md).
    "cp.forward_step_us": ("cp_events", lambda e: event_us(e, "flash_attention_fwd b=1 heads=32 kv_heads=8 sq=4096")),
    "cp.backward_step_us": ("cp_events", lambda e: event_us(e, "flash_attention_bwd b=1 heads=32 kv_heads=8 sq=4096")),
    "cp.exchange_us": ("cp_events", lambda e: event_us(e, "ring_exchange bytes=16777216 group=2")),
    # The sweep of the fitted bandwidth fraction, build/bench/calibration_sweep (docs/cost_models.md §8).
    **{f"sweep.{scale:.3f}.{what}": ("calibration_sweep",
                                     lambda t, s=scale, i=index, d=digits: f"{sweep_point(t, s)[i]:.{d}f}")
       for scale in (0.925, 0.95, 0.975, 1.0, 1.025, 1.05)
       for what, index, digits in (("mape", 0, 2), ("max", 1, 1))},
    "sweep.held_out.fraction_min": ("calibration_sweep",
                                    lambda t: f"{min(s for s, _ in held_out(t)[:3]) * KERNEL_BANDWIDTH_FRACTION:.2f}"),
    "sweep.held_out.fraction_max": ("calibration_sweep",
                                    lambda t: f"{max(s for s, _ in held_out(t)[:3]) * KERNEL_BANDWIDTH_FRACTION:.2f}"),
    **{f"sweep.held_out.{key}": ("calibration_sweep", lambda t, i=index: f"{held_out(t)[i][1]:.1f}")
       for index, key in enumerate(("SC21", "README", "Korthikanti"))},
    # The memory table (docs/memory_model.md).
    "memory.example": ("memory_example", memory_block),
    "goodput.llama3": ("goodput_llama3", goodput_block),
    "jitter.default": ("jitter_default", jitter_block),
    "mixed.even_s": ("mixed_even", lambda j: f"{j['iteration_time_s']:.2f}"),
    "mixed.mfu": ("mixed_even", lambda j: f"{j['mfu'] * 100:.2f}"),
    "mixed.mfu_peak": ("mixed_even", lambda j: f"{j['mfu_peak_tflops']:.1f}"),
    "mixed.balanced_s": ("mixed_balanced", lambda j: f"{j['iteration_time_s']:.2f}"),
    "mixed.balanced_layout": ("mixed_balanced", lambda j: j["job"]["pipeline_layout"]),
    "whatif.st.text": ("whatif_st_text", whatif_block),
    **{f"whatif.{trace}.slowdown": (f"whatif_{trace}", lambda w: f"{w['straggler_slowdown']:.4f}") for trace in ("st", "se")},
    "whatif.st.stage": ("whatif_st", lambda w: f"{attribution(w, 'by_stage', '3'):.4f}"),
    "whatif.se.stage": ("whatif_se", lambda w: f"{attribution(w, 'by_stage', '1'):.4f}"),
    # Task and device counts of build/bench/simulate_bench (README.md, Speed).
    **{f"bench.{short}.{counter}": ("simulate_bench", lambda b, n=name, c=counter: f"{bench_counter(b, n, c):,}")
       for short, name in {
           "gpt2": "BM_Gpt2DefaultJob",
           "gpt2_all": "BM_Gpt2DefaultJobAllRanks",
           "bert": "BM_BertExLarge16xA10",
           "gpt3": "BM_Gpt3On1024A100",
           "gpt3_whole": "BM_Gpt3On1024A100WholeTimeline",
           "llama405b": "BM_Llama405bOn16384H100",
           "llama405b_all": "BM_Llama405bOn16384H100AllRanks",
           "llama405b_million": "BM_Llama405bOnAMillionH100",
           "deepseek2048": "BM_DeepSeekV3On2048H100",
           "deepseek8192": "BM_DeepSeekV3On8192H100",
       }.items()
       for counter in ("gpus", "devices", "tasks", "microbatches", "simulated_mb")},
}


class Runner:
    """Runs each source once and keeps its output."""

    def __init__(self, distsim, bench_dir):
        self.distsim = distsim
        self.bench_dir = bench_dir
        self.outputs = {}

    def available(self, sources):
        for source in sources:
            kind, what = SOURCES[source]
            if kind == "bench" and (self.bench_dir is None or not (self.bench_dir / what).exists()):
                return False
            if kind == "shared" and not STRAGGLERS.is_dir():
                return False
        return True

    def output(self, source):
        if source not in self.outputs:
            kind, what = SOURCES[source]
            if kind in ("distsim", "shared"):
                command = [self.distsim, *what]
            else:
                command = [str(self.bench_dir / what)]
                if what != "calibration_sweep":
                    command += ["--benchmark_format=json", "--benchmark_min_time=0"]
            text = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            self.outputs[source] = json.loads(text) if "--json" in command or "--benchmark_format=json" in command else text
        return self.outputs[source]

    def figure(self, name):
        sources, formatter = figure_sources(name), FIGURES[name][1]
        return formatter(*(self.output(source) for source in sources))


def figure_sources(name):
    """A figure comes from one source, or from several named as a tuple."""
    sources = FIGURES[name][0]
    return sources if isinstance(sources, tuple) else (sources,)


def documents(root):
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--distsim", required=True, help="the distsim binary")
    parser.add_argument("--bench-dir", type=pathlib.Path, help="build/bench, for the benchmark figures")
    parser.add_argument("--root", type=pathlib.Path, default=pathlib.Path(__file__).resolve().parent.parent,
                        help="the repository (README.md and docs/*.md)")
    parser.add_argument("--allow-unmarked", action="store_true",
                        help="do not require every figure to be marked somewhere (for partial trees)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    args = parser.parse_args()

    runner = Runner(args.distsim, args.bench_dir)
    problems = []
    skipped = set()
    marked = set()
    for path in documents(args.root):
        text = path.read_text(encoding="utf-8")
        place = path.relative_to(args.root)

        def replace(match):
            name, quoted = match.group(1), match.group(2)
            marked.add(name)
            where = f"{place}:{line_of(text, match.start())}"
            if name not in FIGURES:
                problems.append(f"{where}: unknown figure '{name}'")
                return match.group(0)
            if not runner.available(figure_sources(name)):
                skipped.add(name)
                return match.group(0)
            value = runner.figure(name)
            if value != quoted:
                problems.append(f"{where}: {name}: the document says '{quoted}', distsim gives '{value}'")
            return f"<!-- fig {name} -->{value}<!-- /fig -->"

        updated = MARKER.sub(replace, text)
        if args.write and updated != text:
            path.write_text(updated, encoding="utf-8")
            print(f"rewrote {place}")
    if not args.allow_unmarked:
        for name in sorted(set(FIGURES) - marked):
            problems.append(f"figure '{name}' is defined in scripts/doc_figures.py but no document marks it")
    for name in sorted(skipped):
        print(f"skipped {name}: its input is absent (a benchmark binary not built with --bench-dir, or {STRAGGLERS})")
    if args.write:
        return 0
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} figure(s) out of date: run scripts/doc_figures.py --distsim build/src/cli/distsim "
              "--bench-dir build/bench --write")
        return 1
    print(f"{len(marked) - len(skipped)} figures match distsim's output")
    return 0


if __name__ == "__main__":
    sys.exit(main())
