/*
** layout.c - `#graph.layout<"NCHW16c">`: the data layout of a tensor, as
** a tensor type's encoding, and the graph dialect's attribute table.
**
** The string follows TVM's Layout: a sequence of dimensions, each an
** upper-case letter (a whole logical dimension: N batch, C channels, H, W,
** ...) or a block factor and a lower-case letter (an inner block of the
** dimension of that letter: `16c` holds 16 channels). So NCHW16c is
** N, C/16, H, W, 16: each upper-case letter at most once, each lower-case
** letter at most once, with a positive factor and its upper-case letter
** somewhere in the layout. As an encoding, the layout has one letter per
** tensor dimension and a blocked dimension's static size is its factor:
** `tensor<1x4x8x8x16xf32, #graph.layout<"NCHW16c">>`.
**
** Not here: choosing layouts (the graph-level layout pass) and converting
** between them (graph.layout_transform: its inference in shape.c, its
** lowering in transforms/graph_to_loop/layout_transform.c); this file
** only says what a layout is.
*/
#include "dialects/graph/graph.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "ir/asm/asm.h"

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The block factor starting at s[*i], advancing *i past it; 0 when it
** is zero or too large (above 2^31 - 1, more than any block needs). */
static int64_t read_factor(const char *s, size_t n, size_t *i)
{
  int64_t f = 0;
  for (; *i < n && is_digit(s[*i]); (*i)++)
    if (f <= INT32_MAX)
      f = f * 10 + (s[*i] - '0');
  return f > INT32_MAX ? 0 : f;
}

/* The checks of the grammar above; `why` gets the first violation. */
static bool parse_dims(const char *s, size_t n, GraphLayout *out, char *why,
                       size_t why_len)
{
  out->rank = 0;
  if (n == 0) {
    snprintf(why, why_len, "is empty");
    return false;
  }
  for (size_t i = 0; i < n;) {
    int64_t factor = 0;
    if (is_digit(s[i]) && !(factor = read_factor(s, n, &i))) {
      snprintf(why, why_len, "has a block factor that is 0 or above %d",
               INT32_MAX);
      return false;
    }
    if (i == n || !(is_upper(s[i]) || is_lower(s[i]))) {
      if (i == n)
        snprintf(why, why_len, "ends with a block factor");
      else if (s[i] > ' ' && s[i] < 0x7F)
        snprintf(why, why_len, "has an unexpected character '%c'", s[i]);
      else
        snprintf(why, why_len, "has an unexpected byte 0x%02X",
                 (unsigned char)s[i]);
      return false;
    }
    char d = s[i++];
    if (factor && !is_lower(d)) {
      snprintf(why, why_len, "blocks '%c', but only lower-case (inner) "
                             "dimensions take a block factor", d);
      return false;
    }
    if (!factor && is_lower(d)) {
      snprintf(why, why_len, "has inner dimension '%c' without a block "
                             "factor, as in '16%c'", d, d);
      return false;
    }
    if (memchr(out->dims, d, out->rank)) {
      snprintf(why, why_len, "has dimension '%c' twice", d);
      return false;
    }
    if (out->rank == GRAPH_MAX_RANK) {
      snprintf(why, why_len, "has more than %d dimensions", GRAPH_MAX_RANK);
      return false;
    }
    out->dims[out->rank] = d;
    out->factors[out->rank++] = factor;
  }
  return true;
}

bool graph_layout_parse(const char *s, size_t n, GraphLayout *out, char *why,
                        size_t why_len)
{
  if (!parse_dims(s, n, out, why, why_len))
    return false;
  for (size_t i = 0; i < out->rank; i++) {
    char outer = (char)(out->dims[i] - 'a' + 'A');
    if (is_lower(out->dims[i]) && !memchr(out->dims, outer, out->rank)) {
      snprintf(why, why_len, "blocks '%c', but has no dimension '%c' to "
                             "split", out->dims[i], outer);
      return false;
    }
  }
  return true;
}

int graph_layout_find(const GraphLayout *l, char d)
{
  const char *p = memchr(l->dims, d, l->rank);
  return p ? (int)(p - l->dims) : -1;
}

int64_t graph_layout_block(const GraphLayout *l, char d)
{
  int i = graph_layout_find(l, (char)(d - 'A' + 'a'));
  return i < 0 ? 0 : l->factors[i];
}

