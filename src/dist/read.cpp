// dist::read: a plain Matrix Market coordinate file is read by all ranks at once, each
// parsing its own byte range of the data lines (cut at newlines: a rank's lines are those
// that start in its range) with the library's Matrix Market line parser
// (io_detail::parse_mm_chunk, on the rank's threads); the entries then travel to the
// owners of their rows (MPI_Alltoallv) and each rank builds its CSR. Errors carry the
// file's line numbers (line counts of the preceding ranks by MPI_Exscan). Compressed
// files, archives, the array format and SNAP edge lists are read by rank 0 and
// scattered (detail::read_on_root).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dist/build.hpp"
#include "dist/mpi_types.hpp"
#include "io/io_detail.hpp"

namespace mimd::dist {

namespace {

using detail::displacements;
using detail::mpi_type;
using io_detail::MmHeader;

constexpr std::size_t kHeadBytes = 1 << 20;  // the header must lie within the first MiB

// Reads [offset, offset + size) of fd into out.
void read_range(int fd, const std::string& path, std::uint64_t offset, std::string& out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n <= 0) throw IoError(path, std::string("read failed: ") + std::strerror(errno));
    done += static_cast<std::size_t>(n);
  }
}

// The first line start at or after x: x itself when byte x - 1 is '\n', the data start
// or the end; else just past the next '\n'.
std::uint64_t line_start(int fd, const std::string& path, std::uint64_t x, std::uint64_t data_begin,
                         std::uint64_t size) {
  if (x <= data_begin) return data_begin;
  std::string buf;
  for (std::uint64_t pos = x - 1; pos < size; pos += buf.size()) {
    buf.resize(static_cast<std::size_t>(std::min<std::uint64_t>(1 << 16, size - pos)));
    read_range(fd, path, pos, buf);
    if (const void* nl = std::memchr(buf.data(), '\n', buf.size()))
      return pos + static_cast<std::uint64_t>(static_cast<const char*>(nl) - buf.data()) + 1;
  }
  return size;
}

// Rank 0: the header, when the file is plain Matrix Market coordinate text whose header
// fits the first MiB (else `parallel` stays false and rank 0 reads it whole).
bool read_head(const std::string& path, MmHeader& h, std::uint64_t& size) {
  struct stat sb {};
  const int fd = io_detail::open_regular(path, sb);
  size = static_cast<std::uint64_t>(sb.st_size);
  io_detail::TextSource head{path, std::string(std::min<std::uint64_t>(size, kHeadBytes), '\0')};
  try {
    read_range(fd, path, 0, head.text);
  } catch (...) {
    close(fd);
    throw;
  }
  close(fd);
  if (head.text.empty() || head.text[0] != '%') return false;  // gzip, tar, SNAP
  if (size > head.text.size()) {
    const auto nl = head.text.rfind('\n');
    if (nl == std::string::npos) return false;
    head.text.resize(nl + 1);
  }
  try {
    h = io_detail::parse_mm_header(head);
  } catch (const ParseError&) {
    if (size > head.text.size()) return false;  // a longer header: rank 0 finds the error
    throw;
  }
  return !h.array;
}

