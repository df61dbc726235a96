/*
** options.c - parsing gjit's command line (options.h) with getopt_long:
** `--name=value` and `--name value` both work, list options repeat, and
** an unknown option or a malformed value is a usage error (exit 2).
*/
#include "tools/gjit/options.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gilt/remarks.h"
#include "jit/tensor_io.h"

static const char usage[] =
    "usage: gjit MODEL [options]\n"
    "\n"
    "Runs a model (.onnx or .gilt) on the given inputs and prints or checks\n"
    "its outputs. Tensor specs: @file.npy, @file.pb (ONNX TensorProto), or\n"
    "inline text such as \"2x3xf32=1 2 3 4 5 6\"; outputs also take -.\n"
    "\n"
    "  --function=NAME          the function to run (default: @main, or the\n"
    "                           module's only function)\n"
    "  --input=SPEC             one per function argument, in order\n"
    "  --output=SPEC            one per result, in order (default: print all)\n"
    "  --expected-output=SPEC   compare result i with it; exit 1 on mismatch\n"
    "  --tolerance=RTOL,ATOL    |actual - expected| <= ATOL + RTOL*|expected|\n"
    "                           (default 1e-5,1e-8)\n"
    "  --tolerance-l2=E         instead: a float result matches when\n"
    "                           ||actual - expected|| / ||expected|| <= E\n"
    "  --bitwise                instead: every element has the expected bits\n"
    "  --interpret              run on the reference interpreter of the loop\n"
    "                           dialect instead of compiling\n"
    "  --threads=N              threads of the compiled code (default: all\n"
    "                           cores)\n"
    "  --compile-threads=N      threads LLVM compiles the model's functions\n"
    "                           on (default: all cores)\n"
    "  --vector-bits=N          shape the loops for vector registers of N\n"
    "                           bits: 512 (AVX-512), 256 (AVX2) or 128\n"
    "                           (default: the host's)\n"
    "  -p, --pipeline=PIPELINE  replace the default pass pipeline\n"
    "  --dump-pass-pipeline     print the pipeline the other flags choose,\n"
    "                           and run nothing (no model needed)\n"
    "  --print-ir-after-all     print the module after every pass (stderr)\n"
    "  --fold-inputs            make the inputs constants before the pipeline,\n"
    "                           so that constant folding computes the outputs\n"
    "  --aot=OUT                write OUT.o (an object file for this host,\n"
    "                           weights inside) and OUT.h (its C declarations)\n"
    "                           instead of running; link lib/libgilt-runtime.a\n"
    "  --cache-dir=DIR          keep compiled models in DIR and reuse them\n"
    "                           (default: $GILT_CACHE_DIR; none when unset)\n"
    "  --benchmark=N            report compile time, then the median and\n"
    "                           minimum latency of N runs after a warm-up,\n"
    "                           and peak memory; outputs are not printed\n"
    "  --benchmark-format=FMT   text (default) or json: one JSON object on\n"
    "                           one line of stdout\n"
    "  --profile[=N]            time each op's loops over N runs (default\n"
    "                           10) after a warm-up and print the kernels,\n"
    "                           slowest first, with their ONNX nodes\n"
    "  --explain=CATEGORIES     remark at each op what the passes decided\n"
    "                           and why: fusion, tiling, vectorize, memory\n"
    "                           or all, comma-separated\n"
    "  --decisions=FILE         write every such remark to FILE as JSON\n"
    "  --dump-llvm              print the optimized LLVM IR the JIT runs\n"
    "                           (stderr)\n"
    "  --timing                 report where compile time went (stderr):\n"
    "                           each pass, LLVM's steps, the phases\n"
    "  --check                  run compiled and interpreted, and report the\n"
    "                           first result that differs beyond tolerance\n"
    "  --bisect                 with --check: interpret after each loop-level\n"
    "                           pass and name the first that changes results\n"
    "  --device=DEVICE          cpu (default) or cuda: run on an NVIDIA GPU\n"
    "                           through the CUDA driver (docs/gpu.md)\n"
    "  --gpu-arch=ARCH          with cuda: the PTX's architecture, sm_80\n"
    "                           (default) or sm_90\n"
    "  --dump-ptx=FILE          with cuda: write the PTX of all the model's\n"
    "                           kernels to FILE\n"
    "  --compile-only           compile the model, say so, and run nothing\n"
    "                           (no inputs needed; cuda needs no GPU then)\n"
    "  --help, --version\n";

