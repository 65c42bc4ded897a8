// Row partition, column maps and the ways a DistCsr is built: from a global matrix every
// rank holds, a generator, the caller's local rows, or a file read by rank 0.
#include <algorithm>
#include <limits>

#include "dist/build.hpp"
#include "dist/mpi_types.hpp"
#include "mimd/dist/csr.hpp"
#include "mimd/generators.hpp"

namespace mimd::dist {

using detail::displacements;
using detail::make_column_map;
using detail::mpi_type;
using detail::require_square;
using detail::slice;

int RowPartition::owner(std::int64_t row) const {
  const auto it = std::upper_bound(offsets.begin(), offsets.end(), row);
  return static_cast<int>(it - offsets.begin()) - 1;
}

RowPartition balanced_partition(const std::int64_t* row_map, std::int64_t nrows, int parts) {
  if (parts < 1)
    throw InvalidArgument("balanced_partition: parts = " + std::to_string(parts) +
                          " (expected >= 1)");
  RowPartition p;
  p.offsets.assign(static_cast<std::size_t>(parts) + 1, nrows);
  p.offsets[0] = 0;
  // Prefix weight of rows [0, i): i + row_map[i]; it increases strictly with i.
  const std::int64_t total = nrows + row_map[nrows];
  std::int64_t row = 0;
  for (int r = 1; r < parts; ++r) {
    const std::int64_t target =
        static_cast<std::int64_t>(static_cast<long double>(total) * r / parts);
    while (row < nrows && row + row_map[row] < target) ++row;
    p.offsets[static_cast<std::size_t>(r)] = row;
  }
  return p;
}

namespace detail {

// The column map of rows with global columns `entries` (nnz of them), and those columns
// renumbered to local ones in `local`.
ColumnMap make_column_map(const RowPartition& partition, int rank, std::int64_t global_rows,
                          const std::int32_t* entries, std::int64_t nnz, std::int32_t* local) {
  ColumnMap m;
  m.partition = partition;
  m.rank = rank;
  m.global_rows = global_rows;
  const std::int64_t b = partition.begin(rank), e = partition.end(rank);
  for (std::int64_t j = 0; j < nnz; ++j)
    if (entries[j] < b || entries[j] >= e) m.ghosts.push_back(entries[j]);
  std::sort(m.ghosts.begin(), m.ghosts.end());
  m.ghosts.erase(std::unique(m.ghosts.begin(), m.ghosts.end()), m.ghosts.end());
  m.ghost_offsets.resize(partition.offsets.size());
  for (std::size_t q = 0; q < partition.offsets.size(); ++q)
    m.ghost_offsets[q] =
        std::lower_bound(m.ghosts.begin(), m.ghosts.end(), partition.offsets[q]) - m.ghosts.begin();
  const std::int32_t nlocal = m.local_rows();
  const auto& g = m.ghosts;
#pragma omp parallel for schedule(static)
  for (std::int64_t j = 0; j < nnz; ++j) {
    const std::int32_t c = entries[j];
    local[j] = c >= b && c < e ? static_cast<std::int32_t>(c - b)
                               : nlocal + static_cast<std::int32_t>(
                                              std::lower_bound(g.begin(), g.end(), c) - g.begin());
  }
  return m;
}

template <class Scalar>
DistCsr<Scalar> read_on_root(const Context& ctx, const std::string& path,
                             const ReadOptions& options) {
  HostCsr<Scalar> global;
  std::exception_ptr failure;
  std::int64_t dims[2] = {0, 0};
  if (ctx.rank() == 0) try {
      global = read_matrix<Scalar>(path, options);
      dims[0] = global.nrows;
      dims[1] = global.ncols;
      require_square("dist::read", global.nrows, global.ncols);
    } catch (...) {
      failure = std::current_exception();
    }
  agree(ctx, failure);
  MPI_Bcast(dims, 2, MPI_INT64_T, 0, ctx.comm());
  const int p = ctx.size();
  RowPartition part;
  part.offsets.resize(static_cast<std::size_t>(p) + 1);
  if (ctx.rank() == 0) part = balanced_partition(global.row_map.data(), global.nrows, p);
  MPI_Bcast(part.offsets.data(), p + 1, MPI_INT64_T, 0, ctx.comm());
  // Rank q receives its rows' lengths, columns and values.
  std::vector<int> row_counts(p), nnz_counts(p);
  for (int q = 0; q < p; ++q) {
    row_counts[q] = static_cast<int>(part.rows(q));
    if (ctx.rank() == 0)
      nnz_counts[q] = static_cast<int>(global.row_map(part.end(q)) - global.row_map(part.begin(q)));
  }
  MPI_Bcast(nnz_counts.data(), p, MPI_INT, 0, ctx.comm());
  const auto rd = displacements(row_counts), nd = displacements(nnz_counts);
  std::vector<std::int64_t> lengths;
  if (ctx.rank() == 0) {
    lengths.resize(static_cast<std::size_t>(dims[0]));
    for (std::int64_t i = 0; i < dims[0]; ++i)
      lengths[i] = global.row_map(i + 1) - global.row_map(i);
  }
  const int me = ctx.rank();
  std::vector<std::int64_t> my_row_map(static_cast<std::size_t>(row_counts[me]) + 1, 0);
  MPI_Scatterv(lengths.data(), row_counts.data(), rd.data(), MPI_INT64_T, my_row_map.data() + 1,
               row_counts[me], MPI_INT64_T, 0, ctx.comm());
  for (std::size_t i = 1; i < my_row_map.size(); ++i) my_row_map[i] += my_row_map[i - 1];
  std::vector<std::int32_t> cols(static_cast<std::size_t>(nnz_counts[me]));
  std::vector<Scalar> vals(cols.size());
  MPI_Scatterv(global.entries.data(), nnz_counts.data(), nd.data(), MPI_INT32_T, cols.data(),
               nnz_counts[me], MPI_INT32_T, 0, ctx.comm());
  MPI_Scatterv(global.values.data(), nnz_counts.data(), nd.data(), mpi_type<Scalar>(), vals.data(),
               nnz_counts[me], mpi_type<Scalar>(), 0, ctx.comm());
  return slice<Scalar>(part, me, dims[0], my_row_map.data(), 0, cols.data(), vals.data(), nd[p]);
}

}  // namespace detail

namespace {

// Gathers rows (local CSR with local columns, `values` may be null) on rank 0 with
// global columns; `out_values` receives the values when non-null.
template <class Scalar>
void gather_rows(const Context& ctx, const ColumnMap& map, const std::int64_t* row_map,
                 const std::int32_t* entries, const Scalar* values, std::int64_t nnz,
                 std::vector<std::int64_t>& out_row_map, std::vector<std::int32_t>& out_entries,
                 std::vector<Scalar>* out_values) {
  const int p = ctx.size();
  const std::int32_t nlocal = map.local_rows();
  std::vector<std::int64_t> lengths(static_cast<std::size_t>(nlocal));
  for (std::int32_t i = 0; i < nlocal; ++i) lengths[i] = row_map[i + 1] - row_map[i];
  std::vector<std::int32_t> global(static_cast<std::size_t>(nnz));
  for (std::int64_t j = 0; j < nnz; ++j) global[j] = map.global_column(entries[j]);
  std::vector<int> row_counts(p), nnz_counts(p);
  for (int q = 0; q < p; ++q) row_counts[q] = static_cast<int>(map.partition.rows(q));
  const int my_nnz = static_cast<int>(nnz);
  MPI_Gather(&my_nnz, 1, MPI_INT, nnz_counts.data(), 1, MPI_INT, 0, ctx.comm());
  const auto rd = displacements(row_counts), nd = displacements(nnz_counts);
  const bool root = ctx.rank() == 0;
  std::vector<std::int64_t> all_lengths(root ? static_cast<std::size_t>(rd[p]) : 0);
  out_entries.assign(root ? static_cast<std::size_t>(nd[p]) : 0, 0);
  MPI_Gatherv(lengths.data(), nlocal, MPI_INT64_T, all_lengths.data(), row_counts.data(), rd.data(),
              MPI_INT64_T, 0, ctx.comm());
  MPI_Gatherv(global.data(), my_nnz, MPI_INT32_T, out_entries.data(), nnz_counts.data(), nd.data(),
              MPI_INT32_T, 0, ctx.comm());
  if (out_values) {
    out_values->assign(root ? static_cast<std::size_t>(nd[p]) : 0, Scalar(0));
    MPI_Gatherv(values, my_nnz, mpi_type<Scalar>(), out_values->data(), nnz_counts.data(),
                nd.data(), mpi_type<Scalar>(), 0, ctx.comm());
  }
  out_row_map.assign(root ? all_lengths.size() + 1 : 0, 0);
  for (std::size_t i = 0; i < all_lengths.size(); ++i)
    out_row_map[i + 1] = out_row_map[i] + all_lengths[i];
}

template <class M>
void fill_csr(M& m, std::int64_t n, const std::vector<std::int64_t>& row_map,
              const std::vector<std::int32_t>& entries) {
  m.nrows = static_cast<std::int32_t>(n);
  m.ncols = static_cast<std::int32_t>(n);
  m.row_map = decltype(m.row_map)("dist::gather::row_map", row_map.size());
  m.entries = decltype(m.entries)("dist::gather::entries", entries.size());
  std::copy(row_map.begin(), row_map.end(), m.row_map.data());
  std::copy(entries.begin(), entries.end(), m.entries.data());
}

}  // namespace

template <class Scalar>
DistCsr<Scalar> distribute(const Context& ctx, const HostCsr<Scalar>& global) {
  require_square("dist::distribute", global.nrows, global.ncols);
  const RowPartition p = balanced_partition(global.row_map.data(), global.nrows, ctx.size());
  return slice<Scalar>(p, ctx.rank(), global.nrows, global.row_map.data(), p.begin(ctx.rank()),
                       global.entries.data(), global.values.data(), global.nnz());
}

DistGraph distribute(const Context& ctx, const HostPattern& global) {
  require_square("dist::distribute", global.nrows, global.ncols);
  const RowPartition p = balanced_partition(global.row_map.data(), global.nrows, ctx.size());
  const auto d = slice<float>(p, ctx.rank(), global.nrows, global.row_map.data(),
                              p.begin(ctx.rank()), global.entries.data(), nullptr, global.nnz());
  return DistGraph{d.map, d.local.pattern(), d.global_nnz};
}

DistCsr<double> generate(const Context& ctx, const std::string& spec) {
  return distribute(ctx, mimd::generate(spec));
}

template <class Scalar>
DistCsr<Scalar> from_local_rows(const Context& ctx, const HostCsr<Scalar>& rows,
                                std::int64_t global_cols) {
  const int p = ctx.size();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(p));
  const std::int64_t mine = rows.nrows;
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, ctx.comm());
  RowPartition part;
  part.offsets.assign(static_cast<std::size_t>(p) + 1, 0);
  for (int q = 0; q < p; ++q) part.offsets[q + 1] = part.offsets[q] + counts[q];
  const std::int64_t n = part.offsets.back();
  std::exception_ptr failure;
  try {
    if (rows.ncols != global_cols)
      throw DimensionMismatch("dist::from_local_rows",
                              "rank " + std::to_string(ctx.rank()) + " holds rows of " +
                                  std::to_string(rows.ncols) + " columns, global_cols is " +
                                  std::to_string(global_cols));
    require_square("dist::from_local_rows", n, global_cols);
    validate(rows);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(ctx, failure);
  DistCsr<Scalar> d;
  d.local.nrows = rows.nrows;
  d.local.row_map = rows.row_map;
  d.local.values = rows.values;
  d.local.entries = decltype(d.local.entries)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "dist::entries"), rows.entries.extent(0));
  d.map =
      make_column_map(part, ctx.rank(), n, rows.entries.data(), rows.nnz(), d.local.entries.data());
  d.local.ncols = d.map.local_cols();
  std::int64_t nnz = rows.nnz();
  MPI_Allreduce(&nnz, &d.global_nnz, 1, MPI_INT64_T, MPI_SUM, ctx.comm());
  return d;
}

