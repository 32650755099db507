#include "io/calibration/calibration_vocabulary.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "catalog/builtin_clusters.hpp"
#include "core/closest_name.hpp"
#include "core/input_error.hpp"
#include "core/name_match.hpp"
#include "core/plain_text.hpp"
#include "io/spec/megatron_args_reader.hpp"
#include "options/job_option.hpp"

namespace distsim::io {

namespace {

using Settings = std::vector<std::pair<std::string, std::string>>;

ColumnReading sets(Settings settings) { return ColumnReading{std::move(settings), "", ""}; }

ColumnReading assumes(Settings settings, std::string because) {
  return ColumnReading{std::move(settings), std::move(because), ""};
}

ColumnReading refuses(std::string because) { return ColumnReading{{}, "", std::move(because)}; }

//! Whether `text` matches `pattern` whole, '*' standing for any text; `captured` gets the text
//! each '*' stood for, in order.
bool glob_matches(std::string_view pattern, std::string_view text, std::vector<std::string>& captured) {
  if (pattern.empty()) return text.empty();
  if (pattern.front() == '*') {
    for (std::size_t skip = 0; skip <= text.size(); ++skip) {
      captured.emplace_back(text.substr(0, skip));
      if (glob_matches(pattern.substr(1), text.substr(skip), captured)) return true;
      captured.pop_back();
    }
    return false;
  }
  return !text.empty() && pattern.front() == text.front() && glob_matches(pattern.substr(1), text.substr(1), captured);
}

//! The reading with each "$N" setting value replaced by the text the N-th '*' stood for.
ColumnReading with_captures(ColumnReading reading, const std::vector<std::string>& captured) {
  for (auto& setting : reading.settings) {
    std::string& value = setting.second;
    if (value.size() == 2 && value[0] == '$' && value[1] >= '1' && value[1] <= '9') {
      const auto index = static_cast<std::size_t>(value[1] - '1');
      if (index < captured.size()) value = captured[index];
    }
  }
  return reading;
}

// Mixed-precision training keeps master weights in fp32 and computes in the named 16-bit type
// (the dtype option's "bf16 mixed"); an fp8 run computes the transformer layers' linear GEMMs in
// fp8 (TransformerEngine, torchao float8) and everything else in bf16 (the precision option).
ColumnVocabulary precision() {
  // Megatron-Bridge's performance tables put GB200 and B200 MXFP8 results in parentheses with a
  // footnote on 32x32 scaling blocks; TransformerEngine's MXFP8 recipe scales 1x32 blocks
  // (TE docs, "MXFP8": "No 2D scaling is performed").
  const ColumnReading mx_footnote =
      assumes({{"precision", "mxfp8"}},
              "the source's footnote names 32x32 scaling blocks; priced as TransformerEngine's MXFP8 with 1x32 "
              "blocks, the same GEMM peak and one quantize pass per operand layout");
  return {"precision",
          false,
          {"dtype", "precision"},
          {{"fp16/bf16 mixed", assumes({{"dtype", "fp16"}}, "the source does not say which of fp16 and bf16; they "
                                                            "have the same tensor-core peak on A100 and later GPUs")},
           {"fp8 tensorwise + bf16", assumes({{"precision", "fp8"}}, "torchao float8 with tensor-wise scaling, priced "
                                                                     "as TransformerEngine's per-tensor-scaled fp8 "
                                                                     "GEMMs")},
           {"fp8-mx (*32x32*)", mx_footnote},
           {"mxfp8 (*32x32*)", mx_footnote}},
          assumes({{"dtype", "bf16"}}, "precision not given"),
          assumes({{"dtype", "bf16"}}, "precision not stated")};
}

ColumnVocabulary sequence_parallel() {
  return {"sequence_parallel",
          false,
          {"sequence_parallel"},
          {},
          sets({{"sequence_parallel", "false"}}),
          assumes({{"sequence_parallel", "true"}},
                  "not stated; Megatron-Core and NeMo recipes turn it on with tensor parallelism")};
}

ColumnVocabulary recompute() {
  return {"recompute",
          false,
          {"recompute"},
          {{"likely full", assumes({{"recompute", "full"}}, "not stated; the source's FLOP count (96 B s l h^2, the "
                                                            "forward counted twice) implies full recomputation")},
           {"none/selective default", assumes({{"recompute", "none"}}, "Megatron-Core recomputes nothing unless "
                                                                       "recompute modules are set")},
           // Megatron-Core's --recompute-granularity selective with the named --recompute-modules.
           {"selective: *", sets({{"recompute", "$1"}})}},
          sets({{"recompute", "none"}}),
          assumes({{"recompute", "none"}}, "not stated; Megatron-Core's default is no recomputation")};
}

ColumnVocabulary optimizer_sharding() {
  // FSDP2 over fewer ranks than dp x cp replicates across shard groups (HSDP); the job's own check
  // refuses a group that does not divide dp x cp.
  return {"optimizer_sharding",
          false,
          {"sharding", "distributed_optimizer"},
          {// PyTorch DDP replicates parameters, gradients and optimizer states: it shards nothing.
           {"ddp", sets({})},
           // NeMo's distributed_fused_adam shards the optimizer over data parallelism and overlaps
           // the gradient reduce-scatter with the backward pass (overlap_grad_sync, on by default).
           {"distributed_fused_adam", sets({{"distributed_optimizer", "true"}, {"overlap_grad_reduce", "true"}})},
           {"fsdp2 over * ranks", sets({{"sharding", "zero3"}, {"shard_group_size", "$1"}})}},
          sets({{"distributed_optimizer", "false"}}),
          assumes({{"distributed_optimizer", "false"}}, "not stated; Megatron-Core's default replicates the "
                                                        "optimizer")};
}

constexpr const char* kBridgeGradientOverlap =
    "the gradient reduction's overlap is not stated; Megatron-Bridge recipes overlap it with the backward pass "
    "(overlap_grad_reduce)";

ColumnVocabulary comm_overlap() {
  const ColumnReading same_all_reduce = sets({});
  const ColumnReading torch_compile = refuses("torch.compile's kernel fusion is not modelled");
  return {
      "comm_overlap",
      true,
      {"overlap_grad_reduce", "p2p_scatter_gather", "overlap_moe_expert_parallel_comm"},
      // Megatron-LM 2021's --DDP-impl: both reduce the gradients with one all-reduce per bucket.
      {{"ddp-impl local", same_all_reduce},
       {"ddp-impl torch", same_all_reduce},
       {"scatter/gather p2p optimization on*", sets({{"p2p_scatter_gather", "true"}})},
       {"tp comm overlap (userbuffers) + p2p overlap per yaml",
        assumes({}, "tensor-parallel communication overlap (userbuffers) is not modelled: its collectives are "
                    "priced without overlap")},
       {"fsdp * + tp * (vanilla tp) + torch.compile", torch_compile},
       {"fsdp * + tp * (async tp) + torch.compile", torch_compile},
       // Megatron-Bridge rows state the expert all-to-all overlap and the CUDA graphs only.
       {"ep a2a overlap=no", assumes({{"overlap_grad_reduce", "true"}}, kBridgeGradientOverlap)},
       {"ep a2a overlap=yes", assumes({{"overlap_grad_reduce", "true"}, {"overlap_moe_expert_parallel_comm", "true"}},
                                      kBridgeGradientOverlap)},
       {"cuda_graph=off/default", sets({})},
       {"cuda_graph=transformer_engine [*]",
        assumes({}, "CUDA graphs of the named modules are not modelled: their kernels are priced with their "
                    "launch overheads")},
       {"per recipe (not stated)", assumes({{"overlap_grad_reduce", "true"}}, "not stated; Megatron-Core "
                                                                              "recipes overlap the gradient "
                                                                              "reduction with the backward "
                                                                              "pass")}},
      sets({}),
      assumes({{"overlap_grad_reduce", "true"}},
              "not stated; Megatron-Core recipes overlap the gradient reduction with the backward pass")};
}

// Megatron-Core's --expert-tensor-parallel-size; the Megatron-Bridge rows take it from the
// release's performance recipes.
ColumnVocabulary expert_tensor_parallel() {
  return {"etp",
          true,
          {"etp"},
          {{"* (perf recipe default; not in table)",
            assumes({{"etp", "$1"}}, "the performance recipes' default; not in the table")},
           {"* (perf recipe; not in table)", assumes({{"etp", "$1"}}, "the matched performance recipe's; not in the "
                                                                      "table")}},
          sets({}),
          assumes({{"etp", "1"}}, "not stated")};
}

// Megatron-Core's --moe-token-dispatcher-type; the option names the flex dispatcher with HybridEP
// or DeepEP kernels as not modelled.
ColumnVocabulary moe_dispatcher() {
  return {"moe_dispatcher",
          true,
          {"moe_dispatcher"},
          {{"* (perf recipe * at tag *; not in table)",
            assumes({{"moe_dispatcher", "$1"}}, "the matched performance recipe's; not in the table")}},
          sets({}),
          assumes({{"moe_dispatcher", "alltoall"}},
                  "not stated in the table; the all-to-all dispatcher, which the table's notes say the release's "
                  "H100 and B200 recipes mostly use (its GB200 and GB300 recipes use flex with HybridEP)")};
}

// The node design each spelling of the link inside a node names (distsim list clusters), where
// neither the value nor its remark names a built-in node design ("(DGX H100, 900 GB/s ...)").
ColumnVocabulary intra_node_link() {
  return {"intra_node_link",
          false,
          {},
          {{"nvswitch, 300 gb/s per gpu", sets({{"cluster", "dgx-2h"}})},
           {"nvlink3 + nvswitch", sets({{"cluster", "dgx-a100"}})},
           {"nvlink4 + nvswitch", sets({{"cluster", "dgx-h100"}})},
           {"nvlink5 + nvswitch", sets({{"cluster", "dgx-b200"}})},
           {"nvlink", assumes({{"cluster", "dgx-h100"}}, "Grand Teton's 8 H100 on NVLink 4 with 400 Gb/s per GPU "
                                                         "priced as a DGX H100")},
           {"nvlink5, nvl72 rack-scale nvswitch domain", sets({{"cluster", kRackOfTheGpu}})}},
          assumes({}, "intra_node_link not given: the GPU's own node design"),
          assumes({}, "intra_node_link not stated: the GPU's own node design"),
          true};
}

// The attention library a framework release runs. NeMo 24.05's container is still built on NGC
// PyTorch 24.02 (NeMo Framework docs, "Software Component Versions"), whose cuDNN is 9.0, so
// NeMo 24.03 ran cuDNN 9.0 or older; on Hopper its TransformerEngine picks cuDNN's fused attention
// whenever both backends can run a shape (attention.py since TE 1.3: "Select FusedAttention on
// sm90"). Other releases keep the generic rate: their containers' cuDNN versions have no attention
// measurement of their own.
ColumnVocabulary framework() {
  return {"framework",
          false,
          {},
          {{"nemo 24.03*", assumes({{"attention_kernel", "cudnn-9.0"}},
                                   "NeMo 24.03 runs TransformerEngine's cuDNN fused attention from a container no "
                                   "newer than NGC PyTorch 24.02 (cuDNN 9.0), priced at cuDNN 9.0's measured rate")},
           {"*", sets({})}},
          sets({}),
          sets({})};
}

//! The reading of `text` by a phrase of the column, or nothing.
std::optional<ColumnReading> phrase_reading(const ColumnVocabulary& vocabulary, const std::string& text,
                                            const std::string& with_remarks) {
  for (const auto& [spelling, reading] : vocabulary.spellings) {
    // A phrase that writes a remark is matched with the field's remarks.
    const bool remarked = spelling.find('(') != std::string::npos;
    std::vector<std::string> captured;
    if (glob_matches(name_key(spelling), name_key(remarked ? with_remarks : text), captured)) {
      return with_captures(reading, captured);
    }
  }
  return std::nullopt;
}

//! The reading of `text` as a value of one of the column's options, a refusal when an option names
//! it as not modelled, or nothing.
std::optional<ColumnReading> option_reading(const ColumnVocabulary& vocabulary, const std::string& text) {
  for (const auto& key : vocabulary.options) {
    const options::JobOption& option = options::option(key);
    if (option.type == options::ValueType::boolean && same_name(text, option.key)) return sets({{key, "true"}});
    for (const auto& [name, why] : option.unmodelled_values) {
      if (same_name(text, name)) return refuses(option.noun + " '" + text + "' " + why);
    }
    if (option.type == options::ValueType::text) continue;
    const options::ParsedValue parsed = options::parse_value(option, text);
    if (parsed.ok()) return sets({{key, options::value_text(parsed.value)}});
  }
  return std::nullopt;
}

//! The parts of `text` joined by '+', trimmed; one part when there is no '+'.
std::vector<std::string> plus_parts(const std::string& text) {
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t plus = text.find('+', start);
    parts.push_back(trimmed(text.substr(start, plus - start), " "));
    if (plus == std::string::npos) return parts;
    start = plus + 1;
  }
}

//! A phrase's or the options' reading of the whole text, else of each '+' part; nothing when some
//! part has no reading.
std::optional<ColumnReading> value_reading(const ColumnVocabulary& vocabulary, const std::string& text,
                                           const std::string& with_remarks) {
  if (auto phrase = phrase_reading(vocabulary, text, with_remarks)) return phrase;
  if (auto setting = option_reading(vocabulary, text)) return setting;
  const std::vector<std::string> parts = plus_parts(text);
  if (parts.size() < 2) return std::nullopt;
  ColumnReading combined;
  for (const auto& part : parts) {
    std::optional<ColumnReading> reading = phrase_reading(vocabulary, part, part);
    if (!reading) reading = option_reading(vocabulary, part);
    if (!reading) return std::nullopt;
    if (!reading->refused_because.empty()) return reading;
    combined.settings.insert(combined.settings.end(), reading->settings.begin(), reading->settings.end());
    if (!reading->assumed_because.empty()) {
      combined.assumed_because += (combined.assumed_because.empty() ? "" : "; ") + reading->assumed_because;
    }
  }
  return combined;
}

//! What the column knows, for the closest-name suggestion: its phrases and its options' values.
std::vector<std::string> known_values(const ColumnVocabulary& vocabulary) {
  std::vector<std::string> known;
  for (const auto& spelling : vocabulary.spellings) {
    if (spelling.first.find('*') == std::string::npos) known.push_back(spelling.first);
  }
  for (const auto& key : vocabulary.options) {
    const options::JobOption& option = options::option(key);
    if (option.type == options::ValueType::boolean) known.push_back(option.key);
    known.insert(known.end(), option.allowed.begin(), option.allowed.end());
    for (const auto& alias : option.value_aliases) known.push_back(alias.first);
  }
  return known;
}

//! `value` without a closing "not stated" (and the ',' or ';' before it).
std::string without_trailing_not_stated(const std::string& value) {
  constexpr std::string_view kNotStated = "not stated";
  const std::string lower = lowercase(value);
  if (lower.size() < kNotStated.size() ||
      lower.compare(lower.size() - kNotStated.size(), kNotStated.size(), kNotStated) != 0) {
    return value;
  }
  return trimmed(value.substr(0, value.size() - kNotStated.size()), " ,;");
}

}  // namespace

