// Test driver: one execution context (and so one Kokkos runtime) for the process.
#include <gtest/gtest.h>

#include "support/test_context.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  mimd::testing::context();  // initialise Kokkos before any test creates a View
  return RUN_ALL_TESTS();
}
