// BfsGraph: the out-CSR (and, for directed graphs, the in-CSR used by bottom-up
// steps) on the device, plus the host copies the validator reads.
#include <string>

#include "bfs/bfs_internal.hpp"
#include "mimd/error.hpp"

namespace mimd {
namespace {

void require_square(const HostPattern& p, const char* what) {
  if (p.nrows != p.ncols)
    throw InvalidArgument(std::string(what) + ": the adjacency pattern must be square, got " +
                          std::to_string(p.nrows) + "x" + std::to_string(p.ncols));
}

}  // namespace

BfsGraph BfsGraph::undirected(const HostPattern& symmetric) {
  require_square(symmetric, "BfsGraph::undirected");
  validate(symmetric);
  BfsGraph g;
  g.state_ = std::make_shared<State>(
      State{symmetric, symmetric, to_memory_space<DefaultMemorySpace>(symmetric), {}, false});
  g.state_->in = g.state_->out;
  return g;
}

BfsGraph BfsGraph::directed(const HostPattern& out) {
  require_square(out, "BfsGraph::directed");
  validate(out);
  const HostPattern in = transpose(out);
  BfsGraph g;
  g.state_ = std::make_shared<State>(State{out, in, to_memory_space<DefaultMemorySpace>(out),
                                           to_memory_space<DefaultMemorySpace>(in), true});
  return g;
}

HostPattern BfsGraph::symmetrize(const HostPattern& p) {
  return mimd::symmetrize(p);
}

std::int32_t BfsGraph::num_vertices() const {
  return state_->host_out.nrows;
}
std::int64_t BfsGraph::num_stored_edges() const {
  return state_->host_out.nnz();
}
std::int64_t BfsGraph::num_teps_edges() const {
  return state_->directed ? num_stored_edges() : num_stored_edges() / 2;
}
bool BfsGraph::is_directed() const {
  return state_->directed;
}
const GraphPattern& BfsGraph::out() const {
  return state_->out;
}
const GraphPattern& BfsGraph::in() const {
  return state_->in;
}
const HostPattern& BfsGraph::host_out() const {
  return state_->host_out;
}

}  // namespace mimd
