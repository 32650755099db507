#include "events/event_key.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>

#include "core/closest_name.hpp"
#include "core/input_error.hpp"

namespace distsim::events {

namespace {

//! Whether the event's dimension `index` is `field`'s.
bool is_field(const Event& event, size_t index, const KeyField& field) {
  return index < event.dims.size() && event.dims[index].name == field.name;
}

[[noreturn, gnu::noinline, gnu::cold]] void missing_dimension(const Event& event, const KeyField& field, size_t index) {
  throw InternalError("an event of operator '" + std::string(operator_name(event.op)) + "' has no dimension '" +
                      std::string(field.name) + "' at position " + std::to_string(index));
}

//! The dimension of `event` that `field` writes; the event's dims must follow its key's fields.
const Dim& dim_for(const Event& event, const KeyField& field, size_t index) {
  if (!is_field(event, index, field)) missing_dimension(event, field, index);
  return event.dims[index];
}

//! Walks the fields of the event's key (`spec`, its operator's row) in order, handing `visit` each field that the key
//! writes (with its position in the operator's row) and the dimension it writes (nullptr for the fields that are not
//! dimensions): the one reading of the operator table that the text key and the identity share. Throws InternalError
//! when the event's dimensions are not the ones its operator's key takes.
template <class Visit>
void for_each_key_field(const OperatorSpec& spec, const Event& event, Visit visit) {
  size_t dim_index = 0;
  for (size_t position = 0; position < spec.fields.size(); ++position) {
    const KeyField& field = spec.fields[position];
    switch (field.type) {
      case KeyFieldType::optional_dim:
        if (!is_field(event, dim_index, field)) break;
        [[fallthrough]];
      case KeyFieldType::dim:
      case KeyFieldType::flag: visit(position, field, &dim_for(event, field, dim_index++)); break;
      default: visit(position, field, nullptr); break;
    }
  }
  if (dim_index != event.dims.size()) {
    throw InternalError("an event of operator '" + std::string(spec.name) + "' has " +
                        std::to_string(event.dims.size()) + " dimensions; its key takes " + std::to_string(dim_index));
  }
}

void append_field(std::string& text, const Event& event, const KeyField& field, const Dim* dim) {
  text += ' ';
  switch (field.type) {
    case KeyFieldType::optional_dim:
    case KeyFieldType::dim:
    case KeyFieldType::flag:
      text += dim->name;
      text += '=';
      text += std::to_string(dim->value);
      return;
    case KeyFieldType::dtype: text += dtype_name(event.dtype); return;
    case KeyFieldType::bytes: text += std::string(field.name) + "=" + std::to_string(event.bytes); return;
    case KeyFieldType::group: text += std::string(field.name) + "=" + std::to_string(event.group_size); return;
    case KeyFieldType::placement:
      text += event.within_domain ? "intra" : "inter per_node=" + std::to_string(event.ranks_per_domain);
      return;
  }
}

//! The numbers the key's field writes: an optional dimension as its position and value (so that
//! leaving one out cannot look like another), the placement as -1 inside a domain (where the key
//! writes no per-domain count) or the count.
void append_identity(EventIdentity& identity, const Event& event, const KeyField& field, const Dim* dim,
                     size_t position) {
  switch (field.type) {
    case KeyFieldType::optional_dim:
      identity.words.push_back(-static_cast<std::int64_t>(position) - 1);
      [[fallthrough]];
    case KeyFieldType::dim:
    case KeyFieldType::flag: identity.words.push_back(dim->value); return;
    case KeyFieldType::dtype: identity.words.push_back(static_cast<std::int64_t>(event.dtype)); return;
    case KeyFieldType::bytes: identity.words.push_back(event.bytes); return;
    case KeyFieldType::group: identity.words.push_back(event.group_size); return;
    case KeyFieldType::placement: identity.words.push_back(event.within_domain ? -1 : event.ranks_per_domain); return;
  }
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

//! "m= n= k= and a dtype", "bytes= group= and intra, or inter per_node=": what an operator's
//! key holds after its name, for messages.
std::string expected_fields(const OperatorSpec& spec) {
  std::string text;
  for (const auto& field : spec.fields) {
    text += text.empty() ? "" : " ";
    switch (field.type) {
      case KeyFieldType::dtype: text += "and a dtype"; break;
      case KeyFieldType::placement: text += "and intra, or inter per_node="; break;
      case KeyFieldType::optional_dim: text += std::string(field.name).insert(0, 1, '[') + "=]"; break;
      default: text += std::string(field.name) + "=";
    }
  }
  return text;
}

//! Whether the operator's keys can differ in length: a placement of one or two words, or a field
//! that is left out when 0.
bool has_variable_length(const OperatorSpec& spec) {
  return std::any_of(spec.fields.begin(), spec.fields.end(), [](const KeyField& field) {
    return field.type == KeyFieldType::placement || field.type == KeyFieldType::optional_dim;
  });
}

//! Reads a key's words after the operator's name, one field of the operator table at a time.
class KeyReader {
 public:
  KeyReader(const OperatorSpec& spec, std::vector<std::string_view>& words)
      : spec_(spec), words_(words), expected_(expected_fields(spec)), gpu_type_(take_gpu_type(words)) {}

  Event read() {
    if (!has_variable_length(spec_) && words_.size() != spec_.fields.size() + 1) {
      throw InputError(takes() + " (" + std::to_string(spec_.fields.size()) + " fields), got " +
                       std::to_string(words_.size() - 1));
    }
    Event event;
    event.event_class = spec_.event_class;
    event.op = spec_.op;
    if (spec_.is_communication()) {
      event.collective = collective_of(spec_.op);
    }
    for (const auto& field : spec_.fields) {
      read_field(field, event);
    }
    if (next_ != words_.size()) {
      throw_fields_do_not_match();
    }
    event.gpu_type = gpu_type_;
    return event;
  }

 private:
  std::string takes() const { return "operator '" + std::string(spec_.name) + "' takes " + expected_; }

  [[noreturn]] void throw_fields_do_not_match() const {
    std::string rest;
    for (size_t i = 1; i < words_.size(); ++i) {
      rest += i == 1 ? "" : " ";
      rest += words_[i];
    }
    throw InputError(takes() + ", got '" + rest + "'");
  }

  std::string_view next_word() {
    if (next_ >= words_.size()) {
      throw_fields_do_not_match();
    }
    return words_[next_++];
  }

  //! "name=N" where N is a whole number of at least `minimum`.
  std::int64_t read_number(std::string_view name, std::int64_t minimum) {
    const std::string_view word = next_word();
    const size_t equals = word.find('=');
    if (equals == std::string_view::npos || word.substr(0, equals) != name) {
      throw InputError(takes() + ", got '" + std::string(word) + "'");
    }
    const auto value = parse_count(word.substr(equals + 1));
    if (!value) {
      throw InputError("'" + std::string(word) + "': " + std::string(name) + " must be a whole number, got '" +
                       std::string(word.substr(equals + 1)) + "'");
    }
    if (*value < minimum) {
      throw InputError("'" + std::string(word) + "': operator '" + std::string(spec_.name) + "' needs " +
                       std::string(name) + " >= " + std::to_string(minimum));
    }
    return *value;
  }

  void read_field(const KeyField& field, Event& event) {
    switch (field.type) {
      case KeyFieldType::dim: event.dims.push_back({field.name, read_number(field.name, 0)}); return;
      case KeyFieldType::flag: {
        const std::int64_t value = read_number(field.name, 0);
        if (value > 1) {
          throw InputError("'" + std::string(words_[next_ - 1]) + "': " + std::string(field.name) + " must be 0 or 1");
        }
        event.dims.push_back({field.name, value});
        return;
      }
      case KeyFieldType::optional_dim:
        if (next_ < words_.size() && words_[next_].starts_with(std::string(field.name) + "=")) {
          event.dims.push_back({field.name, read_number(field.name, field.minimum)});
        }
        return;
      case KeyFieldType::dtype: event.dtype = read_dtype(next_word()); return;
      case KeyFieldType::bytes: event.bytes = read_number(field.name, field.minimum); return;
      case KeyFieldType::group: event.group_size = static_cast<int>(read_number(field.name, field.minimum)); return;
      case KeyFieldType::placement: read_placement(field, event); return;
    }
  }

  void read_placement(const KeyField& field, Event& event) {
    const std::string_view word = next_word();
    if (word != "intra" && word != "inter") {
      throw_fields_do_not_match();
    }
    event.within_domain = word == "intra";
    event.ranks_per_domain =
        event.within_domain ? event.group_size : static_cast<int>(read_number("per_node", field.minimum));
  }

  static Dtype read_dtype(std::string_view word) {
    std::vector<std::string> names;
    for (Dtype dtype : kDtypes) {
      if (word == dtype_name(dtype)) {
        return dtype;
      }
      names.emplace_back(dtype_name(dtype));
    }
    throw InputError(unknown_name_message("dtype", word, names));
  }

  //! The GPU type of a trailing "gpu=N" word, which it removes from `words`; 0 without one.
  static int take_gpu_type(std::vector<std::string_view>& words) {
    if (words.size() < 2 || !words.back().starts_with(kGpuTypeField) ||
        words.back().substr(kGpuTypeField.size(), 1) != "=") {
      return 0;
    }
    const auto value = parse_count(words.back().substr(kGpuTypeField.size() + 1));
    if (!value || *value < 1 || *value > std::numeric_limits<int>::max()) {
      throw InputError("'" + std::string(words.back()) + "': " + std::string(kGpuTypeField) +
                       " must be a whole number of at least 1 (a GPU type of the cluster; 0 is written as none)");
    }
    words.pop_back();
    return static_cast<int>(*value);
  }

  const OperatorSpec& spec_;
  const std::vector<std::string_view>& words_;
  std::string expected_;
  int gpu_type_ = 0;
  size_t next_ = 1;
};

}  // namespace

std::string format_event_key(const Event& event) {
  const OperatorSpec& spec = operator_spec(event.op);
  std::string text(spec.name);
  for_each_key_field(spec, event,
                     [&](size_t, const KeyField& field, const Dim* dim) { append_field(text, event, field, dim); });
  if (event.gpu_type != 0) {
    text += ' ';
    text += kGpuTypeField;
    text += '=';
    text += std::to_string(event.gpu_type);
  }
  return text;
}

EventIdentity event_identity(const Event& event) {
  EventIdentity identity;
  write_event_identity(event, identity);
  return identity;
}

void write_event_identity(const Event& event, EventIdentity& identity) {
  const OperatorSpec& spec = operator_spec(event.op);
  identity.words.clear();
  identity.words.reserve(spec.fields.size() + 2);
  identity.words.push_back(static_cast<std::int64_t>(event.op));
  for_each_key_field(spec, event, [&](size_t position, const KeyField& field, const Dim* dim) {
    append_identity(identity, event, field, dim, position);
  });
  if (event.gpu_type != 0) {
    // A word no field writes first, so that the type cannot read as another field's number.
    identity.words.push_back(std::numeric_limits<std::int64_t>::min());
    identity.words.push_back(event.gpu_type);
  }
}

std::size_t EventIdentityHash::operator()(const EventIdentity& identity) const {
  // Each word mixed in whole (boost's hash_combine step), then the bits spread (splitmix64's finalizer).
  std::uint64_t hash = 0;
  for (const std::int64_t word : identity.words) {
    hash ^= static_cast<std::uint64_t>(word) + 0x9E3779B97F4A7C15ULL + (hash << 6U) + (hash >> 2U);
  }
  hash = (hash ^ (hash >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  hash = (hash ^ (hash >> 27U)) * 0x94D049BB133111EBULL;
  return static_cast<std::size_t>(hash ^ (hash >> 31U));
}

Event parse_event_key(std::string_view key) {
  auto words = split_words(key);
  if (words[0].empty()) {
    throw InputError("the event key is empty or starts with a space");
  }
  const auto op = find_operator(words[0]);
  if (!op) {
    throw InputError(unknown_name_message("operator", words[0], operator_names()));
  }
  Event event = KeyReader(operator_spec(*op), words).read();
  // Keys are compared as text, so one written differently (leading zeros, "+1") would never match.
  const std::string canonical = format_event_key(event);
  if (canonical != key) {
    throw InputError("the key is not written the way distsim writes it; expected '" + canonical + "'");
  }
  return event;
}

}  // namespace distsim::events
