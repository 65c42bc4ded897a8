// Synthetic workloads. Every generator is deterministic for a seed whatever the
// thread count: the output is cut into fixed blocks, each reseeded from (seed, block).
#pragma once

#include <cstdint>
#include <string>

#include "mimd/csr.hpp"

namespace mimd {

/// Graph500 Kronecker (R-MAT with A = 0.57, B = 0.19, C = 0.19, D = 0.05):
/// 2^scale vertices, edge_factor * 2^scale edges, vertex ids permuted. The result is
/// symmetrised (both directions stored); self-loops and duplicates removed.
HostPattern kronecker(int scale, int edge_factor = 16, std::uint64_t seed = 27491095);

/// Uniform random graph (GAP's urand): 2^scale vertices, edge_factor * 2^scale edges
/// with uniformly random endpoints, symmetrised, self-loops and duplicates removed.
HostPattern uniform_random(int scale, int edge_factor = 16, std::uint64_t seed = 27491095);

/// 5-point (2D, n x n) or 7-point (3D, n^3) Laplacian-like stencil with values
/// (2d on the diagonal, -1 off it); `points` = 5, 9 (2D) or 7, 27 (3D).
HostCsr<double> stencil_2d(int n, int points = 5);
HostCsr<double> stencil_3d(int n, int points = 27);

/// Matrix with power-law row lengths: rows x cols, mean row length `mean`, Zipf-like
/// exponent `exponent`, plus `long_rows` rows of `long_len` nonzeros (to stress row
/// splitting). Columns uniform random, values in [-1, 1).
HostCsr<double> power_law(std::int64_t rows, std::int64_t cols, double mean, double exponent = 2.0,
                          int long_rows = 4, std::int64_t long_len = 0,
                          std::uint64_t seed = 27491095);

/// Uniform random matrix: rows x cols with `per_row` nonzeros per row on average.
HostCsr<double> uniform_matrix(std::int64_t rows, std::int64_t cols, double per_row,
                               std::uint64_t seed = 27491095);

/// A generator spec as the benchmark accepts it: "kron:SCALE[:EF]", "urand:SCALE[:EF]",
/// "stencil2d:N[:POINTS]", "stencil3d:N[:POINTS]", "powerlaw:ROWS[:MEAN[:EXP[:LONGROWS]]]",
/// "uniform:ROWS[:PER_ROW]". Graph specs give value 1 on every edge.
/// @throws InvalidArgument naming the spec and what is expected
HostCsr<double> generate(const std::string& spec);
/// True when `spec` has the form of a generator spec (a known prefix and a colon).
bool is_generator_spec(const std::string& spec);

}  // namespace mimd
