/*
** translate_ops.c - one LLVM instruction per op of the llvm dialect: the
** builder call each op mirrors, for every op but the terminators and the
** symbols (translate.c).
**
** Whatever LLVM's builder would assert on, or silently build wrong, is
** checked first and reported at the op: an unknown predicate, a GEP index
** into a struct that is not a constant field number, a call whose
** operands do not match the callee. After each op the type LLVM built is
** compared with the op's result type, so that a mismatch the dialect's
** verifier lets through is reported here, with a location, rather than by
** LLVM's verifier without one.
*/
#include "dialects/llvm/translator.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/llvm/llvm.h"
#include "ir/core.h"

/* The operands of the op being translated. */
typedef struct Operands {
  LLVMValueRef *v;
  size_t n;
} Operands;

/* ---- arithmetic, comparisons and casts ---------------------------------- */

static LLVMOpcode binary_opcode(LlvmOpId id)
{
  switch (id) {
  case LLVM_OP_ADD: return LLVMAdd;
  case LLVM_OP_SUB: return LLVMSub;
  case LLVM_OP_MUL: return LLVMMul;
  case LLVM_OP_SDIV: return LLVMSDiv;
  case LLVM_OP_UDIV: return LLVMUDiv;
  case LLVM_OP_SREM: return LLVMSRem;
  case LLVM_OP_UREM: return LLVMURem;
  case LLVM_OP_AND: return LLVMAnd;
  case LLVM_OP_OR: return LLVMOr;
  case LLVM_OP_XOR: return LLVMXor;
  case LLVM_OP_SHL: return LLVMShl;
  case LLVM_OP_LSHR: return LLVMLShr;
  case LLVM_OP_ASHR: return LLVMAShr;
  case LLVM_OP_FADD: return LLVMFAdd;
  case LLVM_OP_FSUB: return LLVMFSub;
  case LLVM_OP_FMUL: return LLVMFMul;
  case LLVM_OP_FDIV: return LLVMFDiv;
  case LLVM_OP_FREM: return LLVMFRem;
  default: return 0;
  }
}

static LLVMOpcode cast_opcode(LlvmOpId id)
{
  switch (id) {
  case LLVM_OP_SEXT: return LLVMSExt;
  case LLVM_OP_ZEXT: return LLVMZExt;
  case LLVM_OP_TRUNC: return LLVMTrunc;
  case LLVM_OP_SITOFP: return LLVMSIToFP;
  case LLVM_OP_UITOFP: return LLVMUIToFP;
  case LLVM_OP_FPTOSI: return LLVMFPToSI;
  case LLVM_OP_FPTOUI: return LLVMFPToUI;
  case LLVM_OP_FPEXT: return LLVMFPExt;
  case LLVM_OP_FPTRUNC: return LLVMFPTrunc;
  case LLVM_OP_BITCAST: return LLVMBitCast;
  case LLVM_OP_PTRTOINT: return LLVMPtrToInt;
  case LLVM_OP_INTTOPTR: return LLVMIntToPtr;
  case LLVM_OP_ADDRSPACECAST: return LLVMAddrSpaceCast;
  default: return 0;
  }
}

typedef struct Predicate {
  const char *name;
  int value; /* an LLVMIntPredicate or LLVMRealPredicate */
} Predicate;

static const Predicate icmp_predicates[] = {
    {"eq", LLVMIntEQ},   {"ne", LLVMIntNE},   {"slt", LLVMIntSLT},
    {"sle", LLVMIntSLE}, {"sgt", LLVMIntSGT}, {"sge", LLVMIntSGE},
    {"ult", LLVMIntULT}, {"ule", LLVMIntULE}, {"ugt", LLVMIntUGT},
    {"uge", LLVMIntUGE}, {NULL, 0}};

static const Predicate fcmp_predicates[] = {
    {"false", LLVMRealPredicateFalse}, {"oeq", LLVMRealOEQ},
    {"ogt", LLVMRealOGT},              {"oge", LLVMRealOGE},
    {"olt", LLVMRealOLT},              {"ole", LLVMRealOLE},
    {"one", LLVMRealONE},              {"ord", LLVMRealORD},
    {"uno", LLVMRealUNO},              {"ueq", LLVMRealUEQ},
    {"ugt", LLVMRealUGT},              {"uge", LLVMRealUGE},
    {"ult", LLVMRealULT},              {"ule", LLVMRealULE},
    {"une", LLVMRealUNE},              {"true", LLVMRealPredicateTrue},
    {NULL, 0}};

