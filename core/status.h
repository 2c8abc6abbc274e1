// Status and Result<T>: errors as values, one mechanism everywhere.
//
// A Status is OK or a code plus a message that carries context (op name,
// component, file and byte offset, expected vs actual). End of a sequence is
// never an error: iterators return std::nullopt for it.
// Thread safety: immutable values, safe to copy across threads.
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "sluice/core/logging.h"

namespace sluice {

// Codes follow tf.data's (and absl's) canonical set.
enum class StatusCode {
  kOk = 0,
  kCancelled,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kOutOfRange,
  kResourceExhausted,
  kFailedPrecondition,
  kUnimplemented,
  kInternal,
  kDataLoss,
  kDeadlineExceeded,  // a wait passed its deadline (a silent peer, a connect)
  kUnavailable,       // a peer is unreachable or closed the connection
  kUnauthenticated,   // a peer did not prove it holds the shared secret
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message);

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  const std::string& message() const;
  // "InvalidArgument: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is "<context>: <message>".
  Status WithContext(std::string_view context) const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code() == b.code() && a.message() == b.message();
  }

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  std::shared_ptr<const Rep> rep_;  // null when OK: an OK status costs nothing
};

inline Status OkStatus() { return Status(); }

// Concatenates any streamable values into a string.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

#define SLUICE_DEFINE_STATUS_FACTORY(Name)                     \
  template <typename... Args>                                  \
  Status Name##Error(const Args&... args) {                    \
    return Status(StatusCode::k##Name, StrCat(args...));       \
  }
SLUICE_DEFINE_STATUS_FACTORY(Cancelled)
SLUICE_DEFINE_STATUS_FACTORY(InvalidArgument)
SLUICE_DEFINE_STATUS_FACTORY(NotFound)
SLUICE_DEFINE_STATUS_FACTORY(AlreadyExists)
SLUICE_DEFINE_STATUS_FACTORY(OutOfRange)
SLUICE_DEFINE_STATUS_FACTORY(ResourceExhausted)
SLUICE_DEFINE_STATUS_FACTORY(FailedPrecondition)
SLUICE_DEFINE_STATUS_FACTORY(Unimplemented)
SLUICE_DEFINE_STATUS_FACTORY(Internal)
SLUICE_DEFINE_STATUS_FACTORY(DataLoss)
SLUICE_DEFINE_STATUS_FACTORY(DeadlineExceeded)
SLUICE_DEFINE_STATUS_FACTORY(Unavailable)
SLUICE_DEFINE_STATUS_FACTORY(Unauthenticated)
#undef SLUICE_DEFINE_STATUS_FACTORY

// A value or an error Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  // Implicit from anything T can be built from (a T, std::nullopt for an
  // optional T, ...), like absl::StatusOr.
  template <typename U = T,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, Result>>>
  Result(U&& value) : value_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT
  Result(Status status) : value_(std::move(status)) {  // NOLINT
    SLUICE_CHECK(!std::get<Status>(value_).ok()) << "Result built from an OK status";
  }
  // The value built in place from `args`: a large T (an element) is then
  // filled where it will be returned, not moved there.
  template <typename... Args>
  explicit Result(std::in_place_t, Args&&... args) : value_(std::in_place_index<0>, std::forward<Args>(args)...) {}

  bool ok() const { return std::holds_alternative<T>(value_); }
  Status status() const { return ok() ? Status() : std::get<Status>(value_); }

  // REQUIRES: ok().
  T& value() & { return Checked(); }
  const T& value() const& { return const_cast<Result*>(this)->Checked(); }
  T&& value() && { return std::move(Checked()); }
  T& operator*() & { return Checked(); }
  const T& operator*() const& { return const_cast<Result*>(this)->Checked(); }
  T&& operator*() && { return std::move(Checked()); }
  T* operator->() { return &Checked(); }
  const T* operator->() const { return &const_cast<Result*>(this)->Checked(); }

 private:
  // Inline and branch-light, for per-element paths; the failure is out of line.
  T& Checked() {
    if (!ok()) [[unlikely]] DieNotOk();
    return *std::get_if<0>(&value_);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void DieNotOk() const {
    SLUICE_CHECK(false) << "value() on an error Result: " << std::get<Status>(value_).ToString();
    std::abort();
  }
  std::variant<T, Status> value_;
};

std::ostream& operator<<(std::ostream& out, const Status& status);

}  // namespace sluice

#define SLUICE_CONCAT_INNER(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_INNER(a, b)

#define SLUICE_RETURN_IF_ERROR(expr)                     \
  do {                                                   \
    ::sluice::Status _sluice_status = (expr);            \
    if (!_sluice_status.ok()) return _sluice_status;     \
  } while (0)

#define SLUICE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

// SLUICE_ASSIGN_OR_RETURN(auto x, MakeX()); returns the error if MakeX fails.
#define SLUICE_ASSIGN_OR_RETURN(lhs, expr) \
  SLUICE_ASSIGN_OR_RETURN_IMPL(SLUICE_CONCAT(_sluice_result_, __LINE__), lhs, expr)
