/*
** llvm_split.c - unit test of a module translated in parts
** (translate.h's LlvmSplit, what jit/split.c compiles on several threads):
** each part defines the functions mapped to it and declares the others,
** every function is public in a split, a private constant is defined,
** internal, in every part, and any other global is defined, public, by
** part 0 alone and declared by the rest. Without a split the private
** symbols stay internal. Checked on the LLVM modules through LLVM's C
** API.
*/
#include <llvm-c/Core.h>
#include <string.h>

#include "dialects/llvm/translate.h"
#include "gilt/ir.h"
#include "gilt/register.h"
#include "test/unit/check.h"

static const char module_text[] =
    "llvm.global {sym_name = \"c\", type = i32, value = dense<[7, 8]> : "
    "tensor<2xi32>, constant, sym_visibility = \"private\"} : () -> ()\n"
    "llvm.global {sym_name = \"state\", type = i32, value = dense<[1, 2]> : "
    "tensor<2xi32>, sym_visibility = \"private\"} : () -> ()\n"
    "llvm.func private @body(%x: f32) -> f32 {\n"
    "  llvm.return %x : (f32) -> ()\n"
    "}\n"
    "llvm.func @main(%x: f32) -> f32 {\n"
    "  %c = llvm.addressof {global_name = @c} : () -> !llvm.ptr\n"
    "  %s = llvm.addressof {global_name = @state} : () -> !llvm.ptr\n"
    "  %y = llvm.call %x {callee = @body} : (f32) -> f32\n"
    "  llvm.return %y : (f32) -> ()\n"
    "}\n";

static bool is_defined(LLVMValueRef v)
{
  return LLVMIsAFunction(v) ? LLVMCountBasicBlocks(v) > 0
                            : LLVMGetInitializer(v) != NULL;
}

static bool is_internal(LLVMValueRef v)
{
  return LLVMGetLinkage(v) == LLVMInternalLinkage;
}

/* Checks what part `part` of `split` (NULL: the whole module) defines. */
static void check_part(GiltOp *module, const LlvmSplit *split,
                       bool main_defined, bool body_defined,
                       bool state_defined)
{
  LLVMContextRef llctx = LLVMContextCreate();
  LLVMModuleRef m = llvm_translate_module_part(module, llctx, NULL,
                                               LLVM_WEIGHTS_LINKED, split);
  CHECK(m != NULL);
  if (m) {
    LLVMValueRef main_fn = LLVMGetNamedFunction(m, "main");
    LLVMValueRef body = LLVMGetNamedFunction(m, "body");
    LLVMValueRef c = LLVMGetNamedGlobal(m, "c");
    LLVMValueRef state = LLVMGetNamedGlobal(m, "state");
    CHECK(main_fn && body && c && state);
    CHECK(is_defined(main_fn) == main_defined);
    CHECK(is_defined(body) == body_defined);
    /* Private: internal when whole, public when shared between parts. */
    CHECK(is_internal(body) == !split);
    CHECK(is_defined(c) && is_internal(c));
    CHECK(is_defined(state) == state_defined);
    CHECK(is_internal(state) == !split);
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(llctx);
}

int main(void)
{
  GiltContext *ctx = gilt_context_create();
  gilt_register_everything(ctx);
  GiltOp *module = gilt_parse_source(ctx, module_text, strlen(module_text),
                                     "split.gilt");
  CHECK(module && gilt_op_verify(module) == GILT_SUCCESS);
  if (module) {
    GiltBlock *b = gilt_module_get_body(module);
    GiltPtrMap part_of;
    gilt_ptr_map_init(&part_of, ctx);
    for (GiltOp *op = gilt_block_get_first_op(b); op;
         op = gilt_op_get_next(op))
      if (!strcmp(gilt_op_get_name(op), "llvm.func"))
        gilt_ptr_map_put(&part_of, op,
                         !strcmp(gilt_symbol_get_name(op), "body"));
    check_part(module, NULL, true, true, true);
    LlvmSplit first = {.part_of = &part_of, .part = 0};
    check_part(module, &first, true, false, true);
    LlvmSplit second = {.part_of = &part_of, .part = 1};
    check_part(module, &second, false, true, false);
    gilt_ptr_map_free(&part_of);
  }
  gilt_op_destroy(module);
  gilt_context_destroy(ctx);
  return check_failures != 0;
}