static LLVMValueRef compare(LlvmTranslator *t, GiltOp *op, Operands a,
                            bool is_float)
{
  const char *name =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "predicate"), NULL);
  const Predicate *p = is_float ? fcmp_predicates : icmp_predicates;
  while (p->name && strcmp(p->name, name))
    p++;
  if (!p->name) {
    gilt_op_emit_error(op, "unknown predicate '%s'", name);
    return NULL;
  }
  if (is_float)
    return LLVMBuildFCmp(t->builder, (LLVMRealPredicate)p->value, a.v[0],
                         a.v[1], "");
  return LLVMBuildICmp(t->builder, (LLVMIntPredicate)p->value, a.v[0],
                       a.v[1], "");
}

/* The kind of a type's scalars: its own, or its elements' for a vector. */
static LLVMTypeKind scalar_kind(LLVMTypeRef type)
{
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind)
    type = LLVMGetElementType(type);
  return LLVMGetTypeKind(type);
}

static bool is_fp_kind(LLVMTypeKind k)
{
  return k == LLVMHalfTypeKind || k == LLVMBFloatTypeKind ||
         k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind;
}

static unsigned lanes(LLVMTypeRef type)
{
  return LLVMGetTypeKind(type) == LLVMVectorTypeKind ? LLVMGetVectorSize(type)
                                                     : 0;
}

/* The scalar size in bits that a cast compares: an integer's width, a
** float's size rank (half and bfloat below float below double). */
static unsigned scalar_bits(LLVMTypeRef type)
{
  if (LLVMGetTypeKind(type) == LLVMVectorTypeKind)
    type = LLVMGetElementType(type);
  switch (LLVMGetTypeKind(type)) {
  case LLVMIntegerTypeKind: return LLVMGetIntTypeWidth(type);
  case LLVMHalfTypeKind:
  case LLVMBFloatTypeKind: return 16;
  case LLVMFloatTypeKind: return 32;
  case LLVMDoubleTypeKind: return 64;
  default: return 0;
  }
}

/* LLVM's CastInst::castIsValid, which the C API lacks: an invalid cast
** would be folded (and crash) before any verifier saw it. */
static bool cast_is_valid(LlvmOpId id, LLVMTypeRef from, LLVMTypeRef to)
{
  LLVMTypeKind fk = scalar_kind(from), tk = scalar_kind(to);
  unsigned fb = scalar_bits(from), tb = scalar_bits(to);
  if (id != LLVM_OP_BITCAST && lanes(from) != lanes(to))
    return false;
  bool fi = fk == LLVMIntegerTypeKind, ti = tk == LLVMIntegerTypeKind;
  switch (id) {
  case LLVM_OP_SEXT:
  case LLVM_OP_ZEXT: return fi && ti && fb < tb;
  case LLVM_OP_TRUNC: return fi && ti && fb > tb;
  case LLVM_OP_SITOFP:
  case LLVM_OP_UITOFP: return fi && is_fp_kind(tk);
  case LLVM_OP_FPTOSI:
  case LLVM_OP_FPTOUI: return is_fp_kind(fk) && ti;
  case LLVM_OP_FPEXT: return is_fp_kind(fk) && is_fp_kind(tk) && fb < tb;
  case LLVM_OP_FPTRUNC: return is_fp_kind(fk) && is_fp_kind(tk) && fb > tb;
  case LLVM_OP_PTRTOINT: return fk == LLVMPointerTypeKind && ti;
  case LLVM_OP_INTTOPTR: return fi && tk == LLVMPointerTypeKind;
  case LLVM_OP_ADDRSPACECAST:
    return fk == LLVMPointerTypeKind && tk == LLVMPointerTypeKind &&
           LLVMGetPointerAddressSpace(from) != LLVMGetPointerAddressSpace(to);
  default: /* bitcast */
    if (fk == LLVMPointerTypeKind || tk == LLVMPointerTypeKind)
      return fk == tk && LLVMGetPointerAddressSpace(from) ==
                             LLVMGetPointerAddressSpace(to);
    return fb && tb && fb * (lanes(from) ? lanes(from) : 1) ==
                           tb * (lanes(to) ? lanes(to) : 1) &&
           fk != LLVMStructTypeKind && tk != LLVMStructTypeKind;
  }
}

