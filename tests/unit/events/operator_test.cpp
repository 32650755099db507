#include "events/operator.hpp"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "core/input_error.hpp"
#include "events/event_factory.hpp"
#include "events/event_key.hpp"

namespace distsim::events {

namespace {

//! An event of `spec` with a different value in every field, so that a field read into the wrong
//! place would show: dims 3, 10, 17, ... by position, flags 1, dtype fp16, bytes 4096, group 4 and,
//! across nodes, 2 ranks per node.
Event sample_event(const OperatorSpec& spec, bool within_domain) {
  Event event;
  event.op = spec.op;
  event.event_class = spec.event_class;
  event.dtype = Dtype::fp16;
  std::int64_t position = 0;
  for (const auto& field : spec.fields) {
    if (field.type == KeyFieldType::dim) {
      event.dims.push_back({field.name, 3 + 7 * position++});
    } else if (field.type == KeyFieldType::flag) {
      event.dims.push_back({field.name, 1});
    }
  }
  if (spec.is_communication()) {
    event.collective = collective_of(spec.op);
    event.bytes = 4096;
    event.group_size = 4;
    event.within_domain = within_domain;
    event.ranks_per_domain = within_domain ? 4 : 2;
  }
  return event;
}

std::string error_of(const Event& event) {
  try {
    format_event_key(event);
  } catch (const InternalError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(OperatorTable, FollowsTheEnumWithUniqueNames) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < operator_table().size(); ++i) {
    const OperatorSpec& spec = operator_table()[i];
    EXPECT_EQ(static_cast<size_t>(spec.op), i) << spec.name;
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name << " twice";
    EXPECT_EQ(find_operator(spec.name), spec.op);
    EXPECT_FALSE(spec.meaning.empty()) << spec.name;
    EXPECT_EQ(operator_spec(spec.op).name, spec.name);
  }
  EXPECT_EQ(operator_table().back().op, Operator::all_to_all);  // the enum's last
  EXPECT_FALSE(find_operator("gemn").has_value());
}

// Every compute operator ends its key with the dtype; every communication operator writes the
// message fields bytes, group and placement and nothing else.
TEST(OperatorTable, KeysEndWithADtypeOrThePlacement) {
  for (const auto& spec : operator_table()) {
    ASSERT_FALSE(spec.fields.empty()) << spec.name;
    if (spec.is_communication()) {
      ASSERT_EQ(spec.fields.size(), 3u) << spec.name;
      EXPECT_EQ(spec.fields[0].type, KeyFieldType::bytes);
      EXPECT_EQ(spec.fields[1].type, KeyFieldType::group);
      EXPECT_EQ(spec.fields[2].type, KeyFieldType::placement);
    } else {
      EXPECT_EQ(spec.fields.back().type, KeyFieldType::dtype) << spec.name;
    }
  }
}

//! Every operator's sample events and each of their variants in one field: each dimension one
//! larger, another dtype, bytes, group or per-domain count, an optional dimension written (the
//! attention window), and a count inside a domain that the key does not write.
std::vector<Event> variants_of_every_operator() {
  std::vector<Event> events;
  for (const auto& spec : operator_table()) {
    for (bool within_domain : {true, false}) {
      const Event sample = sample_event(spec, within_domain);
      events.push_back(sample);
      for (std::size_t d = 0; d < sample.dims.size(); ++d) {
        events.push_back(sample);
        ++events.back().dims[d].value;
      }
      events.push_back(sample);
      events.back().dtype = Dtype::bf16;
      if (spec.is_communication()) {
        events.push_back(sample);
        events.back().bytes = 8192;
        events.push_back(sample);
        events.back().group_size = 8;
        events.push_back(sample);
        events.back().ranks_per_domain = 3;
      }
      for (std::size_t position = 0, dims = 0; position < spec.fields.size(); ++position) {
        const KeyField& field = spec.fields[position];
        if (field.type == KeyFieldType::optional_dim) {
          Event windowed = sample;
          windowed.dims.insert(windowed.dims.begin() + static_cast<std::ptrdiff_t>(dims), Dim{field.name, 128});
          events.push_back(windowed);
        } else if (field.type == KeyFieldType::dim || field.type == KeyFieldType::flag) {
          ++dims;
        }
      }
    }
  }
  return events;
}

// The program builder deduplicates events by identity instead of writing each key: two events
// must share an identity exactly when they share a key, over every operator and every field.
TEST(OperatorTable, IdentitiesAreEqualExactlyWhenKeysAre) {
  const std::vector<Event> events = variants_of_every_operator();
  std::vector<std::string> keys;
  std::vector<EventIdentity> identities;
  for (const Event& event : events) {
    keys.push_back(format_event_key(event));
    identities.push_back(event_identity(event));
  }
  int equal_keys_of_different_events = 0;
  for (std::size_t a = 0; a < events.size(); ++a) {
    for (std::size_t b = a + 1; b < events.size(); ++b) {
      ASSERT_EQ(keys[a] == keys[b], identities[a] == identities[b]) << keys[a] << " / " << keys[b];
      if (keys[a] == keys[b]) {
        ++equal_keys_of_different_events;
        EXPECT_EQ(EventIdentityHash{}(identities[a]), EventIdentityHash{}(identities[b]));
      }
    }
  }
  // Inside a domain the key writes no per-domain count: those variants share their sample's key.
  EXPECT_GT(equal_keys_of_different_events, 0);
}

TEST(OperatorTable, KeyOfEveryOperatorReadsBackToTheSameEvent) {
  for (const auto& spec : operator_table()) {
    for (bool within_domain : {true, false}) {
      const Event event = sample_event(spec, within_domain);
      const std::string key = format_event_key(event);
      SCOPED_TRACE(key);
      const Event back = parse_event_key(key);
      EXPECT_EQ(back.op, event.op);
      EXPECT_EQ(back.event_class, spec.event_class);
      EXPECT_EQ(back.dims, event.dims);
      EXPECT_EQ(format_event_key(back), key);
      if (spec.is_communication()) {
        EXPECT_EQ(back.collective, event.collective);
        EXPECT_EQ(back.bytes, 4096);
        EXPECT_EQ(back.group_size, 4);
        EXPECT_EQ(back.within_domain, within_domain);
        EXPECT_EQ(back.ranks_per_domain, event.ranks_per_domain);
      } else {
        EXPECT_EQ(back.dtype, Dtype::fp16);
      }
    }
  }
}

// Profile databases, the fixtures of tests/fixtures/profiles and golden outputs hold keys in this
// form; these are written by hand from the format docs/profile_db.md describes.
TEST(OperatorTable, FactoryWritesKeysInTheDocumentedForm) {
  const EventFactory bf16(Dtype::bf16);
  EXPECT_EQ(bf16.gemm(128, 768, 256).key(), "gemm m=128 n=768 k=256 bf16");
  EXPECT_EQ(bf16.fp8_gemm(128, 768, 256).key(), "gemm m=128 n=768 k=256 fp8");
  EXPECT_EQ(bf16.batched_gemm(3, 8, 4, 16).key(), "batched_gemm batch=3 m=8 n=4 k=16 bf16");
  EXPECT_EQ(EventFactory(Dtype::fp16).attention(true, 2, 4, 1, 128, 128, 64, true).key(),
            "flash_attention_bwd b=2 heads=4 kv_heads=1 sq=128 skv=128 d=64 causal=1 fp16");
  EXPECT_EQ(bf16.elementwise(Operator::gelu_bwd, 4, 8, 2, 1).key(), "gelu_bwd rows=4 cols=8 bf16");
  EXPECT_EQ(bf16.norm_to_fp8(Operator::rmsnorm, 4, 8).key(), "rmsnorm_fp8 rows=4 cols=8 bf16");
  EXPECT_EQ(EventFactory(Dtype::fp32).adam_step(64).key(), "adam_step params=64 fp32");
  EXPECT_EQ(bf16.collective(Collective::all_reduce, 1048576,
                            {.size = 8, .hosts = 1, .domains = 1, .ranks_per_host = 8, .ranks_per_domain = 8}, 8)
                .key(),
            "all_reduce bytes=1048576 group=8 intra");
  EXPECT_EQ(bf16.collective(Collective::reduce_scatter, 8388608,
                            {.size = 16, .hosts = 2, .domains = 2, .ranks_per_host = 8, .ranks_per_domain = 8}, 16)
                .key(),
            "reduce_scatter bytes=8388608 group=16 inter per_node=8");
  EXPECT_EQ(
      bf16.send_recv(4096, {.size = 2, .hosts = 2, .domains = 2, .ranks_per_host = 1, .ranks_per_domain = 1}).key(),
      "send_recv bytes=4096 group=2 inter per_node=1");
  EXPECT_EQ(
      bf16.ring_exchange(4194304, {.size = 4, .hosts = 2, .domains = 2, .ranks_per_host = 2, .ranks_per_domain = 2}, 4)
          .key(),
      "ring_exchange bytes=4194304 group=4 inter per_node=2");
}

TEST(OperatorTable, CommunicationOperatorsAreTheCollectives) {
  const std::vector<std::pair<Collective, std::string_view>> collectives = {
      {Collective::all_reduce, "all_reduce"},         {Collective::all_gather, "all_gather"},
      {Collective::reduce_scatter, "reduce_scatter"}, {Collective::send_recv, "send_recv"},
      {Collective::ring_exchange, "ring_exchange"},   {Collective::all_to_all, "all_to_all"}};
  size_t communication = 0;
  for (const auto& spec : operator_table()) {
    communication += spec.is_communication() ? 1 : 0;
  }
  EXPECT_EQ(communication, collectives.size());
  for (const auto& [collective, name] : collectives) {
    EXPECT_EQ(collective_name(collective), name);
    EXPECT_EQ(collective_of(operator_of(collective)), collective);
    EXPECT_TRUE(operator_spec(operator_of(collective)).is_communication());
  }
  EXPECT_EQ(operator_spec(Operator::send_recv).event_class, EventClass::point_to_point);
  EXPECT_EQ(operator_spec(Operator::all_gather).event_class, EventClass::collective);
  EXPECT_THROW(collective_of(Operator::gemm), InternalError);
}

TEST(OperatorTable, DescribesTheKeyGrammar) {
  EXPECT_EQ(key_grammar(operator_spec(Operator::gemm)), "gemm m=<N> n=<N> k=<N> <dtype>");
  EXPECT_EQ(key_grammar(operator_spec(Operator::flash_attention_fwd)),
            "flash_attention_fwd b=<N> heads=<N> kv_heads=<N> sq=<N> skv=<N> d=<N> causal=0|1 [window=<N>] <dtype>");
  EXPECT_EQ(key_grammar(operator_spec(Operator::send_recv)), "send_recv bytes=<N> group=<N> intra|inter per_node=<N>");
}

TEST(OperatorTable, RefusesAnEventWhoseDimensionsAreNotItsOperators) {
  Event event = EventFactory(Dtype::bf16).gemm(1, 2, 3);
  event.dims[1].name = "x";
  EXPECT_EQ(error_of(event), "an event of operator 'gemm' has no dimension 'n' at position 1");
  event.dims[1].name = "n";
  event.dims.push_back({"extra", 4});
  EXPECT_EQ(error_of(event), "an event of operator 'gemm' has 4 dimensions; its key takes 3");
}

}  // namespace distsim::events
