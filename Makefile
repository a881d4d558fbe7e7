# SPDX-License-Identifier: GPL-2.0
# user-events-dkms
#
#   make [KDIR=/usr/src/linux-headers-<ver>]   build user_events.ko
#        [UE_SYSTEM_MAP=<file>]                 the kernel's System.map, where it
#                                               lacks CONFIG_KALLSYMS_ALL (arm64 6.1)
#   make clean
#   make install [INSTALL_MOD_PATH=<root>]     modules_install + depmod for KDIR's kernel
#   make deb                                   build/deb/user-events-dkms_<ver>_all.deb
#                                              and build/deb/user-events-dev_<ver>_all.deb
#   make install-headers [PREFIX=/usr/local]   the UAPI header for programs, as
#        [DESTDIR=<root>]                      <PREFIX>/include/user-events/linux/user_events.h,
#                                              and <PREFIX>/share/pkgconfig/user-events.pc
#   make copy-sources DEST=<dir>               the module's sources, as DKMS builds them
#   make copy-package-tree DEST=<dir>          the tree make deb builds the packages from
#   make dkms-install [KERNELRELEASE=<ver>]    dkms add, build, install
#   make dkms-remove                           dkms remove --all, drop the sources
#   make check                                 the whole test suite, in VMs
#   make check-report DIRS="<dir>..."          one table and verdict from the results
#                                              directories of several shards of make check
#                                              (UE_KERNELS, UE_BUILD_DIR; into build/check-report/)
#   make soak [DURATION=2h] [KERNEL=<row>]     the stress suite for hours on one kernel
#                                              (default: rig/kernels.list's soak row;
#                                              results in build/soak/)
#   make demo [ARCH=arm64]                     boot a Debian kernel (rig/kernels.list's
#                                              demo row of ARCH) in QEMU and show it work
#   make bench                                 ours vs the in-kernel user_events, in VMs
#                                              (results in build/bench/)
#   make bench-docs                            the last make bench's results into docs/
#   make check-fresh                           demo, check and bench in new Debian 12 roots
#
# Each entry point installs the Debian packages it needs (tests/deps.sh);
# the module build needs only the kernel's headers and installs nothing.

KDIR ?= /lib/modules/$(shell uname -r)/build
UE_VERSION := $(shell cat $(CURDIR)/VERSION)

# Debian's headers name the compiler the kernel was built with (gcc-10 for
# Debian 11's 5.10). Where that compiler is not installed, as when building
# for 5.10 on Debian 12, use the default gcc.
KERNEL_CC := $(firstword $(shell sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}//p' \
		$(KDIR)/include/config/auto.conf 2>/dev/null))
ifneq ($(KERNEL_CC),)
ifeq ($(shell command -v $(CROSS_COMPILE)$(KERNEL_CC)),)
KBUILD_CC := CC=$(CROSS_COMPILE)gcc
endif
endif

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) UE_VERSION=$(UE_VERSION) $(KBUILD_CC)

# The module's sources, as DKMS builds them in /usr/src/user-events-<VERSION>/
# (the .deb, make dkms-install; dkms.conf goes there with its version
# written in). Not scripts/user-events-run: it boots VMs with the test rig
# of a checkout.
MODULE_SOURCES := Makefile Kbuild VERSION src include scripts
# The tree the Debian packages are built from.
PACKAGE_TREE := $(MODULE_SOURCES) dkms.conf tools debian README.md

.PHONY: all modules kernel-check clean check check-report soak install install-headers deb \
	copy-sources copy-package-tree dkms-install dkms-remove demo bench bench-docs check-fresh

all: modules

modules: kernel-check
ifneq ($(KBUILD_CC),)
	@echo "note: $(KERNEL_CC), which built this kernel, is not installed; building with gcc"
endif
	$(KMAKE) modules

kernel-check:
	@$(CURDIR)/scripts/check-kernel.sh $(KDIR) $(UE_SYSTEM_MAP)

