// Internal: the one progress line of the project (readers and mimd-bench).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace mimd::core_detail {

/// A progress line on stderr, redrawn in place. Whether it prints at all is decided at
/// construction: only when enabled and stderr is then a terminal (never on a pipe).
/// Two uses, one per constructor:
///  - a load: update() shows "[mimd] loading <name>: <phase> 42% (12.0 MB, 80.0 MB/s)"
///    once the load has run for a second (quick loads stay silent), redrawn at most
///    every 200 ms; done() then prints "[mimd] loaded <name> in 2.5 s" on its own line;
///  - a count of items: step() / note() show "[3/40 01:15] <what>" at once; done()
///    clears the line.
/// Not thread-safe: call from one thread.
class Progress {
 public:
  /// A load of `name`.
  Progress(bool enabled, std::string name);
  /// A run of `total` items.
  explicit Progress(int total);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Load: `done` of `total` units (bytes) of `phase` (total 0: no percentage).
  void update(const char* phase, std::uint64_t done, std::uint64_t total);
  /// Items: starts item n + 1, described by `what`.
  void step(const std::string& what);
  /// Items: replaces the current item's text.
  void note(const std::string& what);
  /// Ends the line (see the class comment); nothing when no line was printed.
  void done();

  int total() const { return total_; }
  double seconds() const;  ///< since construction

 private:
  using Clock = std::chrono::steady_clock;
  void draw(const std::string& text);
  bool enabled_;
  bool printed_ = false;
  std::string name_;  ///< a load's name; empty for a count of items
  int total_ = 0, current_ = 0;
  Clock::time_point start_, last_;
};

}  // namespace mimd::core_detail
