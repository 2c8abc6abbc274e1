// Pixel copies of a size known at compile time, for the loops that move
// whole pixels (a flip, a nearest-neighbour resize): a copy of 3 or 12 bytes
// whose size the compiler knows is a load and a store, where a copy of a
// size known only at run time is a call to memcpy per pixel.
//
//   WithPixelCopy(pixel_bytes, [&](auto copy_pixel) {
//     for (int64_t x = 0; x < width; ++x) copy_pixel(dst + x * pixel_bytes, src + ...);
//   });
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstring>
#include <type_traits>

namespace sluice {

// Calls body(copy_pixel) once, where copy_pixel(dst, src) copies one pixel
// of pixel_bytes bytes: of a compile-time size for the pixels of 1, 3 or 4
// channels of uint8 or float32 (1, 3, 4, 12 and 16 bytes), of a run-time
// size otherwise.
template <typename Body>
void WithPixelCopy(size_t pixel_bytes, Body&& body) {
  const auto known = [&](auto size) {
    body([](char* dst, const char* src) { std::memcpy(dst, src, decltype(size)::value); });
  };
  switch (pixel_bytes) {
    case 1: return known(std::integral_constant<size_t, 1>{});
    case 3: return known(std::integral_constant<size_t, 3>{});
    case 4: return known(std::integral_constant<size_t, 4>{});
    case 12: return known(std::integral_constant<size_t, 12>{});
    case 16: return known(std::integral_constant<size_t, 16>{});
    default: break;
  }
  body([pixel_bytes](char* dst, const char* src) { std::memcpy(dst, src, pixel_bytes); });
}

}  // namespace sluice
