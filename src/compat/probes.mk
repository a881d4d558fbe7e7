# SPDX-License-Identifier: GPL-2.0
# Kernel APIs that stable kernels backport, found by compiling a probe for
# each against the headers of the kernel we build for, as a file of the
# module would be, rather than by version number: src/compat/probe/NAME.c
# compiles only where the kernel has what it looks for. scripts/probes.sh
# compiles them (together where it can: docs/design.md, Compile probes)
# and writes src/compat/ue_probes.h, which
# defines UE_HAVE_<NAME> for each that compiled; the compat headers read it
# through compat/probes.h. Included by Kbuild.
#
# The probes get the kernel's compiler and its flags for a module (those of
# scripts/Makefile.lib's c_flags that do not name the file compiled), with
# -fsyntax-only: parsing the headers is all a probe needs, and all it
# costs. Without -Werror (CONFIG_WERROR): a probe fails on an error, which
# a missing API always is, never on a warning from the headers. if_changed
# runs them once per build directory, and again only where that command
# (another kernel, compiler or flags) or a probe changed. Every object that
# includes the compat headers waits for the header.

ue-probes := $(sort $(wildcard $(src)/src/compat/probe/*.c))
ue-probe-cc = $(CC) $(NOSTDINC_FLAGS) $(LINUXINCLUDE) \
	-include $(srctree)/include/linux/compiler_types.h \
	$(filter-out -Werror,$(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) \
		$(KBUILD_CFLAGS_MODULE) $(CFLAGS_MODULE)) \
	-DKBUILD_BASENAME='"ue_probe"' -DKBUILD_MODNAME='"ue_probe"' \
	-D__KBUILD_MODNAME=kmod_ue_probe -fsyntax-only

quiet_cmd_ue_probes = PROBE   $@
      cmd_ue_probes = $(CONFIG_SHELL) $(src)/scripts/probes.sh $@ \
		      $(ue-probes) -- $(ue-probe-cc)

$(obj)/src/compat/ue_probes.h: $(src)/scripts/probes.sh $(ue-probes) FORCE
	$(call if_changed,ue_probes)
targets += src/compat/ue_probes.h
clean-files += src/compat/ue_probes.h src/compat/.ue_probes.tmp
$(obj)/src/module.o $(obj)/src/race.o: $(obj)/src/compat/ue_probes.h
