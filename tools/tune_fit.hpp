// What mimd-tune fits on its measurements: Auto's rule, a decision tree over the features of
// the training measurements written as the decision list of TuningProfile::auto_rule, and the
// threshold of work up to which an option of the profile pays, fitted on measurements of
// training inputs (fit_threshold) or searched for on generated ones (fit_crossover). Apart from
// the tuner so that a test can fit them on made-up measurements.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "mimd/spmm.hpp"
#include "mimd/tuning.hpp"

namespace mimd::tune {

/// The least gain that moves a knob of the tuner (per measurement, geomean) or draws a cut
/// of Auto's rule (in the worst log-loss).
inline constexpr double kMinGain = 0.03;

/// The features Auto's rule may split on (AutoRule::Row's limits but cv's).
enum Feature { kK, kImbalance, kNnz, kMaxRow, kFeatures };

/// One measurement of the fit: an input at one k, the log-time of each algorithm over the
/// best of them, and the input's features.
struct Sample {
  std::array<double, 3> loss;
  std::array<double, kFeatures> f;
};

/// A node of Auto's decision tree: a leaf (feature < 0) runs `alg`; a split sends the
/// samples with f[feature] <= cut to `lo`, the others to `hi`. `max_imbalance`: the largest
/// imbalance among the node's samples (what a row_parallel leaf claims, emit).
struct Node {
  int alg = 0;
  int feature = -1;
  double cut = 0;
  double max_imbalance = 0;
  std::unique_ptr<Node> lo, hi;
};

/// What a leaf running algorithm `a` costs on the samples `idx`: first the worst loss of
/// any of them (the target is a worst case: auto within 0.9x of the best on every matrix),
/// then the squared loss (so that among leaves and splits equally good for the worst
/// sample, one input left at 0.8x weighs more than many within noise).
struct Cost {
  double worst = 0, squared = 0;
};

/// A leaf: the algorithm it runs and what that costs.
struct Leaf {
  int alg = 0;
  Cost cost;
};

inline Cost leaf_cost(const std::vector<Sample>& s, const std::vector<std::size_t>& idx, int a) {
  Cost c;
  for (std::size_t i : idx) {
    c.worst = std::max(c.worst, s[i].loss[a]);
    c.squared += s[i].loss[a] * s[i].loss[a];
  }
  return c;
}

/// `x` better than `y`: a lower worst loss by more than kWorstTie, else (within it) the
/// lower squared loss.
inline constexpr double kWorstTie = 0.01;
inline bool better(const Cost& x, const Cost& y) {
  if (x.worst < y.worst - kWorstTie) return true;
  if (y.worst < x.worst - kWorstTie) return false;
  return x.squared < y.squared;
}

inline Leaf best_leaf(const std::vector<Sample>& s, const std::vector<std::size_t>& idx, int algs) {
  Leaf best{0, leaf_cost(s, idx, 0)};
  for (int a = 1; a < algs; ++a)
    if (const Cost c = leaf_cost(s, idx, a); better(c, best.cost)) best = {a, c};
  return best;
}

/// Whether a split costing `split` gains over a leaf costing `leaf` as grow requires: the
/// worst loss lowered by more than kMinGain, or kept within kWorstTie and the squared loss
/// lowered by more than `bar`.
inline bool clears(const Cost& split, const Cost& leaf, double bar) {
  return split.worst < leaf.worst - kMinGain ||
         (split.worst < leaf.worst + kWorstTie && split.squared < leaf.squared - bar);
}

/// Whether the split of `idx` at f[j] <= at (`lo_alg` below, `hi_alg` above) of a leaf
/// running `alg` still clears that leaf (squared-loss bar: kMinGain^2 a sample) once the
/// sample whose loss it lowers most is left out. A cut one measurement carries is the
/// machine's noise as likely as the device's behaviour: on a 2-core Zen 5 VM one of six
/// tuner runs fitted "imbalance <= 1.032: row_parallel" on bayer10 at k = 128 alone (LSSM
/// 1.113x of row_parallel there, 0.73-1.07x in the session's nine other runs), which sent
/// luxembourg_osm (imbalance 1.013) to row_parallel at 0.70-0.87x of LSSM at every k.
inline bool gains_without_most_helped(const std::vector<Sample>& s,
                                      const std::vector<std::size_t>& idx, int alg, int j,
                                      double at, int lo_alg, int hi_alg) {
  auto side = [&](std::size_t i) { return s[i].f[j] <= at ? lo_alg : hi_alg; };
  auto helped = [&](std::size_t i) { return s[i].loss[alg] - s[i].loss[side(i)]; };
  std::size_t most = idx.front();
  for (std::size_t i : idx)
    if (helped(i) > helped(most)) most = i;
  Cost leaf, split;
  for (std::size_t i : idx) {
    if (i == most) continue;
    const double l = s[i].loss[alg], m = s[i].loss[side(i)];
    leaf = {std::max(leaf.worst, l), leaf.squared + l * l};
    split = {std::max(split.worst, m), split.squared + m * m};
  }
  return clears(split, leaf, kMinGain * kMinGain * static_cast<double>(idx.size() - 1));
}

/// The tree over the samples `idx`, at most `depth` splits deep, grown greedily: the split
/// (feature, threshold between two neighbouring training values) whose two leaves are best (Cost:
/// the worst sample of either, then the squared loss of both), taken when it lowers the worst loss
/// by more than kMinGain or, leaving the worst within kWorstTie, gains more than kMinGain^2
/// per sample of squared loss; then each side grown on its own. Fitted on the squared loss
/// alone, four tuner runs on one 2-core Xeon gave three rules (one cut at an imbalance of
/// 1.056 or 1.149 sent rajat01 and adder_dcop_05, LSSM 12-15% ahead at k = 128, to
/// row_parallel): the many inputs where row_parallel leads by 2-5% outweighed the few
/// where it trails by 15-30%. The threshold is placed at the edge of the side whose leaf is
/// `cautious` (row_parallel, whose static ranges nothing protects from an uneven load), so
/// that it claims only the range its training inputs span, and halfway (the geometric mean
/// for k and the counts) between other leaves: rajat01, at an imbalance of 1.0556 between
/// the training inputs at 1.047 and 1.065, fell on row_parallel's side of the halfway cut
/// (1.0558) and ran 0.85-0.89x of LSSM at k = 128. A split must also gain without the one
/// sample it helps most (gains_without_most_helped).
inline std::unique_ptr<Node> grow(const std::vector<Sample>& s, const std::vector<std::size_t>& idx,
                                  int algs, int cautious, int depth) {
  auto node = std::make_unique<Node>();
  const Leaf leaf = best_leaf(s, idx, algs);
  node->alg = leaf.alg;
  for (std::size_t i : idx) node->max_imbalance = std::max(node->max_imbalance, s[i].f[kImbalance]);
  if (depth == 0 || idx.size() < 2) return node;
  const Cost here = leaf.cost;
  // Until a split is taken, best.squared is the bar a gain in squared loss must clear.
  Cost best{here.worst, here.squared - kMinGain * kMinGain * static_cast<double>(idx.size())};
  int feature = -1;
  double cut = 0;
  for (int j = 0; j < kFeatures; ++j) {
    std::vector<double> v;
    for (std::size_t i : idx) v.push_back(s[i].f[j]);
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (std::size_t q = 0; q + 1 < v.size(); ++q) {
      std::vector<std::size_t> lo, hi;
      for (std::size_t i : idx) (s[i].f[j] <= v[q] ? lo : hi).push_back(i);
      const Leaf a = best_leaf(s, lo, algs), b = best_leaf(s, hi, algs);
      const double t = a.alg == cautious && b.alg != cautious   ? v[q]
                       : b.alg == cautious && a.alg != cautious ? std::nextafter(v[q + 1], 0.0)
                       : j == kImbalance                        ? (v[q] + v[q + 1]) / 2
                                                                : std::sqrt(v[q] * v[q + 1]);
      const Cost c{std::max(a.cost.worst, b.cost.worst), a.cost.squared + b.cost.squared};
      // A split must beat the leaf on the worst sample, or match it and gain squared loss.
      const bool gains = clears(c, {here.worst, best.squared}, 0.0) &&
                         gains_without_most_helped(s, idx, leaf.alg, j, v[q], a.alg, b.alg);
      if (gains && (feature < 0 || better(c, best))) {
        best = c;
        feature = j;
        cut = t;
      }
    }
  }
  if (feature < 0) return node;
  std::vector<std::size_t> lo, hi;
  for (std::size_t i : idx) (s[i].f[feature] <= cut ? lo : hi).push_back(i);
  node->feature = feature;
  node->cut = cut;
  node->lo = grow(s, lo, algs, cautious, depth - 1);
  node->hi = grow(s, hi, algs, cautious, depth - 1);
  return node;
}

/// The tree as a decision list of upper limits: a split's low side first, with the cut as
/// one more limit, then its high side under the limits it came with (what reaches those
/// rows has passed every low-side row, so it lies above the cut). The last row of every
/// subtree has the subtree's own limits, so each point finds its leaf.
/// A leaf running `cautious` (row_parallel, whose static ranges nothing protects from an
/// uneven load) claims no range more uneven than its samples: its row is bounded by their
/// largest imbalance, and the rest of its limits go to mimd::kAutoFallback (LSSM) in a row
/// after it. Bounded by its cuts alone, "nnz <= 5992" (fitted on inputs of imbalance 1.136 at
/// most) sent rajat19 (imbalance 1.285) to row_parallel at 0.82-0.85x of LSSM on a 2-core
/// Zen 4 VM. Only the imbalance is bounded: bounding the nonzeros, k and the longest row as
/// well also moved Erdos971, jazz and karate (longest rows beyond those of the inputs) to
/// LSSM, and lowered auto's lowest matrix in five of 31 tuner runs re-fitted there.
inline void emit(const Node& n, mimd::AutoRule::Row lim, const SpmmAlgorithm* algs, int cautious,
                 std::vector<mimd::AutoRule::Row>& rows) {
  if (n.feature < 0) {
    lim.algorithm = mimd::to_string(algs[n.alg]);
    if (n.alg == cautious && n.max_imbalance < lim.imbalance_max) {
      mimd::AutoRule::Row own = lim;
      own.imbalance_max = n.max_imbalance;
      rows.push_back(own);
      lim.algorithm = mimd::to_string(mimd::kAutoFallback);
    }
    rows.push_back(lim);
    return;
  }
  mimd::AutoRule::Row lo = lim;
  if (n.feature == kK) {
    lo.k_max = std::min(lo.k_max, static_cast<int>(std::floor(n.cut)));
  } else {
    double& limit = n.feature == kImbalance ? lo.imbalance_max
                    : n.feature == kNnz     ? lo.nnz_max
                                            : lo.max_row_max;
    limit = std::min(limit, n.cut);
  }
  emit(*n.lo, lo, algs, cautious, rows);
  emit(*n.hi, lim, algs, cautious, rows);
}

/// One measurement of an option that a profile field turns on up to a threshold of work: the
/// call's work (as the field counts it) and log(time with the option / time without it).
struct WorkSample {
  double work = 0, log_ratio = 0;
};

/// The threshold fitted on `samples`: the work of a measurement up to which the option saves
/// the most time in all (the sum of log_ratio over the measurements of at most that work,
/// smallest) among those up to which it gains more than kMinGain a measurement (geomean), and
/// still does so with the one measurement it helps most left out; 0 when there is none. A
/// threshold takes every measurement of its work, so it is judged only after the last of them.
/// Without that check, one measurement alone set LSSM's static hand-out (spmm_static_work) in
/// three of the four logged tuner runs on 2-core Zen 5 VMs: west0479 at k = 32 or ash219 at
/// k = 128, the static hand-out at 0.86-0.88x of the dynamic one's time, at 76448 or 84096 of
/// work, where the next measurements above found it 1.00-1.36x slower. In two of those runs
/// jagmesh7 (68704 of work at k = 1 and 8, above the serial threshold of 65536) then ran the
/// static hand-out at 0.82x and 0.79x, and at 1.00x and 0.92x, of the derived profile's time.
inline double fit_threshold(std::vector<WorkSample> samples) {
  std::sort(samples.begin(), samples.end(),
            [](const WorkSample& x, const WorkSample& y) { return x.work < y.work; });
  double sum = 0, most_helped = 0, best = 0, fit = 0;
  int count = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    sum += samples[i].log_ratio;
    most_helped = std::min(most_helped, samples[i].log_ratio);
    ++count;
    if (i + 1 < samples.size() && samples[i + 1].work == samples[i].work) continue;
    if (sum < best && sum < -kMinGain * count &&
        sum - most_helped < -kMinGain * static_cast<double>(count - 1)) {
      best = sum;
      fit = samples[i].work;
    }
  }
  return fit;
}

