// Reading what crosses airlock.h, the same way on both sides of a worker's
// socket: text as string_view, and structs by the size their writer
// compiled them with. No host types here, so the worker includes it too.
#pragma once

#include <airlock/airlock.h>

#include <algorithm>
#include <cstring>
#include <string_view>

namespace airlock::host {

// Copies an airlock_str into a std::string; {NULL, n} reads as empty.
inline std::string_view view(airlock_str s) { return s.ptr ? std::string_view(s.ptr, s.len) : std::string_view(); }
inline airlock_str borrow(std::string_view s) { return airlock_str{s.data(), s.size()}; }

// Reads a plugin struct by the size the plugin compiled it with: fields past
// that size are left zeroed, so an older plugin reads as "not set".
template <class T>
T read_sized(const T* in) {
  T out{};
  if (!in) return out;
  std::memcpy(&out, in, std::min<std::size_t>(in->struct_size, sizeof(T)));
  return out;
}

}  // namespace airlock::host
