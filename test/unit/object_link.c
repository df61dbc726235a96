/*
** object_link.c - unit test of the in-process linker (jit/object_link.h):
** LLVM IR compiled to an object in memory as gilt's compile cache
** compiles it (the host's target machine, PIC, LLVM's default<O2>
** pipeline), linked, and called through function pointers.
**
** The object has a function returning a constant, one reading a constant
** table (.rodata) directly and one through a pointer to it (an absolute
** address in .data), one keeping state in .data, .bss and a common symbol
** across calls, calls to a function and reads of an array that the
** resolver gives (the test's own, far from the mapping: a stub, a GOT
** slot) and to expf, which the process gives, a call within the object,
** and a vectorized loop (its vector constants in .rodata.cst*). Then the
** failures, each a diagnostic: a symbol nobody defines, a relocation
** type not handled, bytes that are not an object, every truncation of
** the object, and every byte of it flipped.
**
** Skipped where the host cannot link objects (not x86-64 ELF).
*/
#include <elf.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/TargetMachine.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/llvm/translate.h"
#include "gilt/llvm.h"
#include "jit/object_link.h"
#include "test/unit/check.h"

static const char module_ir[] =
    "@table = private unnamed_addr constant [4 x i32] [i32 10, i32 20, "
    "i32 30, i32 40]\n"
    "@table_ptr = global ptr @table\n"
    "@counter = global i32 5\n"
    "@zeroed = global i32 0\n"
    "@shared = common global i32 0, align 4\n"
    "@test_data = external global [4 x float]\n"
    "declare float @expf(float)\n"
    "declare i32 @test_callback(i32)\n"
    "define i32 @answer() {\n"
    "  ret i32 42\n"
    "}\n"
    "define i32 @twice(i32 %x) noinline {\n"
    "  %r = shl i32 %x, 1\n"
    "  ret i32 %r\n"
    "}\n"
    "define i32 @twice_plus_one(i32 %x) {\n"
    "  %t = call i32 @twice(i32 %x)\n"
    "  %r = add i32 %t, 1\n"
    "  ret i32 %r\n"
    "}\n"
    "define i32 @lookup(i64 %i) {\n"
    "  %p = getelementptr [4 x i32], ptr @table, i64 0, i64 %i\n"
    "  %v = load i32, ptr %p\n"
    "  ret i32 %v\n"
    "}\n"
    "define i32 @lookup_via_pointer(i64 %i) {\n"
    "  %t = load ptr, ptr @table_ptr\n"
    "  %p = getelementptr i32, ptr %t, i64 %i\n"
    "  %v = load i32, ptr %p\n"
    "  ret i32 %v\n"
    "}\n"
    /* counter * 1000 + zeroed * 10 + shared, each bumped first */
    "define i32 @bump() {\n"
    "  %c = load i32, ptr @counter\n"
    "  %c1 = add i32 %c, 1\n"
    "  store i32 %c1, ptr @counter\n"
    "  %z = load i32, ptr @zeroed\n"
    "  %z1 = add i32 %z, 2\n"
    "  store i32 %z1, ptr @zeroed\n"
    "  %s = load i32, ptr @shared\n"
    "  %s1 = add i32 %s, 3\n"
    "  store i32 %s1, ptr @shared\n"
    "  %c2 = mul i32 %c1, 1000\n"
    "  %z2 = mul i32 %z1, 10\n"
    "  %r = add i32 %c2, %z2\n"
    "  %r1 = add i32 %r, %s1\n"
    "  ret i32 %r1\n"
    "}\n"
    "define float @call_expf(float %x) {\n"
    "  %r = call float @expf(float %x)\n"
    "  ret float %r\n"
    "}\n"
    "define i32 @call_back(i32 %x) {\n"
    "  %r = call i32 @test_callback(i32 %x)\n"
    "  %r1 = add i32 %r, 1\n"
    "  ret i32 %r1\n"
    "}\n"
    "define float @read_data(i64 %i) {\n"
    "  %p = getelementptr [4 x float], ptr @test_data, i64 0, i64 %i\n"
    "  %v = load float, ptr %p\n"
    "  ret float %v\n"
    "}\n"
    /* y[i] = x[i] * 3 + i: the step vector is a constant in .rodata.cst* */
    "define void @scale(ptr noalias %y, ptr noalias %x, i64 %n) {\n"
    "entry:\n"
    "  %empty = icmp eq i64 %n, 0\n"
    "  br i1 %empty, label %done, label %loop\n"
    "loop:\n"
    "  %i = phi i64 [ 0, %entry ], [ %next, %loop ]\n"
    "  %px = getelementptr float, ptr %x, i64 %i\n"
    "  %vx = load float, ptr %px\n"
    "  %m = fmul float %vx, 3.0\n"
    "  %fi = sitofp i64 %i to float\n"
    "  %v = fadd float %m, %fi\n"
    "  %py = getelementptr float, ptr %y, i64 %i\n"
    "  store float %v, ptr %py\n"
    "  %next = add i64 %i, 1\n"
    "  %end = icmp eq i64 %next, %n\n"
    "  br i1 %end, label %done, label %loop\n"
    "done:\n"
    "  ret void\n"
    "}\n";

