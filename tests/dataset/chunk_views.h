// Elements that view a shared read chunk, as the TFRecord reader hands out
// records (core/tstring.h), for the tests of ops that must not keep such
// chunks alive (shuffle, cache).
#pragma once

#include "sluice/dataset/pipeline.h"

namespace sluice::testing {

// range(n) mapped to scalar strings that view one shared chunk of 64 KiB,
// 10 bytes each: "aaaaaaaaaa", "bbbbbbbbbb", ...
inline Pipeline ViewsOfOneChunk(int64_t n) {
  auto chunk = Buffer::Allocate(64 << 10, CpuAllocator(), Buffer::Fill::kUninitialized);
  auto* bytes = static_cast<char*>(chunk->data());
  for (size_t i = 0; i < chunk->size(); ++i) bytes[i] = static_cast<char>('a' + i / 10 % 26);
  return Pipeline::Range(n).Map(
      [chunk, bytes](Element e) -> Result<Element> {
        Tensor record = Tensor::Allocate(DType::kString, Shape{});
        *record.mutable_data<TString>() = TString::View({bytes + e[0].scalar<int64_t>() * 10, 10});
        record.AddBacking(chunk);
        return Element{record};
      },
      {.output_spec = ElementSpec{{"", DType::kString, Shape{}}}});
}

}  // namespace sluice::testing
