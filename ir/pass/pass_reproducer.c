/*
** pass_reproducer.c - the crash reproducer: a file that replays the pass
** that failed or crashed.
**
** When enabled, before each pass runs the root op is printed (generic
** form, locations on) into memory behind a first line naming the pipeline
** that runs just that pass, nested as it ran:
**
**     // gilt-reproducer: -p 'builtin.module(func.func(cse))'
**     "builtin.module"() ({ ... }) : () -> () loc(...)
**
** If the pass fails, the text is written to the file. If it crashes
** (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT while the pass or the verifier
** after it runs), a signal handler writes it with write(2), which is
** async-signal-safe, then re-raises the signal with its default action, so
** the process still dies of it. `gopt --run-reproducer FILE` reads the
** pipeline back with gilt_reproducer_get_pipeline. The text is ready before
** the pass starts because nothing else may be done in a signal handler.
** This costs one print of the whole IR per pass run, so it is a debugging
** aid, off by default. Signal handlers are process-wide: only one thread
** should run an armed pass manager at a time.
*/
#include "ir/pass/pass_manager.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static const int crash_signals[GILT_NUM_CRASH_SIGNALS] = {
    SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

/* The innermost armed reproducer, for the signal handler. */
static GiltReproducer *volatile armed;

static const char header_prefix[] = "// gilt-reproducer: -p '";

void gilt_reproducer_init(GiltReproducer *r, GiltContext *ctx)
{
  memset(r, 0, sizeof *r);
  r->ctx = ctx;
  gilt_strbuf_init(&r->text, ctx);
}

void gilt_reproducer_free(GiltReproducer *r)
{
  gilt_free(r->ctx, r->path);
  gilt_strbuf_free(&r->text);
}

void gilt_pass_manager_enable_crash_reproducer(GiltPassManager *pm,
                                               const char *path)
{
  GiltReproducer *r = &pm->instr.reproducer;
  gilt_free(r->ctx, r->path);
  r->path = path ? gilt_strndup(r->ctx, path, strlen(path)) : NULL;
}

/* `a(b(` for the ops from root down to op; returns how many were opened. */
static int open_nesting(GiltStrBuf *sb, GiltOp *op, GiltOp *root)
{
  GiltOp *parent = gilt_op_get_parent_op(op);
  int depth = op != root && parent ? open_nesting(sb, parent, root) : 0;
  gilt_strbuf_printf(sb, "%s(", gilt_op_get_name(op));
  return depth + 1;
}

void gilt_reproducer_prepare(GiltReproducer *r, GiltPass *pass, GiltOp *op,
                             GiltOp *root)
{
  GiltPrintFlags flags = {.generic = true, .debug_info = true};
  r->text.len = 0;
  gilt_strbuf_append(&r->text, header_prefix, sizeof header_prefix - 1);
  int depth = open_nesting(&r->text, op, root);
  gilt_pass_print(pass, &r->text);
  while (depth--)
    gilt_strbuf_append(&r->text, ")", 1);
  gilt_strbuf_append(&r->text, "'\n", 2);
  gilt_op_print(root, &flags, gilt_strbuf_callback, &r->text);
  if (r->text.data[r->text.len - 1] != '\n')
    gilt_strbuf_append(&r->text, "\n", 1);
}

/* ---- crashes ------------------------------------------------------------ */

static void write_all(int fd, const char *data, size_t len)
{
  while (len) {
    ssize_t n = write(fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    data += n;
    len -= (size_t)n;
  }
}

/* Only async-signal-safe calls here. SA_RESETHAND has already restored
** the default action, so the raise kills the process once we return. */
static void on_crash(int sig)
{
  GiltReproducer *r = armed;
  if (r) {
    int fd = open(r->path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      write_all(fd, r->text.data, r->text.len);
      close(fd);
    }
  }
  raise(sig);
}

void gilt_reproducer_arm(GiltReproducer *r)
{
  if (!r->path)
    return;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_crash;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;
  r->outer = armed;
  armed = r;
  for (size_t i = 0; i < GILT_NUM_CRASH_SIGNALS; i++)
    sigaction(crash_signals[i], &sa, &r->saved[i]);
}

void gilt_reproducer_disarm(GiltReproducer *r)
{
  if (!r->path)
    return;
  for (size_t i = 0; i < GILT_NUM_CRASH_SIGNALS; i++)
    sigaction(crash_signals[i], &r->saved[i], NULL);
  armed = r->outer;
}

/* ---- failures ----------------------------------------------------------- */

void gilt_reproducer_write(GiltReproducer *r, GiltOp *op)
{
  GiltLocation *loc = gilt_op_get_location(op);
  FILE *f = fopen(r->path, "wb");
  if (!f) {
    gilt_emit_error(loc, "cannot write the reproducer to '%s': %s", r->path,
                    strerror(errno));
    return;
  }
  bool ok = fwrite(r->text.data, 1, r->text.len, f) == r->text.len;
  if (fclose(f) != 0 || !ok) {
    gilt_emit_error(loc, "cannot write the reproducer to '%s'", r->path);
    return;
  }
  gilt_emit_diag(loc, GILT_SEVERITY_NOTE, "reproducer written to '%s'",
                 r->path);
}

GiltStatus gilt_reproducer_get_pipeline(const char *buf, size_t len,
                                        const char **pipeline,
                                        size_t *pipeline_len)
{
  size_t n = sizeof header_prefix - 1;
  if (len < n || memcmp(buf, header_prefix, n) != 0)
    return GILT_FAILURE;
  const char *end = memchr(buf, '\n', len);
  if (!end)
    end = buf + len;
  /* The last quote closes: a string option may hold a quote itself. */
  const char *close = end;
  while (close > buf + n && close[-1] != '\'')
    close--;
  if (close == buf + n)
    return GILT_FAILURE;
  *pipeline = buf + n;
  *pipeline_len = (size_t)(close - 1 - (buf + n));
  return GILT_SUCCESS;
}
