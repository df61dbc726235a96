/*
** json.c - JSON strings through a callback (json.h).
*/
#include "ir/support/json.h"

#include <stdio.h>

/* Runs of plain characters go out in one piece; only the characters JSON
** forbids in a string are escaped. */
void gilt_json_put_string(GiltStringCallback cb, void *user, const char *s)
{
  if (!s) {
    cb("null", 4, user);
    return;
  }
  cb("\"", 1, user);
  while (*s) {
    size_t run = 0;
    while (s[run] && s[run] != '"' && s[run] != '\\' &&
           (unsigned char)s[run] >= 0x20)
      run++;
    cb(s, run, user);
    s += run;
    char esc[8];
    if (*s == '"' || *s == '\\') {
      snprintf(esc, sizeof esc, "\\%c", *s++);
      cb(esc, 2, user);
    } else if (*s) {
      snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)*s++);
      cb(esc, 6, user);
    }
  }
  cb("\"", 1, user);
}
