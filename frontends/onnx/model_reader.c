/*
** model_reader.c - opening ONNX files: reading the bytes, unpacking them
** with protobuf-c, and the checks a model must pass before anyone walks
** it.
**
** A model is accepted when it decodes, has a graph with at least one
** output, imports the default operator set ("" or "ai.onnx") at one
** version in GILT_ONNX_MIN_OPSET..GILT_ONNX_MAX_OPSET, and every node,
** subgraphs included, is in the default domain. Other domains may be
** imported (exporters often list "ai.onnx.ml" unused); a node in one is an
** error, since nothing could import it. Parts of ONNX that onnx.proto
** leaves out arrive as protobuf-c unknown fields, and the ones that would
** change meaning (sparse initializers, model-local functions) are reported
** instead of dropped. This file does not decode tensor payloads
** (tensor_data.c) or build IR (the importer).
*/
#include "frontends/onnx/model_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "frontends/onnx/wire_check.h"
#include "ir/core.h"

/* Field numbers of ONNX fields onnx.proto leaves out, found among the
** unknown fields. */
enum {
  GRAPH_SPARSE_INITIALIZER = 15,
  MODEL_FUNCTIONS = 25,
  TYPE_SEQUENCE = 4,
  TYPE_MAP = 5,
  TYPE_SPARSE_TENSOR = 8,
  TYPE_OPTIONAL = 9
};

static void *pb_alloc(void *user, size_t size)
{
  return gilt_malloc(user, size);
}

static void pb_free(void *user, void *ptr)
{
  gilt_free(user, ptr);
}

static const char *str(const char *s)
{
  return s ? s : "";
}

static GiltLocation *unknown(GiltContext *ctx)
{
  return gilt_location_unknown_get(ctx);
}

static bool has_unknown_field(const ProtobufCMessage *m, uint32_t number)
{
  for (unsigned i = 0; i < m->n_unknown_fields; i++)
    if (m->unknown_fields[i].tag == number)
      return true;
  return false;
}

/* ---- the reader object --------------------------------------------------- */

/* Consumes the reference to `image`. */
static GiltOnnxReader *reader_create(GiltContext *ctx, GiltOnnxBytes *image,
                                     const char *name, const char *dir)
{
  GiltOnnxReader *r = gilt_calloc(ctx, 1, sizeof *r);
  r->ctx = ctx;
  r->image = image;
  r->allocator.alloc = pb_alloc;
  r->allocator.free = pb_free;
  r->allocator.allocator_data = ctx;
  r->file = gilt_strndup(ctx, name, strlen(name));
  r->dir = dir ? gilt_strndup(ctx, dir, strlen(dir)) : NULL;
  return r;
}

void gilt_onnx_reader_destroy(GiltOnnxReader *r)
{
  if (!r)
    return;
  GiltContext *ctx = r->ctx;
  if (r->model)
    gilt__onnx__model_proto__free_unpacked(r->model, &r->allocator);
  if (r->tensor)
    gilt__onnx__tensor_proto__free_unpacked(r->tensor, &r->allocator);
  for (size_t i = 0; i < r->buffers.len; i++)
    gilt_onnx_bytes_release(r->buffers.data[i]);
  gilt_vec_free(ctx, &r->buffers);
  gilt_onnx_bytes_release(r->image);
  gilt_free(ctx, r->file);
  gilt_free(ctx, r->dir);
  gilt_free(ctx, r);
}

/* ---- reading files ------------------------------------------------------- */

/* Reads what is left of `fd` into memory: a pipe, /dev/stdin or anything
** else with no size to map. NULL with *error set on failure. */
static GiltOnnxBytes *read_all(GiltContext *ctx, int fd, const char **error)
{
  size_t cap = 4096, n = 0;
  uint8_t *buf = gilt_malloc(ctx, cap);
  for (;;) {
    if (n == cap) {
      GILT_ASSERT(cap <= SIZE_MAX / 2);
      cap *= 2;
      buf = gilt_realloc(ctx, buf, cap);
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      *error = strerror(errno);
      gilt_free(ctx, buf);
      return NULL;
    }
    if (got == 0)
      return gilt_onnx_bytes_wrap(ctx, buf, n);
    n += (size_t)got;
  }
}