enum { OPT_FUNCTION = 256, OPT_INPUT, OPT_OUTPUT, OPT_EXPECTED, OPT_TOLERANCE,
       OPT_TOLERANCE_L2, OPT_BITWISE, OPT_THREADS, OPT_COMPILE_THREADS,
       OPT_VECTOR_BITS,
       OPT_INTERPRET, OPT_PRINT_IR, OPT_FOLD_INPUTS, OPT_HELP, OPT_VERSION,
       OPT_AOT, OPT_CACHE_DIR, OPT_BENCHMARK, OPT_BENCHMARK_FORMAT,
       OPT_PROFILE, OPT_EXPLAIN, OPT_DECISIONS, OPT_DUMP_LLVM, OPT_TIMING,
       OPT_CHECK,
       OPT_BISECT, OPT_TEST_BISECT_PERTURB, OPT_DEVICE, OPT_GPU_ARCH,
       OPT_DUMP_PTX, OPT_COMPILE_ONLY, OPT_DUMP_PIPELINE };

static const struct option long_options[] = {
    {"function", required_argument, NULL, OPT_FUNCTION},
    {"input", required_argument, NULL, OPT_INPUT},
    {"output", required_argument, NULL, OPT_OUTPUT},
    {"expected-output", required_argument, NULL, OPT_EXPECTED},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"tolerance-l2", required_argument, NULL, OPT_TOLERANCE_L2},
    {"bitwise", no_argument, NULL, OPT_BITWISE},
    {"interpret", no_argument, NULL, OPT_INTERPRET},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"compile-threads", required_argument, NULL, OPT_COMPILE_THREADS},
    {"vector-bits", required_argument, NULL, OPT_VECTOR_BITS},
    {"pipeline", required_argument, NULL, 'p'},
    {"print-ir-after-all", no_argument, NULL, OPT_PRINT_IR},
    {"fold-inputs", no_argument, NULL, OPT_FOLD_INPUTS},
    {"aot", required_argument, NULL, OPT_AOT},
    {"cache-dir", required_argument, NULL, OPT_CACHE_DIR},
    {"benchmark", required_argument, NULL, OPT_BENCHMARK},
    {"benchmark-format", required_argument, NULL, OPT_BENCHMARK_FORMAT},
    {"profile", optional_argument, NULL, OPT_PROFILE},
    {"explain", required_argument, NULL, OPT_EXPLAIN},
    {"decisions", required_argument, NULL, OPT_DECISIONS},
    {"dump-llvm", no_argument, NULL, OPT_DUMP_LLVM},
    {"timing", no_argument, NULL, OPT_TIMING},
    {"check", no_argument, NULL, OPT_CHECK},
    {"bisect", no_argument, NULL, OPT_BISECT},
    {"test-bisect-perturb", required_argument, NULL, OPT_TEST_BISECT_PERTURB},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"gpu-arch", required_argument, NULL, OPT_GPU_ARCH},
    {"dump-ptx", required_argument, NULL, OPT_DUMP_PTX},
    {"compile-only", no_argument, NULL, OPT_COMPILE_ONLY},
    {"dump-pass-pipeline", no_argument, NULL, OPT_DUMP_PIPELINE},
    {"help", no_argument, NULL, OPT_HELP},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0}};

static void push(GjitSpecs *list, const char *spec)
{
  const char **grown = realloc(list->specs, (list->len + 1) * sizeof *grown);
  if (!grown) {
    fputs("gjit: out of memory\n", stderr);
    exit(1);
  }
  grown[list->len++] = spec;
  list->specs = grown;
}

