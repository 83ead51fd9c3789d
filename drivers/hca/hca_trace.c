// SPDX-License-Identifier: GPL-2.0
/* The tracepoints of hca_trace.h, defined once. */
#define CREATE_TRACE_POINTS
#include "hca.h"
#include "hca_trace.h"
