// Synthetic workloads. Every generator is deterministic for a seed whatever the
// thread count: the output is cut into fixed blocks, each reseeded from (seed, block).
#pragma once

#include <cstdint>
#include <string>

#include "mimd/csr.hpp"

namespace mimd {

/// Graph500 Kronecker (R-MAT with A = 0.57, B = 0.19, C = 0.19, D = 0.05):
/// 2^scale vertices, edge_factor * 2^scale edges, vertex ids permuted (a keyed
/// pseudo-random bijection of [0, 2^scale)). The result is symmetrised (both
/// directions stored); self-loops and duplicates removed; columns sorted.
/// @throws InvalidArgument scale outside [1, 30] or edge_factor < 1
HostPattern kronecker(int scale, int edge_factor = 16, std::uint64_t seed = 27491095);

/// Uniform random graph (GAP's urand): 2^scale vertices, edge_factor * 2^scale edges
/// with uniformly random endpoints, symmetrised, self-loops and duplicates removed;
/// columns sorted. Degrees are close to Poisson(2 edge_factor).
/// @throws InvalidArgument scale outside [1, 30] or edge_factor < 1
HostPattern uniform_random(int scale, int edge_factor = 16, std::uint64_t seed = 27491095);

/// Laplacian-like stencils on an n x n (2D) or n^3 (3D) grid, natural ordering
/// (x fastest): `points` = 5 or 9 (2D), 7 or 27 (3D). Off-diagonal entries are -1, the
/// diagonal is points - 1, so interior rows hold exactly `points` entries summing to 0;
/// boundary rows drop the neighbours outside the grid (Dirichlet, diagonally dominant).
/// Columns sorted; the matrix is symmetric.
/// @throws InvalidArgument n < 1, another `points`, or more than 2^31 - 1 grid points
HostCsr<double> stencil_2d(int n, int points = 5);
HostCsr<double> stencil_3d(int n, int points = 27);

/// Matrix with power-law row lengths: rows x cols. The ordinary rows get lengths
/// proportional to Pareto weights with density ~ x^-exponent (capped at cols), rescaled
/// so that their mean is about `mean` (stochastic rounding; rows may be empty). On top,
/// `long_rows` rows, spread evenly over the matrix, hold exactly `long_len` nonzeros
/// (0: cols / 2) to stress row splitting. Columns distinct, uniform random and sorted;
/// values in [-1, 1).
/// @throws InvalidArgument rows < 0, cols < 1, extents above 2^31 - 1, mean outside
///         (0, cols], exponent <= 1, long_rows outside [0, rows], long_len outside [0, cols]
HostCsr<double> power_law(std::int64_t rows, std::int64_t cols, double mean, double exponent = 2.0,
                          int long_rows = 4, std::int64_t long_len = 0,
                          std::uint64_t seed = 27491095);

/// Uniform random matrix: rows x cols, round(rows * per_row) uniformly random
/// positions (duplicates merged, so slightly fewer entries), values in [-1, 1),
/// columns sorted. Row lengths are close to Poisson(per_row).
/// @throws InvalidArgument rows < 0, cols < 1, extents above 2^31 - 1, per_row outside
///         [0, cols]
HostCsr<double> uniform_matrix(std::int64_t rows, std::int64_t cols, double per_row,
                               std::uint64_t seed = 27491095);

/// Banded matrix whose row lengths grow linearly with the row: rows x cols, row r of length
/// lo + (hi - lo) r / (rows - 1) (stochastic rounding), as a mesh refined towards one end. Equal
/// row ranges then carry unequal work: of two (a static split between 2 threads) the second
/// holds (lo + 3 hi) / (2 (lo + hi)) times the mean, e.g. 1.1875 for lo = 5, hi = 11. Columns
/// distinct, uniform random within a window of min(cols, 8 hi) columns that follows the diagonal
/// (row r's window centred on column r cols / rows, shifted to lie inside the matrix), sorted;
/// values in [-1, 1).
/// @throws InvalidArgument rows < 0, cols < 1, extents above 2^31 - 1, lo < 0, hi < lo or
///         hi > cols
HostCsr<double> graded_matrix(std::int64_t rows, std::int64_t cols, double lo, double hi,
                              std::uint64_t seed = 27491095);

/// A generator spec as the benchmark accepts it: "kron:SCALE[:EF]", "urand:SCALE[:EF]",
/// "stencil2d:N[:POINTS]", "stencil3d:N[:POINTS]", "powerlaw:ROWS[:MEAN[:EXP[:LONGROWS]]]",
/// "uniform:ROWS[:PER_ROW]", "graded:ROWS[:LO[:HI]]". Defaults: EF = 16, POINTS = 5 (2D) /
/// 27 (3D), MEAN = 16, EXP = 2, LONGROWS = 4, PER_ROW = 16, LO = 4, HI = 12; powerlaw, uniform
/// and graded are square; every
/// generator uses its default seed. Graph specs give value 1 on every edge.
/// @throws InvalidArgument naming the spec, the bad field and what is expected; or, before
///         anything is allocated, when the matrix asked for (24 bytes a stored entry, 16 a
///         row) would exceed the memory budget of a load (io.hpp: $MIMD_MEMORY_BUDGET, else
///         the available memory)
HostCsr<double> generate(const std::string& spec);
/// True when `spec` has the form of a generator spec (a known prefix and a colon).
bool is_generator_spec(const std::string& spec);

/// True when generate(spec) gives a structurally symmetric matrix (kron, urand and the
/// stencils: every entry (i, j) has its (j, i)), so that a graph made from it needs no
/// symmetrisation. False for other specs and for strings that are no generator spec.
bool generates_symmetric(const std::string& spec);

}  // namespace mimd