clean:
	rm -rf build
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.a' -o -name '.*.d' \
		-o -name ue_sysmap.h -o -name ue_probes.h \) \
		-not -path './.git/*' -delete
	rm -rf Module.symvers modules.order src/compat/.ue_probes.tmp

# updates/, as DKMS uses, so that depmod prefers it to any in-tree copy.
INSTALL_MOD_DIR ?= updates
install: modules
	$(KMAKE) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a \
		$(or $(KERNELRELEASE_OF_KDIR),$(shell uname -r))

# The release KDIR was built for (from its headers), for depmod.
KERNELRELEASE_OF_KDIR = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# The UAPI header for programs (what user-events-dev installs, with
# PREFIX=/usr: debian/rules), in a directory of its own so that it cannot
# clash with linux-libc-dev's /usr/include/linux/ (Debian 13's has a
# user_events.h): "cc $$(pkg-config --cflags user-events)" puts it first.
# The .pc file goes to share/pkgconfig: the header is the same on every
# architecture.
PREFIX ?= /usr/local
define UE_PC
prefix=$(PREFIX)
includedir=$${prefix}/include

Name: user-events
Description: Linux user_events tracing UAPI header (the 6.4+ ABI) of user-events-dkms
Version: $(UE_VERSION)
Cflags: -I$${includedir}/user-events
endef
export UE_PC
install-headers:
	install -D -m 644 include/uapi/linux/user_events.h \
		$(DESTDIR)$(PREFIX)/include/user-events/linux/user_events.h
	install -d $(DESTDIR)$(PREFIX)/share/pkgconfig
	printf '%s\n' "$$UE_PC" >$(DESTDIR)$(PREFIX)/share/pkgconfig/user-events.pc
	chmod 644 $(DESTDIR)$(PREFIX)/share/pkgconfig/user-events.pc

# dpkg-buildpackage writes into the parent directory; collect its output in
# build/deb/. Runs on a copy of the tree so that debian/'s scratch files
# never land in the checkout.
# (The copies the test rig builds from have no tests/: it installed them.)
deb:
ifneq ($(wildcard $(CURDIR)/tests/deps.sh),)
	bash -c '. $(CURDIR)/tests/deps.sh && ue_deps_install deb'
endif
	rm -rf build/deb
	$(MAKE) -s copy-package-tree DEST=build/deb/src
	cd build/deb/src && dpkg-buildpackage -us -uc -b >../dpkg-buildpackage.log 2>&1 || \
		{ tail -20 ../dpkg-buildpackage.log; exit 1; }
	rm -rf build/deb/src
	@echo "built: $(CURDIR)/build/deb/user-events-dkms_$(UE_VERSION)_all.deb"
	@echo "built: $(CURDIR)/build/deb/user-events-dev_$(UE_VERSION)_all.deb"

# DKMS from a checkout: the sources go to /usr/src/user-events-<VERSION>/ as
# the .deb puts them, with the version written into dkms.conf. MAKEFLAGS is
# dropped so that KERNELRELEASE=... does not leak into dkms's own make. A
# version added before is removed first, so that a second run reinstalls.
DKMS_SRC := /usr/src/user-events-$(UE_VERSION)
DKMS_K := $(if $(KERNELRELEASE),-k $(KERNELRELEASE))
DKMS := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL dkms

# (without what a build in this tree left: DKMS builds its own, and lintian
# refuses binaries in an arch-independent package)
copy-sources:
	test -n "$(DEST)" && mkdir -p $(DEST)
	tar -c --exclude=scripts/user-events-run --exclude='*.o' --exclude='*.ko' \
		--exclude='*.ko.*' --exclude='*.mod' --exclude='*.mod.c' --exclude='.*.cmd' \
		--exclude='.*.d' --exclude=modules.order --exclude=Module.symvers \
		--exclude=ue_sysmap.h --exclude=ue_probes.h --exclude=.ue_probes.tmp \
		$(MODULE_SOURCES) | tar -x -C $(DEST)

copy-package-tree:
	test -n "$(DEST)" && mkdir -p $(DEST)
	cp -a $(PACKAGE_TREE) $(DEST)/

dkms-install:
	-$(DKMS) remove -m user-events -v $(UE_VERSION) --all >/dev/null 2>&1
	rm -rf $(DKMS_SRC)
	$(MAKE) -s copy-sources DEST=$(DKMS_SRC)
	sed 's/#MODULE_VERSION#/$(UE_VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf
	$(DKMS) add -m user-events -v $(UE_VERSION)
	$(DKMS) build -m user-events -v $(UE_VERSION) $(DKMS_K)
	$(DKMS) install -m user-events -v $(UE_VERSION) $(DKMS_K)

dkms-remove:
	-$(DKMS) remove -m user-events -v $(UE_VERSION) --all
	rm -rf $(DKMS_SRC)

check:
	rig/check/check.sh

# The shards of a CI matrix, merged (docs/testing.md, Shards): DIRS is
# their results directories; a missing one fails the report, by name.
check-report:
	rig/report/check-report.sh $(DIRS)

# (DURATION and KERNEL: rig/check/soak.sh's defaults where not given)
soak:
	DURATION=$(DURATION) KERNEL=$(KERNEL) rig/check/soak.sh

demo:
	rig/check/demo.sh $(ARCH)

bench:
	bench/run.sh

bench-docs:
	bench/docs.sh

check-fresh:
	tests/fresh/run.sh
