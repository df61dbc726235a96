/*
** clock.c - clock_gettime read as seconds (clock.h).
*/
#include "jit/clock.h"

#include <time.h>

static double seconds_of(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double jit_now_seconds(void) { return seconds_of(CLOCK_MONOTONIC); }

double jit_thread_cpu_seconds(void)
{
  return seconds_of(CLOCK_THREAD_CPUTIME_ID);
}
