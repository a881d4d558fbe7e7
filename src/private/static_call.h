/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the module calls the unexported kernel functions it resolves
 * (private/ksyms.c): through module-local static calls, on every
 * architecture, whose safety differs with what the architecture has.
 *
 * With CONFIG_HAVE_STATIC_CALL (x86, every amd64 kernel from 5.10 to 7.3),
 * static_call_update() rewrites the call site's trampoline into a direct
 * branch to the function. That is required where the kernel checks
 * indirect branches: Debian's 6.12 and later have CONFIG_X86_KERNEL_IBT,
 * which seals the ENDBR of every function that is not address-taken, so
 * an indirect call to one would be a #CP oops.
 *
 * Without it (arm64: no kernel up to 7.3 implements static calls there),
 * static_call() is an indirect call through the key's pointer (a BLR).
 * On arm64 that is safe as long as the kernel checks nothing at the
 * target of an indirect branch:
 * - CONFIG_ARM64_BTI_KERNEL marks kernel text as guarded, and a BLR must
 *   then land on a BTI C (or PACIASP) instruction. The compiler only
 *   promises one in functions it knows may be called indirectly, so an
 *   unexported function may lack it: a BLR to it is a BTI exception.
 * - kCFI checks a type hash in front of the target before every indirect
 *   call; nothing promises one matching ours there. Its option was
 *   CONFIG_CFI_CLANG up to 6.17 and is CONFIG_CFI from 6.18 on (Debian's
 *   6.12 configs say ARCH_SUPPORTS_CFI_CLANG, its 7.3 ones
 *   ARCH_SUPPORTS_CFI): both are tested, as a kernel has only the name of
 *   its time. (MTD's CONFIG_MTD_CFI is another option.)
 * - Pointer authentication of the kernel (CONFIG_ARM64_PTR_AUTH_KERNEL,
 *   on in Debian's arm64 kernels) signs and checks return addresses
 *   inside each function, with the stack pointer as modifier: the callee
 *   signs the LR our BLR set and checks it before returning to us, as for
 *   any call, so it does not care how it was reached.
 * Debian's arm64 kernels (6.1 to 7.3) have neither of the first two: they
 * are built with gcc, and both need clang (ARM64_BTI_KERNEL since 6.0, for
 * gcc's bug 106671). A kernel without static calls that has either, or an
 * IBT kernel without them (which cannot be built today), is refused here
 * at build time, and by scripts/check-kernel.sh before, with one sentence.
 */
#ifndef UE_PRIVATE_STATIC_CALL_H
#define UE_PRIVATE_STATIC_CALL_H

#include <linux/static_call.h>

#if !defined(CONFIG_HAVE_STATIC_CALL) && \
	(defined(CONFIG_ARM64_BTI_KERNEL) || defined(CONFIG_CFI_CLANG) || \
	 defined(CONFIG_CFI) || defined(CONFIG_X86_KERNEL_IBT))
#error "user-events-dkms: BTI, CFI or IBT and no static calls: see private/static_call.h"
#endif

#endif /* UE_PRIVATE_STATIC_CALL_H */
