// The launch shape of the team kernels (team LSSM, team BFS steps), from the profile.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "core/bits.hpp"
#include "mimd/tuning.hpp"

namespace mimd::core_detail {

/// TuningProfile's team_size, team_vector and team_scratch_bytes, clamped to what the
/// execution space's TeamPolicy allows (the team size is clamped at launch, where the
/// kernel is known: team_size_max depends on it).
struct TeamShape {
  int team_size = 0;               ///< 0: Kokkos::AUTO
  int vector = 1;                  ///< lanes per thread, a power of two <= vector_length_max
  std::int64_t scratch_bytes = 0;  ///< <= the level-0 scratch_size_max
};

/// The profile's fields, unclamped.
inline TeamShape requested_shape(const TuningProfile& profile) {
  return {profile.team_size, profile.team_vector, profile.team_scratch_bytes};
}

/// `want` clamped to what Space's TeamPolicy allows.
template <class Space = Kokkos::DefaultExecutionSpace>
TeamShape clamp_shape(const TeamShape& want) {
  using Policy = Kokkos::TeamPolicy<Space>;
  TeamShape s;
  s.team_size = std::max(0, want.team_size);
  s.vector = std::clamp(pow2_floor(static_cast<std::uint64_t>(std::max(1, want.vector))), 1,
                        pow2_floor(static_cast<std::uint64_t>(Policy::vector_length_max())));
  s.scratch_bytes =
      std::clamp<std::int64_t>(want.scratch_bytes, 0, std::int64_t(Policy::scratch_size_max(0)));
  return s;
}

template <class Space = Kokkos::DefaultExecutionSpace>
TeamShape team_shape(const TuningProfile& profile) {
  return clamp_shape<Space>(requested_shape(profile));
}

/// A TeamPolicy of `league` teams of the shape's size (Kokkos::AUTO for 0, else at most
/// team_size_max for `kernel`) and lanes, with `scratch` bytes of level-0 scratch per team.
template <class Policy, class Kernel, class Tag>
Policy team_policy(std::int64_t league, const TeamShape& shape, std::size_t scratch,
                   const Kernel& kernel, Tag tag) {
  Policy p = Policy(league, Kokkos::AUTO, shape.vector);
  if (shape.team_size > 0) {
    p.set_scratch_size(0, Kokkos::PerTeam(scratch));
    p = Policy(league, std::min(shape.team_size, p.team_size_max(kernel, tag)), shape.vector);
  }
  if (scratch > 0) p.set_scratch_size(0, Kokkos::PerTeam(scratch));
  return p;
}

}  // namespace mimd::core_detail
