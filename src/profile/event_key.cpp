#include "profile/event_key.hpp"

#include <algorithm>
#include <charconv>
#include <optional>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::profile {

namespace {

//! What an operator's key holds after its name: named dimensions then a dtype (compute), or the
//! message fields (communication).
struct OperatorShape {
  std::string name;
  events::EventClass event_class;
  std::vector<std::string> dims;
};

// Mirrors the operators events::EventFactory and build_rank_work emit (event_factory.cpp,
// job_events.cpp); the unit test parses every event of several built-in jobs to keep it in step.
const std::vector<OperatorShape>& operator_shapes() {
  using events::EventClass;
  static const std::vector<OperatorShape> shapes = [] {
    const std::vector<std::string> attention = {"b", "heads", "kv_heads", "sq", "skv", "d", "causal"};
    const std::vector<std::string> rows_cols = {"rows", "cols"};
    std::vector<OperatorShape> list = {
        {"gemm", EventClass::gemm, {"m", "n", "k"}},
        {"batched_gemm", EventClass::gemm, {"batch", "m", "n", "k"}},
        {"flash_attention_fwd", EventClass::attention, attention},
        {"flash_attention_bwd", EventClass::attention, attention},
        {"adam_step", EventClass::memory_bound, {"params"}},
    };
    for (const char* op : {"layernorm", "rmsnorm", "rope", "bias_dropout_add", "swiglu", "gelu", "embedding",
                           "cross_entropy", "scale_mask_softmax", "attention_dropout"}) {
      list.push_back({op, EventClass::memory_bound, rows_cols});
      list.push_back({std::string(op) + "_bwd", EventClass::memory_bound, rows_cols});
    }
    // TransformerEngine's quantization kernels of fp8 GEMMs, forward only (pass_builder.cpp).
    for (const char* op : {"fp8_cast_transpose", "layernorm_fp8", "rmsnorm_fp8"}) {
      list.push_back({op, EventClass::memory_bound, rows_cols});
    }
    for (const char* op : {"all_reduce", "all_gather", "reduce_scatter"}) {
      list.push_back({op, EventClass::collective, {}});
    }
    list.push_back({"send_recv", EventClass::point_to_point, {}});
    list.push_back({"ring_exchange", EventClass::point_to_point, {}});
    return list;
  }();
  return shapes;
}

std::vector<std::string_view> split_words(std::string_view text) {
  std::vector<std::string_view> words;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(' ', start), text.size());
    words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

std::optional<std::int64_t> parse_count(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) {
    return std::nullopt;
  }
  return value;
}

//! Reads "name=value" where the name must be `expected_name` and the value a whole number.
std::int64_t read_field(std::string_view word, std::string_view expected_name, const OperatorShape& shape,
                        const std::string& expected_fields) {
  const size_t equals = word.find('=');
  if (equals == std::string_view::npos || word.substr(0, equals) != expected_name) {
    throw InputError("operator '" + shape.name + "' takes " + expected_fields + ", got '" + std::string(word) + "'");
  }
  const auto value = parse_count(word.substr(equals + 1));
  if (!value) {
    throw InputError("'" + std::string(word) + "': " + std::string(expected_name) +
                     " must be a whole number, got '" + std::string(word.substr(equals + 1)) + "'");
  }
  return *value;
}

std::string fields_text(const std::vector<std::string>& names, std::string_view tail) {
  std::string text;
  for (const auto& name : names) {
    text += name + "= ";
  }
  return text + std::string(tail);
}

std::string words_after_operator(const std::vector<std::string_view>& words) {
  std::string text;
  for (size_t i = 1; i < words.size(); ++i) {
    text += (i == 1 ? "" : " ") + std::string(words[i]);
  }
  return text;
}

Dtype read_dtype(std::string_view word) {
  for (Dtype dtype : {Dtype::fp32, Dtype::bf16, Dtype::fp16, Dtype::fp8}) {
    if (word == dtype_name(dtype)) {
      return dtype;
    }
  }
  throw InputError(unknown_name_message("dtype", word, {"fp32", "bf16", "fp16", "fp8"}));
}

events::Event compute_event(const OperatorShape& shape, const std::vector<std::string_view>& words) {
  const std::string expected = fields_text(shape.dims, "and a dtype");
  if (words.size() != shape.dims.size() + 2) {
    throw InputError("operator '" + shape.name + "' takes " + expected + " (" + std::to_string(shape.dims.size() + 1) +
                     " fields), got " + std::to_string(words.size() - 1));
  }
  events::Event event;
  event.event_class = shape.event_class;
  event.op = shape.name;
  for (size_t i = 0; i < shape.dims.size(); ++i) {
    event.dims.push_back({shape.dims[i], read_field(words[i + 1], shape.dims[i], shape, expected)});
  }
  event.dtype = read_dtype(words.back());
  return event;
}

events::Collective collective_named(std::string_view name) {
  using events::Collective;
  for (Collective collective :
       {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter, Collective::send_recv,
        Collective::ring_exchange}) {
    if (events::collective_name(collective) == name) {
      return collective;
    }
  }
  throw InternalError("no collective named '" + std::string(name) + "'");
}

events::Event communication_event(const OperatorShape& shape, const std::vector<std::string_view>& words) {
  const std::string expected = "bytes= group= and intra, or inter per_node=";
  const bool has_placement = words.size() >= 4 && (words[3] == "intra" || words[3] == "inter");
  const size_t expected_words = has_placement && words[3] == "inter" ? 5 : 4;
  if (!has_placement || words.size() != expected_words) {
    throw InputError("operator '" + shape.name + "' takes " + expected + ", got '" + words_after_operator(words) + "'");
  }
  events::Event event;
  event.event_class = shape.event_class;
  event.op = shape.name;
  event.collective = collective_named(shape.name);
  event.bytes = read_field(words[1], "bytes", shape, expected);
  event.group_size = static_cast<int>(read_field(words[2], "group", shape, expected));
  event.intra_node = words[3] == "intra";
  event.ranks_per_node = event.intra_node ? event.group_size
                                          : static_cast<int>(read_field(words[4], "per_node", shape, expected));
  if (event.bytes < 1 || event.group_size < 2 || event.ranks_per_node < 1) {
    throw InputError("operator '" + shape.name + "' needs bytes >= 1, group >= 2 and per_node >= 1");
  }
  return event;
}

}  // namespace

const std::vector<std::string>& known_operator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> list;
    for (const auto& shape : operator_shapes()) {
      list.push_back(shape.name);
    }
    return list;
  }();
  return names;
}

events::Event parse_event_key(std::string_view key) {
  const auto words = split_words(key);
  const auto& shapes = operator_shapes();
  const auto shape = std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.name == words[0]; });
  if (words[0].empty()) {
    throw InputError("the event key is empty or starts with a space");
  }
  if (shape == shapes.end()) {
    throw InputError(unknown_name_message("operator", words[0], known_operator_names()));
  }
  const bool communication =
      shape->event_class == events::EventClass::collective || shape->event_class == events::EventClass::point_to_point;
  events::Event event = communication ? communication_event(*shape, words) : compute_event(*shape, words);
  // Keys are compared as text, so one written differently (leading zeros, "+1") would never match.
  if (event.key() != key) {
    throw InputError("the key is not written the way distsim writes it; expected '" + event.key() + "'");
  }
  return event;
}

}  // namespace distsim::profile
