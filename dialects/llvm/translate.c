/*
** translate.c - a module of the llvm dialect to an LLVM module, through
** LLVM's C API: the module's structure (types, globals, function
** signatures, blocks and branches) and the verification of the result.
**
** Symbols first: every llvm.global and llvm.func of the module is declared
** before any body is translated, so calls and addressof need no order.
** Then each body: all its blocks are created first, with one phi per block
** argument (the entry block's arguments are the function's parameters),
** and the blocks are filled in reverse post-order, so that an operand is
** always translated before its uses; a branch adds its operands as the
** incoming values of its successors' phis as it is translated. This is
** the scheme of MLIR's ModuleTranslation. The instructions themselves are
** translate_ops.c's, constants translate_constants.c's.
**
** Not here: debug information (an op's location only names it in
** diagnostics), and optimization, which target.c runs afterwards.
*/
#include "dialects/llvm/translate.h"

#include <llvm-c/Analysis.h>
#include <llvm-c/Target.h>
#include <stdint.h>
#include <string.h>

#include "dialects/llvm/llvm.h"
#include "dialects/llvm/translator.h"
#include "ir/core.h"

/* ---- values and types ------------------------------------------------- */

LLVMValueRef llvm_translate_value(LlvmTranslator *t, GiltValue *v,
                                  GiltOp *user)
{
  size_t to;
  if (gilt_ptr_map_get(&t->values, v, &to))
    return (LLVMValueRef)(uintptr_t)to;
  gilt_op_emit_error(user, "uses a value that is not defined on every path "
                           "to it");
  return NULL;
}

void llvm_translate_map_value(LlvmTranslator *t, GiltValue *v,
                              LLVMValueRef to)
{
  gilt_ptr_map_put(&t->values, v, (size_t)(uintptr_t)to);
}

static LLVMTypeRef float_type(LlvmTranslator *t, GiltType *type)
{
  switch (gilt_float_type_get_kind(type)) {
  case GILT_F16:
    return LLVMHalfTypeInContext(t->llctx);
  case GILT_BF16:
    return LLVMBFloatTypeInContext(t->llctx);
  case GILT_F32:
    return LLVMFloatTypeInContext(t->llctx);
  case GILT_F64:
    return LLVMDoubleTypeInContext(t->llctx);
  default:
    return NULL;
  }
}

static LLVMTypeRef struct_type(LlvmTranslator *t, GiltType *type, GiltOp *at)
{
  size_t n = llvm_struct_num_fields(type);
  LLVMTypeRef *fields = gilt_malloc(t->ctx, (n + 1) * sizeof *fields);
  LLVMTypeRef result = NULL;
  size_t i = 0;
  while (i < n && (fields[i] = llvm_translate_type(
                       t, llvm_struct_field(type, i), at)))
    i++;
  if (i == n)
    result = LLVMStructTypeInContext(t->llctx, fields, (unsigned)n, 0);
  gilt_free(t->ctx, fields);
  return result;
}

static bool is_llvm_vector_shape(GiltType *type)
{
  return gilt_shaped_type_get_rank(type) == 1 &&
         gilt_shaped_type_get_dim(type, 0) >= 1 &&
         gilt_shaped_type_get_dim(type, 0) <= UINT32_MAX;
}

/* The type that has no translation; NULL. */
static LLVMTypeRef type_error(GiltType *type, GiltOp *at)
{
  GiltStrBuf sb;
  gilt_strbuf_init(&sb, gilt_op_get_context(at));
  gilt_type_print(type, gilt_strbuf_callback, &sb);
  gilt_op_emit_error(at, "type '%s' has no LLVM IR equivalent (iN, f16, "
                         "bf16, f32, f64, vector<N x T>, !llvm.ptr and "
                         "!llvm.struct have)",
                     sb.data);
  gilt_strbuf_free(&sb);
  return NULL;
}