/* The bytes of the file at `path`: mapped when it is a regular file, so
** that weights are never copied (bytes.h); read otherwise. */
static GiltOnnxBytes *load_file(GiltContext *ctx, const char *path)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    gilt_emit_error(unknown(ctx), "'%s': cannot open: %s", path,
                    strerror(errno));
    return NULL;
  }
  struct stat st;
  const char *error = NULL;
  GiltOnnxBytes *b;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uintmax_t)st.st_size < SIZE_MAX)
    b = gilt_onnx_bytes_map(ctx, fd, 0, (size_t)st.st_size, &error);
  else
    b = read_all(ctx, fd, &error);
  close(fd);
  if (!b)
    gilt_emit_error(unknown(ctx), "'%s': read error: %s", path, error);
  return b;
}

/* The directory part of `path` ("." when it has none), from gilt_malloc. */
static char *dir_of(GiltContext *ctx, const char *path)
{
  const char *slash = strrchr(path, '/');
  if (!slash)
    return gilt_strndup(ctx, ".", 1);
  if (slash == path)
    return gilt_strndup(ctx, "/", 1);
  return gilt_strndup(ctx, path, (size_t)(slash - path));
}

/* Scans the reader's bytes as a `desc` message, then unpacks their
** skeleton (wire_check.h); reports on failure. `what` words the
** diagnostic ("ONNX model", "ONNX tensor"). */
static ProtobufCMessage *unpack(GiltOnnxReader *r,
                                const ProtobufCMessageDescriptor *desc,
                                const char *what)
{
  GiltStrBuf skeleton;
  gilt_strbuf_init(&skeleton, r->ctx);
  GiltWireCheck check = gilt_onnx_wire_check(
      desc, gilt_onnx_bytes_get_data(r->image),
      gilt_onnx_bytes_get_size(r->image), &skeleton);
  ProtobufCMessage *m = NULL;
  switch (check) {
  case GILT_WIRE_OK:
    /* Zero bytes may come as a NULL pointer; hand protobuf-c a real one. */
    m = protobuf_c_message_unpack(
        desc, &r->allocator, skeleton.len,
        skeleton.data ? (const uint8_t *)skeleton.data : (const uint8_t *)"");
    if (!m)
      gilt_emit_error(unknown(r->ctx),
                      "'%s': not a valid %s (protobuf parse failed)",
                      r->file, what);
    break;
  case GILT_WIRE_MALFORMED:
    gilt_emit_error(unknown(r->ctx),
                    "'%s': not a valid %s (protobuf parse failed)", r->file,
                    what);
    break;
  case GILT_WIRE_TOO_DEEP:
    gilt_emit_error(unknown(r->ctx),
                    "'%s': not a valid %s (messages nested deeper than %d "
                    "levels)",
                    r->file, what, GILT_ONNX_MAX_NESTING);
    break;
  }
  gilt_strbuf_free(&skeleton);
  return m;
}

/* ---- model checks -------------------------------------------------------- */

