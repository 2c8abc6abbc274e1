#include "sluice/service/auth.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>

#include "sluice/service/protocol.h"
#include "temp_dir.h"

namespace sluice::service {
namespace {

std::string WriteFile(const testing::TempDir& dir, const std::string& name, const std::string& contents,
                      mode_t mode) {
  const std::string path = dir.File(name);
  std::ofstream(path, std::ios::binary) << contents;
  ::chmod(path.c_str(), mode);
  return path;
}

TEST(AuthTest, ReadsAPrivateTokenFileWithoutItsNewline) {
  testing::TempDir dir;
  Result<std::string> token = ReadTokenFile(WriteFile(dir, "token", "s3cret-token\n", 0600));
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(*token, "s3cret-token");
}

TEST(AuthTest, RefusesATokenFileOthersMayRead) {
  testing::TempDir dir;
  const std::string path = WriteFile(dir, "token", "s3cret", 0644);
  Result<std::string> token = ReadTokenFile(path);
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(token.status().message().find("mode 644"), std::string::npos) << token.status();
  EXPECT_NE(token.status().message().find("chmod 600"), std::string::npos) << token.status();
  ::chmod(path.c_str(), 0640);
  EXPECT_EQ(ReadTokenFile(path).status().code(), StatusCode::kFailedPrecondition);
}

TEST(AuthTest, MissingEmptyAndHugeTokenFiles) {
  testing::TempDir dir;
  EXPECT_EQ(ReadTokenFile(dir.File("absent")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadTokenFile(WriteFile(dir, "empty", "\n", 0600)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadTokenFile(WriteFile(dir, "huge", std::string(5000, 'x'), 0600)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadTokenFile(dir.path()).status().code(), StatusCode::kInvalidArgument);
}

TEST(AuthTest, LoadTokenPrefersTheFileThenTheEnvironment) {
  testing::TempDir dir;
  const std::string path = WriteFile(dir, "token", "from-file", 0600);
  ::setenv(kTokenEnvironmentVariable, "from-env", 1);
  EXPECT_EQ(LoadToken(path)->value(), "from-file");
  EXPECT_EQ(LoadToken("")->value(), "from-env");
  ::setenv(kTokenEnvironmentVariable, "", 1);
  EXPECT_EQ(LoadToken("").status().code(), StatusCode::kInvalidArgument);
  ::unsetenv(kTokenEnvironmentVariable);
  Result<std::optional<std::string>> none = LoadToken("");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(AuthTest, NoncesAreFreshAndFullLength) {
  const std::string a = *MakeNonce();
  const std::string b = *MakeNonce();
  EXPECT_EQ(a.size(), kNonceBytes);
  EXPECT_NE(a, b);
}

// HMAC-SHA256 against a value computed independently:
//   python3 -c "import hmac,hashlib; print(hmac.new(b'key',
//     b'sluice data service auth proof v1' + b'N'*32 + bytes([1,0,0,0, 0,0,0,0, 1,0,0,0]),
//     hashlib.sha256).hexdigest())"
TEST(AuthTest, ProofIsHmacSha256OverContextNonceVersionAndRole) {
  const std::string proof = ComputeAuthProof("key", std::string(32, 'N'), 1, 0, ROLE_CLIENT);
  ASSERT_EQ(proof.size(), 32u);
  std::string hex;
  for (unsigned char c : proof) hex += StrCat(std::hex, static_cast<int>(c >> 4), static_cast<int>(c & 15));
  EXPECT_EQ(hex, "5a2bb342a962d03a96ad5f0f7c63728ee8e03806deee95a12d657d0aa344b5e8");
}

TEST(AuthTest, ProofDependsOnEveryInput) {
  const std::string nonce(32, 'N');
  const std::string base = ComputeAuthProof("key", nonce, 1, 0, ROLE_CLIENT);
  EXPECT_NE(base, ComputeAuthProof("kez", nonce, 1, 0, ROLE_CLIENT));
  EXPECT_NE(base, ComputeAuthProof("key", std::string(32, 'M'), 1, 0, ROLE_CLIENT));
  EXPECT_NE(base, ComputeAuthProof("key", nonce, 2, 0, ROLE_CLIENT));
  EXPECT_NE(base, ComputeAuthProof("key", nonce, 1, 1, ROLE_CLIENT));
  EXPECT_NE(base, ComputeAuthProof("key", nonce, 1, 0, ROLE_WORKER));
}

TEST(AuthTest, ProofMatchesOnlyTheSameBytes) {
  const std::string proof = ComputeAuthProof("key", std::string(32, 'N'), 1, 0, ROLE_CLIENT);
  EXPECT_TRUE(ProofMatches(proof, proof));
  std::string flipped = proof;
  flipped[31] ^= 1;
  EXPECT_FALSE(ProofMatches(proof, flipped));
  EXPECT_FALSE(ProofMatches(proof, proof.substr(0, 31)));
  EXPECT_FALSE(ProofMatches(proof, ""));
  EXPECT_FALSE(ProofMatches("", ""));
}

}  // namespace
}  // namespace sluice::service
