# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of tcp_cdg plus the project's user targets.
#
#   make [KVER=x.y.z-flavour | KDIR=/path/to/build] [W=1] [C=1]
#
# Without KVER or KDIR the running kernel's headers are used if present,
# otherwise the newest tree under /lib/modules/*/build.

ifneq ($(KERNELRELEASE),)
include $(src)/Kbuild
else

SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(SRC)/dkms.conf)

ifeq ($(KDIR),)
ifeq ($(KVER),)
KVER := $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -e $$d/Makefile ]; then uname -r; else \
	ls -d /lib/modules/*/build/Makefile 2>/dev/null | \
	sed 's|/lib/modules/\([^/]*\)/build/Makefile|\1|' | sort -V | tail -n 1; fi)
endif
KDIR := /lib/modules/$(KVER)/build
endif
# The release the headers in KDIR are for (KVER may be unset with KDIR=).
KREL = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)

KBUILD_ARGS := -C $(KDIR) M=$(SRC)
ifneq ($(W),)
KBUILD_ARGS += W=$(W)
endif
ifneq ($(C),)
KBUILD_ARGS += C=$(C)
endif

# Sources a module build needs (`make ko` copies them into BUILD_DIR).
MOD_SRCS := tcp_cdg.c Kbuild dkms.conf $(wildcard include/*.h)
BUILD_DIR = $(SRC)/build/$(or $(KVER),$(KREL))

.PHONY: all modules ko clean headers-check
all: modules

headers-check:
	@if [ ! -e "$(KDIR)/Makefile" ]; then \
		echo "tcp_cdg: no kernel headers at '$(KDIR)'." >&2; \
		echo "  install them (Debian: apt-get install linux-headers-amd64," >&2; \
		echo "  or run scripts/deps.sh), or pick a tree with KVER= or KDIR=." >&2; \
		exit 1; fi
	@echo "tcp_cdg $(VERSION): building against $(or $(KVER),$(KREL)) headers in $(KDIR)"

modules: headers-check
	$(MAKE) $(KBUILD_ARGS) modules

# A per-kernel build beside the others: build/<kver>/tcp_cdg.ko.  The VM
# harness and the kernel matrix use this, so several kernels never share
# one set of objects.
ko: headers-check
	@mkdir -p $(BUILD_DIR)/include
	@cd $(SRC) && for f in $(MOD_SRCS); do \
		cmp -s $$f $(BUILD_DIR)/$$f || cp $$f $(BUILD_DIR)/$$f; done
	$(MAKE) -C $(KDIR) M=$(BUILD_DIR) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules

# The project's user targets; the work is in scripts/.
.PHONY: check demo bench
check:
	$(SRC)/scripts/check.sh

demo:
	$(SRC)/scripts/demo.sh

bench:
	$(SRC)/scripts/bench.sh

clean:
	-[ ! -e "$(KDIR)/Makefile" ] || $(MAKE) -C $(KDIR) M=$(SRC) clean
	rm -rf build

endif
