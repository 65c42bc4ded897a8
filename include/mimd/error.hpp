// Typed errors of mimd-kernels.
//
// Three families are kept apart, as Kokkos Kernels and Ginkgo do:
//  - user errors: bad arguments (InvalidArgument, DimensionMismatch), bad matrices
//    (InvalidMatrix) and bad input files (ParseError, IoError);
//  - internal invariant failures (InternalError): a bug in mimd-kernels;
//  - environment failures (RuntimeFailure): the machine refused something (hwloc,
//    thread binding, memory).
// Every error carries a complete, human-readable message; the typed accessors let a
// caller react programmatically (which file, which line, which extents).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mimd {

/// Base of every exception thrown by mimd-kernels.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

/// A caller passed an argument outside the documented preconditions.
class InvalidArgument : public Error {
 public:
  explicit InvalidArgument(const std::string& what) : Error(what) {}
};

/// Operand extents do not agree. The message names every extent involved.
class DimensionMismatch : public InvalidArgument {
 public:
  /// @param operation  the call that detected the mismatch, e.g. "spmm"
  /// @param detail     every extent involved, e.g. "A is 4x5, B is 6x8, C is 4x8"
  DimensionMismatch(const std::string& operation, const std::string& detail)
      : InvalidArgument(operation + ": dimension mismatch: " + detail) {}
};

/// A sparse matrix breaks a structural invariant (non-monotone offsets, index out of
/// range, unsorted columns where sorted ones are required).
class InvalidMatrix : public Error {
 public:
  /// @param where  which array and position, e.g. "row_map[17]"
  /// @param detail what is wrong, with the offending value and the allowed range
  InvalidMatrix(const std::string& where, const std::string& detail)
      : Error("invalid matrix: " + where + ": " + detail), where_(where) {}
  const std::string& where() const noexcept { return where_; }

 private:
  std::string where_;
};

/// Why an input file was rejected; one value per row of the broken-file table.
enum class ParseErrorKind {
  EmptyFile,         ///< no bytes, or only comments
  BadBanner,         ///< first line is not a Matrix Market banner
  UnsupportedField,  ///< complex field, or an unknown object/format/field/symmetry
  BadSizeLine,       ///< the size line is missing, malformed or negative
  SizeOverflow,      ///< a declared size does not fit the index types
  NotANumber,        ///< a token that should be a number is not
  IndexOutOfRange,   ///< an index outside [1, n] (Matrix Market) or [0, max] (SNAP)
  TooFewEntries,     ///< the file ends before the declared number of entries
  TooManyEntries,    ///< more entries than the size line declares
  Truncated,         ///< the file ends inside a line or a compressed stream ends early
  BadArchive,        ///< a .tar.gz that does not hold exactly one Matrix Market file
  BadCache,          ///< a binary CSR cache that fails its checks (never surfaced: rebuilt)
  NotText,           ///< binary data (a NUL byte) where text is expected
  TooLarge,          ///< a size claim, or the data, exceeds the memory budget of a load
};

/// Human-readable name of a ParseErrorKind, e.g. "index out of range".
const char* to_string(ParseErrorKind kind) noexcept;

/// An input file is malformed. The message has the form
///   "<file>:<line>: <kind>: <detail> (text: '<offending text>')"
/// so that editors and CI logs can jump to the place.
class ParseError : public Error {
 public:
  /// @param file   path of the input file as given by the caller
  /// @param line   1-based line number, 0 when the error is not tied to a line
  /// @param kind   the category of the error
  /// @param detail what was expected and what was found (ranges, counts)
  /// @param text   the offending text, shortened to at most 80 characters
  ParseError(std::string file, std::uint64_t line, ParseErrorKind kind, const std::string& detail,
             std::string text = {});
  const std::string& file() const noexcept { return file_; }
  std::uint64_t line() const noexcept { return line_; }
  ParseErrorKind kind() const noexcept { return kind_; }
  const std::string& text() const noexcept { return text_; }

 private:
  std::string file_;
  std::uint64_t line_;
  ParseErrorKind kind_;
  std::string text_;
};

/// A file could not be opened, read or written (the message holds strerror).
class IoError : public Error {
 public:
  IoError(const std::string& path, const std::string& detail)
      : Error(path + ": " + detail), path_(path) {}
  const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
};

/// The machine refused a request (hwloc failure, binding refused, allocation failed).
class RuntimeFailure : public Error {
 public:
  explicit RuntimeFailure(const std::string& what) : Error(what) {}
};

/// An internal invariant of mimd-kernels does not hold: a bug, please report it.
class InternalError : public Error {
 public:
  InternalError(const char* file, int line, const std::string& what)
      : Error(std::string("internal error at ") + file + ":" + std::to_string(line) + ": " + what) {
  }
};

}  // namespace mimd

/// Throws mimd::InternalError with the source location when `cond` is false.
#define MIMD_ASSERT(cond, msg)                                           \
  do {                                                                   \
    if (!(cond)) throw ::mimd::InternalError(__FILE__, __LINE__, (msg)); \
  } while (0)
