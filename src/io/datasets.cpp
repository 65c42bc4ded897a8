// Dataset search path, name resolution and MANIFEST.tsv reading.
#include "mimd/datasets.hpp"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdlib>
#include <fstream>
#include <map>

#include "mimd/error.hpp"

namespace mimd {

namespace {

bool is_dir(const std::string& p) {
  struct stat sb {};
  return ::stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}

bool is_file(const std::string& p) {
  struct stat sb {};
  return ::stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

std::string real(const std::string& p) {
  char* r = ::realpath(p.c_str(), nullptr);
  std::string out = r ? r : p;
  std::free(r);
  return out;
}

std::string parent(const std::string& p) {
  const auto s = p.find_last_of('/');
  return s == 0 || s == std::string::npos ? "/" : p.substr(0, s);
}

// "<d>/../shared/datasets" for d = dir and each of its ancestors, nearest first.
void add_shared_siblings(std::string dir, std::vector<std::string>& out) {
  for (dir = real(dir); dir != "/"; dir = parent(dir)) {
    const std::string up = parent(dir);
    out.push_back((up == "/" ? "" : up) + "/shared/datasets");
  }
}

std::string strip_extensions(std::string name) {
  for (const char* ext : {".tar.gz", ".txt.gz", ".mtx.gz", ".gz", ".mtx", ".txt"}) {
    const std::string e(ext);
    if (name.size() > e.size() && name.compare(name.size() - e.size(), e.size(), e) == 0)
      return name.substr(0, name.size() - e.size());
  }
  return name;
}

std::string file_name(const std::string& p) {
  const auto s = p.find_last_of('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::size_t b = 0;
  for (;;) {
    const auto e = line.find('\t', b);
    out.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

}  // namespace

bool ManifestEntry::is_snap() const {
  return format.rfind("snap", 0) == 0;
}
bool ManifestEntry::is_complex() const {
  return format.find("complex") != std::string::npos;
}
std::string ManifestEntry::short_name() const {
  return strip_extensions(file_name(path));
}

std::vector<std::string> dataset_search_path() {
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("MIMD_DATASETS"); env && *env) {
    std::string s = env;
    std::size_t b = 0;
    for (;;) {
      const auto e = s.find(':', b);
      const std::string item = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
      if (!item.empty()) candidates.push_back(item);
      if (e == std::string::npos) break;
      b = e + 1;
    }
  }
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) != nullptr) add_shared_siblings(cwd, candidates);
  add_shared_siblings(MIMD_SOURCE_DIR, candidates);
  candidates.push_back(MIMD_SOURCE_DIR "/datasets");
  std::vector<std::string> out, seen;
  for (const auto& c : candidates) {
    if (!is_dir(c)) continue;
    const std::string r = real(c);
    if (std::find(seen.begin(), seen.end(), r) != seen.end()) continue;
    seen.push_back(r);
    out.push_back(c);
  }
  return out;
}

std::vector<ManifestEntry> read_manifest(const std::string& dir) {
  const std::string path = dir + "/MANIFEST.tsv";
  std::ifstream in(path);
  if (!in) throw IoError(path, "cannot open the manifest");
  std::string line;
  std::uint64_t lineno = 1;
  if (!std::getline(in, line))
    throw ParseError(path, 0, ParseErrorKind::EmptyFile, "the manifest is empty");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const auto header = split_tabs(line);
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col[header[i]] = i;
  for (const char* required : {"path", "rows", "cols", "nnz_stored"})
    if (!col.count(required))
      throw ParseError(
          path, 1, ParseErrorKind::BadBanner,
          std::string("the first line must name the columns, and '") + required + "' is missing",
          line);
  std::vector<ManifestEntry> out;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const auto f = split_tabs(line);
    if (f.size() != header.size())
      throw ParseError(path, lineno, ParseErrorKind::TooFewEntries,
                       "expected " + std::to_string(header.size()) +
                           " tab-separated fields, found " + std::to_string(f.size()),
                       line);
    auto text = [&](const char* name) { return col.count(name) ? f[col[name]] : std::string(); };
    auto number = [&](const char* name, std::int64_t fallback) {
      const std::string s = text(name);
      if (s.empty()) return fallback;
      std::int64_t v = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < 0)
        throw ParseError(path, lineno, ParseErrorKind::NotANumber,
                         std::string("column '") + name + "' is not a non-negative integer", s);
      return v;
    };
    ManifestEntry e;
    e.path = text("path");
    e.name = text("name");
    e.rows = number("rows", 0);
    e.cols = number("cols", 0);
    e.nnz_stored = number("nnz_stored", 0);
    e.nnz_expanded = number("nnz_expanded", e.nnz_stored);
    e.max_row_len = number("max_row_len", 0);
    e.format = text("format");
    e.kind = text("kind");
    e.notes = text("notes");
    out.push_back(std::move(e));
  }
  return out;
}

std::string shared_dataset_dir() {
  for (const auto& d : dataset_search_path())
    if (is_file(d + "/MANIFEST.tsv")) return d;
  return {};
}

std::string find_dataset(const std::string& name) {
  if (is_file(name)) return name;
  const auto path = dataset_search_path();
  for (const auto& d : path)
    if (is_file(d + "/" + name)) return d + "/" + name;
  for (const auto& d : path) {
    std::vector<std::string> rel;
    if (is_file(d + "/MANIFEST.tsv"))
      for (const auto& e : read_manifest(d)) rel.push_back(e.path);
    for (const auto& entry : list_dir(d)) {
      if (is_dir(d + "/" + entry))
        for (const auto& f : list_dir(d + "/" + entry)) rel.push_back(entry + "/" + f);
      else
        rel.push_back(entry);
    }
    for (const auto& r : rel)
      if (strip_extensions(file_name(r)) == name && is_file(d + "/" + r)) return d + "/" + r;
  }
  std::string searched;
  for (const auto& d : path) searched += (searched.empty() ? "" : ", ") + d;
  throw IoError(name,
                "no such dataset; searched: " + (searched.empty() ? "(no folder)" : searched) +
                    " (set MIMD_DATASETS to a folder holding it)");
}

}  // namespace mimd