/* A thread count of 1 to 1024 for --`flag` into *threads; false after
** saying what is wrong. */
static bool parse_threads(const char *flag, const char *arg, size_t *threads)
{
  char *end;
  long n = strtol(arg, &end, 10);
  if (end != arg && *end == '\0' && n >= 1 && n <= 1024) {
    *threads = (size_t)n;
    return true;
  }
  fprintf(stderr, "gjit: --%s wants a number in [1, 1024], got '%s'\n",
          flag, arg);
  return false;
}

/* "RTOL,ATOL": two non-negative numbers. */
static bool parse_tolerance(GjitOptions *o, const char *s)
{
  char *end;
  o->rtol = strtod(s, &end);
  if (end == s || *end != ',')
    return false;
  const char *a = end + 1;
  o->atol = strtod(a, &end);
  return end != a && *end == '\0' && o->rtol >= 0 && o->atol >= 0;
}

/* The flags that measure or inspect a run rather than define it:
** --benchmark, --benchmark-format, --profile, --explain, --dump-llvm,
** --check, --bisect. */
static bool parse_inspection(GjitOptions *o, int c, const char *arg)
{
  switch (c) {
  case OPT_BENCHMARK:
  case OPT_PROFILE: {
    const char *flag = c == OPT_BENCHMARK ? "--benchmark" : "--profile";
    char *end;
    long n = arg ? strtol(arg, &end, 10) : 10;
    if (!arg || (end != arg && *end == '\0' && n >= 1 && n <= 1000000)) {
      *(c == OPT_BENCHMARK ? &o->benchmark_runs : &o->profile_runs) =
          (size_t)n;
      return true;
    }
    fprintf(stderr, "gjit: %s wants a number of runs in [1, 1000000], got "
                    "'%s'\n", flag, arg);
    return false;
  }
  case OPT_BENCHMARK_FORMAT:
    if (!strcmp(arg, "json") || !strcmp(arg, "text")) {
      o->benchmark_json = !strcmp(arg, "json");
      return true;
    }
    fprintf(stderr, "gjit: --benchmark-format wants 'text' or 'json', got "
                    "'%s'\n", arg);
    return false;
  case OPT_EXPLAIN: {
    size_t n;
    const char *bad = gilt_remark_find_unknown_category(arg, &n);
    if (!bad) {
      o->explain = arg;
      return true;
    }
    fprintf(stderr, "gjit: --explain knows %s and all, got '%.*s'\n",
            GILT_REMARK_CATEGORIES, (int)n, bad);
    return false;
  }
  case OPT_DECISIONS: o->decisions = arg; return true;
  case OPT_DUMP_LLVM: o->dump_llvm = true; return true;
  case OPT_TIMING: o->timing = true; return true;
  case OPT_CHECK: o->check = true; return true;
  case OPT_BISECT: o->bisect = true; return true;
  default: o->test_bisect_perturb = arg; return true;
  }
}

/* The flags that choose where the model runs: --device, --gpu-arch,
** --dump-ptx, --compile-only. */
static bool parse_device(GjitOptions *o, int c, const char *arg)
{
  switch (c) {
  case OPT_DEVICE:
    if (!strcmp(arg, "cpu") || !strcmp(arg, "cuda")) {
      o->cuda = !strcmp(arg, "cuda");
      return true;
    }
    fprintf(stderr, "gjit: --device wants 'cpu' or 'cuda', got '%s'\n", arg);
    return false;
  case OPT_GPU_ARCH:
    if (!strcmp(arg, "sm_80") || !strcmp(arg, "sm_90")) {
      o->gpu_arch = arg;
      return true;
    }
    fprintf(stderr, "gjit: --gpu-arch wants 'sm_80' or 'sm_90', got '%s'\n",
            arg);
    return false;
  case OPT_DUMP_PTX: o->dump_ptx = arg; return true;
  default: o->compile_only = true; return true;
  }
}