LLVMTypeRef llvm_translate_type(LlvmTranslator *t, GiltType *type, GiltOp *at)
{
  LLVMTypeRef elem;
  switch (gilt_type_get_kind(type)) {
  case GILT_TYPE_INTEGER:
    if (gilt_integer_type_get_width(type) == 0)
      break;
    return LLVMIntTypeInContext(t->llctx, gilt_integer_type_get_width(type));
  case GILT_TYPE_FLOAT:
    if (float_type(t, type))
      return float_type(t, type);
    break;
  case GILT_TYPE_VECTOR:
    if (!is_llvm_vector_shape(type))
      break;
    elem = llvm_translate_type(t, gilt_shaped_type_get_element_type(type), at);
    return elem ? LLVMVectorType(elem,
                                 (unsigned)gilt_shaped_type_get_dim(type, 0))
                : NULL;
  case GILT_TYPE_DIALECT:
    if (llvm_is_ptr(type))
      return LLVMPointerTypeInContext(t->llctx,
                                      llvm_ptr_address_space(type));
    if (llvm_is_struct(type))
      return struct_type(t, type, at);
    break;
  default:
    break;
  }
  return type_error(type, at);
}

/* The LLVM type of an llvm.func: at most one result, none being void. */
static LLVMTypeRef function_type(LlvmTranslator *t, GiltOp *fn)
{
  GiltType *type = gilt_func_get_type(fn);
  size_t n = gilt_function_type_get_num_inputs(type);
  size_t nres = gilt_function_type_get_num_results(type);
  if (nres > 1) {
    gilt_op_emit_error(fn, "returns %zu values; an LLVM function returns "
                           "one (return an !llvm.struct)",
                       nres);
    return NULL;
  }
  LLVMTypeRef ret =
      nres ? llvm_translate_type(t, gilt_function_type_get_result(type, 0), fn)
           : LLVMVoidTypeInContext(t->llctx);
  LLVMTypeRef *params = gilt_malloc(t->ctx, (n + 1) * sizeof *params);
  size_t i = 0;
  while (ret && i < n &&
         (params[i] = llvm_translate_type(
              t, gilt_function_type_get_input(type, i), fn)))
    i++;
  LLVMTypeRef result =
      ret && i == n ? LLVMFunctionType(ret, params, (unsigned)n, 0) : NULL;
  gilt_free(t->ctx, params);
  return result;
}

/* ---- symbols ----------------------------------------------------------- */

static bool is_private(GiltOp *op)
{
  GiltAttr *vis = gilt_op_get_attr(op, "sym_visibility");
  return vis && !strcmp(gilt_string_attr_get_value(vis, NULL), "private");
}

/* An `alignment` attribute, if any, into *align; false after reporting
** one that is no power of two. */
static bool get_alignment(GiltOp *op, unsigned *align)
{
  GiltAttr *a = gilt_op_get_attr(op, "alignment");
  if (!a)
    return true;
  int64_t v = gilt_integer_attr_get_value(a);
  /* LLVM's C API takes alignments as unsigned: 2^31 at most. */
  if (v <= 0 || v > (INT64_C(1) << 31) || (v & (v - 1))) {
    gilt_op_emit_error(op, "alignment %lld is not a power of two up to "
                           "2^31",
                       (long long)v);
    return false;
  }
  *align = (unsigned)v;
  return true;
}

GiltStatus llvm_translate_set_alignment(GiltOp *op, LLVMValueRef v)
{
  unsigned align = 0;
  if (!get_alignment(op, &align))
    return GILT_FAILURE;
  if (align)
    LLVMSetAlignment(v, align);
  return GILT_SUCCESS;
}

/* Whether this translation defines global `op`, which has a value: all
** do but in a split, where a private constant is defined in every part
** and any other global in part 0 alone (translate.h's LlvmSplit). */
static bool defines_global(LlvmTranslator *t, GiltOp *op)
{
  return !t->split || t->split->part == 0 ||
         (is_private(op) && gilt_op_get_attr(op, "constant"));
}

/* Whether `op`, defined here, is internal: when private, unless a split
** shares it between parts. */
static bool is_internal(LlvmTranslator *t, GiltOp *op)
{
  return is_private(op) &&
         (!t->split || (llvm_op_is(op, LLVM_OP_GLOBAL) &&
                        gilt_op_get_attr(op, "constant")));
}