static const char undefined_ir[] =
    "declare i32 @nobody_defines_this(i32)\n"
    "define i32 @f(i32 %x) {\n"
    "  %r = call i32 @nobody_defines_this(i32 %x)\n"
    "  ret i32 %r\n"
    "}\n";

/* What the resolver gives: defined here, in the executable, far from
** any mapping the linker makes. */
static float test_data[4] = {1.5f, 2.5f, 3.5f, 4.5f};
static int resolved;

static int test_callback(int x) { return x * 3; }

static void *resolve(const char *name, void *user)
{
  (void)user;
  resolved++;
  if (!strcmp(name, "test_data"))
    return test_data;
  if (!strcmp(name, "test_callback"))
    return (void *)(uintptr_t)test_callback;
  return NULL;
}

static size_t errors;
static char last_error[1024];

static void on_diag(const GiltDiagnostic *d, void *user)
{
  (void)user;
  if (gilt_diagnostic_get_severity(d) != GILT_SEVERITY_ERROR)
    return;
  errors++;
  snprintf(last_error, sizeof last_error, "%s", gilt_diagnostic_get_message(d));
}

/* `ir` compiled for the host as the compile cache compiles it; NULL
** after a failed CHECK. */
static LLVMMemoryBufferRef compile(GiltLocation *loc, const char *ir)
{
  GiltLlvmTargetOptions opts = gilt_llvm_target_options_default();
  LLVMTargetMachineRef tm = llvm_target_machine_create(loc, &opts);
  CHECK(tm != NULL);
  if (!tm)
    return NULL;
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMMemoryBufferRef text =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(ir, strlen(ir), "test.ll");
  LLVMModuleRef m = NULL;
  char *message = NULL;
  LLVMMemoryBufferRef object = NULL;
  if (LLVMParseIRInContext(llctx, text, &m, &message)) {
    fprintf(stderr, "test IR does not parse: %s\n", message);
    CHECK(!"the test IR parses");
  } else {
    llvm_module_set_target(m, tm);
    LLVMErrorRef err = llvm_run_pipeline(m, tm, opts.opt_level);
    if (err) {
      char *why = LLVMGetErrorMessage(err);
      fprintf(stderr, "the pipeline failed: %s\n", why);
      LLVMDisposeErrorMessage(why);
      CHECK(!"the pipeline runs");
    }
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMObjectFile, &message,
                                            &object))
      fprintf(stderr, "cannot emit the object: %s\n", message);
    CHECK(object != NULL);
    LLVMDisposeModule(m);
  }
  LLVMDisposeMessage(message);
  LLVMContextDispose(llctx);
  LLVMDisposeTargetMachine(tm);
  return object;
}

/* Calls the object's functions. */
static void check_calls(const ObjectLink *link)
{
#define FUNCTION(type, name) ((type)(uintptr_t)object_link_lookup(link, name))
  int (*answer)(void) = FUNCTION(int (*)(void), "answer");
  int (*twice_plus_one)(int) = FUNCTION(int (*)(int), "twice_plus_one");
  int (*bump)(void) = FUNCTION(int (*)(void), "bump");
  int (*lookup)(long) = FUNCTION(int (*)(long), "lookup");
  int (*lookup_via_pointer)(long) =
      FUNCTION(int (*)(long), "lookup_via_pointer");
  int (*call_back)(int) = FUNCTION(int (*)(int), "call_back");
  float (*call_expf)(float) = FUNCTION(float (*)(float), "call_expf");
  float (*read_data)(long) = FUNCTION(float (*)(long), "read_data");
  void (*scale)(float *, const float *, long) =
      FUNCTION(void (*)(float *, const float *, long), "scale");
#undef FUNCTION
  CHECK(answer && twice_plus_one && bump && lookup && lookup_via_pointer &&
        call_back && call_expf && read_data && scale);
  CHECK(!object_link_lookup(link, "no_such_symbol"));
  CHECK(!object_link_lookup(link, "table")); /* private */
  if (!(answer && twice_plus_one && bump && lookup && lookup_via_pointer &&
        call_back && call_expf && read_data && scale))
    return;
  CHECK(answer() == 42);
  CHECK(twice_plus_one(20) == 41);
  CHECK(lookup(0) == 10 && lookup(3) == 40);
  CHECK(lookup_via_pointer(1) == 20 && lookup_via_pointer(2) == 30);
  CHECK(bump() == 6000 + 20 + 3);
  CHECK(bump() == 7000 + 40 + 6);
  int *counter = object_link_lookup(link, "counter");
  int *shared = object_link_lookup(link, "shared");
  CHECK(counter && *counter == 7);
  CHECK(shared && *shared == 6);
  CHECK(call_back(5) == 16);
  CHECK(fabsf(call_expf(1.0f) - expf(1.0f)) == 0.0f);
  CHECK(read_data(2) == 3.5f);
  float x[100], y[100];
  for (int i = 0; i < 100; i++)
    x[i] = (float)i * 0.25f;
  scale(y, x, 100);
  int wrong = 0;
  for (int i = 0; i < 100; i++)
    wrong += y[i] != x[i] * 3.0f + (float)i;
  CHECK(wrong == 0);
}