/* Combinations of the device flags with others that mean nothing:
** reports the first. */
static bool device_conflicts(const GjitOptions *o)
{
  const char *why = NULL;
  if (o->gpu_arch && !o->cuda)
    why = "--gpu-arch needs --device=cuda";
  else if (o->dump_ptx && !o->cuda)
    why = "--dump-ptx needs --device=cuda";
  else if (o->cuda && o->interpret)
    why = "--device=cuda compiles: drop --interpret";
  else if (o->cuda && (o->check || o->profile_runs || o->aot))
    why = "--check, --profile and --aot run on the CPU: drop --device=cuda";
  else if (o->vector_bits && (o->cuda || o->pipeline))
    why = "--vector-bits shapes the default CPU pipeline: with -p, give "
          "graph-to-loop{vector-bits=N vector-registers=M} in it; drop it "
          "with --device=cuda";
  else if (o->compile_only &&
           (o->benchmark_runs || o->profile_runs || o->check || o->aot ||
            o->fold_inputs || o->inputs.len || o->outputs.len ||
            o->expected.len))
    why = "--compile-only runs nothing: drop --input, --output, "
          "--expected-output, --fold-inputs, --benchmark, --profile, "
          "--check and --aot";
  if (why) {
    fprintf(stderr, "gjit: %s\n", why);
    fputs("Try 'gjit --help' for more information.\n", stderr);
  }
  return why != NULL;
}

/* Combinations of those flags that mean nothing: reports the first. */
static bool inspection_conflicts(const GjitOptions *o, bool format_given)
{
  const char *why = NULL;
  if (format_given && !o->benchmark_runs)
    why = "--benchmark-format needs --benchmark";
  else if (o->bisect && !o->check)
    why = "--bisect needs --check";
  else if (o->check && o->interpret)
    why = "--check runs both back ends: drop --interpret";
  else if (o->check && o->benchmark_runs)
    why = "--check and --benchmark do not go together";
  else if (o->check && (o->outputs.len || o->expected.len))
    why = "--check compares the back ends with each other: drop --output "
          "and --expected-output";
  else if (o->profile_runs && (o->interpret || o->check || o->benchmark_runs))
    why = "--profile times compiled code on its own: drop --interpret, "
          "--check and --benchmark";
  else if (o->dump_llvm && o->interpret)
    why = "--dump-llvm needs the compiled back end: drop --interpret";
  else if (o->timing && (o->check || o->aot))
    why = "--timing times the compile of a run: drop --check and --aot";
  if (why) {
    fprintf(stderr, "gjit: %s\n", why);
    fputs("Try 'gjit --help' for more information.\n", stderr);
  }
  return why != NULL;
}

