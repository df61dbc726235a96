/*
** host_cpu.c - the host's CPU without LLVM (host_cpu.h).
**
** On x86-64 the fingerprint is the CPUID words that describe the CPU and
** its instruction sets (vendor; family, model and stepping; the feature
** leaves 1, 7 with its subleaves, 0xD's subleaf 1, 0x24 (AVX10),
** 0x80000001 and 0x80000008) and the register state the operating system
** saves (XCR0): what LLVM's host CPU name and features are derived from,
** and nothing that differs between the cores of one machine (leaf 1's
** EBX holds the core's APIC id). The triple and the version of the LLVM
** gilt was built with go first: code from another LLVM may differ. The
** vector width follows LLVM's rule for its "+avx512f" and "+avx"
** features: the instruction set, and the operating system saving the
** registers it needs.
*/
#include "jit/host_cpu.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <llvm/Config/llvm-config.h> /* macros only: nothing of LLVM runs */

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>

enum {
  LEAF1_ECX_OSXSAVE = 1u << 27,
  LEAF1_ECX_AVX = 1u << 28,
  LEAF7_EBX_AVX512F = 1u << 16,
  XCR0_AVX_STATE = 0x6,     /* XMM and YMM */
  XCR0_AVX512_STATE = 0xe0, /* opmask, ZMM0-15 upper halves, ZMM16-31 */
  MAX_LEAF7_SUBLEAF = 3,
};

/* What CPUID and XGETBV say: the words of the fingerprint in the order
** read (a leaf the CPU lacks gives none), and apart, those the vector
** width needs. */
typedef struct CpuidWords {
  uint32_t vendor[3];
  uint32_t words[3 + 4 * (MAX_LEAF7_SUBLEAF + 1) + 5];
  size_t num_words;
  uint32_t leaf1_ecx, leaf7_ebx;
  uint64_t xcr0;
} CpuidWords;

static void add(CpuidWords *w, uint32_t word)
{
  w->words[w->num_words++] = word;
}

static CpuidWords read_cpuid(void)
{
  CpuidWords w = {0};
  unsigned a, b, c, d, max = __get_cpuid_max(0, NULL);
  __cpuid(0, a, b, c, d);
  w.vendor[0] = b, w.vendor[1] = d, w.vendor[2] = c;
  __cpuid(1, a, b, c, d);
  add(&w, a), add(&w, c), add(&w, d);
  w.leaf1_ecx = c;
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    unsigned subleaves = a < MAX_LEAF7_SUBLEAF ? a : MAX_LEAF7_SUBLEAF;
    add(&w, b), add(&w, c), add(&w, d);
    w.leaf7_ebx = b;
    for (unsigned i = 1; i <= subleaves; i++) {
      __cpuid_count(7, i, a, b, c, d);
      add(&w, a), add(&w, b), add(&w, c), add(&w, d);
    }
  }
  if (max >= 0xd) {
    __cpuid_count(0xd, 1, a, b, c, d);
    add(&w, a);
  }
  if (max >= 0x24) {
    __cpuid_count(0x24, 0, a, b, c, d);
    add(&w, b);
  }
  unsigned max_extended = __get_cpuid_max(0x80000000, NULL);
  if (max_extended >= 0x80000001) {
    __cpuid(0x80000001, a, b, c, d);
    add(&w, c), add(&w, d);
  }
  if (max_extended >= 0x80000008) {
    __cpuid(0x80000008, a, b, c, d);
    add(&w, b);
  }
  if (w.leaf1_ecx & LEAF1_ECX_OSXSAVE) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    w.xcr0 = (uint64_t)hi << 32 | lo;
  }
  return w;
}

char *host_cpu_fingerprint(void)
{
  CpuidWords w = read_cpuid();
  size_t n = sizeof LLVM_HOST_TRIPLE + sizeof LLVM_VERSION_STRING + 24 +
             9 * w.num_words + 17;
  char *s = malloc(n);
  if (!s)
    return NULL;
  size_t at = (size_t)snprintf(s, n, "%s LLVM %s %.12s", LLVM_HOST_TRIPLE,
                               LLVM_VERSION_STRING, (const char *)w.vendor);
  for (size_t i = 0; i < w.num_words; i++)
    at += (size_t)snprintf(s + at, n - at, " %08x", (unsigned)w.words[i]);
  snprintf(s + at, n - at, " %016llx", (unsigned long long)w.xcr0);
  return s;
}

static unsigned read_vector_bits(void)
{
  CpuidWords w = read_cpuid();
  bool avx = (w.leaf1_ecx & LEAF1_ECX_AVX) &&
             (w.xcr0 & XCR0_AVX_STATE) == XCR0_AVX_STATE;
  bool avx512 = avx && (w.leaf7_ebx & LEAF7_EBX_AVX512F) &&
                (w.xcr0 & XCR0_AVX512_STATE) == XCR0_AVX512_STATE;
  return avx512 ? 512 : avx ? 256 : 128;
}

#else /* not x86-64: LLVM's reading of the host */
#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>
#include <string.h>

#include "dialects/llvm/translate.h"

char *host_cpu_fingerprint(void)
{
  llvm_initialize();
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  size_t n = strlen(triple) + strlen(cpu) + strlen(features) + 3;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s %s %s", triple, cpu, features);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return s;
}

/* Whether LLVM's feature list (`+avx,-avx512f,...`) turns `name` on. */
static bool has_feature(const char *features, const char *name)
{
  size_t len = strlen(name);
  for (const char *at = features; at; at = strchr(at, ',')) {
    at += *at == ',';
    if (at[0] == '+' && !strncmp(at + 1, name, len) &&
        (at[1 + len] == ',' || at[1 + len] == '\0'))
      return true;
  }
  return false;
}

static unsigned read_vector_bits(void)
{
  llvm_initialize();
  char *features = LLVMGetHostCPUFeatures();
  unsigned bits = has_feature(features, "avx512f") ? 512
                  : has_feature(features, "avx")   ? 256
                                                   : 128;
  LLVMDisposeMessage(features);
  return bits;
}
#endif

/* Read once: every default pipeline asks for it. */
static pthread_once_t vector_bits_once = PTHREAD_ONCE_INIT;
static unsigned vector_bits;

static void init_vector_bits(void)
{
  vector_bits = read_vector_bits();
}

unsigned host_cpu_vector_bits(void)
{
  pthread_once(&vector_bits_once, init_vector_bits);
  return vector_bits;
}
