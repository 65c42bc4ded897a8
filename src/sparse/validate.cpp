// validate_csr: the CSR invariants, checked once at every public entry point.
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "mimd/csr.hpp"

namespace mimd {

namespace {

// Below this many entries a parallel region costs more than the check.
constexpr std::int64_t kParallelEntries = std::int64_t{1} << 16;

// Whether row r of valid outer offsets breaks an invariant; when `throw_it`, throws
// the error describing it. Reads row_map[r], row_map[r + 1] and the row's entries only
// after checking that they lie inside the arrays.
bool check_row(std::int64_t r, std::int64_t ncols, const std::int64_t* row_map,
               const std::int32_t* entries, std::int64_t nnz, bool sorted, bool throw_it) {
  const std::int64_t b = row_map[r], e = row_map[r + 1];
  if (e < b || b < 0 || e > nnz) {
    if (!throw_it) return true;
    throw InvalidMatrix("row_map[" + std::to_string(r + 1) + "]",
                        "is " + std::to_string(e) + ", less than row_map[" + std::to_string(r) +
                            "] = " + std::to_string(b) + " (offsets must not decrease)");
  }
  for (std::int64_t j = b; j < e; ++j) {
    const std::int32_t c = entries[j];
    const bool out = c < 0 || c >= ncols;
    const bool unsorted = sorted && j > b && entries[j - 1] >= c;
    if (!out && !unsorted) continue;
    if (!throw_it) return true;
    const std::string where = "entries[" + std::to_string(j) + "] (row " + std::to_string(r) + ")";
    if (out)
      throw InvalidMatrix(
          where, "column " + std::to_string(c) + " outside [0, " + std::to_string(ncols) + ")");
    throw InvalidMatrix(where, "column " + std::to_string(c) +
                                   " not greater than previous column " +
                                   std::to_string(entries[j - 1]) + " (sorted columns required)");
  }
  return false;
}

}  // namespace

void validate_csr(std::int64_t nrows, std::int64_t ncols, const std::int64_t* row_map,
                  std::size_t row_map_size, const std::int32_t* entries, std::size_t nentries,
                  std::size_t nvalues, const CsrChecks& checks) {
  if (nrows < 0 || ncols < 0)
    throw InvalidMatrix("extents",
                        "negative extent " + std::to_string(nrows) + "x" + std::to_string(ncols));
  if (row_map_size != static_cast<std::size_t>(nrows) + 1)
    throw InvalidMatrix("row_map",
                        "has " + std::to_string(row_map_size) +
                            " entries, expected nrows + 1 = " + std::to_string(nrows + 1));
  if (row_map[0] != 0)
    throw InvalidMatrix("row_map[0]", "is " + std::to_string(row_map[0]) + ", expected 0");
  const auto nnz = static_cast<std::int64_t>(nentries);
  if (row_map[nrows] != nnz)
    throw InvalidMatrix("row_map[" + std::to_string(nrows) + "]",
                        "is " + std::to_string(row_map[nrows]) +
                            ", expected the number of entries " + std::to_string(nnz));
  if (nnz > 0 && entries == nullptr)
    throw InvalidMatrix(
        "entries", "is null while row_map[" + std::to_string(nrows) + "] = " + std::to_string(nnz));
  if (checks.values && nvalues != nentries)
    throw InvalidMatrix(
        "values", "has " + std::to_string(nvalues) + " entries, expected " + std::to_string(nnz));
  // Fast pass: branch-free flat loops the compiler vectorises (offsets, then columns,
  // then, with offsets known good, the order within rows). Only when it finds something
  // are the rows searched for the first offender, in row order.
  // Read only by the OpenMP clauses below, which nvcc's front end does not see.
  [[maybe_unused]] const bool par = nnz >= kParallelEntries;
  // Negative columns wrap to 2^31 and above; ncols beyond 2^31 admits every int32 >= 0.
  const auto width =
      static_cast<std::uint32_t>(std::min<std::int64_t>(ncols, std::int64_t{1} << 31));
  unsigned bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) if (par)
  for (std::int64_t r = 0; r < nrows; ++r) bad |= row_map[r + 1] < row_map[r];
  if (bad == 0) {
#pragma omp parallel for schedule(static) reduction(| : bad) if (par)
    for (std::int64_t j = 0; j < nnz; ++j) bad |= static_cast<std::uint32_t>(entries[j]) >= width;
  }
  if (bad == 0 && checks.sorted) {
#pragma omp parallel for schedule(static) reduction(| : bad) if (par)
    for (std::int64_t r = 0; r < nrows; ++r)
      for (std::int64_t j = row_map[r] + 1; j < row_map[r + 1]; ++j)
        bad |= entries[j - 1] >= entries[j];
  }
  if (bad == 0) return;
  std::int64_t first_bad = nrows;
#pragma omp parallel for schedule(static) reduction(min : first_bad) if (par)
  for (std::int64_t r = 0; r < nrows; ++r)
    if (r < first_bad && check_row(r, ncols, row_map, entries, nnz, checks.sorted, false))
      first_bad = r;
  if (first_bad < nrows)
    check_row(first_bad, ncols, row_map, entries, nnz, checks.sorted, /*throw_it=*/true);
}

}  // namespace mimd
