// What the CPU can do beyond the x86-64 baseline the plugins are built for,
// asked once: the first-party sanitizers scan with AVX2 where it is there.
#ifndef AIRLOCK_PLUGINS_CPU_FEATURES_HPP
#define AIRLOCK_PLUGINS_CPU_FEATURES_HPP

namespace airlock::plugins {

inline bool has_avx2() noexcept {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  return avx2;
#else
  return false;
#endif
}

}  // namespace airlock::plugins

#endif
