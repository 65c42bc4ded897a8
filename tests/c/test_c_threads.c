/* Two host threads, each with its own context, matrix and LSSM plan, applying at once:
 * every product must equal the one computed before the threads started. The matrices
 * have rows long enough to be split across LSSM units and many short rows merged into
 * units, and integer values, so every result is exact; a plan whose unit counters or
 * work buffer were shared with the other plan, or raced, skips or repeats units and
 * fails the comparison. Also checks that each thread reads its own error message.
 * Prints one line per check; returns non-zero when any check fails. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "mimd/mimd.h"

enum { kRows = 6000, kCols = 4000, kLongRows = 8, kLongLength = 20000, kK = 8, kRounds = 40 };

typedef struct {
  int seed;
  mimd_context_t ctx;
  int64_t* row_map;
  int32_t* col_idx;
  double* values;
  double* b;
  double* want;
  double* c;
  mimd_spmm_plan_t plan;
  int wrong_rounds;
  int failed_calls;
  int own_message;
} Job;

/* Rows 0, 750, 1500, ... are long (split by LSSM), the others 1 to 5 entries; values
 * and B are small integers that depend on `seed`, so the two jobs differ. */
static int make_job(Job* job, int seed) {
  int64_t nnz = 0, j;
  int i, t;
  memset(job, 0, sizeof *job);
  job->seed = seed;
  job->row_map = malloc((kRows + 1) * sizeof(int64_t));
  job->col_idx = malloc(((size_t)kLongRows * kLongLength + (size_t)kRows * 5) * sizeof(int32_t));
  job->values = malloc(((size_t)kLongRows * kLongLength + (size_t)kRows * 5) * sizeof(double));
  job->b = malloc((size_t)kCols * kK * sizeof(double));
  job->want = malloc((size_t)kRows * kK * sizeof(double));
  job->c = malloc((size_t)kRows * kK * sizeof(double));
  if (!job->row_map || !job->col_idx || !job->values || !job->b || !job->want || !job->c) return 0;
  job->row_map[0] = 0;
  for (i = 0; i < kRows; ++i) {
    const int len = i % (kRows / kLongRows) == 0 ? kLongLength : 1 + (i * 7 + seed) % 5;
    for (t = 0; t < len; ++t, ++nnz) {
      job->col_idx[nnz] = (int32_t)((i * 13 + t * (seed + 3)) % kCols);
      job->values[nnz] = (double)((i + t + seed) % 3 + 1);
    }
    job->row_map[i + 1] = nnz;
  }
  for (j = 0; j < (int64_t)kCols * kK; ++j) job->b[j] = (double)((j * (seed + 1)) % 5);
  return 1;
}

static void free_job(Job* job) {
  free(job->row_map);
  free(job->col_idx);
  free(job->values);
  free(job->b);
  free(job->want);
  free(job->c);
}

static void* apply_rounds(void* arg) {
  Job* job = arg;
  int round;
  int64_t j;
  for (round = 0; round < kRounds; ++round) {
    for (j = 0; j < (int64_t)kRows * kK; ++j) job->c[j] = -1.0;
    if (mimd_spmm_plan_apply_d(job->plan, kK, 1.0, job->b, kK, 0.0, job->c, kK) != MIMD_SUCCESS) {
      ++job->failed_calls;
      continue;
    }
    if (memcmp(job->c, job->want, (size_t)kRows * kK * sizeof(double)) != 0) ++job->wrong_rounds;
  }
  /* A failure on this thread leaves its own message, whatever the other thread does. */
  mimd_spmm_plan_apply_d(job->plan, -job->seed - 1, 1.0, job->b, kK, 0.0, job->c, kK);
  {
    char needle[32];
    snprintf(needle, sizeof needle, "k = %d", -job->seed - 1);
    job->own_message = strstr(mimd_last_error(NULL), needle) != NULL;
  }
  return NULL;
}

int main(void) {
  Job jobs[2];
  pthread_t threads[2];
  int i, ready = 1;
  for (i = 0; i < 2; ++i) {
    mimd_csr_t a = NULL;
    mimd_spmm_plan_t reference = NULL;
    const char* text = "";
    ready = make_job(&jobs[i], i + 1) && ready;
    CHECK(
        ready && mimd_context_create(0, &jobs[i].ctx) == MIMD_SUCCESS &&
            mimd_csr_create(jobs[i].ctx, kRows, kCols, jobs[i].row_map[kRows], MIMD_INT64,
                            jobs[i].row_map, jobs[i].col_idx, MIMD_DOUBLE, jobs[i].values,
                            &a) == MIMD_SUCCESS &&
            mimd_spmm_plan_create(a, "lssm", MIMD_ROW_MAJOR, kK, &jobs[i].plan) == MIMD_SUCCESS &&
            mimd_spmm_plan_create(a, "reference", MIMD_ROW_MAJOR, kK, &reference) == MIMD_SUCCESS &&
            mimd_spmm_plan_apply_d(reference, kK, 1.0, jobs[i].b, kK, 0.0, jobs[i].want, kK) ==
                MIMD_SUCCESS,
        "job %d: context, matrix, LSSM plan, reference product (%s)", i, mimd_last_error(NULL));
    mimd_spmm_plan_describe(jobs[i].plan, &text);
    CHECK(strstr(text, "lssm") != NULL && strstr(text, "split_rows=0") == NULL,
          "job %d: the plan splits long rows: %s", i, text);
    mimd_spmm_plan_destroy(reference);
    mimd_csr_destroy(a);
  }
  if (!ready || failures != 0) return check_summary();
  for (i = 0; i < 2; ++i) pthread_create(&threads[i], NULL, apply_rounds, &jobs[i]);
  for (i = 0; i < 2; ++i) pthread_join(threads[i], NULL);
  for (i = 0; i < 2; ++i) {
    CHECK(jobs[i].failed_calls == 0 && jobs[i].wrong_rounds == 0,
          "job %d: %d concurrent applies, %d failed, %d wrong", i, kRounds, jobs[i].failed_calls,
          jobs[i].wrong_rounds);
    CHECK(jobs[i].own_message, "job %d: its thread's message names its own k", i);
    mimd_spmm_plan_destroy(jobs[i].plan);
    mimd_context_destroy(jobs[i].ctx);
    free_job(&jobs[i]);
  }
  return check_summary();
}
