#include "strategy/pipeline_layout.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "core/plain_text.hpp"

namespace distsim::strategy {

namespace {

// Far more symbols than any model has layers, and few enough that a repeat count cannot make the
// expanded layout exhaust memory.
constexpr std::size_t kMostSymbols = 1'000'000;

//! One symbol of the expanded layout and where it was written (1-based).
struct Symbol {
  char kind = 't';
  std::size_t position = 0;
};

struct LayoutTextError {
  std::size_t position = 0;
  std::string expected;
};

//! Reads the text by recursive descent, expanding repeats as it goes: sequence := item*,
//! item := atom ['*' count], atom := E | t | L | m | '|' | ',' | '(' sequence ')'.
class LayoutReader {
 public:
  explicit LayoutReader(std::string_view text) : text_(text) {}

  std::vector<Symbol> read() {
    std::vector<Symbol> symbols = sequence();
    if (at_end()) return symbols;
    throw LayoutTextError{next_ + 1, "a layer symbol or '|', got ')' without a matching '('"};
  }

 private:
  bool at_end() const { return next_ >= text_.size(); }

  std::vector<Symbol> sequence() {
    std::vector<Symbol> symbols;
    while (!at_end() && text_[next_] != ')') {
      std::vector<Symbol> item = atom();
      repeat(item);
      append(symbols, item);
    }
    return symbols;
  }

  std::vector<Symbol> atom() {
    const std::size_t position = next_ + 1;
    const char c = text_[next_++];
    switch (c) {
      case 'E':
      case 't':
      case 'm':
      case 'L':
      case '|': return {Symbol{c, position}};
      case ',': return {};
      case '(': return group(position);
      case '*': throw LayoutTextError{position, "a layer symbol, '|' or a group in parentheses before '*'"};
      default:
        throw LayoutTextError{position, std::string("E, t, m, L, '|', ',', '(' or a repeat '*N', got '") + c + "'"};
    }
  }

  std::vector<Symbol> group(std::size_t opened_at) {
    std::vector<Symbol> inner = sequence();
    if (at_end()) throw LayoutTextError{opened_at, "a ')' closing this '('"};
    ++next_;
    if (inner.empty()) throw LayoutTextError{opened_at, "a layer symbol or '|' inside the parentheses"};
    return inner;
  }

  void repeat(std::vector<Symbol>& item) {
    if (at_end() || text_[next_] != '*') return;
    const std::size_t star = next_ + 1;
    ++next_;
    std::size_t count = 0;
    const std::size_t digits_at = next_;
    while (!at_end() && text_[next_] >= '0' && text_[next_] <= '9') {
      count = count * 10 + static_cast<std::size_t>(text_[next_++] - '0');
      if (count > kMostSymbols) throw LayoutTextError{digits_at + 1, too_long()};
    }
    if (next_ == digits_at) throw LayoutTextError{star, "a repeat count after '*'"};
    if (count == 0) throw LayoutTextError{digits_at + 1, "a repeat count of at least 1, got 0"};
    if (item.empty()) throw LayoutTextError{star, "a layer symbol, '|' or a group in parentheses before '*'"};
    if (item.size() * count > kMostSymbols) throw LayoutTextError{star, too_long()};
    const std::vector<Symbol> once = item;
    for (std::size_t i = 1; i < count; ++i) item.insert(item.end(), once.begin(), once.end());
  }

  void append(std::vector<Symbol>& symbols, const std::vector<Symbol>& item) const {
    if (symbols.size() + item.size() > kMostSymbols) throw LayoutTextError{next_, too_long()};
    symbols.insert(symbols.end(), item.begin(), item.end());
  }

  static std::string too_long() {
    return "a layout of at most " + std::to_string(kMostSymbols) + " symbols once repeats are expanded";
  }

