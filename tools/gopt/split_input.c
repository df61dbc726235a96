/*
** split_input.c - cutting the input at `// -----` lines.
**
** A chunk is copied behind as many newlines as there are lines before it,
** which keeps line and column numbers absolute at the cost of one newline
** per earlier line: a few kilobytes for the largest test files.
*/
#include "tools/gopt/split_input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_marker(const char *line, const char *eol)
{
  size_t n = strlen(GOPT_SPLIT_MARKER);
  return (size_t)(eol - line) >= n && !memcmp(line, GOPT_SPLIT_MARKER, n);
}

/* Runs fn on text[0, len) as it would stand after `lines_before` lines. */
static GiltStatus run_chunk(const char *text, size_t len,
                            size_t lines_before, size_t index,
                            GoptChunkFn fn, void *user)
{
  char *chunk = malloc(lines_before + len + 1);
  if (!chunk) {
    fputs("gopt: out of memory\n", stderr);
    return GILT_FAILURE;
  }
  memset(chunk, '\n', lines_before);
  memcpy(chunk + lines_before, text, len);
  chunk[lines_before + len] = '\0';
  GiltStatus status = fn(chunk, lines_before + len, index, user);
  free(chunk);
  return status;
}

GiltStatus gopt_split_input(const char *buf, size_t len, bool split,
                            GoptChunkFn fn, void *user)
{
  if (!split)
    return fn(buf, len, 0, user);
  GiltStatus status = GILT_SUCCESS;
  const char *end = buf + len, *start = buf;
  size_t index = 0, line = 0, start_line = 0;
  for (const char *p = buf;; line++) {
    const char *eol = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
    const char *next = eol ? eol + 1 : end;
    if (p == end || is_marker(p, eol ? eol : end)) {
      if (run_chunk(start, (size_t)(p - start), start_line, index++, fn,
                    user) != GILT_SUCCESS)
        status = GILT_FAILURE;
      if (p == end)
        break;
      start = next;
      start_line = line + 1;
    }
    p = next;
  }
  return status;
}
