// SPDX-License-Identifier: GPL-2.0
/*
 * The rate of this machine's TSC in kHz, measured against CLOCK_MONOTONIC_RAW
 * over 200 ms. Under TCG an x86 guest's TSC is the host's (QEMU reads it with
 * rdtsc), so the rig hands this rate to its amd64 guests (tsc_early_khz=,
 * rig/lib/vm-lib.sh): a guest then never times its TSC itself, which it
 * does wrongly when the host starves its vCPU at boot.
 */
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(void)
{
	struct timespec nap = { 0, 200000000 };
	unsigned long long c0, c1;
	double t0, t1;

	t0 = seconds();
	c0 = __rdtsc();
	nanosleep(&nap, NULL);
	c1 = __rdtsc();
	t1 = seconds();
	if (t1 <= t0 || c1 <= c0)
		return 1;
	printf("%.0f\n", (c1 - c0) / (t1 - t0) / 1000);
	return 0;
}