const std::vector<ColumnVocabulary>& calibration_vocabularies() {
  static const std::vector<ColumnVocabulary> vocabularies{
      intra_node_link(),        precision(),      optimizer_sharding(),
      comm_overlap(),           recompute(),      sequence_parallel(),
      expert_tensor_parallel(), moe_dispatcher(), framework()};
  return vocabularies;
}

//! A cell of Megatron-LM flags, read as the Megatron reader reads them: their settings, and what
//! they assume; a flag the reader refuses refuses the row.
ColumnReading megatron_flags_reading(const ColumnVocabulary& vocabulary, const PublishedField& field) {
  try {
    const LaunchJob flags = read_megatron_settings(field.text, vocabulary.column + " '" + field.text + "'");
    ColumnReading reading;
    for (const auto& [key, setting] : flags.settings.all()) {
      reading.settings.emplace_back(key, options::value_text(setting.value));
    }
    for (const auto& assumption : flags.assumptions) {
      reading.assumed_because += (reading.assumed_because.empty() ? "" : "; ") + assumption;
    }
    return reading;
  } catch (const InputError& e) {
    return refuses(e.what());
  }
}

//! The built-in node design the value or one of its remark's parts names ("NVLink4 + NVSwitch (DGX
//! H100, 900 GB/s ...)" names dgx-h100), or nothing.
std::optional<ColumnReading> node_design_reading(const PublishedField& field) {
  std::vector<std::string> names{field.value};
  std::string part;
  for (const char c : field.remark + ";") {
    if (c == ';' || c == ',') {
      names.push_back(trimmed(part, " "));
      part.clear();
    } else {
      part += c;
    }
  }
  for (const auto& name : names) {
    try {
      return sets({{"cluster", catalog::find_cluster(name).name}});
    } catch (const InputError&) {
    }
  }
  return std::nullopt;
}

