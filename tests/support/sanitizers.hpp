// Which sanitizer instruments this build: MIMD_TEST_ASAN, MIMD_TEST_TSAN (1 or 0).
// GCC defines __SANITIZE_ADDRESS__ and __SANITIZE_THREAD__; clang (14 here) defines
// neither and answers __has_feature instead.
#pragma once

#if defined(__has_feature)
#define MIMD_TEST_HAS_FEATURE(x) __has_feature(x)
#else
#define MIMD_TEST_HAS_FEATURE(x) 0
#endif

#if defined(__SANITIZE_ADDRESS__) || MIMD_TEST_HAS_FEATURE(address_sanitizer)
#define MIMD_TEST_ASAN 1
#else
#define MIMD_TEST_ASAN 0
#endif

#if defined(__SANITIZE_THREAD__) || MIMD_TEST_HAS_FEATURE(thread_sanitizer)
#define MIMD_TEST_TSAN 1
#else
#define MIMD_TEST_TSAN 0
#endif
