#include "sluice/service/auth.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sluice/service/protocol.h"

namespace sluice::service {
namespace {

constexpr size_t kMaxTokenBytes = 4096;
// Binds a proof to this protocol, so that it means nothing elsewhere.
constexpr std::string_view kProofContext = "sluice data service auth proof v1";

void AppendLittleEndian32(uint32_t value, std::string& out) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

Status CheckToken(std::string_view token, std::string_view where) {
  if (token.empty()) return InvalidArgumentError("the token in ", where, " is empty");
  if (token.size() > kMaxTokenBytes) {
    return InvalidArgumentError("the token in ", where, " has ", token.size(), " bytes, more than ",
                                kMaxTokenBytes);
  }
  return OkStatus();
}

}  // namespace

Result<std::string> ReadTokenFile(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return NotFoundError("token file '", path, "' does not exist");
  if (!S_ISREG(info.st_mode)) return InvalidArgumentError("token file '", path, "' is not a regular file");
  if ((info.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
    return FailedPreconditionError("token file '", path, "' has mode ", std::oct, (info.st_mode & 0777), std::dec,
                                   ": its group or others may read it, so it is no secret; run chmod 600 '",
                                   path, "'");
  }
  if (info.st_size > static_cast<off_t>(kMaxTokenBytes) + 1) {
    return InvalidArgumentError("token file '", path, "' has ", info.st_size, " bytes, more than ", kMaxTokenBytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError("token file '", path, "' cannot be opened");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  std::string token = bytes.str();
  if (!token.empty() && token.back() == '\n') token.pop_back();
  SLUICE_RETURN_IF_ERROR(CheckToken(token, StrCat("file '", path, "'")));
  return token;
}

Result<std::optional<std::string>> LoadToken(const std::string& token_file) {
  if (!token_file.empty()) {
    SLUICE_ASSIGN_OR_RETURN(std::string token, ReadTokenFile(token_file));
    return std::optional<std::string>(std::move(token));
  }
  const char* value = std::getenv(kTokenEnvironmentVariable);
  if (value == nullptr) return std::optional<std::string>();
  std::string token(value);
  SLUICE_RETURN_IF_ERROR(CheckToken(token, kTokenEnvironmentVariable));
  return std::optional<std::string>(std::move(token));
}

Result<std::string> MakeNonce() {
  std::string nonce(kNonceBytes, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), static_cast<int>(nonce.size())) != 1) {
    return InternalError("OpenSSL's random generator failed to make a nonce");
  }
  return nonce;
}

std::string ComputeAuthProof(std::string_view token, std::string_view nonce, uint32_t major, uint32_t minor,
                             Role role) {
  std::string message(kProofContext);
  message.append(nonce);
  AppendLittleEndian32(major, message);
  AppendLittleEndian32(minor, message);
  AppendLittleEndian32(static_cast<uint32_t>(role), message);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_bytes = 0;
  HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &mac_bytes);
  return std::string(reinterpret_cast<const char*>(mac), mac_bytes);
}

bool ProofMatches(std::string_view expected, std::string_view proof) {
  if (expected.size() != proof.size() || expected.empty()) return false;
  return CRYPTO_memcmp(expected.data(), proof.data(), expected.size()) == 0;
}

}  // namespace sluice::service
