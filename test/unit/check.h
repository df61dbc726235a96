/*
** check.h - the one assertion macro the unit tests share.
**
** A failed CHECK prints file, line and condition and counts the failure;
** the test goes on so one run reports every failure. main() returns
** check_failures != 0. Header-only because each test is its own program.
*/
#ifndef GILT_TEST_CHECK_H
#define GILT_TEST_CHECK_H

#include <stdio.h>

static int check_failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,       \
              #cond);                                                        \
      check_failures++;                                                      \
    }                                                                        \
  } while (0)

#endif /* GILT_TEST_CHECK_H */
