/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tap.h: the TAP output of the test programs that print one line per
 * check ("ok N - ..." / "not ok N - ..."), counting the checks and the
 * failures for the program's exit status.
 */
#ifndef XIB_TESTS_TAP_H
#define XIB_TESTS_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int checks, failures;

static void __attribute__((format(printf, 2, 3))) ok(int cond, const char *fmt, ...)
{
	va_list ap;

	checks++;
	if (!cond)
		failures++;
	printf("%sok %d - ", cond ? "" : "not ", checks);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#endif