/* Links data[0..size): NULL or a link, and NULL only with an error
** reported, whatever the bytes. */
static void link_anything(const unsigned char *data, size_t size,
                          GiltLocation *loc, size_t *failures)
{
  size_t before = errors;
  ObjectLink *link = object_link_create(data, size, resolve, NULL, loc);
  if (!link && errors == before)
    (*failures)++;
  object_link_destroy(link);
}

/* Every prefix of the object, and the object with each byte flipped. */
static void check_damage(const unsigned char *object, size_t size,
                         GiltLocation *loc)
{
  unsigned char *copy = malloc(size);
  size_t silent = 0;
  CHECK(copy != NULL);
  if (!copy)
    return;
  memcpy(copy, object, size);
  for (size_t n = 0; n < size; n++)
    link_anything(copy, n, loc, &silent);
  static const unsigned char masks[] = {0x01, 0x80, 0xff};
  for (size_t i = 0; i < size; i++)
    for (size_t k = 0; k < sizeof masks; k++) {
      copy[i] ^= masks[k];
      link_anything(copy, size, loc, &silent);
      copy[i] ^= masks[k];
    }
  CHECK(silent == 0);
  free(copy);
}

/* The object with its first relocation's type set to `type`. */
static void check_relocation_type(const unsigned char *object, size_t size,
                                  GiltLocation *loc, uint32_t type)
{
  unsigned char *copy = malloc(size);
  CHECK(copy != NULL);
  if (!copy)
    return;
  memcpy(copy, object, size);
  Elf64_Ehdr eh;
  memcpy(&eh, copy, sizeof eh);
  bool patched = false;
  for (size_t i = 0; i < eh.e_shnum && !patched; i++) {
    Elf64_Shdr sh;
    memcpy(&sh, copy + eh.e_shoff + i * sizeof sh, sizeof sh);
    if (sh.sh_type != SHT_RELA || sh.sh_size == 0)
      continue;
    Elf64_Rela r;
    memcpy(&r, copy + sh.sh_offset, sizeof r);
    r.r_info = ELF64_R_INFO(ELF64_R_SYM(r.r_info), type);
    memcpy(copy + sh.sh_offset, &r, sizeof r);
    patched = true;
  }
  CHECK(patched);
  errors = 0;
  CHECK(!object_link_create(copy, size, resolve, NULL, loc));
  CHECK(errors == 1 && strstr(last_error, "relocation type 23 in section "
                                          "'.rela.text' is not supported"));
  free(copy);
}

int main(void)
{
  if (!object_link_supported())
    return 0;
  GiltContext *ctx = gilt_context_create();
  gilt_context_set_diagnostic_handler(ctx, on_diag, NULL);
  GiltLocation *loc = gilt_location_unknown_get(ctx);

  LLVMMemoryBufferRef object = compile(loc, module_ir);
  if (object) {
    const unsigned char *data =
        (const unsigned char *)LLVMGetBufferStart(object);
    size_t size = LLVMGetBufferSize(object);
    ObjectLink *link = object_link_create(data, size, resolve, NULL, loc);
    CHECK(link != NULL && errors == 0);
    CHECK(resolved >= 2);
    if (link)
      check_calls(link);
    object_link_destroy(link);

    /* From an odd address: the file's structures need no alignment. */
    unsigned char *odd = malloc(size + 1);
    CHECK(odd != NULL);
    if (odd) {
      memcpy(odd + 1, data, size);
      link = object_link_create(odd + 1, size, resolve, NULL, loc);
      CHECK(link != NULL && errors == 0);
      if (link)
        check_calls(link);
      object_link_destroy(link);
      free(odd);
    }

    check_relocation_type(data, size, loc, R_X86_64_TPOFF32);
    check_damage(data, size, loc);
    LLVMDisposeMemoryBuffer(object);
  }

  object = compile(loc, undefined_ir);
  if (object) {
    errors = 0;
    CHECK(!object_link_create(LLVMGetBufferStart(object),
                              LLVMGetBufferSize(object), resolve, NULL, loc));
    CHECK(errors == 1 && strstr(last_error, "'nobody_defines_this'"));
    LLVMDisposeMemoryBuffer(object);
  }

  errors = 0;
  static const char not_object[] =
      "#!/bin/sh\n# a script is no object, even longer than an ELF header\n";
  CHECK(!object_link_create(not_object, sizeof not_object, resolve, NULL, loc));
  CHECK(errors == 1 &&
        strstr(last_error, "not an x86-64 ELF relocatable object"));
  CHECK(!object_link_create(NULL, 0, resolve, NULL, loc));
  object_link_destroy(NULL);

  gilt_context_destroy(ctx);
  return check_failures != 0;
}