ColumnReading read_column_value(const ColumnVocabulary& vocabulary, const PublishedField& field) {
  if (field.missing) return vocabulary.when_missing;
  if (vocabulary.names_node_design) {
    if (auto design = node_design_reading(field)) return *design;
  }
  if (trimmed(field.text, " ").rfind("--", 0) == 0) return megatron_flags_reading(vocabulary, field);
  const std::string whole = lowercase(field.text);
  const std::string value = vocabulary.remarks_matter ? whole : field.value;
  if (!vocabulary.remarks_matter || field.remark.empty()) {
    if (auto reading = value_reading(vocabulary, field.value, whole)) return *reading;
  } else if (auto reading = phrase_reading(vocabulary, value, whole)) {
    return *reading;
  }
  if (name_key(value).rfind("notstated", 0) == 0) return vocabulary.when_not_stated;
  // "distributed optimizer not stated": the table's value, which its source does not state (the
  // reader lists it as an assumption).
  if (const std::string stated = without_trailing_not_stated(field.value); stated != field.value && !stated.empty()) {
    PublishedField inferred = field;
    inferred.value = stated;
    inferred.text = stated;
    return read_column_value(vocabulary, inferred);
  }
  const std::string closest = closest_name(value, known_values(vocabulary));
  return refuses(
      vocabulary.column + " '" + field.text + "' is not a value the calibration reader knows" +
      (closest.empty() ? "; it expects a positive whole number" : "; the closest it knows is '" + closest + "'"));
}

}  // namespace distsim::io