/* What LLVM's builder takes for granted of the operands, and the
** dialect's verifier does not check, for the ops where a mistake would
** be folded into nonsense or crash: the kinds of arithmetic operands,
** select's condition, vector element types. */
static bool operands_fit(LlvmOpId id, Operands a, LLVMTypeRef rt)
{
  LLVMTypeKind k = a.n ? scalar_kind(LLVMTypeOf(a.v[0])) : LLVMVoidTypeKind;
  switch (id) {
  case LLVM_OP_ADD: case LLVM_OP_SUB: case LLVM_OP_MUL: case LLVM_OP_SDIV:
  case LLVM_OP_UDIV: case LLVM_OP_SREM: case LLVM_OP_UREM: case LLVM_OP_AND:
  case LLVM_OP_OR: case LLVM_OP_XOR: case LLVM_OP_SHL: case LLVM_OP_LSHR:
  case LLVM_OP_ASHR:
    return k == LLVMIntegerTypeKind;
  case LLVM_OP_FADD: case LLVM_OP_FSUB: case LLVM_OP_FMUL: case LLVM_OP_FDIV:
  case LLVM_OP_FREM: case LLVM_OP_FNEG: case LLVM_OP_FCMP:
    return is_fp_kind(k);
  case LLVM_OP_ICMP:
    return k == LLVMIntegerTypeKind || k == LLVMPointerTypeKind;
  case LLVM_OP_SELECT:
    return scalar_bits(LLVMTypeOf(a.v[0])) == 1 && k == LLVMIntegerTypeKind &&
           (!lanes(LLVMTypeOf(a.v[0])) ||
            lanes(LLVMTypeOf(a.v[0])) == lanes(LLVMTypeOf(a.v[1])));
  case LLVM_OP_INSERTELEMENT:
    return LLVMGetElementType(LLVMTypeOf(a.v[0])) == LLVMTypeOf(a.v[1]);
  case LLVM_OP_SHUFFLEVECTOR:
    return LLVMTypeOf(a.v[0]) == LLVMTypeOf(a.v[1]);
  default:
    return !cast_opcode(id) || cast_is_valid(id, LLVMTypeOf(a.v[0]), rt);
  }
}

/* ---- memory -------------------------------------------------------------- */

static LLVMTypeRef elem_type(LlvmTranslator *t, GiltOp *op)
{
  return llvm_translate_type(
      t, gilt_type_attr_get_value(gilt_op_get_attr(op, "elem_type")), op);
}

static LLVMValueRef aligned(GiltOp *op, LLVMValueRef inst)
{
  return llvm_translate_set_alignment(op, inst) == GILT_SUCCESS ? inst : NULL;
}

/* A load or store, atomic when it has an `ordering` (the verifier checked
** its name). */
static LLVMValueRef access(GiltOp *op, LLVMValueRef inst)
{
  GiltAttr *a = gilt_op_get_attr(op, "ordering");
  if (inst && a) {
    static const struct { const char *name; LLVMAtomicOrdering o; } orders[] = {
        {"unordered", LLVMAtomicOrderingUnordered},
        {"monotonic", LLVMAtomicOrderingMonotonic},
        {"acquire", LLVMAtomicOrderingAcquire},
        {"release", LLVMAtomicOrderingRelease},
        {"seq_cst", LLVMAtomicOrderingSequentiallyConsistent},
    };
    const char *name = gilt_string_attr_get_value(a, NULL);
    for (size_t i = 0; i < sizeof orders / sizeof *orders; i++)
      if (!strcmp(name, orders[i].name))
        LLVMSetOrdering(inst, orders[i].o);
  }
  return aligned(op, inst);
}

/* LLVM indexes a struct only with a constant field number, and nothing
** but aggregates and vectors: check the indices past the first. */
static bool check_gep_indices(GiltOp *op, LLVMTypeRef type, Operands a)
{
  for (size_t k = 2; k < a.n; k++) {
    LLVMTypeKind kind = LLVMGetTypeKind(type);
    if (kind == LLVMStructTypeKind) {
      if (!LLVMIsAConstantInt(a.v[k]) ||
          LLVMGetIntTypeWidth(LLVMTypeOf(a.v[k])) != 32 ||
          LLVMConstIntGetZExtValue(a.v[k]) >= LLVMCountStructElementTypes(type)) {
        gilt_op_emit_error(op, "index %zu selects a struct field: it must "
                               "be an i32 llvm.constant naming one",
                           k - 1);
        return false;
      }
      type = LLVMStructGetTypeAtIndex(
          type, (unsigned)LLVMConstIntGetZExtValue(a.v[k]));
    } else if (kind == LLVMArrayTypeKind || kind == LLVMVectorTypeKind) {
      type = LLVMGetElementType(type);
    } else {
      gilt_op_emit_error(op, "index %zu goes into a scalar element type",
                         k - 1);
      return false;
    }
  }
  return true;
}

