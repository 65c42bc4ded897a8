// The C interface under resource exhaustion: found by trying the tools, a Kokkos
// allocation failure surfaced as MIMD_INTERNAL_ERROR instead of MIMD_OUT_OF_MEMORY.
// (Argument checks found the same way are in tests/c/test_c_api.c, compiled as C.)
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "mimd/mimd.h"
#include "support/test_context.hpp"

namespace {

// Virtual memory of this process now, in bytes (VmSize of /proc/self/status).
std::uint64_t virtual_size() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib * 1024;
    }
    status.ignore(1 << 20, '\n');
  }
  return 0;
}

// Caps the address space for the life of the object.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(std::uint64_t bytes) {
    ok_ = ::getrlimit(RLIMIT_AS, &saved_) == 0;
    rlimit cap = saved_;
    cap.rlim_cur = static_cast<rlim_t>(bytes);
    ok_ = ok_ && ::setrlimit(RLIMIT_AS, &cap) == 0;
  }
  ~AddressSpaceCap() {
    if (ok_) ::setrlimit(RLIMIT_AS, &saved_);
  }
  AddressSpaceCap(const AddressSpaceCap&) = delete;
  AddressSpaceCap& operator=(const AddressSpaceCap&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

TEST(CApiHardening, AllocationFailureIsOutOfMemory) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "the sanitizers' allocators abort instead of failing an allocation";
#endif
  mimd::testing::context();
  mimd_context_t ctx = nullptr;
  ASSERT_EQ(mimd_context_create(0, &ctx), MIMD_SUCCESS);
  // A graph of 2^31 - 2 vertices and no edge: its row offsets (16 GiB, read-only zero
  // pages here) are copied by mimd_bfs, an allocation the cap refuses.
  const std::int32_t n = 2147483646;
  const std::size_t bytes = (static_cast<std::size_t>(n) + 1) * sizeof(std::int64_t);
  void* row_map =
      ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(row_map, MAP_FAILED);
  mimd_status_t status;
  {
    AddressSpaceCap cap(virtual_size() + (std::uint64_t{1} << 30));
    ASSERT_TRUE(cap.ok());
    status = mimd_bfs(ctx, nullptr, n, static_cast<const std::int64_t*>(row_map), nullptr, 1, 0,
                      nullptr, nullptr, nullptr);
  }
  ::munmap(row_map, bytes);
  EXPECT_EQ(status, MIMD_OUT_OF_MEMORY) << mimd_last_error(ctx);
  EXPECT_NE(std::string(mimd_last_error(ctx)).find("mimd_bfs"), std::string::npos);
  mimd_context_destroy(ctx);
}

}  // namespace
