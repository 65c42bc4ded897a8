/* The checks of the C test programs: each prints one line ("ok" or "FAIL" and what
 * was checked) and counts failures; a program returns check_summary(). */
#ifndef MIMD_TESTS_C_CHECK_H
#define MIMD_TESTS_C_CHECK_H

#include <stdio.h>
#include <string.h>

#include "mimd/mimd.h"

static int failures = 0;
static int checks = 0;

/* Evaluates `cond` once, prints "ok" or "FAIL" and the description. */
#define CHECK(cond, ...)                         \
  do {                                           \
    const int check_ok_ = (cond);                \
    ++checks;                                    \
    printf("%s: ", check_ok_ ? "ok  " : "FAIL"); \
    printf(__VA_ARGS__);                         \
    printf("\n");                                \
    if (!check_ok_) ++failures;                  \
  } while (0)

/* Checks a status and that the message (context's or thread's) contains `needle`. */
static inline void check_error(mimd_context_t ctx, mimd_status_t got, mimd_status_t want,
                               const char* needle, const char* what) {
  const char* msg = mimd_last_error(ctx);
  CHECK(got == want, "%s: status %s (expected %s)", what, mimd_status_string(got),
        mimd_status_string(want));
  CHECK(strstr(msg, needle) != NULL, "%s: message '%s' contains '%s'", what, msg, needle);
}

/* 1 when the n first elements of a and b are equal. */
static inline int same_i32(const int32_t* a, const int32_t* b, int n) {
  int i;
  for (i = 0; i < n; ++i)
    if (a[i] != b[i]) return 0;
  return 1;
}

/* Prints the totals; the program's exit status (0 when every check passed). */
static inline int check_summary(void) {
  printf("%d checks, %d failed\n", checks, failures);
  return failures != 0;
}

#endif /* MIMD_TESTS_C_CHECK_H */