/* Finds the default-domain import and checks every import. */
static GiltStatus check_opsets(GiltOnnxReader *r)
{
  const Gilt__Onnx__ModelProto *m = r->model;
  GiltLocation *loc = unknown(r->ctx);
  if (m->n_opset_import == 0) {
    gilt_emit_error(loc,
                    "'%s': the model imports no operator set (opset_import "
                    "is empty)",
                    r->file);
    return GILT_FAILURE;
  }
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const Gilt__Onnx__OperatorSetIdProto *a = m->opset_import[i];
    for (size_t j = 0; j < i; j++) {
      const Gilt__Onnx__OperatorSetIdProto *b = m->opset_import[j];
      bool same = gilt_onnx_is_default_domain(a->domain)
                      ? gilt_onnx_is_default_domain(b->domain)
                      : strcmp(str(a->domain), str(b->domain)) == 0;
      if (same && a->version != b->version) {
        gilt_emit_error(loc,
                        "'%s': the model imports domain '%s' twice, at "
                        "versions %lld and %lld",
                        r->file, str(a->domain), (long long)b->version,
                        (long long)a->version);
        return GILT_FAILURE;
      }
    }
    if (!gilt_onnx_is_default_domain(a->domain))
      continue;
    if (a->version < GILT_ONNX_MIN_OPSET || a->version > GILT_ONNX_MAX_OPSET) {
      gilt_emit_error(loc,
                      "'%s': opset version %lld of domain '%s' is not "
                      "supported (gilt supports versions %d to %d)",
                      r->file, (long long)a->version,
                      a->domain && a->domain[0] ? a->domain : "ai.onnx",
                      GILT_ONNX_MIN_OPSET, GILT_ONNX_MAX_OPSET);
      return GILT_FAILURE;
    }
    r->opset = a->version;
  }
  if (r->opset == 0) {
    gilt_emit_error(loc,
                    "'%s': the model does not import the default ONNX "
                    "operator set (domain '' or 'ai.onnx')",
                    r->file);
    return GILT_FAILURE;
  }
  return GILT_SUCCESS;
}

typedef struct NodeCheck {
  GiltOnnxReader *r;
  GILT_VEC(const char *) reported; /* domains already reported */
  GiltStatus status;
} NodeCheck;

static void report_domain(NodeCheck *nc, const Gilt__Onnx__NodeProto *node)
{
  GiltOnnxReader *r = nc->r;
  for (size_t i = 0; i < nc->reported.len; i++)
    if (strcmp(nc->reported.data[i], node->domain) == 0)
      return; /* one error per domain, not one per node */
  gilt_vec_push(r->ctx, &nc->reported, node->domain);
  nc->status = GILT_FAILURE;
  bool imported = gilt_onnx_reader_get_opset_version(r, node->domain) != 0;
  GiltDiagnostic *d = gilt_diag_create(
      r->ctx, GILT_SEVERITY_ERROR, unknown(r->ctx),
      "'%s': node '%s' (%s) is in domain '%s', %s", r->file, str(node->name),
      str(node->op_type), node->domain,
      imported ? "which gilt does not support"
               : "which the model does not import");
  if (has_unknown_field(&r->model->base, MODEL_FUNCTIONS))
    gilt_diag_add_note(d, unknown(r->ctx),
                       "the model defines local functions, which gilt does "
                       "not support");
  gilt_diag_emit(d);
}

/* Checks the nodes of `g` and of its subgraphs. The recursion is bounded:
** wire_check refused anything nested deeper than GILT_ONNX_MAX_NESTING. */
static void check_graph(NodeCheck *nc, const Gilt__Onnx__GraphProto *g)
{
  if (has_unknown_field(&g->base, GRAPH_SPARSE_INITIALIZER)) {
    gilt_emit_error(unknown(nc->r->ctx),
                    "'%s': graph '%s' has sparse initializers, which gilt "
                    "does not support",
                    nc->r->file, str(g->name));
    nc->status = GILT_FAILURE;
  }
  for (size_t i = 0; i < g->n_node; i++) {
    const Gilt__Onnx__NodeProto *node = g->node[i];
    if (!gilt_onnx_is_default_domain(node->domain))
      report_domain(nc, node);
    for (size_t j = 0; j < node->n_attribute; j++) {
      const Gilt__Onnx__AttributeProto *a = node->attribute[j];
      if (a->g)
        check_graph(nc, a->g);
      for (size_t k = 0; k < a->n_graphs; k++)
        check_graph(nc, a->graphs[k]);
    }
  }
}