static LLVMValueRef gep(LlvmTranslator *t, GiltOp *op, Operands a)
{
  LLVMTypeRef type = elem_type(t, op);
  if (!type || !check_gep_indices(op, type, a))
    return NULL;
  return LLVMBuildInBoundsGEP2(t->builder, type, a.v[0], a.v + 1,
                               (unsigned)(a.n - 1), "");
}

static LLVMValueRef alloca_(LlvmTranslator *t, GiltOp *op, Operands a)
{
  LLVMTypeRef type = elem_type(t, op);
  return type ? aligned(op, LLVMBuildArrayAlloca(t->builder, type, a.v[0], ""))
              : NULL;
}

static LLVMValueRef address_of(LlvmTranslator *t, GiltOp *op)
{
  const char *name =
      gilt_symbol_ref_attr_get_root(gilt_op_get_attr(op, "global_name"));
  LLVMValueRef g = LLVMGetNamedGlobal(t->mod, name);
  if (!g)
    g = LLVMGetNamedFunction(t->mod, name);
  if (!g)
    gilt_op_emit_error(op, "'%s' is no llvm.global or llvm.func", name);
  return g;
}

/* ---- vectors --------------------------------------------------------------- */

/* The mask of a shufflevector: a dense i32 array or an array of
** integers, each a lane of the two operands' concatenation or -1
** (poison). */
static LLVMValueRef shuffle_mask(LlvmTranslator *t, GiltOp *op, unsigned lanes)
{
  GiltAttr *mask = gilt_op_get_attr(op, "mask");
  GiltAttrKind kind = gilt_attr_get_kind(mask);
  if (kind != GILT_ATTR_DENSE_ARRAY && kind != GILT_ATTR_ARRAY) {
    gilt_op_emit_error(op, "'mask' must be an array of lane indices");
    return NULL;
  }
  size_t n = kind == GILT_ATTR_ARRAY ? gilt_array_attr_get_size(mask)
                                     : gilt_dense_array_attr_get_size(mask);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(t->llctx);
  LLVMValueRef *v = gilt_malloc(t->ctx, (n + 1) * sizeof *v);
  LLVMValueRef result = NULL;
  size_t i = 0;
  for (; i < n; i++) {
    GiltAttr *e = kind == GILT_ATTR_ARRAY ? gilt_array_attr_get_element(mask, i)
                                          : NULL;
    if (e && gilt_attr_get_kind(e) != GILT_ATTR_INTEGER)
      break;
    int64_t lane = e ? gilt_integer_attr_get_value(e)
                     : gilt_dense_array_attr_get_int(mask, i);
    if (lane < -1 || lane >= 2 * (int64_t)lanes)
      break;
    v[i] = lane < 0 ? LLVMGetPoison(i32) : LLVMConstInt(i32, (uint64_t)lane, 0);
  }
  if (i == n && n > 0)
    result = LLVMConstVector(v, (unsigned)n);
  else
    gilt_op_emit_error(op, "'mask' must hold lanes in [-1, %u)", 2 * lanes);
  gilt_free(t->ctx, v);
  return result;
}

static LLVMValueRef shuffle(LlvmTranslator *t, GiltOp *op, Operands a)
{
  LLVMValueRef mask =
      shuffle_mask(t, op, LLVMGetVectorSize(LLVMTypeOf(a.v[0])));
  return mask ? LLVMBuildShuffleVector(t->builder, a.v[0], a.v[1], mask, "")
              : NULL;
}

/* ---- calls ------------------------------------------------------------------ */

