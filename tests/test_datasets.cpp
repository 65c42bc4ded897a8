// Dataset search path, name resolution, MANIFEST.tsv reading, and the agreement of
// datasets/registry.tsv with the shared folder's MANIFEST.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "mimd/datasets.hpp"
#include "mimd/error.hpp"
#include "support/io_files.hpp"

namespace {

using mimd::testing::TempDir;
using mimd::testing::write_file;

// Sets an environment variable for the scope of a test, restoring it afterwards.
class EnvGuard {
 public:
  EnvGuard(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~EnvGuard() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

const std::string kManifest =
    "path\tname\trows\tcols\tnnz_stored\tformat\tnnz_expanded\tkind\tnotes\n"
    "sub/foo.mtx\tGroup/foo\t3\t4\t5\tmatrixmarket coordinate real general\t5\tk\tn\n"
    "g/bar.txt.gz\tSNAP bar\t10\t10\t7\tsnap edgelist\t\tsocial\t\n"
    "\n"
    "sub/cplx.mtx\tcplx\t2\t2\t3\tmatrixmarket coordinate complex symmetric\t4\tk\t\n";

TEST(Datasets, SearchPathStartsWithMimdDatasetsAndEndsWithTheProjectFolder) {
  TempDir a, b;
  EnvGuard env("MIMD_DATASETS", a.path() + ":/no/such/folder::" + b.path());
  const auto path = mimd::dataset_search_path();
  ASSERT_GE(path.size(), 3u);
  EXPECT_EQ(path[0], a.path());
  EXPECT_EQ(path[1], b.path());
  for (const auto& p : path) EXPECT_NE(p, "/no/such/folder");
  EXPECT_EQ(std::filesystem::canonical(path.back()),
            std::filesystem::canonical(std::string(MIMD_SOURCE_DIR) + "/datasets"));
  // A folder reached twice is listed once.
  EnvGuard twice("MIMD_DATASETS", a.path() + ":" + a.path() + "/.");
  const auto p2 = mimd::dataset_search_path();
  EXPECT_EQ(std::count(p2.begin(), p2.end(), a.path()), 1);
}

// Run from a directory outside the checkout, the checkout's ../shared/datasets is still
// searched (it was missed once: the programs found nothing when started from /tmp).
TEST(Datasets, SearchPathHoldsTheCheckoutsSharedFolderFromAnyDirectory) {
  const std::filesystem::path shared =
      std::filesystem::path(MIMD_SOURCE_DIR) / ".." / "shared" / "datasets";
  if (!std::filesystem::is_directory(shared)) GTEST_SKIP() << "no " << shared;
  TempDir elsewhere;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(elsewhere.path());
  const auto path = mimd::dataset_search_path();
  std::filesystem::current_path(cwd);
  const auto want = std::filesystem::canonical(shared);
  EXPECT_TRUE(std::any_of(path.begin(), path.end(), [&](const std::string& p) {
    return std::filesystem::canonical(p) == want;
  })) << want;
}

TEST(Datasets, FindDatasetByPathRelativePathAndBareName) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("sub"));
  std::filesystem::create_directories(dir.file("g"));
  write_file(dir.file("MANIFEST.tsv"), kManifest);
  write_file(dir.file("sub/foo.mtx"), "x");
  write_file(dir.file("g/bar.txt.gz"), "x");
  write_file(dir.file("g/unlisted.mtx.gz"), "x");
  EnvGuard env("MIMD_DATASETS", dir.path());
  EXPECT_EQ(mimd::shared_dataset_dir(), dir.path());
  EXPECT_EQ(mimd::find_dataset(dir.file("sub/foo.mtx")), dir.file("sub/foo.mtx"));
  EXPECT_EQ(mimd::find_dataset("sub/foo.mtx"), dir.file("sub/foo.mtx"));
  EXPECT_EQ(mimd::find_dataset("foo"), dir.file("sub/foo.mtx"));
  EXPECT_EQ(mimd::find_dataset("bar"), dir.file("g/bar.txt.gz"));
  EXPECT_EQ(mimd::find_dataset("unlisted"), dir.file("g/unlisted.mtx.gz"));
  // Listed in the manifest but absent: not found.
  try {
    mimd::find_dataset("cplx");
    FAIL() << "no IoError";
  } catch (const mimd::IoError& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("MIMD_DATASETS"), std::string::npos) << e.what();
  }
  EXPECT_THROW(mimd::find_dataset("Foo"), mimd::IoError);  // names are case-sensitive
}

