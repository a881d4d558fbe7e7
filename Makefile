# SPDX-License-Identifier: GPL-2.0
# user-events-dkms
#
#   make [KDIR=/usr/src/linux-headers-<ver>]   build user_events.ko
#   make clean
#   make check                                 the whole test suite, in VMs

KDIR ?= /lib/modules/$(shell uname -r)/build
UE_VERSION := $(shell cat $(CURDIR)/VERSION)

# Debian's headers name the compiler the kernel was built with (gcc-10 for
# Debian 11's 5.10). Where that compiler is not installed, as when building
# for 5.10 on Debian 12, use the default gcc.
KERNEL_CC := $(firstword $(shell sed -n 's/^CONFIG_CC_VERSION_TEXT="\{0,1\}//p' \
		$(KDIR)/include/config/auto.conf 2>/dev/null))
ifneq ($(KERNEL_CC),)
ifeq ($(shell command -v $(KERNEL_CC)),)
KBUILD_CC := CC=gcc
endif
endif

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) UE_VERSION=$(UE_VERSION) $(KBUILD_CC)

.PHONY: all modules kernel-check clean check

all: modules

modules: kernel-check
ifneq ($(KBUILD_CC),)
	@echo "note: $(KERNEL_CC), which built this kernel, is not installed; building with gcc"
endif
	$(KMAKE) modules

kernel-check:
	@$(CURDIR)/scripts/check-kernel.sh $(KDIR)

clean:
	rm -rf build
	find . \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name '*.a' -o -name '.*.d' \) \
		-not -path './.git/*' -delete
	rm -f Module.symvers modules.order

check:
	tests/vm/check.sh
