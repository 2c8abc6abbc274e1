#include "sluice/service/address.h"

#include <gtest/gtest.h>

namespace sluice::service {
namespace {

TEST(AddressTest, ParsesHostsAndPorts) {
  HostPort a = *ParseHostPort("127.0.0.1:5000");
  EXPECT_EQ(a.host, "127.0.0.1");
  EXPECT_EQ(a.port, 5000);
  HostPort b = *ParseHostPort("[::1]:0");
  EXPECT_EQ(b.host, "::1");
  EXPECT_EQ(b.ToString(), "[::1]:0");
  EXPECT_EQ(ParseHostPort("worker-3.cluster:65535")->port, 65535);
}

TEST(AddressTest, RejectsMalformedAddresses) {
  for (const char* bad : {"", "host", ":5000", "host:", "host:65536", "host:5x", "::1:5000", "[::1]5000", "[::1"}) {
    Result<HostPort> parsed = ParseHostPort(bad);
    EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument) << bad;
  }
}

TEST(AddressTest, LoopbackHosts) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("127.example.com"));
  EXPECT_FALSE(IsLoopbackHost("::"));
}

}  // namespace
}  // namespace sluice::service
