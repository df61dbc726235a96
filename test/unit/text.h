/*
** text.h - a fixed buffer the unit tests print into.
**
** `text_append` is a GiltStringCallback that appends to the Text passed as
** `user`, truncating (never overflowing) when the buffer is full, and keeps
** it NUL-terminated. Header-only because each test is its own program.
*/
#ifndef GILT_TEST_TEXT_H
#define GILT_TEST_TEXT_H

#include <string.h>

typedef struct Text {
  char data[1 << 16];
  size_t len;
} Text;

static void text_append(const char *data, size_t len, void *user)
{
  Text *t = user;
  if (t->len + len >= sizeof t->data)
    len = sizeof t->data - 1 - t->len;
  memcpy(t->data + t->len, data, len);
  t->len += len;
  t->data[t->len] = '\0';
}

#endif /* GILT_TEST_TEXT_H */