TEST(Datasets, ReadManifestByColumnName) {
  TempDir dir;
  write_file(dir.file("MANIFEST.tsv"), kManifest);
  const auto m = mimd::read_manifest(dir.path());
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0].path, "sub/foo.mtx");
  EXPECT_EQ(m[0].name, "Group/foo");
  EXPECT_EQ(m[0].rows, 3);
  EXPECT_EQ(m[0].cols, 4);
  EXPECT_EQ(m[0].nnz_stored, 5);
  EXPECT_EQ(m[0].nnz_expanded, 5);
  EXPECT_EQ(m[0].kind, "k");
  EXPECT_EQ(m[0].notes, "n");
  EXPECT_FALSE(m[0].is_snap());
  EXPECT_FALSE(m[0].is_complex());
  EXPECT_EQ(m[0].short_name(), "foo");
  EXPECT_TRUE(m[1].is_snap());
  EXPECT_EQ(m[1].short_name(), "bar");
  EXPECT_EQ(m[1].nnz_expanded, 7);  // empty: as stored
  EXPECT_TRUE(m[2].is_complex());
  EXPECT_EQ(m[2].nnz_expanded, 4);
}

TEST(Datasets, MalformedManifests) {
  TempDir dir;
  EXPECT_THROW(mimd::read_manifest(dir.path()), mimd::IoError);
  write_file(dir.file("MANIFEST.tsv"), "path\tcols\tnnz_stored\nx\t1\t1\n");
  try {
    mimd::read_manifest(dir.path());
    FAIL() << "no ParseError";
  } catch (const mimd::ParseError& e) {
    EXPECT_EQ(e.line(), 1u);
    EXPECT_NE(std::string(e.what()).find("'rows' is missing"), std::string::npos) << e.what();
  }
  write_file(dir.file("MANIFEST.tsv"), "path\trows\tcols\tnnz_stored\na\t1\t1\t1\nb\t2\tx2\t1\n");
  try {
    mimd::read_manifest(dir.path());
    FAIL() << "no ParseError";
  } catch (const mimd::ParseError& e) {
    EXPECT_EQ(e.kind(), mimd::ParseErrorKind::NotANumber);
    EXPECT_EQ(e.line(), 3u);
    EXPECT_NE(std::string(e.what()).find("'cols'"), std::string::npos) << e.what();
  }
  write_file(dir.file("MANIFEST.tsv"), "path\trows\tcols\tnnz_stored\na\t1\t1\n");
  EXPECT_THROW(mimd::read_manifest(dir.path()), mimd::ParseError);
}

std::vector<std::map<std::string, std::string>> read_tsv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> f;
    std::size_t b = 0;
    for (;;) {
      const auto e = l.find('\t', b);
      f.push_back(l.substr(b, e == std::string::npos ? e : e - b));
      if (e == std::string::npos) return f;
      b = e + 1;
    }
  };
  if (std::getline(in, line)) header = split(line);
  while (std::getline(in, line)) {
    const auto f = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < f.size(); ++i) row[header[i]] = f[i];
    rows.push_back(row);
  }
  return rows;
}

TEST(Datasets, SharedFolderEntriesResolveByName) {
  const std::string dir = mimd::shared_dataset_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dataset folder (set MIMD_DATASETS)";
  const auto m = mimd::read_manifest(dir);
  ASSERT_FALSE(m.empty());
  for (const auto& e : m) {
    SCOPED_TRACE(e.path);
    EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/" + e.path));
    EXPECT_EQ(mimd::find_dataset(e.short_name()), dir + "/" + e.path);
  }
}

TEST(Datasets, RegistryAgreesWithTheSharedManifest) {
  const auto registry = read_tsv(std::string(MIMD_SOURCE_DIR) + "/datasets/registry.tsv");
  ASSERT_FALSE(registry.empty());
  std::map<std::string, std::map<std::string, std::string>> by_file;
  for (const auto& r : registry) {
    SCOPED_TRACE(r.at("name"));
    const std::string url = r.at("url");
    if (r.at("collection") == "SuiteSparse")
      EXPECT_EQ(url.rfind("https://suitesparse-collection-website.herokuapp.com/MM/", 0), 0u);
    else
      EXPECT_EQ(r.at("collection"), "SNAP");
    EXPECT_EQ(r.at("sha256").size(), 64u);
    by_file[r.at("file")] = r;
  }
  const std::string dir = mimd::shared_dataset_dir();
  if (dir.empty()) GTEST_SKIP() << "no shared dataset folder (set MIMD_DATASETS)";
  const auto manifest = read_tsv(dir + "/MANIFEST.tsv");
  EXPECT_EQ(manifest.size(), registry.size());
  for (const auto& e : manifest) {
    SCOPED_TRACE(e.at("path"));
    ASSERT_TRUE(by_file.count(e.at("path"))) << "missing from datasets/registry.tsv";
    EXPECT_EQ(by_file[e.at("path")].at("sha256"), e.at("sha256"));
    EXPECT_EQ(by_file[e.at("path")].at("bytes"), e.at("bytes"));
  }
}

}  // namespace
