// Shared helpers of the test suite.
#pragma once

#include "mimd/context.hpp"

namespace mimd::testing {

/// The process-wide context of the test programs (created on first use). Its SpMM calls
/// never move to the calling thread (TuningProfile::spmm_serial_work_k* = 0), so that every
/// algorithm runs as itself on the small test matrices; the serial path has tests of its
/// own (SpmmAlgorithms.SerialSmallCalls).
inline ExecutionContext& context() {
  static ExecutionContext ctx = [] {
    ExecutionContext c{};
    set_spmm_serial_work(c.tuning(), 0);
    return c;
  }();
  return ctx;
}

/// Restores the context's tuning profile at the end of its scope (plans made inside it
/// see the fields a test changes).
class ProfileScope {
 public:
  ProfileScope() : saved_(context().tuning()) {}
  ~ProfileScope() { context().tuning() = saved_; }
  ProfileScope(const ProfileScope&) = delete;
  ProfileScope& operator=(const ProfileScope&) = delete;

 private:
  TuningProfile saved_;
};

}  // namespace mimd::testing
