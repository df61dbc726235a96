/*
** cast.c - the interpreter's conversions between element types (loop's
** extsi ... bitcast), on scalars and lane by lane on vectors.
**
** in->elem is the source element type, in->elem2 the result's. Float to
** integer conversions truncate toward zero and saturate: NaN gives 0, a
** value beyond the result's range its nearest bound (LLVM's
** fptosi.sat/fptoui.sat, what loop.def promises). Float narrowing rounds
** once, to nearest even, from the exact source value.
*/
#include "dialects/loop/interpreter/interpreter.h"

#include <math.h>
#include <string.h>

static double as_double(InterpElem e, Cell c)
{
  return e.cls == ELEM_F64 ? c.d : c.f;
}

static Cell from_double(InterpElem e, double v)
{
  Cell c = {0};
  if (e.cls == ELEM_F64)
    c.d = v;
  else if (e.cls == ELEM_F32)
    c.f = (float)v;
  else
    c.f = interp_round_small(e.fkind, v);
  return c;
}

/* extsi, trunci and index_cast; extui (dialects/loop/int_semantics.h). */
static bool cast_signed(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i = loop_int_cast_signed(f[in->a + i].i, in->elem.width,
                                            in->elem2.width);
  return true;
}

static bool cast_extui(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i = loop_int_cast_unsigned(f[in->a + i].i, in->elem.width,
                                              in->elem2.width);
  return true;
}

static bool cast_itofp(Cell *f, const Instr *in, Interp *it, bool sign)
{
  (void)it;
  InterpElem out = in->elem2;
  for (uint32_t i = 0; i < in->n; i++) {
    int64_t s = loop_int_sx(f[in->a + i].i, in->elem.width);
    uint64_t u = loop_int_zx(f[in->a + i].i, in->elem.width);
    Cell *r = &f[in->dst + i];
    /* Convert straight to the result's C type: one rounding. */
    if (out.cls == ELEM_F32)
      r->f = sign ? (float)s : (float)u;
    else if (out.cls == ELEM_F64)
      r->d = sign ? (double)s : (double)u;
    else
      r->f = interp_round_small(out.fkind, sign ? (double)s : (double)u);
  }
  return true;
}

static bool cast_sitofp(Cell *f, const Instr *in, Interp *it)
{
  return cast_itofp(f, in, it, true);
}

static bool cast_uitofp(Cell *f, const Instr *in, Interp *it)
{
  return cast_itofp(f, in, it, false);
}

/* The saturated conversion of v to an integer of width w. */
static int64_t fp_to_int(double v, unsigned w, bool sign)
{
  if (isnan(v))
    return 0;
  if (sign) {
    double hi = ldexp(1.0, (int)w - 1); /* exclusive */
    if (v >= hi)
      return loop_int_cell((uint64_t)(INT64_MAX >> (64 - w)), w);
    if (v <= -hi)
      return loop_int_cell((uint64_t)(INT64_MIN >> (64 - w)), w);
    return loop_int_cell((uint64_t)(int64_t)trunc(v), w);
  }
  double hi = ldexp(1.0, (int)w);
  if (v >= hi)
    return loop_int_cell(UINT64_MAX, w);
  if (v <= -1.0)
    return 0;
  return loop_int_cell((uint64_t)trunc(v), w);
}

static bool cast_fptosi(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i =
        fp_to_int(as_double(in->elem, f[in->a + i]), in->elem2.width, true);
  return true;
}

static bool cast_fptoui(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i].i =
        fp_to_int(as_double(in->elem, f[in->a + i]), in->elem2.width, false);
  return true;
}

/* extf and truncf: through double, which holds every source exactly. */
static bool cast_float(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++)
    f[in->dst + i] = from_double(in->elem2, as_double(in->elem, f[in->a + i]));
  return true;
}

/* The bits as a buffer holds them, read back as the other type. */
static bool cast_bitcast(Cell *f, const Instr *in, Interp *it)
{
  (void)it;
  for (uint32_t i = 0; i < in->n; i++) {
    char bits[8] = {0};
    interp_elem_write(in->elem, f[in->a + i], bits);
    f[in->dst + i] = interp_elem_read(in->elem2, bits);
  }
  return true;
}

bool interp_select_cast(LoopOpId id, Instr *in)
{
  switch (id) {
  case LOOP_OP_EXTSI:
  case LOOP_OP_TRUNCI:
  case LOOP_OP_INDEX_CAST:
    in->fn = cast_signed;
    return true;
  case LOOP_OP_EXTUI:
    in->fn = cast_extui;
    return true;
  case LOOP_OP_SITOFP:
    in->fn = cast_sitofp;
    return true;
  case LOOP_OP_UITOFP:
    in->fn = cast_uitofp;
    return true;
  case LOOP_OP_FPTOSI:
    in->fn = cast_fptosi;
    return true;
  case LOOP_OP_FPTOUI:
    in->fn = cast_fptoui;
    return true;
  case LOOP_OP_EXTF:
  case LOOP_OP_TRUNCF:
    in->fn = cast_float;
    return true;
  case LOOP_OP_BITCAST:
    in->fn = cast_bitcast;
    return true;
  default:
    return false;
  }
}