/* A global with a value is defined (internal when private); one without
** is a declaration, defined elsewhere: by the JIT, or at link time. A
** linked weight (translate.h) is such a declaration too, public whatever
** its visibility, since the loader defines it. A global in GPU shared
** memory is defined, internal, with undefined contents. A split defines
** some globals in one part only (defines_global); the others declare
** them, with the type and alignment the definition has. */
static GiltStatus declare_global(LlvmTranslator *t, GiltOp *op)
{
  GiltType *type = gilt_type_attr_get_value(gilt_op_get_attr(op, "type"));
  GiltAttr *value = gilt_op_get_attr(op, "value");
  bool linked = t->weights == LLVM_WEIGHTS_LINKED &&
                llvm_global_is_linked_weight(op);
  LLVMTypeRef llvm_type = NULL;
  LLVMValueRef init = NULL;
  if (linked)
    llvm_type = llvm_translate_linked_weight_type(t, op);
  else if (value)
    init = llvm_translate_global_initializer(t, value, type, op, &llvm_type);
  else
    llvm_type = llvm_translate_type(t, type, op);
  unsigned align = 0;
  if (!llvm_type || (value && !linked && !init) || !get_alignment(op, &align))
    return GILT_FAILURE;
  GiltAttr *space = gilt_op_get_attr(op, "addr_space");
  unsigned as = space ? (unsigned)gilt_integer_attr_get_value(space) : 0;
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(t->mod, llvm_type,
                                               gilt_symbol_get_name(op), as);
  if (as == LLVM_SHARED_ADDRESS_SPACE) { /* GPU shared memory: no contents */
    LLVMSetInitializer(g, LLVMGetUndef(llvm_type));
    LLVMSetLinkage(g, LLVMInternalLinkage);
  }
  if (init && defines_global(t, op)) {
    LLVMSetInitializer(g, init);
    if (is_internal(t, op))
      LLVMSetLinkage(g, LLVMInternalLinkage);
  }
  LLVMSetGlobalConstant(g, gilt_op_get_attr(op, "constant") != NULL);
  /* A weight keeps the alignment its elements need, also when written as
  ** bytes (translate_constants.c), which alone would get 1. */
  if (!align && init && LLVMGetTypeKind(llvm_type) == LLVMArrayTypeKind) {
    GiltType *elem = gilt_shaped_type_get_element_type(gilt_attr_get_type(value));
    align = (unsigned)gilt_type_get_storage_size(elem);
    align = align & (align - 1) ? 1 : align;
  }
  if (linked && align > LLVM_LINKED_WEIGHT_ALIGN)
    return gilt_op_emit_error(op, "asks for an alignment of %u; a linked "
                                  "weight gets %d",
                              align, LLVM_LINKED_WEIGHT_ALIGN);
  if (linked)
    align = LLVM_LINKED_WEIGHT_ALIGN;
  else if (init && align < GILT_WEIGHT_PAGE) /* as gilt_blob_alloc does */
    align = (unsigned)gilt_weight_alignment(
        LLVMStoreSizeOfType(LLVMGetModuleDataLayout(t->mod), llvm_type), align);
  if (align)
    LLVMSetAlignment(g, align);
  return GILT_SUCCESS;
}

