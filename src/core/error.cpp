#include "mimd/error.hpp"

namespace mimd {

const char* to_string(ParseErrorKind kind) noexcept {
  switch (kind) {
    case ParseErrorKind::EmptyFile:
      return "empty file";
    case ParseErrorKind::BadBanner:
      return "bad banner";
    case ParseErrorKind::UnsupportedField:
      return "unsupported field";
    case ParseErrorKind::BadSizeLine:
      return "bad size line";
    case ParseErrorKind::SizeOverflow:
      return "size overflow";
    case ParseErrorKind::NotANumber:
      return "not a number";
    case ParseErrorKind::IndexOutOfRange:
      return "index out of range";
    case ParseErrorKind::TooFewEntries:
      return "too few entries";
    case ParseErrorKind::TooManyEntries:
      return "too many entries";
    case ParseErrorKind::Truncated:
      return "truncated file";
    case ParseErrorKind::BadArchive:
      return "bad archive";
    case ParseErrorKind::BadCache:
      return "bad cache";
    case ParseErrorKind::NotText:
      return "not text";
    case ParseErrorKind::TooLarge:
      return "too large";
  }
  return "unknown";
}

namespace {
std::string shorten(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return text;
}

std::string compose(const std::string& file, std::uint64_t line, ParseErrorKind kind,
                    const std::string& detail, const std::string& text) {
  std::string msg = file;
  if (line > 0) msg += ":" + std::to_string(line);
  msg += ": ";
  msg += to_string(kind);
  if (!detail.empty()) msg += ": " + detail;
  if (!text.empty()) msg += " (text: '" + text + "')";
  return msg;
}
}  // namespace

ParseError::ParseError(std::string file, std::uint64_t line, ParseErrorKind kind,
                       const std::string& detail, std::string text)
    : Error(compose(file, line, kind, detail, shorten(text))),
      file_(std::move(file)),
      line_(line),
      kind_(kind),
      text_(shorten(std::move(text))) {}

}  // namespace mimd