/* Whether `a` can be passed to a function of type `fn_type`; reports
** otherwise. */
static bool check_call(GiltOp *op, LLVMTypeRef fn_type, Operands a,
                       const char *callee)
{
  size_t n = LLVMCountParamTypes(fn_type);
  LLVMTypeRef params[n + 1];
  LLVMGetParamTypes(fn_type, params);
  bool ok = n == a.n;
  for (size_t i = 0; ok && i < n; i++)
    ok = LLVMTypeOf(a.v[i]) == params[i];
  if (!ok) {
    char *want = LLVMPrintTypeToString(fn_type);
    gilt_op_emit_error(op, "the operands do not match '%s', of type %s",
                       callee, want);
    LLVMDisposeMessage(want);
  }
  return ok;
}

static LLVMValueRef call(LlvmTranslator *t, GiltOp *op, Operands a)
{
  const char *name =
      gilt_symbol_ref_attr_get_root(gilt_op_get_attr(op, "callee"));
  LLVMValueRef fn = LLVMGetNamedFunction(t->mod, name);
  if (!fn) {
    gilt_op_emit_error(op, "calls '%s', which is no llvm.func", name);
    return NULL;
  }
  LLVMTypeRef type = LLVMGlobalGetValueType(fn);
  if (!check_call(op, type, a, name))
    return NULL;
  return LLVMBuildCall2(t->builder, type, fn, a.v, (unsigned)a.n, "");
}

/* Which of a call's types an overloaded intrinsic's name is mangled on,
** for those where it is not just the result's type (or, with no result,
** the first operand's): 'r' is the result, a digit an operand. */
static const struct {
  const char *name;
  const char *types;
} overloads[] = {
    {"llvm.masked.load", "r0"},         {"llvm.masked.store", "01"},
    {"llvm.masked.gather", "r0"},       {"llvm.masked.scatter", "01"},
    {"llvm.memcpy", "012"},             {"llvm.memcpy.inline", "012"},
    {"llvm.memmove", "012"},            {"llvm.memset", "02"},
    {"llvm.vector.reduce.fadd", "1"},   {"llvm.vector.reduce.fmul", "1"},
    {"llvm.vector.reduce.add", "0"},    {"llvm.vector.reduce.mul", "0"},
    {"llvm.vector.reduce.and", "0"},    {"llvm.vector.reduce.or", "0"},
    {"llvm.vector.reduce.xor", "0"},    {"llvm.vector.reduce.smax", "0"},
    {"llvm.vector.reduce.smin", "0"},   {"llvm.vector.reduce.umax", "0"},
    {"llvm.vector.reduce.umin", "0"},   {"llvm.vector.reduce.fmax", "0"},
    {"llvm.vector.reduce.fmin", "0"},   {"llvm.vector.reduce.fmaximum", "0"},
    {"llvm.vector.reduce.fminimum", "0"}, {"llvm.powi", "r1"},
    {"llvm.ldexp", "r1"},               {"llvm.fptosi.sat", "r0"},
    {"llvm.fptoui.sat", "r0"},          {"llvm.lrint", "r0"},
    {"llvm.llrint", "r0"},              {"llvm.lround", "r0"},
    {"llvm.llround", "r0"},             {"llvm.is.fpclass", "0"},
    {"llvm.lifetime.start", "1"},       {"llvm.lifetime.end", "1"},
    {"llvm.sadd.with.overflow", "0"},   {"llvm.uadd.with.overflow", "0"},
    {"llvm.ssub.with.overflow", "0"},   {"llvm.usub.with.overflow", "0"},
    {"llvm.smul.with.overflow", "0"},   {"llvm.umul.with.overflow", "0"},
    {"llvm.vector.insert", "r1"},       {"llvm.vector.extract", "r0"},
    {"llvm.get.active.lane.mask", "r0"}, {"llvm.ptrmask", "r1"},
    {"llvm.objectsize", "r0"},
};

static const char *overload_types(const char *name, bool has_result)
{
  for (size_t i = 0; i < sizeof overloads / sizeof *overloads; i++)
    if (!strcmp(overloads[i].name, name))
      return overloads[i].types;
  return has_result ? "r" : "0";
}