/* One entry of an arg_attrs or res_attrs dictionary: `llvm.NAME` is
** LLVM's attribute NAME (`llvm.noalias`, `llvm.align = 64`); the others
** belong to other dialects and have no meaning here. */
static GiltStatus add_attribute(LlvmTranslator *t, GiltOp *fn_op,
                                LLVMValueRef fn, unsigned index,
                                GiltNamedAttr entry)
{
  if (strncmp(entry.name, "llvm.", 5) != 0)
    return GILT_SUCCESS;
  const char *name = entry.name + 5;
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  GiltAttrKind vk = gilt_attr_get_kind(entry.attr);
  LLVMAttributeRef attr = NULL;
  if (kind && vk == GILT_ATTR_UNIT)
    attr = LLVMCreateEnumAttribute(t->llctx, kind, 0);
  else if (kind && vk == GILT_ATTR_INTEGER)
    attr = LLVMCreateEnumAttribute(
        t->llctx, kind, (uint64_t)gilt_integer_attr_get_value(entry.attr));
  else if (kind && vk == GILT_ATTR_TYPE) {
    LLVMTypeRef ty = llvm_translate_type(
        t, gilt_type_attr_get_value(entry.attr), fn_op);
    if (!ty)
      return GILT_FAILURE;
    attr = LLVMCreateTypeAttribute(t->llctx, kind, ty);
  }
  if (!attr)
    return gilt_op_emit_error(fn_op, "'%s' is no LLVM attribute taking "
                                     "a unit, integer or type value",
                              entry.name);
  LLVMAddAttributeAtIndex(fn, index, attr);
  return GILT_SUCCESS;
}

/* arg_attrs (one dictionary per parameter) and res_attrs (one for the
** result), as MLIR's function-like ops hold them. */
static GiltStatus add_attributes(LlvmTranslator *t, GiltOp *fn_op,
                                 LLVMValueRef fn)
{
  static const char *const names[2] = {"res_attrs", "arg_attrs"};
  for (size_t which = 0; which < 2; which++) {
    GiltAttr *dicts = gilt_op_get_attr(fn_op, names[which]);
    for (size_t i = 0; dicts && i < gilt_array_attr_get_size(dicts); i++) {
      GiltAttr *dict = gilt_array_attr_get_element(dicts, i);
      if (gilt_attr_get_kind(dict) != GILT_ATTR_DICTIONARY)
        return gilt_op_emit_error(fn_op, "'%s' must hold dictionaries",
                                  names[which]);
      /* Parameters count from 1 (LLVM's FirstArgIndex). */
      unsigned index = which ? 1 + (unsigned)i
                             : LLVMAttributeReturnIndex;
      for (size_t k = 0; k < gilt_dictionary_attr_get_size(dict); k++)
        if (add_attribute(t, fn_op, fn, index,
                          gilt_dictionary_attr_get_entry(dict, k)))
          return GILT_FAILURE;
    }
  }
  return GILT_SUCCESS;
}

static GiltRegion *body_of(GiltOp *fn)
{
  return gilt_op_get_region(fn, 0);
}

/* `cconv`: none (C's) or "ptx_kernel", a GPU kernel's entry point. */
static GiltStatus set_calling_convention(GiltOp *op, LLVMValueRef fn)
{
  GiltAttr *cconv = gilt_op_get_attr(op, "cconv");
  if (!cconv)
    return GILT_SUCCESS;
  if (strcmp(gilt_string_attr_get_value(cconv, NULL), "ptx_kernel") != 0)
    return gilt_op_emit_error(op, "calling convention '%s' is not "
                                  "\"ptx_kernel\" (the only one besides "
                                  "C's)",
                              gilt_string_attr_get_value(cconv, NULL));
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  return GILT_SUCCESS;
}

static GiltStatus declare_function(LlvmTranslator *t, GiltOp *op)
{
  LLVMTypeRef type = function_type(t, op);
  if (!type)
    return GILT_FAILURE;
  const char *name = gilt_symbol_get_name(op);
  if (!strncmp(name, "llvm.", 5))
    return gilt_op_emit_error(op, "'%s' is a name LLVM keeps for "
                                  "intrinsics; call those with "
                                  "llvm.call_intrinsic",
                              name);
  LLVMValueRef fn = LLVMAddFunction(t->mod, name, type);
  if (gilt_region_get_num_blocks(body_of(op)) > 0 && is_internal(t, op))
    LLVMSetLinkage(fn, LLVMInternalLinkage);
  if (set_calling_convention(op, fn))
    return GILT_FAILURE;
  if (gilt_op_get_attr(op, "no_inline")) {
    unsigned kind = LLVMGetEnumAttributeKindForName("noinline", 8);
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateEnumAttribute(t->llctx, kind, 0));
  }
  return add_attributes(t, op, fn);
}