bool graph_layout_equal(const GraphLayout *a, const GraphLayout *b)
{
  return a->rank == b->rank && !memcmp(a->dims, b->dims, a->rank) &&
         !memcmp(a->factors, b->factors, a->rank * sizeof *a->factors);
}

bool graph_attr_layout(GiltOp *op, const char *name, GraphLayout *out)
{
  GiltAttr *a = gilt_dictionary_attr_lookup(op->attrs, name);
  if (!a || a->kind != GILT_ATTR_STRING)
    return false;
  size_t n;
  const char *s = gilt_string_attr_get_value(a, &n);
  char why[96];
  return graph_layout_parse(s, n, out, why, sizeof why);
}

/* ---- the attribute's hooks ------------------------------------------------ */

static GiltStatus parse_layout(GiltAsmParser *p, GiltParamVec *params)
{
  GiltAttr *s;
  if (gilt_asm_parse_punct(p, "<") || gilt_asm_parse_string(p, &s) ||
      gilt_asm_parse_punct(p, ">"))
    return GILT_FAILURE;
  gilt_vec_push(gilt_asm_parser_get_context(p), params, s);
  return GILT_SUCCESS;
}

static void print_layout(GiltAsmPrinter *p, size_t n, GiltAttr *const *params)
{
  (void)n;
  size_t len;
  const char *s = gilt_string_attr_get_value(params[0], &len);
  gilt_asm_print(p, "<");
  gilt_asm_print_string(p, s, len);
  gilt_asm_print(p, ">");
}

/* The string as the printer writes it inside quotes (`\XX` for bytes
** outside printable ASCII), cut short with "..." when out fills up. */
static const char *escape(const char *s, size_t n, char *out, size_t cap)
{
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (k + 7 > cap) {
      memcpy(out + k, "...", 3);
      k += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\')
      out[k++] = (char)c;
    else
      k += (size_t)snprintf(out + k, cap - k, "\\%02X", c);
  }
  out[k] = '\0';
  return out;
}

static GiltStatus verify_layout(GiltLocation *loc, size_t n,
                                GiltAttr *const *params)
{
  if (n != 1 || gilt_attr_get_kind(params[0]) != GILT_ATTR_STRING) {
    gilt_emit_error(loc, "'graph.layout' takes one string, such as "
                         "\"NCHW16c\"");
    return GILT_FAILURE;
  }
  size_t len;
  const char *s = gilt_string_attr_get_value(params[0], &len);
  GraphLayout layout;
  char why[96], shown[3 * 64 + 4];
  if (graph_layout_parse(s, len, &layout, why, sizeof why))
    return GILT_SUCCESS;
  gilt_emit_error(loc, "invalid layout \"%s\": it %s",
                  escape(s, len, shown, sizeof shown), why);
  return GILT_FAILURE;
}

static GiltStatus verify_layout_encoding(GiltLocation *loc, size_t n,
                                         GiltAttr *const *params, size_t rank,
                                         const int64_t *shape, GiltType *elem)
{
  (void)n;
  (void)elem;
  size_t len;
  const char *s = gilt_string_attr_get_value(params[0], &len);
  GraphLayout layout;
  char why[96];
  if (!graph_layout_parse(s, len, &layout, why, sizeof why))
    return GILT_FAILURE; /* verify_layout has reported */
  if (layout.rank != rank) {
    gilt_emit_error(loc, "layout \"%s\" has %zu dimensions, but the tensor "
                         "has rank %zu", s, layout.rank, rank);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < rank; i++) {
    if (!layout.factors[i] || shape[i] == GILT_DYNAMIC ||
        shape[i] == layout.factors[i])
      continue;
    gilt_emit_error(loc, "dimension %zu of the tensor is %" PRId64 ", but "
                         "layout \"%s\" blocks '%c' by %" PRId64,
                    i, shape[i], s, layout.dims[i], layout.factors[i]);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

const GiltAttrDef graph_attr_defs[GRAPH_NUM_ATTRS] = {
    {.mnemonic = "layout", .parse = parse_layout, .print = print_layout,
     .verify = verify_layout, .verify_encoding = verify_layout_encoding},
};
