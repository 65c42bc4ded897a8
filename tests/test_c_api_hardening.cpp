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
#include "support/sanitizers.hpp"
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

// Runs call(pages) on `bytes` of read-only zero pages (reserving no memory), with the
// address space capped at 1 GiB above its current size; returns what the call returned.
template <class Call>
mimd_status_t under_cap(std::size_t bytes, Call call) {
  void* pages =
      ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  EXPECT_NE(pages, MAP_FAILED);
  if (pages == MAP_FAILED) return MIMD_SUCCESS;
  mimd_status_t status;
  {
    AddressSpaceCap cap(virtual_size() + (std::uint64_t{1} << 30));
    EXPECT_TRUE(cap.ok());
    status = call(pages);
  }
  ::munmap(pages, bytes);
  return status;
}

TEST(CApiHardening, AllocationFailureIsOutOfMemory) {
#if MIMD_TEST_ASAN || MIMD_TEST_TSAN
  GTEST_SKIP() << "the sanitizers' allocators abort instead of failing an allocation";
#endif
  mimd::testing::context();
  mimd_context_t ctx = nullptr;
  ASSERT_EQ(mimd_context_create(0, &ctx), MIMD_SUCCESS);
  // A graph of 2^31 - 2 vertices and no edge: its row offsets (16 GiB, zero pages
  // here) are copied by mimd_bfs, an allocation the cap refuses.
  const std::int32_t n = 2147483646;
  const mimd_status_t status =
      under_cap((static_cast<std::size_t>(n) + 1) * sizeof(std::int64_t), [&](const void* row_map) {
        return mimd_bfs(ctx, nullptr, n, static_cast<const std::int64_t*>(row_map), nullptr, 1, 0,
                        nullptr, nullptr, nullptr);
      });
  EXPECT_EQ(status, MIMD_OUT_OF_MEMORY) << mimd_last_error(ctx);
  EXPECT_NE(std::string(mimd_last_error(ctx)).find("mimd_bfs"), std::string::npos);
  mimd_context_destroy(ctx);
}

TEST(CApiHardening, CsrInt32OffsetsCopyRefusedIsOutOfMemory) {
#if MIMD_TEST_ASAN || MIMD_TEST_TSAN
  GTEST_SKIP() << "the sanitizers' allocators abort instead of failing an allocation";
#endif
  mimd_context_t ctx = nullptr;
  ASSERT_EQ(mimd_context_create(0, &ctx), MIMD_SUCCESS);
  // 2^31 - 1 rows with int32 offsets (8 GiB of zero pages): the 64-bit copy (16 GiB)
  // is refused by the cap before any offset is read.
  const std::int64_t n = 2147483647;
  mimd_csr_t csr = nullptr;
  const mimd_status_t status =
      under_cap((static_cast<std::size_t>(n) + 1) * sizeof(std::int32_t), [&](const void* row_map) {
        return mimd_csr_create(ctx, n, n, 0, MIMD_INT32, row_map, nullptr, MIMD_DOUBLE, nullptr,
                               &csr);
      });
  EXPECT_EQ(status, MIMD_OUT_OF_MEMORY) << mimd_last_error(nullptr);
  EXPECT_EQ(csr, nullptr);
  EXPECT_NE(std::string(mimd_last_error(nullptr)).find("mimd_csr_create"), std::string::npos);
  mimd_context_destroy(ctx);
}

}  // namespace