template <class Scalar>
HostCsr<Scalar> gather(const Context& ctx, const DistCsr<Scalar>& a) {
  std::vector<std::int64_t> row_map;
  std::vector<std::int32_t> entries;
  std::vector<Scalar> values;
  gather_rows(ctx, a.map, a.local.row_map.data(), a.local.entries.data(), a.local.values.data(),
              a.local.nnz(), row_map, entries, &values);
  HostCsr<Scalar> m;
  if (ctx.rank() != 0) return m;
  fill_csr(m, a.map.global_rows, row_map, entries);
  m.values = decltype(m.values)("dist::gather::values", values.size());
  std::copy(values.begin(), values.end(), m.values.data());
  return m;
}

HostPattern gather(const Context& ctx, const DistGraph& g) {
  std::vector<std::int64_t> row_map;
  std::vector<std::int32_t> entries;
  gather_rows<float>(ctx, g.map, g.local.row_map.data(), g.local.entries.data(), nullptr,
                     g.local.nnz(), row_map, entries, nullptr);
  HostPattern m;
  if (ctx.rank() == 0) fill_csr(m, g.map.global_rows, row_map, entries);
  return m;
}

VolumeModel predict_volume(const HostPattern& global, int ranks) {
  const RowPartition p = balanced_partition(global.row_map.data(), global.nrows, ranks);
  VolumeModel v;
  v.ranks = ranks;
  std::vector<int> seen(static_cast<std::size_t>(global.nrows), -1);
  std::vector<int> neighbour_seen(static_cast<std::size_t>(ranks), -1);
  for (int r = 0; r < ranks; ++r) {
    std::int64_t ghosts = 0;
    int neighbours = 0;
    for (std::int64_t i = p.begin(r); i < p.end(r); ++i)
      for (std::int64_t j = global.row_map(i); j < global.row_map(i + 1); ++j) {
        const std::int32_t c = global.entries(j);
        if ((c >= p.begin(r) && c < p.end(r)) || seen[c] == r) continue;
        seen[c] = r;
        ++ghosts;
        const int q = p.owner(c);
        if (neighbour_seen[q] != r) {
          neighbour_seen[q] = r;
          ++neighbours;
        }
      }
    v.ghost_rows_total += ghosts;
    v.ghost_rows_max = std::max(v.ghost_rows_max, ghosts);
    v.neighbours_max = std::max(v.neighbours_max, neighbours);
  }
  return v;
}

#define MIMD_DIST_CSR_INSTANTIATE(S)                                                       \
  template DistCsr<S> distribute<S>(const Context&, const HostCsr<S>&);                    \
  template DistCsr<S> from_local_rows<S>(const Context&, const HostCsr<S>&, std::int64_t); \
  template DistCsr<S> detail::read_on_root<S>(const Context&, const std::string&,          \
                                              const ReadOptions&);                         \
  template HostCsr<S> gather<S>(const Context&, const DistCsr<S>&);
MIMD_DIST_CSR_INSTANTIATE(float)
MIMD_DIST_CSR_INSTANTIATE(double)

}  // namespace mimd::dist
