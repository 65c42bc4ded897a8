// MPI datatypes of the library's element types (internal).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace mimd::dist::detail {

template <class T>
MPI_Datatype mpi_type();
template <>
inline MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
inline MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
inline MPI_Datatype mpi_type<std::int32_t>() {
  return MPI_INT32_T;
}
template <>
inline MPI_Datatype mpi_type<std::int64_t>() {
  return MPI_INT64_T;
}
template <>
inline MPI_Datatype mpi_type<std::uint64_t>() {
  return MPI_UINT64_T;
}

/// Displacements (exclusive prefix sums) of `counts`, as MPI's int arrays want them.
inline std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> d(counts.size() + 1, 0);
  for (std::size_t i = 0; i < counts.size(); ++i) d[i + 1] = d[i] + counts[i];
  return d;
}

}  // namespace mimd::dist::detail
