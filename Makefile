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

# KVER as given on the command line, before the default below fills it in
# (`make dkms-remove` without KVER removes it for every kernel).
KVER_GIVEN := $(KVER)
KDIR_GIVEN := $(KDIR)

ifeq ($(KDIR),)
ifeq ($(KVER),)
KVER := $(shell d=/lib/modules/$$(uname -r)/build; \
	if [ -e $$d/Makefile ]; then uname -r; else \
	ls -d /lib/modules/*/build/Makefile 2>/dev/null | \
	sed 's|/lib/modules/\([^/]*\)/build/Makefile|\1|' | sort -V | tail -n 1; fi)
endif
KDIR := /lib/modules/$(KVER)/build
endif
# The release the headers in KDIR are for (KVER may be unset with KDIR=):
# UTS_RELEASE, as in the module's vermagic.  Not kernel.release, which
# says "6.1.192" in Debian's headers for 6.1.0-57-amd64.
KREL = $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

KBUILD_ARGS := -C $(KDIR) M=$(SRC)
ifneq ($(W),)
KBUILD_ARGS += W=$(W)
endif
ifneq ($(C),)
KBUILD_ARGS += C=$(C)
endif

# The commit a build from this checkout comes from (Kbuild adds it to the
# version); empty outside git.
GIT_DESCRIBE := $(shell [ -e $(SRC)/.git ] && git -C $(SRC) describe --always --dirty --abbrev=12 2>/dev/null)

# Sources a module build needs (`make ko` copies them into BUILD_DIR).
MOD_SRCS := tcp_cdg.c Kbuild dkms.conf $(wildcard include/*.h)
BUILD_DIR = $(SRC)/build/$(or $(KVER),$(KREL))

# Run as root in a tree somebody else owns (`sudo make install`), what
# the per-kernel build writes goes back to the tree's owner: root-owned
# files in build/ would make that user's next `make ko` fail.
TREE_OWNER := $(shell stat -c %u:%g $(SRC))
give_back = if [ "$$(id -u)" = 0 ] && [ "$(TREE_OWNER)" != 0:0 ]; then \
	chown $(TREE_OWNER) $(SRC)/build && chown -R $(TREE_OWNER) $(BUILD_DIR); fi

.PHONY: all modules ko clean distclean headers-check
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
	@rc=0; $(MAKE) -C $(KDIR) M=$(BUILD_DIR) $(if $(W),W=$(W)) $(if $(C),C=$(C)) \
		$(if $(GIT_DESCRIBE),TCP_CDG_GIT=$(GIT_DESCRIBE)) modules || rc=$$?; \
	$(give_back); exit $$rc

# Userspace unit tests; the work is in tests/unit (its Makefile and run.sh).
.PHONY: unit
unit:
	@$(MAKE) -s -C $(SRC)/tests/unit

# The project's user targets; the work is in scripts/.
.PHONY: check check-full check-vm check-debug demo bench bench-trace
check:
	$(SRC)/scripts/check.sh

# make check with every VM test on every kernel line (make check runs the
# whole VM suite on the oldest and the newest line only).
check-full:
	CHECK_FULL=1 $(SRC)/scripts/check.sh

# VM tests (scripts/vm/suite.sh builds the module for each kernel):
# make check-vm [T="test ..."] [KVER=...]; without KVER, every kernel
# scripts/vm/kernels.sh unpacked under build/kernels/root.
check-vm:
	@$(SRC)/scripts/vm/suite.sh $(if $(KVER_GIVEN),--kver $(KVER_GIVEN)) $(T)

# Debian's kernel lines 5.10, 6.1, 6.12 and 7.3 from Debian's packages
# (cached in build/kernels/), the module built W=1 C=1 against each, in a
# chroot of the line's suite where its compiler is not this host's:
# make kernels [LINES="5.10 7.3"].  Boot them with CDG_KROOT=build/kernels/root.
.PHONY: kernels
kernels:
	@$(SRC)/scripts/vm/kernels.sh build $(LINES)

# The VM suite on a KASAN/KMEMLEAK/UBSAN/lockdep/failslab kernel built from
# Debian's linux-source (cached in build/debug-kernel/): make check-debug [T=].
check-debug:
	@T="$(T)" $(SRC)/scripts/check-debug.sh

demo:
	$(SRC)/scripts/bench/demo.sh

bench:
	$(SRC)/scripts/bench/bench.sh

bench-trace:
	$(SRC)/scripts/bench/trace-cost.sh

# Packaging and installation (docs/install.md); the work is in scripts/.
#   make dkms-install [KVER=]   make dkms-remove [KVER=]
#   make install [KVER=] [DESTDIR=] [KEY= CERT=]   make uninstall
#   make load [ARGS="window=16"]   make unload   (the running kernel)
#   make sign KEY=key.pem CERT=cert.pem [SIG_HASH=sha256]
#   make deb    make check-pkg
.PHONY: dkms-install dkms-remove install uninstall load unload sign deb check-pkg
SIG_HASH ?= sha256

dkms-install: headers-check
	$(SRC)/scripts/pkg/dkms.sh install $(or $(KVER),$(KREL))

dkms-remove:
	$(SRC)/scripts/pkg/dkms.sh remove $(KVER_GIVEN)

# With KEY and CERT the module is signed before it is installed.
install: ko
	$(if $(KEY)$(CERT),$(SRC)/scripts/pkg/sign.sh "$(KDIR)" "$(KEY)" "$(CERT)" "$(BUILD_DIR)/tcp_cdg.ko" $(SIG_HASH) && $(give_back))
	$(SRC)/scripts/pkg/install.sh install "$(KDIR)" "$(BUILD_DIR)" "$(DESTDIR)"
	@$(give_back)

# KVER alone is enough here: the headers may be gone already.  Without
# KVER or KDIR, install.sh is told the kernel is only the default (maybe
# none, when no headers are left): it fails rather than report "not
# installed" for a kernel the user did not mean.
uninstall:
	$(SRC)/scripts/pkg/install.sh uninstall $(if $(KVER_GIVEN)$(KDIR_GIVEN),"$(or $(KVER_GIVEN),$(KDIR))",--default "$(KVER)") "$(DESTDIR)"

load:
	$(SRC)/scripts/pkg/load.sh load $(ARGS)

unload:
	$(SRC)/scripts/pkg/load.sh unload

sign: ko
	$(SRC)/scripts/pkg/sign.sh "$(KDIR)" "$(KEY)" "$(CERT)" "$(BUILD_DIR)/tcp_cdg.ko" $(SIG_HASH)
	@$(give_back)

deb:
	$(SRC)/scripts/pkg/deb.sh

check-pkg:
	$(SRC)/scripts/check-pkg.sh

# clean keeps the debug kernel (build/debug-kernel: a long build) and
# the other Debian kernels (build/kernels: downloads and two chroots);
# distclean removes them too.  Not kbuild's `make M=$(SRC) clean`: that
# runs find over the whole of $(SRC) and deletes every *.o and *.ko under
# it, the modules of those kernel trees included.  The in-place build
# (`make`, `make modules`) leaves its products in $(SRC) itself only.
KBUILD_PRODUCTS := *.o *.ko *.mod *.mod.c .*.cmd *.symvers *.order *.dwo \
	.tmp_versions .cache.mk
clean:
	cd $(SRC) && rm -rf $(KBUILD_PRODUCTS)
	find $(SRC)/build -mindepth 1 -maxdepth 1 ! -name debug-kernel ! -name kernels -exec rm -rf {} + 2>/dev/null || true

distclean: clean
	rm -rf build

endif
