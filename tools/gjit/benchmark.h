/*
** benchmark.h - gjit --benchmark's report (benchmark.c). The measuring is
** the library's (gilt_model_benchmark in include/gilt/model.h); this
** prints what it measured, as text or as the JSON line.
*/
#ifndef GJIT_BENCHMARK_H
#define GJIT_BENCHMARK_H

#include "gilt/model.h"
#include "tools/gjit/options.h"

/* Prints the report on stdout in --benchmark-format's form. */
void gjit_benchmark_print(const GjitOptions *o, const GiltModelBenchmark *r);

#endif /* GJIT_BENCHMARK_H */
