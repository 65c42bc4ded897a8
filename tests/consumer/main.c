/* Uses the installed C interface: a context and one SpMV (k = 1) on a 2 x 2 matrix. */
#include <stdio.h>

#include "mimd/mimd.h"

int main(void) {
  const int64_t row_map[] = {0, 2, 3};
  const int32_t cols[] = {0, 1, 1};
  const double vals[] = {1, 2, 3}, x[] = {1, 1};
  double y[2] = {0, 0};
  mimd_context_t ctx = NULL;
  mimd_status_t s = mimd_context_create(0, &ctx);
  if (s == MIMD_SUCCESS)
    s = mimd_spmm_d(ctx, NULL, MIMD_ROW_MAJOR, 2, 2, 1, 1.0, row_map, cols, vals, x, 1, 0.0, y, 1);
  if (s != MIMD_SUCCESS) {
    fprintf(stderr, "consumer_c: %s: %s\n", mimd_status_string(s), mimd_last_error(ctx));
    return 1;
  }
  printf("consumer_c: y = [%g, %g]\n", y[0], y[1]);
  mimd_context_destroy(ctx);
  return y[0] == 3 && y[1] == 3 ? 0 : 1;
}
