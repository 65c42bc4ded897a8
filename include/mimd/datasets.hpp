// Finding real datasets: the search path, name resolution and the MANIFEST.tsv of a
// dataset folder (one row per file with its expected rows, cols and nnz).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mimd {

/// Folders searched for datasets, in order, keeping only those that exist:
///  1. every entry of $MIMD_DATASETS (colon-separated),
///  2. ../shared/datasets relative to the current directory, then relative to each of
///     its ancestors (nearest first), so that a build folder or a git worktree
///     nested below the checkout still finds it,
///  3. the checkout's ../shared/datasets (the checkout fixed at build time), then the
///     same relative to the checkout's ancestors, so that a program run from any
///     directory finds the data beside the checkout it was built from,
///  4. the checkout's own datasets/ folder (the registry of
///     official download URLs and checksums, datasets/registry.tsv).
/// A folder reached twice (same real path) is listed once.
std::vector<std::string> dataset_search_path();

/// Resolves a dataset to a file path. `name` may be an existing path, a path relative
/// to a search folder ("suitesparse/bcsstk13.mtx"), or a bare name ("bcsstk13",
/// "soc-Slashdot0902", "CA-GrQc") matched against the file names (without .mtx, .txt,
/// .tar.gz, .txt.gz, .mtx.gz) of every search folder's MANIFEST.tsv and subfolders.
/// @throws IoError naming the folders searched when nothing matches
std::string find_dataset(const std::string& name);

/// One row of a MANIFEST.tsv.
struct ManifestEntry {
  std::string path;  ///< relative to the manifest's folder, e.g. "snap/Wiki-Vote.txt"
  std::string name;  ///< display name, e.g. "HB/bcsstk13 (SuiteSparse id 35)"
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz_stored = 0;    ///< entries as stored in the file
  std::int64_t nnz_expanded = 0;  ///< after symmetric expansion
  std::int64_t max_row_len = 0;
  std::string format;  ///< e.g. "matrixmarket coordinate real symmetric"
  std::string kind;    ///< e.g. "fem-structural", "social-directed"
  std::string notes;
  bool is_snap() const;     ///< an edge list (format starts with "snap")
  bool is_complex() const;  ///< a complex Matrix Market file (rejected by the reader)
  /// Short name: file name without folders and extensions ("bcsstk13").
  std::string short_name() const;
};

/// Reads `dir`/MANIFEST.tsv (tab-separated, first line names the columns).
/// @throws IoError when the file cannot be read; ParseError on a malformed row
std::vector<ManifestEntry> read_manifest(const std::string& dir);

/// The first folder of the search path that holds a MANIFEST.tsv, or "" if none.
std::string shared_dataset_dir();

}  // namespace mimd