static GiltStatus check_model(GiltOnnxReader *r)
{
  const Gilt__Onnx__ModelProto *m = r->model;
  if (!m->graph) {
    gilt_emit_error(unknown(r->ctx), "'%s': the model has no graph",
                    r->file);
    return GILT_FAILURE;
  }
  if (m->graph->n_output == 0) {
    gilt_emit_error(unknown(r->ctx),
                    "'%s': graph '%s' is empty: it has no outputs", r->file,
                    str(m->graph->name));
    return GILT_FAILURE;
  }
  /* Nodes first: for a model made of nodes nothing could import, the
  ** domain is the real problem, not the missing default import. */
  NodeCheck nc = {.r = r, .status = GILT_SUCCESS};
  check_graph(&nc, m->graph);
  gilt_vec_free(r->ctx, &nc.reported);
  if (nc.status != GILT_SUCCESS)
    return GILT_FAILURE;
  return check_opsets(r);
}

/* ---- opening ------------------------------------------------------------- */

/* Each consumes the reference to `image`. */
static GiltOnnxReader *open_model(GiltContext *ctx, GiltOnnxBytes *image,
                                  const char *name, const char *dir)
{
  GiltOnnxReader *r = reader_create(ctx, image, name, dir);
  r->model = (Gilt__Onnx__ModelProto *)unpack(
      r, &gilt__onnx__model_proto__descriptor, "ONNX model");
  if (!r->model || check_model(r) != GILT_SUCCESS) {
    gilt_onnx_reader_destroy(r);
    return NULL;
  }
  return r;
}

/* As open_model, without check_model: the model is decoded only. */
static GiltOnnxReader *open_model_unchecked(GiltContext *ctx,
                                           GiltOnnxBytes *image,
                                           const char *name, const char *dir)
{
  GiltOnnxReader *r = reader_create(ctx, image, name, dir);
  r->model = (Gilt__Onnx__ModelProto *)unpack(
      r, &gilt__onnx__model_proto__descriptor, "ONNX model");
  if (!r->model) {
    gilt_onnx_reader_destroy(r);
    return NULL;
  }
  return r;
}

static GiltOnnxReader *open_tensor(GiltContext *ctx, GiltOnnxBytes *image,
                                   const char *name, const char *dir)
{
  GiltOnnxReader *r = reader_create(ctx, image, name, dir);
  r->tensor = (Gilt__Onnx__TensorProto *)unpack(
      r, &gilt__onnx__tensor_proto__descriptor, "ONNX tensor");
  if (!r->tensor) {
    gilt_onnx_reader_destroy(r);
    return NULL;
  }
  return r;
}

typedef GiltOnnxReader *(*OpenFn)(GiltContext *, GiltOnnxBytes *,
                                  const char *, const char *);

/* The caller's bytes are borrowed for the call only, and the weights in
** them must outlive it: one copy, which the resources then share. */
static GiltOnnxBytes *copy_bytes(GiltContext *ctx, const void *data,
                                 size_t len)
{
  void *copy = gilt_malloc(ctx, len);
  if (len)
    memcpy(copy, data, len);
  return gilt_onnx_bytes_wrap(ctx, copy, len);
}

GiltOnnxReader *gilt_onnx_reader_open_model_buffer(GiltContext *ctx,
                                                   const void *data,
                                                   size_t len,
                                                   const char *name,
                                                   const char *dir)
{
  return open_model(ctx, copy_bytes(ctx, data, len), name, dir);
}

GiltOnnxReader *gilt_onnx_reader_open_tensor_buffer(GiltContext *ctx,
                                                    const void *data,
                                                    size_t len,
                                                    const char *name,
                                                    const char *dir)
{
  return open_tensor(ctx, copy_bytes(ctx, data, len), name, dir);
}

static GiltOnnxReader *open_file(GiltContext *ctx, const char *path,
                                 OpenFn open_bytes)
{
  GiltOnnxBytes *image = load_file(ctx, path);
  if (!image)
    return NULL;
  char *dir = dir_of(ctx, path);
  GiltOnnxReader *r = open_bytes(ctx, image, path, dir);
  gilt_free(ctx, dir);
  return r;
}

GiltOnnxReader *gilt_onnx_reader_open_model(GiltContext *ctx,
                                            const char *path)
{
  return open_file(ctx, path, open_model);
}

GiltOnnxReader *gilt_onnx_reader_open_model_unchecked(GiltContext *ctx,
                                                      const char *path)
{
  return open_file(ctx, path, open_model_unchecked);
}