template <class Scalar>
DistCsr<Scalar> read_parallel(const Context& ctx, const std::string& path, const MmHeader& h,
                              std::uint64_t size) {
  const int p = ctx.size(), me = ctx.rank();
  const std::uint64_t data = h.data_begin;
  std::string text;
  bool at_end = false;
  std::exception_ptr failure;
  try {
    struct stat sb {};
    const int fd = io_detail::open_regular(path, sb);
    try {
      const auto nominal = [&](int q) { return data + (size - data) * std::uint64_t(q) / p; };
      const std::uint64_t b = line_start(fd, path, nominal(me), data, size);
      const std::uint64_t e =
          me + 1 == p ? size : line_start(fd, path, nominal(me + 1), data, size);
      text.resize(static_cast<std::size_t>(e - b));
      read_range(fd, path, b, text);
      at_end = e == size;
    } catch (...) {
      close(fd);
      throw;
    }
    close(fd);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(ctx, failure);
  const int parts = io_detail::chunk_count(text.size());
  const auto cuts = io_detail::split_at_lines(text, 0, parts);
  std::vector<io_detail::MmChunk> chunks(static_cast<std::size_t>(parts));
  io_detail::Progress progress(false, path);
  const char* text_end = at_end ? text.data() + text.size() : nullptr;
  io_detail::for_each_chunk(text, cuts, progress, [&](int k, const char* b, const char* e) {
    io_detail::parse_mm_chunk(h, b, e, text_end, chunks[k]);
  });
  // This rank's first line and entry number, and the file's entry count.
  std::uint64_t mine[2] = {0, 0}, before[2] = {0, 0}, total = 0;
  for (const auto& c : chunks) {
    mine[0] += c.lines;
    mine[1] += c.entries;
  }
  MPI_Exscan(mine, before, 2, MPI_UINT64_T, MPI_SUM, ctx.comm());
  if (me == 0) before[0] = before[1] = 0;
  MPI_Allreduce(&mine[1], &total, 1, MPI_UINT64_T, MPI_SUM, ctx.comm());
  // Whether the file's last line lacks its '\n' (it then counts as a line too).
  int partial = at_end && !text.empty() && text.back() != '\n', any_partial = 0;
  MPI_Allreduce(&partial, &any_partial, 1, MPI_INT, MPI_MAX, ctx.comm());
  try {
    std::uint64_t line = h.data_line + before[0], entries = before[1];
    for (int k = 0; k < parts; ++k) {
      const auto& c = chunks[k];
      if (entries + c.entries > h.expected) {
        std::uint64_t local = 0;
        const char* at = io_detail::find_mm_entry(text.data() + cuts[k], text.data() + cuts[k + 1],
                                                  h.expected - entries, local);
        throw ParseError(path, line + local, ParseErrorKind::TooManyEntries,
                         "the size line declares " + std::to_string(h.expected) +
                             " entries; this line holds one more",
                         io_detail::line_text(at, text.data() + text.size()));
      }
      if (c.error.failed)
        throw ParseError(path, line + c.error.local_line, c.error.kind, c.error.detail,
                         c.error.text);
      line += c.lines;
      entries += c.entries;
    }
    if (me + 1 == p && total < h.expected)
      throw ParseError(path, line + static_cast<std::uint64_t>(any_partial),
                       ParseErrorKind::TooFewEntries,
                       "the size line declares " + std::to_string(h.expected) +
                           " entries, the file ends after " + std::to_string(total));
  } catch (...) {
    failure = std::current_exception();
  }
  agree(ctx, failure);

  // Entries (symmetric storage expanded) counted per row over all ranks, the balanced
  // partition, then every entry sent to its row's owner.
  const std::int64_t n = h.info.rows;
  const bool expand = h.symmetry != io_detail::MmSymmetry::General;
  const Scalar sign = h.symmetry == io_detail::MmSymmetry::SkewSymmetric ? Scalar(-1) : Scalar(1);
  std::vector<std::int64_t> row_map(static_cast<std::size_t>(n) + 1, 0);
  const auto each = [&](auto&& f) {
    for (const auto& c : chunks)
      for (std::size_t i = 0; i < c.rows.size(); ++i) {
        const Scalar v = h.pattern ? Scalar(1) : static_cast<Scalar>(c.values[i]);
        f(c.rows[i], c.cols[i], v);
        if (expand && c.rows[i] != c.cols[i]) f(c.cols[i], c.rows[i], sign * v);
      }
  };
  each([&](std::int32_t r, std::int32_t, Scalar) { ++row_map[r + 1]; });
  MPI_Allreduce(MPI_IN_PLACE, row_map.data() + 1, static_cast<int>(n), MPI_INT64_T, MPI_SUM,
                ctx.comm());
  for (std::int64_t i = 0; i < n; ++i) row_map[i + 1] += row_map[i];
  const RowPartition part = balanced_partition(row_map.data(), n, p);
  std::vector<int> send_counts(p, 0), recv_counts(p);
  each([&](std::int32_t r, std::int32_t, Scalar) { ++send_counts[part.owner(r)]; });
  const auto sd = displacements(send_counts);
  std::vector<int> fill(sd.begin(), sd.end() - 1);
  std::vector<std::int32_t> send_rows(static_cast<std::size_t>(sd[p])), send_cols(send_rows.size());
  std::vector<Scalar> send_vals(send_rows.size());
  each([&](std::int32_t r, std::int32_t c, Scalar v) {
    const int o = fill[part.owner(r)]++;
    send_rows[o] = r;
    send_cols[o] = c;
    send_vals[o] = v;
  });
  chunks.clear();
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, ctx.comm());
  const auto rd = displacements(recv_counts);
  CooMatrix<Scalar> coo;
  coo.nrows = part.rows(me);
  coo.ncols = n;
  coo.rows.resize(static_cast<std::size_t>(rd[p]));
  coo.cols.resize(coo.rows.size());
  coo.values.resize(coo.rows.size());
  MPI_Alltoallv(send_rows.data(), send_counts.data(), sd.data(), MPI_INT32_T, coo.rows.data(),
                recv_counts.data(), rd.data(), MPI_INT32_T, ctx.comm());
  MPI_Alltoallv(send_cols.data(), send_counts.data(), sd.data(), MPI_INT32_T, coo.cols.data(),
                recv_counts.data(), rd.data(), MPI_INT32_T, ctx.comm());
  MPI_Alltoallv(send_vals.data(), send_counts.data(), sd.data(), mpi_type<Scalar>(),
                coo.values.data(), recv_counts.data(), rd.data(), mpi_type<Scalar>(), ctx.comm());
  const auto first = static_cast<std::int32_t>(part.begin(me));
  for (auto& r : coo.rows) r -= first;
  const HostCsr<Scalar> local = csr_from_coo(coo, DuplicatePolicy::Sum);
  std::int64_t nnz = local.nnz(), global_nnz = 0;
  MPI_Allreduce(&nnz, &global_nnz, 1, MPI_INT64_T, MPI_SUM, ctx.comm());
  return detail::slice<Scalar>(part, me, n, local.row_map.data(), 0, local.entries.data(),
                               local.values.data(), global_nnz);
}

}  // namespace

