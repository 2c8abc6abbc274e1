#include "sluice/ops/broadcast.h"

#include <algorithm>

namespace sluice {

Result<Shape> BroadcastShapes(std::string_view op, const Shape& a, const Shape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::array<int64_t, kMaxRank> dims{};
  for (int i = 0; i < rank; ++i) {
    const int ai = a.rank() - rank + i, bi = b.rank() - rank + i;
    const int64_t ad = ai >= 0 ? a.dim(ai) : 1, bd = bi >= 0 ? b.dim(bi) : 1;
    if (ad != bd && ad != 1 && bd != 1) {
      return InvalidArgumentError(op, ": shapes ", a, " and ", b,
                                  " cannot be broadcast together (dimension ", i, ": ", ad,
                                  " vs ", bd, ")");
    }
    dims[i] = ad == 1 ? bd : ad;
  }
  return Shape(std::span<const int64_t>(dims.data(), rank));
}

std::array<int64_t, kMaxRank> BroadcastStrides(const Shape& from, const Shape& to) {
  std::array<int64_t, kMaxRank> strides{};
  int64_t stride = 1;
  for (int i = to.rank() - 1, fi = from.rank() - 1; i >= 0; --i, --fi) {
    if (fi < 0) {
      strides[i] = 0;
      continue;
    }
    strides[i] = from.dim(fi) == 1 && to.dim(i) != 1 ? 0 : stride;
    stride *= from.dim(fi);
  }
  return strides;
}

}  // namespace sluice