GiltOnnxReader *gilt_onnx_reader_open_tensor(GiltContext *ctx,
                                             const char *path)
{
  return open_file(ctx, path, open_tensor);
}

/* ---- accessors ----------------------------------------------------------- */

const Gilt__Onnx__ModelProto *gilt_onnx_reader_get_model(
    const GiltOnnxReader *r)
{
  return r->model;
}

const Gilt__Onnx__GraphProto *gilt_onnx_reader_get_graph(
    const GiltOnnxReader *r)
{
  return r->model ? r->model->graph : NULL;
}

const Gilt__Onnx__TensorProto *gilt_onnx_reader_get_tensor_proto(
    const GiltOnnxReader *r)
{
  return r->tensor;
}

const char *gilt_onnx_reader_get_file_name(const GiltOnnxReader *r)
{
  return r->file;
}

int64_t gilt_onnx_reader_get_opset_version(const GiltOnnxReader *r,
                                           const char *domain)
{
  if (!r->model)
    return 0;
  bool want_default = gilt_onnx_is_default_domain(domain);
  for (size_t i = 0; i < r->model->n_opset_import; i++) {
    const Gilt__Onnx__OperatorSetIdProto *o = r->model->opset_import[i];
    if (want_default ? gilt_onnx_is_default_domain(o->domain)
                     : strcmp(str(o->domain), domain) == 0)
      return o->version;
  }
  return 0;
}

/* ---- value types --------------------------------------------------------- */

static const char *non_tensor_kind(const Gilt__Onnx__TypeProto *t)
{
  if (has_unknown_field(&t->base, TYPE_SEQUENCE))
    return "a sequence";
  if (has_unknown_field(&t->base, TYPE_MAP))
    return "a map";
  if (has_unknown_field(&t->base, TYPE_SPARSE_TENSOR))
    return "a sparse tensor";
  if (has_unknown_field(&t->base, TYPE_OPTIONAL))
    return "an optional";
  return NULL;
}

GiltType *gilt_onnx_reader_get_value_type(GiltOnnxReader *r,
                                          const Gilt__Onnx__ValueInfoProto *vi,
                                          GiltLocation *loc)
{
  GiltContext *ctx = r->ctx;
  if (!loc)
    loc = unknown(ctx);
  const char *name = str(vi->name);
  const Gilt__Onnx__TypeProto *type = vi->type;
  if (!type || !type->tensor_type) {
    const char *kind = type ? non_tensor_kind(type) : NULL;
    if (kind)
      gilt_emit_error(loc,
                      "'%s': value '%s' has %s type; gilt supports tensors "
                      "only",
                      r->file, name, kind);
    else
      gilt_emit_error(loc, "'%s': value '%s' has no type", r->file, name);
    return NULL;
  }
  const Gilt__Onnx__TypeProto__Tensor *tt = type->tensor_type;
  char what[256];
  snprintf(what, sizeof what, "value '%s'", name);
  GiltType *elem = gilt_onnx_element_type_get_or_report(
      ctx, tt->has_elem_type ? tt->elem_type : 0, r->file, what, loc);
  if (!elem)
    return NULL;
  if (!tt->shape)
    return gilt_unranked_tensor_type_get(ctx, elem);
  size_t rank = tt->shape->n_dim;
  int64_t *shape = gilt_calloc(ctx, rank ? rank : 1, sizeof *shape);
  for (size_t i = 0; i < rank; i++) {
    const Gilt__Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    if (d->value_case !=
        GILT__ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
      shape[i] = GILT_DYNAMIC; /* dim_param, or nothing known */
      continue;
    }
    if (d->dim_value < 0) {
      gilt_emit_error(loc, "'%s': value '%s' has negative dimension %lld",
                      r->file, name, (long long)d->dim_value);
      gilt_free(ctx, shape);
      return NULL;
    }
    shape[i] = d->dim_value;
  }
  GiltType *t = gilt_tensor_type_get(ctx, rank, shape, elem, NULL);
  gilt_free(ctx, shape);
  return t;
}