static GiltStatus declare_symbols(LlvmTranslator *t)
{
  GiltBlock *body = gilt_module_get_body(t->module);
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    GiltStatus s;
    if (llvm_op_is(op, LLVM_OP_GLOBAL))
      s = declare_global(t, op);
    else if (llvm_op_is(op, LLVM_OP_FUNC))
      s = declare_function(t, op);
    else
      s = gilt_op_emit_error(op, "has no translation to LLVM IR: a module "
                                 "to translate holds only llvm.func and "
                                 "llvm.global (lower it to the llvm "
                                 "dialect first)");
    if (s != GILT_SUCCESS)
      return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* ---- blocks and branches ----------------------------------------------- */

typedef GILT_VEC(GiltBlock *) BlockVec;

static LLVMBasicBlockRef block_of(LlvmTranslator *t, GiltBlock *b)
{
  size_t bb = 0;
  gilt_ptr_map_get(&t->blocks, b, &bb);
  return (LLVMBasicBlockRef)(uintptr_t)bb;
}

static size_t num_successors(GiltBlock *b)
{
  GiltOp *term = gilt_block_get_last_op(b);
  return term ? gilt_op_get_num_successors(term) : 0;
}

/* The blocks of `r` in reverse post-order from the entry, where each
** block comes after its dominators; then the unreachable ones, in the
** order they are written. */
static void block_order(LlvmTranslator *t, GiltRegion *r, BlockVec *order)
{
  typedef struct Frame {
    GiltBlock *block;
    size_t next; /* the successor to visit next */
  } Frame;
  GILT_VEC(Frame) stack = {0};
  GiltPtrMap seen;
  gilt_ptr_map_init(&seen, t->ctx);
  GiltBlock *entry = gilt_region_get_first_block(r);
  gilt_ptr_map_put(&seen, entry, 1);
  gilt_vec_push(t->ctx, &stack, ((Frame){entry, 0}));
  while (stack.len) {
    Frame *f = &stack.data[stack.len - 1];
    if (f->next < num_successors(f->block)) {
      GiltBlock *s =
          gilt_op_get_successor(gilt_block_get_last_op(f->block), f->next++);
      if (!gilt_ptr_map_get(&seen, s, NULL)) {
        gilt_ptr_map_put(&seen, s, 1);
        gilt_vec_push(t->ctx, &stack, ((Frame){s, 0}));
      }
    } else {
      gilt_vec_push(t->ctx, order, f->block);
      stack.len--;
    }
  }
  for (size_t i = 0, j = order->len; i + 1 < j; i++, j--) {
    GiltBlock *tmp = order->data[i];
    order->data[i] = order->data[j - 1];
    order->data[j - 1] = tmp;
  }
  for (GiltBlock *b = entry; b; b = gilt_block_get_next(b))
    if (!gilt_ptr_map_get(&seen, b, NULL))
      gilt_vec_push(t->ctx, order, b);
  gilt_vec_free(t->ctx, &stack);
  gilt_ptr_map_free(&seen);
}

/* The operands of `br` that successor `s` receives (see llvm.c). */
static size_t successor_operands(GiltOp *br, size_t s, size_t *count)
{
  if (llvm_op_is(br, LLVM_OP_BR)) {
    *count = gilt_op_get_num_operands(br);
    return 0;
  }
  return gilt_op_get_operand_group(br, 1 + s, count);
}

/* Adds the values `br` passes to each successor as incoming values of
** the successor's phis, from the block being filled. */
static GiltStatus add_incoming(LlvmTranslator *t, GiltOp *br)
{
  LLVMBasicBlockRef from = LLVMGetInsertBlock(t->builder);
  for (size_t s = 0; s < gilt_op_get_num_successors(br); s++) {
    GiltBlock *dest = gilt_op_get_successor(br, s);
    size_t n, first = successor_operands(br, s, &n);
    for (size_t i = 0; i < n; i++) {
      LLVMValueRef v =
          llvm_translate_value(t, gilt_op_get_operand(br, first + i), br);
      LLVMValueRef phi = llvm_translate_value(
          t, gilt_block_get_argument(dest, i), br);
      if (!v || !phi)
        return GILT_FAILURE;
      LLVMAddIncoming(phi, &v, &from, 1);
    }
  }
  return GILT_SUCCESS;
}

/* No branch reaches the entry block: the core verifier forbids it, as
** LLVM does. */
static GiltStatus translate_terminator(LlvmTranslator *t, GiltOp *op)
{
  LLVMValueRef cond = NULL, ret = NULL;
  switch (llvm_op_id(op)) {
  case LLVM_OP_BR:
    LLVMBuildBr(t->builder, block_of(t, gilt_op_get_successor(op, 0)));
    break;
  case LLVM_OP_COND_BR:
    if (!(cond = llvm_translate_value(t, gilt_op_get_operand(op, 0), op)))
      return GILT_FAILURE;
    LLVMBuildCondBr(t->builder, cond,
                    block_of(t, gilt_op_get_successor(op, 0)),
                    block_of(t, gilt_op_get_successor(op, 1)));
    break;
  case LLVM_OP_RETURN:
    if (gilt_op_get_num_operands(op) == 0) {
      LLVMBuildRetVoid(t->builder);
      return GILT_SUCCESS;
    }
    if (!(ret = llvm_translate_value(t, gilt_op_get_operand(op, 0), op)))
      return GILT_FAILURE;
    LLVMBuildRet(t->builder, ret);
    return GILT_SUCCESS;
  default:
    LLVMBuildUnreachable(t->builder);
    return GILT_SUCCESS;
  }
  return add_incoming(t, op);
}

static bool is_terminator(GiltOp *op)
{
  switch (llvm_op_id(op)) {
  case LLVM_OP_BR:
  case LLVM_OP_COND_BR:
  case LLVM_OP_RETURN:
  case LLVM_OP_UNREACHABLE:
    return true;
  default:
    return false;
  }
}

static GiltStatus translate_block(LlvmTranslator *t, GiltBlock *b)
{
  LLVMPositionBuilderAtEnd(t->builder, block_of(t, b));
  for (GiltOp *op = gilt_block_get_first_op(b); op;
       op = gilt_op_get_next(op)) {
    GiltStatus s = is_terminator(op) ? translate_terminator(t, op)
                                     : llvm_translate_instruction(t, op);
    if (s != GILT_SUCCESS)
      return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

/* Creates every block of the body, in the order written, with a phi per
** argument (the entry's arguments are the parameters). */
static GiltStatus create_blocks(LlvmTranslator *t, GiltOp *fn_op,
                                LLVMValueRef fn)
{
  GiltBlock *entry = gilt_region_get_first_block(body_of(fn_op));
  for (GiltBlock *b = entry; b; b = gilt_block_get_next(b)) {
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(t->llctx, fn, "");
    gilt_ptr_map_put(&t->blocks, b, (size_t)(uintptr_t)bb);
    LLVMPositionBuilderAtEnd(t->builder, bb);
    for (size_t i = 0; i < gilt_block_get_num_arguments(b); i++) {
      GiltValue *arg = gilt_block_get_argument(b, i);
      if (b == entry) {
        llvm_translate_map_value(t, arg, LLVMGetParam(fn, (unsigned)i));
        continue;
      }
      LLVMTypeRef ty = llvm_translate_type(t, gilt_value_get_type(arg), fn_op);
      if (!ty)
        return GILT_FAILURE;
      llvm_translate_map_value(t, arg, LLVMBuildPhi(t->builder, ty, ""));
    }
  }
  return GILT_SUCCESS;
}

/* Whether this translation defines function `fn_op`, which has a body:
** all do but in a split, where its part alone does. */
static bool defines_function(LlvmTranslator *t, GiltOp *fn_op)
{
  size_t part = 0;
  return !t->split ||
         (gilt_ptr_map_get(t->split->part_of, fn_op, &part) &&
          part == t->split->part);
}

static GiltStatus define_function(LlvmTranslator *t, GiltOp *fn_op)
{
  GiltRegion *body = body_of(fn_op);
  if (gilt_region_get_num_blocks(body) == 0 || !defines_function(t, fn_op))
    return GILT_SUCCESS;
  LLVMValueRef fn = LLVMGetNamedFunction(t->mod, gilt_symbol_get_name(fn_op));
  if (create_blocks(t, fn_op, fn) != GILT_SUCCESS)
    return GILT_FAILURE;
  BlockVec order = {0};
  block_order(t, body, &order);
  GiltStatus s = GILT_SUCCESS;
  for (size_t i = 0; i < order.len && s == GILT_SUCCESS; i++)
    s = translate_block(t, order.data[i]);
  gilt_vec_free(t->ctx, &order);
  return s;
}

/* ---- the module -------------------------------------------------------- */

/* Runs LLVM's verifier on the module; reports what it says at `loc`,
** that of the function it found broken, or the module's. */
static GiltStatus verify(LlvmTranslator *t, GiltLocation *loc)
{
  char *message = NULL;
  bool broken = LLVMVerifyModule(t->mod, LLVMReturnStatusAction, &message);
  if (broken) {
    size_t n = message ? strlen(message) : 0;
    while (n && message[n - 1] == '\n')
      n--;
    gilt_emit_error(loc, "LLVM's verifier rejects the translation: %.*s",
                    (int)n, message ? message : "");
  }
  LLVMDisposeMessage(message);
  return broken ? GILT_FAILURE : GILT_SUCCESS;
}

static GiltStatus translate(LlvmTranslator *t)
{
  if (declare_symbols(t) != GILT_SUCCESS)
    return GILT_FAILURE;
  GiltBlock *body = gilt_module_get_body(t->module);
  /* LLVM's verifier speaks of instructions, without our locations: a
  ** function it rejects is reported at its llvm.func at least. */
  for (GiltOp *op = gilt_block_get_first_op(body); op;
       op = gilt_op_get_next(op)) {
    if (!llvm_op_is(op, LLVM_OP_FUNC))
      continue;
    if (define_function(t, op) != GILT_SUCCESS)
      return GILT_FAILURE;
    LLVMValueRef fn = LLVMGetNamedFunction(t->mod, gilt_symbol_get_name(op));
    if (LLVMVerifyFunction(fn, LLVMReturnStatusAction))
      return verify(t, gilt_op_get_location(op));
  }
  return verify(t, gilt_op_get_location(t->module));
}

LLVMModuleRef llvm_translate_module(GiltOp *module, LLVMContextRef llctx,
                                    LLVMTargetMachineRef tm,
                                    LlvmWeights weights)
{
  return llvm_translate_module_part(module, llctx, tm, weights, NULL);
}

LLVMModuleRef llvm_translate_module_part(GiltOp *module, LLVMContextRef llctx,
                                         LLVMTargetMachineRef tm,
                                         LlvmWeights weights,
                                         const LlvmSplit *split)
{
  GiltContext *ctx = gilt_op_get_context(module);
  const char *name = gilt_symbol_get_name(module);
  LlvmTranslator t = {.ctx = ctx, .module = module, .llctx = llctx,
                      .weights = weights, .split = split};
  t.mod = LLVMModuleCreateWithNameInContext(name ? name : "gilt", llctx);
  if (tm)
    llvm_module_set_target(t.mod, tm);
  t.builder = LLVMCreateBuilderInContext(llctx);
  gilt_ptr_map_init(&t.values, ctx);
  gilt_ptr_map_init(&t.blocks, ctx);
  GiltStatus s = translate(&t);
  gilt_ptr_map_free(&t.values);
  gilt_ptr_map_free(&t.blocks);
  LLVMDisposeBuilder(t.builder);
  if (s != GILT_SUCCESS) {
    LLVMDisposeModule(t.mod);
    return NULL;
  }
  return t.mod;
}
