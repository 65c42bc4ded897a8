#include "core/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace mimd::core_detail {

Progress::Progress(bool enabled, std::string name)
    : enabled_(enabled && isatty(STDERR_FILENO) == 1),
      name_(std::move(name)),
      start_(Clock::now()),
      last_(start_) {}

Progress::Progress(int total) : Progress(true, "") {
  total_ = total;
}

Progress::~Progress() {
  done();
}

double Progress::seconds() const {
  return std::chrono::duration<double>(Clock::now() - start_).count();
}

void Progress::draw(const std::string& text) {
  std::fprintf(stderr, "\r\033[K%s", text.c_str());
  std::fflush(stderr);
  printed_ = true;
}

void Progress::update(const char* phase, std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - start_ < std::chrono::seconds(1)) return;
  if (printed_ && now - last_ < std::chrono::milliseconds(200)) return;
  last_ = now;
  const double mb = static_cast<double>(done) / 1e6;
  const double rate = mb / std::max(seconds(), 1e-9);
  char buf[96];
  if (total > 0)
    std::snprintf(buf, sizeof buf, "%3.0f%% (%.1f MB, %.1f MB/s)",
                  100.0 * static_cast<double>(done) / static_cast<double>(total), mb, rate);
  else
    std::snprintf(buf, sizeof buf, "(%.1f MB, %.1f MB/s)", mb, rate);
  draw("[mimd] loading " + name_ + ": " + phase + " " + buf);
}

void Progress::step(const std::string& what) {
  ++current_;
  note(what);
}

void Progress::note(const std::string& what) {
  if (!enabled_) return;
  const int el = static_cast<int>(seconds());
  char buf[48];
  std::snprintf(buf, sizeof buf, "[%d/%d %02d:%02d] ", std::min(current_, total_), total_, el / 60,
                el % 60);
  draw(buf + what.substr(0, 100));
}

void Progress::done() {
  if (!printed_) return;
  printed_ = false;
  if (name_.empty()) {
    std::fprintf(stderr, "\r\033[K");
  } else {
    std::fprintf(stderr, "\r\033[K[mimd] loaded %s in %.1f s\n", name_.c_str(), seconds());
  }
  std::fflush(stderr);
}

}  // namespace mimd::core_detail
