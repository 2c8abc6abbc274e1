// Authentication of data-service peers by a shared secret (a token): the
// server sends a fresh random nonce (Challenge), the client answers with
// HMAC-SHA256(token, context) over the nonce, the client's protocol version
// and its role (AuthProof), so the token never crosses the wire and a proof
// cannot be replayed on another connection. The server compares in constant
// time (CRYPTO_memcmp) and reads nothing else from a peer before its proof
// checks (service/handshake.h).
//
// Tokens come from a file (--token-file) or the environment
// (SLUICE_SERVICE_TOKEN), never from a command line, where `ps` shows it. A
// token file that its group or others may read is refused
// (FailedPrecondition, naming the mode and the chmod that fixes it), as ssh
// refuses such a private key: a shared secret in a world-readable file is
// not a secret.
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sluice/core/status.h"
#include "sluice/service/service.pb.h"

namespace sluice::service {

// The environment variable a token is read from when no file is given.
inline constexpr const char* kTokenEnvironmentVariable = "SLUICE_SERVICE_TOKEN";

// The token in `path` (one trailing newline dropped). NotFound when the file
// is missing, FailedPrecondition when group or others may read it,
// InvalidArgument when it is empty or longer than 4 KiB.
Result<std::string> ReadTokenFile(const std::string& path);

// The token from `token_file` when it is not empty, else from
// SLUICE_SERVICE_TOKEN, else none (std::nullopt).
Result<std::optional<std::string>> LoadToken(const std::string& token_file);

// kNonceBytes bytes from OpenSSL's random generator (Internal when it fails).
Result<std::string> MakeNonce();

// The proof a client holding `token` sends for `nonce`: 32 bytes of
// HMAC-SHA256 over a fixed context label, the nonce, and the client's
// version and role.
std::string ComputeAuthProof(std::string_view token, std::string_view nonce, uint32_t major, uint32_t minor,
                             Role role);

// Whether `proof` equals `expected`, in time that depends only on their
// lengths.
bool ProofMatches(std::string_view expected, std::string_view proof);

}  // namespace sluice::service
