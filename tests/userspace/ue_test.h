/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Assertions for the C suites run inside the test VM. Every check prints one
 * line "UE-RESULT <suite> pass|fail <case> [detail]" that the host counts.
 */
#ifndef UE_TEST_H
#define UE_TEST_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *ue_suite = "unnamed";
static int ue_failures;

static inline void ue_result(const char *name, int ok, const char *detail)
{
	printf("UE-RESULT %s %s %s%s%s\n", ue_suite, ok ? "pass" : "fail",
	       name, ok ? "" : " ", ok ? "" : detail);
	fflush(stdout);
	if (!ok)
		ue_failures++;
}

/* Integer equality. */
#define UE_EQ(name, got, want) do {					\
	long long __g = (long long)(got), __w = (long long)(want);	\
	char __d[512];							\
	snprintf(__d, sizeof(__d), "%.160s = %lld (0x%llx), want %lld (0x%llx)", \
		 #got, __g, (unsigned long long)__g, __w,		\
		 (unsigned long long)__w);				\
	ue_result(name, __g == __w, __d);				\
} while (0)

/* A call returning -1 must fail with errno ERR. */
#define UE_ERRNO(name, call, err) do {					\
	int __want = (err), __got;					\
	long __r;							\
	char __d[512];							\
	errno = 0;							\
	__r = (long)(call);						\
	__got = errno;							\
	snprintf(__d, sizeof(__d), "%.160s returned %ld, errno %d (%.40s), want errno %d (%.40s)", \
		 #call, __r, __got, strerror(__got), __want, strerror(__want)); \
	ue_result(name, __r == -1 && __got == __want, __d);		\
} while (0)

/* String equality. */
#define UE_STREQ(name, got, want) do {					\
	const char *__gs = (got), *__ws = (want);			\
	char __d[1024];							\
	snprintf(__d, sizeof(__d), "got \"%.480s\", want \"%.480s\"", __gs, __ws); \
	ue_result(name, strcmp(__gs, __ws) == 0, __d);			\
} while (0)

#endif /* UE_TEST_H */