template <class Scalar>
DistCsr<Scalar> read(const Context& ctx, const std::string& path, const ReadOptions& options) {
  MmHeader h;
  std::uint64_t size = 0;
  int parallel = 0;
  std::exception_ptr failure;
  if (ctx.rank() == 0) try {
      parallel = read_head(path, h, size);
      if (parallel) {
        detail::require_square("dist::read", h.info.rows, h.info.cols);
        io_detail::check_budget(
            path, h.data_line - 1, 8 * (static_cast<std::uint64_t>(h.info.rows) + 1),
            "the row counts of " + std::to_string(h.info.rows) + " rows, which", "");
      }
    } catch (...) {
      failure = std::current_exception();
    }
  agree(ctx, failure);
  MPI_Bcast(&parallel, 1, MPI_INT, 0, ctx.comm());
  if (!parallel) return detail::read_on_root<Scalar>(ctx, path, options);
  std::int64_t fields[9] = {h.pattern,
                            h.integer,
                            static_cast<std::int64_t>(h.symmetry),
                            h.info.rows,
                            h.info.cols,
                            static_cast<std::int64_t>(h.expected),
                            static_cast<std::int64_t>(h.data_begin),
                            static_cast<std::int64_t>(h.data_line),
                            static_cast<std::int64_t>(size)};
  MPI_Bcast(fields, 9, MPI_INT64_T, 0, ctx.comm());
  h.pattern = fields[0] != 0;
  h.integer = fields[1] != 0;
  h.symmetry = static_cast<io_detail::MmSymmetry>(fields[2]);
  h.info.rows = fields[3];
  h.info.cols = fields[4];
  h.expected = static_cast<std::uint64_t>(fields[5]);
  h.data_begin = static_cast<std::size_t>(fields[6]);
  h.data_line = static_cast<std::uint64_t>(fields[7]);
  return read_parallel<Scalar>(ctx, path, h, static_cast<std::uint64_t>(fields[8]));
}

template DistCsr<float> read<float>(const Context&, const std::string&, const ReadOptions&);
template DistCsr<double> read<double>(const Context&, const std::string&, const ReadOptions&);

}  // namespace mimd::dist