GjitParseResult gjit_options_parse(GjitOptions *o, int argc, char **argv)
{
  *o = (GjitOptions){.rtol = 1e-5, .atol = 1e-8, .l2 = -1};
  int c;
  bool format_given = false;
  opterr = 1;
  while ((c = getopt_long(argc, argv, "p:", long_options, NULL)) != -1) {
    switch (c) {
    case OPT_FUNCTION: o->function = optarg; break;
    case OPT_INPUT: push(&o->inputs, optarg); break;
    case OPT_OUTPUT:
      /* Checked now rather than after compiling and running the model. */
      if (!gilt_tensor_spec_is_writable(optarg)) {
        fprintf(stderr, "gjit: --output wants '-' (print) or @FILE.npy, "
                        "got '%s'\n", optarg);
        return GJIT_PARSE_ERROR;
      }
      push(&o->outputs, optarg);
      break;
    case OPT_EXPECTED: push(&o->expected, optarg); break;
    case OPT_INTERPRET: o->interpret = true; break;
    case OPT_THREADS:
      if (!parse_threads("threads", optarg, &o->threads))
        return GJIT_PARSE_ERROR;
      break;
    case OPT_COMPILE_THREADS:
      if (!parse_threads("compile-threads", optarg, &o->compile_threads))
        return GJIT_PARSE_ERROR;
      break;
    case OPT_VECTOR_BITS:
      if (!strcmp(optarg, "512") || !strcmp(optarg, "256") ||
          !strcmp(optarg, "128")) {
        o->vector_bits = (unsigned)atoi(optarg);
        break;
      }
      fprintf(stderr, "gjit: --vector-bits wants 512, 256 or 128, got "
                      "'%s'\n", optarg);
      return GJIT_PARSE_ERROR;
    case 'p': o->pipeline = optarg; break;
    case OPT_PRINT_IR: o->print_ir_after_all = true; break;
    case OPT_FOLD_INPUTS: o->fold_inputs = true; break;
    case OPT_BITWISE: o->bitwise = true; break;
    case OPT_AOT: o->aot = optarg; break;
    case OPT_CACHE_DIR: o->cache_dir = optarg; break;
    case OPT_TOLERANCE:
      if (parse_tolerance(o, optarg))
        break;
      fprintf(stderr, "gjit: --tolerance wants RTOL,ATOL (two numbers >= 0), "
                      "got '%s'\n", optarg);
      return GJIT_PARSE_ERROR;
    case OPT_TOLERANCE_L2: {
      char *end;
      o->l2 = strtod(optarg, &end);
      if (end != optarg && *end == '\0' && o->l2 >= 0)
        break;
      fprintf(stderr, "gjit: --tolerance-l2 wants a number >= 0, got '%s'\n",
              optarg);
      return GJIT_PARSE_ERROR;
    }
    case OPT_BENCHMARK:
    case OPT_BENCHMARK_FORMAT:
    case OPT_PROFILE:
    case OPT_EXPLAIN:
    case OPT_DECISIONS:
    case OPT_DUMP_LLVM:
    case OPT_TIMING:
    case OPT_CHECK:
    case OPT_BISECT:
    case OPT_TEST_BISECT_PERTURB:
      format_given = format_given || c == OPT_BENCHMARK_FORMAT;
      if (parse_inspection(o, c, optarg))
        break;
      return GJIT_PARSE_ERROR;
    case OPT_DEVICE:
    case OPT_GPU_ARCH:
    case OPT_DUMP_PTX:
    case OPT_COMPILE_ONLY:
      if (parse_device(o, c, optarg))
        break;
      return GJIT_PARSE_ERROR;
    case OPT_DUMP_PIPELINE: o->dump_pipeline = true; break;
    case OPT_HELP: fputs(usage, stdout); return GJIT_PARSE_DONE;
    case OPT_VERSION: puts("gjit " GILT_VERSION); return GJIT_PARSE_DONE;
    default: fputs("Try 'gjit --help' for more information.\n", stderr);
      return GJIT_PARSE_ERROR;
    }
  }
  if (o->dump_pipeline && optind == argc)
    return device_conflicts(o) ? GJIT_PARSE_ERROR : GJIT_PARSE_RUN;
  if (optind != argc - 1) {
    fputs(optind == argc ? "gjit: no model given\n"
                         : "gjit: more than one model given\n", stderr);
    fputs("Try 'gjit --help' for more information.\n", stderr);
    return GJIT_PARSE_ERROR;
  }
  o->model = argv[optind];
  return inspection_conflicts(o, format_given) || device_conflicts(o)
             ? GJIT_PARSE_ERROR
             : GJIT_PARSE_RUN;
}

void gjit_options_free(GjitOptions *o)
{
  free(o->inputs.specs);
  free(o->outputs.specs);
  free(o->expected.specs);
}

GiltIRPrintingConfig gjit_print_ir_config(void)
{
  GiltIRPrintingConfig config = {0};
  config.after_all = true;
  config.flags.elide_elements_larger_than = 16;
  config.cb = gilt_print_to_file;
  config.user = stderr;
  return config;
}