  std::string_view text_;
  std::size_t next_ = 0;
};

//! Exactly one E, written first, and exactly one L, written last (Megatron-Core
//! validate_layer_layout).
void check_ends(const std::vector<Symbol>& symbols) {
  const Symbol* embedding = nullptr;
  const Symbol* loss = nullptr;
  for (const Symbol& symbol : symbols) {
    if (symbol.kind == 'E') {
      if (embedding) throw LayoutTextError{symbol.position, "one E only, got a second"};
      embedding = &symbol;
    } else if (symbol.kind == 'L') {
      if (loss) throw LayoutTextError{symbol.position, "one L only, got a second"};
      loss = &symbol;
    }
  }
  if (!embedding) throw LayoutTextError{1, "E (the embedding) as the first symbol; the layout has none"};
  if (!loss)
    throw LayoutTextError{symbols.back().position, "L (head and loss) as the last symbol; the layout has none"};
  for (const Symbol& symbol : symbols) {
    if (symbol.kind == 'E') break;
    if (symbol.kind != '|') throw LayoutTextError{symbol.position, "E (the embedding) before any other layer"};
  }
  for (auto it = symbols.rbegin(); it != symbols.rend() && it->kind != 'L'; ++it) {
    if (it->kind != '|') throw LayoutTextError{it->position, "L (head and loss) after every other layer"};
  }
  // The MTP modules run with the head and loss they share (Megatron-Core's layouts put them there).
  const auto stage_ends = std::count_if(symbols.begin(), symbols.end(), [](const Symbol& s) { return s.kind == '|'; });
  std::ptrdiff_t ends_seen = 0;
  for (const Symbol& symbol : symbols) {
    ends_seen += symbol.kind == '|' ? 1 : 0;
    if (symbol.kind == 'm' && ends_seen < stage_ends) {
      throw LayoutTextError{symbol.position,
                            "m (a multi-token prediction layer) only in the virtual stage that holds L"};
    }
  }
}

std::vector<VirtualStage> stages_of(const std::vector<Symbol>& symbols) {
  std::vector<VirtualStage> stages(1);
  int next_layer = 0;
  for (const Symbol& symbol : symbols) {
    switch (symbol.kind) {
      case 'E': stages.back().embedding = true; break;
      case 'L': stages.back().head = true; break;
      case 'm': ++stages.back().mtp_layers; break;
      case 't':
        ++stages.back().num_layers;
        ++next_layer;
        break;
      default: stages.push_back({next_layer, 0, false, false});
    }
  }
  return stages;
}

std::string number(int value) { return std::to_string(value); }

//! Lays `counts` (decoder layers per virtual stage, in pipeline order) out contiguously, the
//! embedding on the first and the head on the last.
std::vector<VirtualStage> contiguous(const std::vector<int>& counts) {
  std::vector<VirtualStage> stages;
  int first = 0;
  for (const int count : counts) {
    stages.push_back({first, count, false, false});
    first += count;
  }
  stages.front().embedding = true;
  stages.back().head = true;
  return stages;
}

std::vector<VirtualStage> from_text(const Strategy& s, int total_layers, int virtual_stages,
                                    std::vector<std::string>& problems) {
  const ParsedPipelineLayout parsed = parse_pipeline_layout(s.pipeline_layout);
  const std::string where = "pipeline_layout " + quoted(s.pipeline_layout) + " ";
  if (!parsed.ok()) {
    problems.push_back(where + parsed.problem);
    return {};
  }
  const int stages = static_cast<int>(parsed.stages.size());
  const int layers = parsed.stages.back().first_layer + parsed.stages.back().num_layers;
  const std::size_t before = problems.size();
  if (stages != virtual_stages) {
    problems.push_back(where + "has " + number(stages) +
                       " virtual stages (separated by '|'), but pipeline parallel "
                       "size x virtual stages = " +
                       number(s.pipeline_parallel) + " x " + number(virtual_stages / s.pipeline_parallel) + " = " +
                       number(virtual_stages));
  }
  if (layers != total_layers) {
    problems.push_back(where + "names " + number(layers) + " decoder layers (t), but the model has " +
                       number(total_layers));
  }
  return problems.size() == before ? parsed.stages : std::vector<VirtualStage>{};
}

std::vector<VirtualStage> from_end_stages(const Strategy& s, int total_layers, int chunks,
                                          std::vector<std::string>& problems) {
  const int stages = s.pipeline_parallel;
  const std::size_t before = problems.size();
  if (stages < 2) {
    problems.push_back("first_stage_layers and last_stage_layers need a pipeline parallel size of at least 2, got " +
                       number(stages));
    return {};
  }
  const int ends = s.first_stage_layers + s.last_stage_layers;
  const int middle_stages = stages - (s.first_stage_layers > 0 ? 1 : 0) - (s.last_stage_layers > 0 ? 1 : 0);
  const int middle_layers = total_layers - ends;
  std::string given;
  if (s.first_stage_layers > 0) given = "first_stage_layers " + number(s.first_stage_layers);
  if (s.last_stage_layers > 0) {
    given += (given.empty() ? "" : " and ") + std::string("last_stage_layers ") + number(s.last_stage_layers);
  }
  const std::string leave = s.first_stage_layers > 0 && s.last_stage_layers > 0 ? " leave " : " leaves ";
  if (middle_layers < 0 || (middle_stages == 0 && middle_layers != 0)) {
    problems.push_back(given + leave + number(middle_layers) + " of the model's " + number(total_layers) +
                       " layers for the other " + number(middle_stages) +
                       " pipeline stages, which must hold all "
                       "the rest");
    return {};
  }
  const int per_middle = middle_stages > 0 ? middle_layers / middle_stages : 0;
  if (middle_stages > 0 && middle_layers % middle_stages != 0) {
    problems.push_back(given + leave + number(middle_layers) + " of the model's " + number(total_layers) +
                       " layers, which do not split evenly over the other " + number(middle_stages) +
                       " pipeline stages (Megatron-Core refuses the remainder)");
  }
  std::vector<int> per_stage(static_cast<std::size_t>(stages), per_middle);
  if (s.first_stage_layers > 0) per_stage.front() = s.first_stage_layers;
  if (s.last_stage_layers > 0) per_stage.back() = s.last_stage_layers;
  for (int stage = 0; stage < stages; ++stage) {
    const int count = per_stage[static_cast<std::size_t>(stage)];
    if (count % chunks != 0) {
      problems.push_back("pipeline stage " + number(stage) + " would hold " + number(count) +
                         " layers, which do not split evenly over its " + number(chunks) + " virtual stages");
    }
  }
  if (problems.size() != before) return {};
  std::vector<int> counts;
  for (int chunk = 0; chunk < chunks; ++chunk) {
    for (int stage = 0; stage < stages; ++stage) counts.push_back(per_stage[static_cast<std::size_t>(stage)] / chunks);
  }
  return contiguous(counts);
}

std::vector<VirtualStage> from_accounting(const Strategy& s, int total_layers, int virtual_stages,
                                          std::vector<std::string>& problems) {
  const int embedding = s.account_for_embedding ? 1 : 0;
  const int loss = s.account_for_loss ? 1 : 0;
  const int counted = total_layers + embedding + loss;
  const std::string what =
      std::string(embedding ? "embedding" : "") + (embedding && loss ? " and " : "") + (loss ? "loss" : "");
  if (counted % virtual_stages != 0) {
    problems.push_back(
        "the model's " + number(total_layers) + " layers + the " + what + " = " + number(counted) +
        " do not split evenly over pipeline parallel size x virtual stages = " + number(s.pipeline_parallel) + " x " +
        number(virtual_stages / s.pipeline_parallel) + " = " + number(virtual_stages));
    return {};
  }
  std::vector<int> counts(static_cast<std::size_t>(virtual_stages), counted / virtual_stages);
  counts.front() -= embedding;
  counts.back() -= loss;
  if (counts.front() < 0 || counts.back() < 0) {
    problems.push_back("with the " + what + " counted as layers, one layer per virtual stage leaves none for the " +
                       what + " itself");
    return {};
  }
  return contiguous(counts);
}

std::string settings_given(const Strategy& s) {
  std::string text;
  const auto add = [&text](bool given, const char* key) {
    if (given) text += (text.empty() ? "" : ", ") + std::string(key);
  };
  add(!s.pipeline_layout.empty(), "pipeline_layout");
  add(s.first_stage_layers > 0, "first_stage_layers");
  add(s.last_stage_layers > 0, "last_stage_layers");
  add(s.account_for_embedding, "account_for_embedding_in_pipeline_split");
  add(s.account_for_loss, "account_for_loss_in_pipeline_split");
  return text;
}

//! Megatron-Core takes one way of describing the layout at a time: a layout string alone, or
//! first/last stage layers, or the embedding and loss accounting.
bool one_description(const Strategy& s, std::vector<std::string>& problems) {
  const bool text = !s.pipeline_layout.empty();
  const bool ends = s.first_stage_layers > 0 || s.last_stage_layers > 0;
  const bool accounting = s.account_for_embedding || s.account_for_loss;
  if ((text ? 1 : 0) + (ends ? 1 : 0) + (accounting ? 1 : 0) <= 1) return true;
  problems.push_back(settings_given(s) +
                     " describe the pipeline layout in more than one way; give the layout string alone, or "
                     "first/last stage layers, or the embedding/loss accounting (as Megatron-Core accepts them)");
  return false;
}

void refuse_empty_stages(const std::vector<VirtualStage>& stages, int pipeline_stages,
                         std::vector<std::string>& problems) {
  for (std::size_t index = 0; index < stages.size(); ++index) {
    const VirtualStage& stage = stages[index];
    if (stage.num_layers == 0 && !stage.embedding && !stage.head) {
      const int position = static_cast<int>(index);
      problems.push_back("virtual stage " + number(position) + " (pipeline stage " +
                         number(position % pipeline_stages) + ", chunk " + number(position / pipeline_stages) +
                         ") would hold no layer, embedding or head; every virtual stage must hold something");
    }
  }
}

}  // namespace

ParsedPipelineLayout parse_pipeline_layout(std::string_view text) {
  try {
    if (text.empty()) throw LayoutTextError{1, "a layout such as 'Et*3|t*4|t*3L'; got an empty string"};
    const std::vector<Symbol> symbols = LayoutReader(text).read();
    if (symbols.empty()) throw LayoutTextError{1, "at least E and L"};
    check_ends(symbols);
    return {stages_of(symbols), ""};
  } catch (const LayoutTextError& error) {
    return {{}, "at position " + std::to_string(error.position) + ": expected " + error.expected};
  }
}

bool asks_balanced_layout(const Strategy& strategy) { return strategy.pipeline_layout == kBalancedLayout; }

std::string pipeline_layout_problem(const std::string& text) {
  return text == kBalancedLayout ? std::string() : parse_pipeline_layout(text).problem;
}

void check_balanced_layout(const Strategy& strategy, int chunks_per_stage, std::vector<std::string>& problems) {
  if (!one_description(strategy, problems)) return;
  if (chunks_per_stage != 1) {
    problems.push_back("pipeline_layout 'balanced' splits the layers over one model chunk per stage; schedule '" +
                       strategy.schedule + "' with " + number(chunks_per_stage) +
                       " chunks a stage needs a layout string");
  }
}

std::vector<VirtualStage> custom_pipeline_layout(const Strategy& strategy, int total_layers, int chunks_per_stage,
                                                 std::vector<std::string>& problems) {
  if (!one_description(strategy, problems) || total_layers <= 0 || chunks_per_stage <= 0 ||
      strategy.pipeline_parallel <= 0) {
    return {};
  }
  const int virtual_stages = strategy.pipeline_parallel * chunks_per_stage;
  std::vector<VirtualStage> stages;
  if (asks_balanced_layout(strategy)) {
    problems.emplace_back("pipeline_layout 'balanced' is used before the simulation found its layout string");
    return {};
  }
  if (!strategy.pipeline_layout.empty()) {
    stages = from_text(strategy, total_layers, virtual_stages, problems);
  } else if (strategy.first_stage_layers > 0 || strategy.last_stage_layers > 0) {
    stages = from_end_stages(strategy, total_layers, chunks_per_stage, problems);
  } else {
    stages = from_accounting(strategy, total_layers, virtual_stages, problems);
  }
  const std::size_t before = problems.size();
  refuse_empty_stages(stages, strategy.pipeline_parallel, problems);
  return problems.size() == before ? stages : std::vector<VirtualStage>{};
}

}  // namespace distsim::strategy
