#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace distsim::strategy {

//! Which GPUs a slowdown applies to: one rank, every rank of a pipeline stage, or every GPU of a
//! host.
enum class SlowScope { rank, stage, host };

//! GPUs that run their kernels `factor` times as long as the cost model says (a GPU throttled by
//! heat or power, a worse part, a noisy neighbour): `--slow-ranks 7:1.3,stage3:1.1,host2:1.2`.
struct SlowRanks {
  SlowScope scope = SlowScope::rank;
  int index = 0;
  double factor = 1;
  bool operator==(const SlowRanks&) const = default;
};

//! The distribution of the multiplicative noise on each kernel's duration, with mean 1:
//! lognormal exp(σZ − σ²/2); normal 1 + σZ, clipped at 0; uniform on [1 − a, 1 + a].
enum class JitterDistribution { lognormal, normal, uniform };

struct KernelJitter {
  JitterDistribution distribution = JitterDistribution::lognormal;
  double spread = 0;  //!< σ, or a for uniform
  bool operator==(const KernelJitter&) const = default;
};

//! How the GPUs of a job differ from the cost model's and from each other (docs/variability.md).
struct Variability {
  std::vector<SlowRanks> slow;
  std::optional<KernelJitter> jitter;
  int jitter_samples = 32;        //!< iterations sampled under jitter
  std::uint64_t jitter_seed = 1;  //!< the same seed gives the same samples
  bool operator==(const Variability&) const = default;

  //! Whether ranks of one stage differ (a slow rank or host, or jitter), so that one rank can no
  //! longer stand for its stage: a replica can stand for those that compute alike
  //! (strategy::RankCompute), except under jitter, where every rank draws its own noise.
  bool breaks_symmetry() const;
  //! The factor of a GPU's kernels: the product of the items that name its rank, stage or host.
  double factor(int rank, int stage, int host) const;
};

//! "7:1.3,stage3:1.1,host2:1.2" as items, or the problem with the text.
struct ParsedSlowRanks {
  std::vector<SlowRanks> items;
  std::string problem;
};
ParsedSlowRanks parse_slow_ranks(std::string_view text);
//! The items as parse_slow_ranks reads them back.
std::string slow_ranks_text(const std::vector<SlowRanks>& items);

//! "lognormal:0.05" as a jitter, or the problem with the text.
struct ParsedJitter {
  KernelJitter jitter;
  std::string problem;
};
ParsedJitter parse_kernel_jitter(std::string_view text);
std::string kernel_jitter_text(const KernelJitter& jitter);

}  // namespace distsim::strategy