/// The work up to which an option won at every size measured, searched for through
/// `wins(work)` (whether it gains kMinGain on a call of `work`; std::nullopt when the tuner's
/// deadline has passed, and then so does this): the sizes double from `smallest` up to the
/// first loss (at most `largest`), then two geometric bisections between the last win and the
/// first loss place the crossover within a factor 2^(1/4); it is then measured afresh and
/// lowered a step of 2^(1/4) at a time until it wins again. 0 when nothing at or above
/// `smallest` stands.
/// The confirmation: the win at the size found must hold in a second measurement, so that
/// one noisy win at the largest size measured does not stand.
inline std::optional<std::int64_t> fit_crossover(
    const std::function<std::optional<bool>(std::int64_t)>& wins, std::int64_t smallest,
    std::int64_t largest) {
  std::int64_t won = 0, lost = 0;
  for (std::int64_t work = smallest; work <= largest; work *= 2) {
    const auto w = wins(work);
    if (!w) return std::nullopt;
    if (!*w) {
      lost = work;
      break;
    }
    won = work;
  }
  for (int step = 0; step < 2 && won > 0 && lost > 0; ++step) {
    const auto mid = static_cast<std::int64_t>(std::sqrt(double(won) * double(lost)));
    const auto w = wins(mid);
    if (!w) return std::nullopt;
    (*w ? won : lost) = mid;
  }
  for (std::int64_t fit = won; fit >= smallest;
       fit = static_cast<std::int64_t>(double(fit) / std::pow(2.0, 0.25))) {
    const auto w = wins(fit);
    if (!w) return std::nullopt;
    if (*w) return fit;
  }
  return 0;
}

/// Auto's rule fitted on `samples` (their losses in the order of `algs`), row_parallel
/// the cautious leaf (grow): a tree of at most three levels as a decision list, empty
/// when there are no samples.
inline std::vector<AutoRule::Row> fit_rule(const std::vector<Sample>& samples,
                                           const SpmmAlgorithm (&algs)[3]) {
  std::vector<AutoRule::Row> rows;
  if (samples.empty()) return rows;
  std::vector<std::size_t> all(samples.size());
  std::iota(all.begin(), all.end(), std::size_t(0));
  const int row_parallel = static_cast<int>(
      std::find(std::begin(algs), std::end(algs), SpmmAlgorithm::RowParallel) - std::begin(algs));
  const auto tree = grow(samples, all, static_cast<int>(std::size(algs)), row_parallel, 3);
  AutoRule::Row top;
  top.k_max = std::numeric_limits<int>::max();
  top.cv_max = 1e9;
  emit(*tree, top, algs, row_parallel, rows);
  return rows;
}

}  // namespace mimd::tune