/* The name of an overloaded intrinsic's declaration, mangled on the
** types overload_types names (LLVM's C API cannot match a call against
** the intrinsic's signature, so the table says which). A name written
** mangled already is kept. malloc'd; NULL after reporting. */
static char *mangled_name(LlvmTranslator *t, GiltOp *op, unsigned id,
                          const char *name, LLVMTypeRef ret, Operands a)
{
  size_t base_len;
  LLVMIntrinsicGetName(id, &base_len);
  if (strlen(name) > base_len)
    return strdup(name);
  const char *which = overload_types(name, ret != NULL);
  LLVMTypeRef types[8];
  size_t n = 0;
  for (; which[n] && n < 8; n++) {
    size_t k = (size_t)(which[n] - '0');
    if (which[n] == 'r' ? !ret : k >= a.n) {
      gilt_op_emit_error(op, "'%s' is overloaded on its %s, which this "
                             "call lacks",
                         name, which[n] == 'r' ? "result" : "operands");
      return NULL;
    }
    types[n] = which[n] == 'r' ? ret : LLVMTypeOf(a.v[k]);
  }
  size_t len;
  const char *mangled =
      LLVMIntrinsicCopyOverloadedName2(t->mod, id, types, n, &len);
  return (char *)mangled;
}

/* A declaration of the intrinsic `id` that takes `a` and returns `ret`:
** LLVM's own for an intrinsic of fixed type (checked against the call);
** for an overloaded one, a function of the call's type under the mangled
** name, which LLVM recognizes as the intrinsic (giving it the intrinsic's
** attributes) and its verifier checks. LLVMGetIntrinsicDeclaration is
** not used there: given the wrong number of overload types it reads out
** of bounds instead of failing. */
static LLVMValueRef intrinsic(LlvmTranslator *t, GiltOp *op, unsigned id,
                              const char *name, LLVMTypeRef ret, Operands a)
{
  if (!LLVMIntrinsicIsOverloaded(id)) {
    LLVMValueRef decl = LLVMGetIntrinsicDeclaration(t->mod, id, NULL, 0);
    return check_call(op, LLVMGlobalGetValueType(decl), a, name) ? decl : NULL;
  }
  LLVMTypeRef params[a.n + 1];
  for (size_t i = 0; i < a.n; i++)
    params[i] = LLVMTypeOf(a.v[i]);
  LLVMTypeRef type = LLVMFunctionType(
      ret ? ret : LLVMVoidTypeInContext(t->llctx), params, (unsigned)a.n, 0);
  char *mangled = mangled_name(t, op, id, name, ret, a);
  if (!mangled)
    return NULL;
  LLVMValueRef decl = LLVMGetNamedFunction(t->mod, mangled);
  if (!decl)
    decl = LLVMAddFunction(t->mod, mangled, type);
  else if (!check_call(op, LLVMGlobalGetValueType(decl), a, mangled))
    decl = NULL;
  free(mangled);
  return decl;
}

static LLVMValueRef call_intrinsic(LlvmTranslator *t, GiltOp *op, Operands a,
                                   LLVMTypeRef ret)
{
  size_t len;
  const char *name =
      gilt_string_attr_get_value(gilt_op_get_attr(op, "intrinsic"), &len);
  unsigned id = LLVMLookupIntrinsicID(name, len);
  if (!id) {
    gilt_op_emit_error(op, "'%s' is not an intrinsic LLVM 19 knows", name);
    return NULL;
  }
  LLVMValueRef decl = intrinsic(t, op, id, name, ret, a);
  if (!decl)
    return NULL;
  return LLVMBuildCall2(t->builder, LLVMGlobalGetValueType(decl), decl, a.v,
                        (unsigned)a.n, "");
}

/* ---- the dispatch ---------------------------------------------------------- */

static int64_t position(GiltOp *op)
{
  return gilt_integer_attr_get_value(gilt_op_get_attr(op, "position"));
}

