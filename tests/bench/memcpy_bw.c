// SPDX-License-Identifier: BSD-2-Clause
/*
 * memcpy_bw [-s CHUNK] [-m MIB] [-t SECONDS]
 *
 * The guest's copy bandwidth, the ceiling a software HCA's data path is
 * compared with in make bench: memcpy of CHUNK bytes (default 65536, the
 * message size of the bandwidth rows) from a source buffer of MIB MiB
 * (default 64, larger than any cache) to a destination of the same size,
 * walking both buffers, for SECONDS seconds (default 2).  Prints
 * "memcpy_bw CHUNK MB/s" (10^6 bytes per second, as perftest reports).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	size_t chunk = 65536, mib = 64, len, off = 0;
	double secs = 2, t0, t;
	unsigned long long bytes = 0;
	unsigned char *src, *dst;
	volatile unsigned char sink;
	int o;

	while ((o = getopt(argc, argv, "s:m:t:")) != -1) {
		switch (o) {
		case 's':
			chunk = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			mib = strtoul(optarg, NULL, 0);
			break;
		case 't':
			secs = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: memcpy_bw [-s CHUNK] [-m MIB] [-t SECONDS]\n");
			return 2;
		}
	}
	len = mib << 20;
	if (!chunk || chunk > len || len % chunk || secs <= 0) {
		fprintf(stderr, "memcpy_bw: CHUNK must divide MIB MiB, SECONDS > 0\n");
		return 2;
	}
	src = malloc(len);
	dst = malloc(len);
	if (!src || !dst) {
		perror("memcpy_bw: malloc");
		return 1;
	}
	/* touch every page so that no page fault is timed */
	memset(src, 0x5a, len);
	memset(dst, 0, len);
	t0 = now();
	do {
		/* 64 copies between clock reads */
		for (int i = 0; i < 64; i++) {
			memcpy(dst + off, src + off, chunk);
			off = (off + chunk) % len;
			bytes += chunk;
		}
		t = now() - t0;
	} while (t < secs);
	sink = dst[(off + len - 1) % len];
	(void)sink;
	printf("memcpy_bw %zu %.1f\n", chunk, bytes / t / 1e6);
	free(src);
	free(dst);
	return 0;
}
