// Checks that a built-in element function survives its spec: ToSpec, then
// ElementFunctionFromSpec, gives a function of the same name that writes
// the same spec.
#pragma once

#include <gtest/gtest.h>

#include "contract.h"
#include "sluice/dataset/builtin_functions.h"
#include "sluice/dataset/pipeline_spec.pb.h"

namespace sluice::testing {

inline void ExpectSpecRoundTrip(const ElementFunction& fn) {
  spec::ElementFunction proto;
  ASSERT_TRUE(fn.ToSpec(&proto).ok()) << fn.name();
  ElementFunctionPtr again = Ok(ElementFunctionFromSpec(proto));
  EXPECT_EQ(again->name(), fn.name());
  spec::ElementFunction proto_again;
  ASSERT_TRUE(again->ToSpec(&proto_again).ok());
  EXPECT_EQ(proto_again.SerializeAsString(), proto.SerializeAsString()) << fn.name();
}

}  // namespace sluice::testing