/* The instruction of `op`, whose result has type `rt` (NULL when it has
** none); NULL after reporting. */
static LLVMValueRef build(LlvmTranslator *t, GiltOp *op, LlvmOpId id,
                          Operands a, LLVMTypeRef rt)
{
  LLVMBuilderRef b = t->builder;
  if (!operands_fit(id, a, rt)) {
    gilt_op_emit_error(op, "has operands of types LLVM's '%s' does not take",
                       gilt_op_get_name(op) + 5);
    return NULL;
  }
  if (binary_opcode(id))
    return LLVMBuildBinOp(b, binary_opcode(id), a.v[0], a.v[1], "");
  if (cast_opcode(id))
    return LLVMBuildCast(b, cast_opcode(id), a.v[0], rt, "");
  switch (id) {
  case LLVM_OP_CONSTANT:
    return llvm_translate_constant(
        t, gilt_op_get_attr(op, "value"),
        gilt_value_get_type(gilt_op_get_result(op, 0)), rt, op);
  case LLVM_OP_ZERO:
    return LLVMConstNull(rt);
  case LLVM_OP_POISON:
    return LLVMGetPoison(rt);
  case LLVM_OP_FNEG:
    return LLVMBuildFNeg(b, a.v[0], "");
  case LLVM_OP_ICMP:
  case LLVM_OP_FCMP:
    return compare(t, op, a, id == LLVM_OP_FCMP);
  case LLVM_OP_SELECT:
    return LLVMBuildSelect(b, a.v[0], a.v[1], a.v[2], "");
  case LLVM_OP_LOAD:
    return access(op, LLVMBuildLoad2(b, rt, a.v[0], ""));
  case LLVM_OP_STORE:
    return access(op, LLVMBuildStore(b, a.v[0], a.v[1]));
  case LLVM_OP_GEP:
    return gep(t, op, a);
  case LLVM_OP_ALLOCA:
    return alloca_(t, op, a);
  case LLVM_OP_ADDRESSOF:
    return address_of(t, op);
  case LLVM_OP_EXTRACTVALUE:
    return LLVMBuildExtractValue(b, a.v[0], (unsigned)position(op), "");
  case LLVM_OP_INSERTVALUE:
    return LLVMBuildInsertValue(b, a.v[0], a.v[1], (unsigned)position(op), "");
  case LLVM_OP_EXTRACTELEMENT:
    return LLVMBuildExtractElement(b, a.v[0], a.v[1], "");
  case LLVM_OP_INSERTELEMENT:
    return LLVMBuildInsertElement(b, a.v[0], a.v[1], a.v[2], "");
  case LLVM_OP_SHUFFLEVECTOR:
    return shuffle(t, op, a);
  case LLVM_OP_CALL:
    return call(t, op, a);
  case LLVM_OP_CALL_INTRINSIC:
    return call_intrinsic(t, op, a, rt);
  default:
    gilt_op_emit_error(op, "has no translation to LLVM IR here");
    return NULL;
  }
}

/* Whether LLVM built a value of the result's type; reports otherwise. */
static bool check_result_type(GiltOp *op, LLVMValueRef v, LLVMTypeRef rt)
{
  if (!rt || LLVMTypeOf(v) == rt)
    return true;
  char *got = LLVMPrintTypeToString(LLVMTypeOf(v));
  char *want = LLVMPrintTypeToString(rt);
  gilt_op_emit_error(op, "translates to a value of LLVM type %s, not the "
                         "result's %s",
                     got, want);
  LLVMDisposeMessage(got);
  LLVMDisposeMessage(want);
  return false;
}

/* The operands' values; the caller frees a.v. False after reporting. */
static bool get_operands(LlvmTranslator *t, GiltOp *op, Operands *a)
{
  a->n = gilt_op_get_num_operands(op);
  a->v = gilt_malloc(t->ctx, (a->n + 1) * sizeof *a->v);
  for (size_t i = 0; i < a->n; i++)
    if (!(a->v[i] = llvm_translate_value(t, gilt_op_get_operand(op, i), op)))
      return false;
  return true;
}

GiltStatus llvm_translate_instruction(LlvmTranslator *t, GiltOp *op)
{
  LlvmOpId id = llvm_op_id(op);
  if (id == LLVM_NUM_OPS || id == LLVM_OP_FUNC || id == LLVM_OP_GLOBAL)
    return gilt_op_emit_error(op, "has no translation to LLVM IR inside a "
                                  "function (lower it to the llvm dialect "
                                  "first)");
  size_t nres = gilt_op_get_num_results(op);
  if (nres > 1)
    return gilt_op_emit_error(op, "has %zu results; an LLVM instruction "
                                  "has at most one",
                              nres);
  LLVMTypeRef rt = NULL;
  if (nres && !(rt = llvm_translate_type(
                    t, gilt_value_get_type(gilt_op_get_result(op, 0)), op)))
    return GILT_FAILURE;
  Operands a;
  LLVMValueRef v = NULL;
  if (get_operands(t, op, &a))
    v = build(t, op, id, a, rt);
  gilt_free(t->ctx, a.v);
  if (!v || !check_result_type(op, v, rt))
    return GILT_FAILURE;
  if (nres)
    llvm_translate_map_value(t, gilt_op_get_result(op, 0), v);
  return GILT_SUCCESS;
}
