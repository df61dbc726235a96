/*
** pipeline.h - the pass pipeline gjit runs (pipeline.c).
*/
#ifndef GJIT_PIPELINE_H
#define GJIT_PIPELINE_H

#include "gilt/model.h"
#include "tools/gjit/options.h"

/* -p's pipeline, or the default for the back end and device, with
** graph-to-loop{profile=true} under --profile. A new string
** (free()), or NULL after printing why (a pass a flag needs is not in
** the pipeline, or out of memory). */
char *gjit_pipeline(const GjitOptions *o);

#endif /* GJIT_PIPELINE_H */
