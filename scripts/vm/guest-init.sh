#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM (installed by scripts/vm/mkinitramfs.sh; runs as PID 1).
#
# Runs one test, tests/vm/$CDG_TEST.sh, and powers off.  It talks to the host
# (scripts/vm/run.sh) on two serial ports:
#
#   ttyS0  the kernel console: boot log, printk, panics (kept as the log file)
#   ttyS1  the test's TAP stream, free of printk noise, plus harness lines
#          that all start with "# cdg-" (comments to any TAP consumer):
#            # cdg-boot KREL        /init is running (a panic before this line
#                                   is a boot flake that run.sh retries)
#            # cdg-start TEST       the test is about to run
#            # cdg-error REASON     the harness inside the guest failed
#            # cdg-bad LINE         a kernel log line that fails the test
#                                   (or a kmemleak report, on a kernel
#                                   that has kmemleak)
#            # cdg-kmemleak N       objects kmemleak found unreferenced
#            # cdg-exit RC          the test's exit status; nothing follows
#
# The per-run settings come from /etc/cdg-run, a small cpio archive run.sh
# appends to the cached initramfs (with run.sh --in's files in /out.in):
# CDG_TEST, CDG_ARGS (array), CDG_SHARE (1: /out is copied to the 9p share
# "out" after the test) and CDG_GUEST_TIMEOUT (seconds).
#
# This is bash, not busybox sh: busybox runs its own applets (ip, modprobe,
# sysctl...) before $PATH, and those lack what the tests use.

export PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
ln -sfn /proc/self/fd /dev/fd	# bash's process substitution needs it
ln -sfn fd/0 /dev/stdin; ln -sfn fd/1 /dev/stdout; ln -sfn fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=0755 tmpfs /run	# ip netns needs a writable /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=0755 tmpfs /out	# copied to the host's --out at the end
hostname cdg-vm
ip link set lo up

# The TAP channel: raw, so that nothing rewrites the test's bytes.
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1
tap() { printf '%s\n' "$*" >&3; }
tap "# cdg-boot $(uname -r) $(cut -d' ' -f1 /proc/uptime)s"

finish() {
	tap "# cdg-exit $1"
	exec 3>&-	# closing the tty waits until its output has drained
	sync
	poweroff -f
	reboot -f	# -no-reboot turns this into an exit too
}

# shellcheck disable=SC1091 # written by run.sh for each boot
if ! . /etc/cdg-run; then
	tap "# cdg-error /etc/cdg-run missing or broken"
	finish 2
fi

# run.sh --in: its files came in the per-run archive (/out.in); the test
# writes to the tmpfs /out, and with --out /out goes to the host through
# the 9p share only after the test.  A 9p request completes when
# a host thread gets to it, so any 9p traffic while the test runs would
# make the guest's timing depend on the host (scripts/vm/run.sh, virtual
# time); after the test nothing measured depends on it.
[ ! -d /out.in ] || cp -a /out.in/. /out/
share_out() {
	# virtio_pci is built in on 6.12, a module on 6.1: load what exists.
	for m in virtio_pci 9pnet_virtio 9p; do
		modprobe -q "$m" 2>/dev/null
	done
	mkdir -p /share
	if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 \
			out /share; then
		tap "# cdg-error cannot mount the 9p share: the results stay in the guest"
		return
	fi
	cp -a /out/. /share/ || tap "# cdg-error copying /out to the host failed"
	umount /share
}

case $CDG_TEST in
*/*) test_sh=/$CDG_TEST.sh ;;	# a guest script, where the tree has it
*) test_sh=/tests/vm/$CDG_TEST.sh ;;
esac
if [ ! -f "$test_sh" ]; then
	tap "# cdg-error no test $CDG_TEST in the initramfs"
	finish 2
fi

# Kernel log lines that fail any test, wherever they come from.  Only what
# is logged after the mark counts: boot messages are not the test's.
bad_re='WARNING|BUG|Oops|KASAN|UBSAN|general protection|[Ss][Ll][Aa][Bb]|Call Trace|Kernel panic|refcount_t|list_(add|del) corruption|double free|use-after-free|Poison overwritten|Redzone|soft lockup|hung_task|stalls on CPU'
# A kmemleak kernel (scripts/vm/debug-kernel.sh): what boot left unreferenced
# is not the test's, so it is scanned and forgotten now; after the test a
# new scan reports what the test left behind.
kml=/sys/kernel/debug/kmemleak
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
if [ -w "$kml" ]; then
	echo scan > "$kml"
	echo clear > "$kml"
fi
mark="cdg-vm: start of test $CDG_TEST"
echo "$mark" >/dev/kmsg

tap "# cdg-start $CDG_TEST"
cd /tests/vm || finish 2
export CDG_TEST
# stderr becomes TAP diagnostics so that a stray line can never be counted
# as a result.  `timeout` stops a stuck test early enough for the kernel log
# check and a clean report (run.sh kills the whole VM later than this).
# stdout keeps only TAP result lines and comments as they are: any other
# line a test lets slip out becomes a comment too.
tap_filter() {
	local l
	while IFS= read -r l; do
		case $l in
		"ok "[0-9]* | "not ok "[0-9]* | "#"*) printf '%s\n' "$l" ;;
		*) printf '# %s\n' "$l" ;;
		esac
	done >&3
}
err_filter() {
	local l
	while IFS= read -r l; do printf '# %s\n' "$l"; done >&3
}
# Through FIFOs and background filters, not a pipeline: a process the test
# leaves behind with its stdout open must not keep /init waiting.
mkfifo /run/test.out /run/test.err
tap_filter < /run/test.out &
out_pid=$!
err_filter < /run/test.err &
err_pid=$!
timeout -k 5 "${CDG_GUEST_TIMEOUT:-240}" \
	bash "$test_sh" "${CDG_ARGS[@]}" > /run/test.out 2> /run/test.err 3>&-
rc=$?
for _ in $(seq 1 30); do	# until the filters have passed everything on
	kill -0 "$out_pid" 2>/dev/null || kill -0 "$err_pid" 2>/dev/null || break
	sleep 0.1
done
[ "$rc" = 124 ] && tap "# cdg-error test timed out after ${CDG_GUEST_TIMEOUT}s in the guest"

dmesg | sed -n "/$mark/,\$p" | grep -E "$bad_re" | head -n 20 |
	while IFS= read -r line; do tap "# cdg-bad $line"; done

if [ -w "$kml" ]; then
	# kmemleak reports only objects older than 5 s; the second scan
	# catches pointers that were in flight during the first.
	sleep 6
	echo scan > "$kml"
	echo scan > "$kml"
	n=$(grep -c '^unreferenced object' "$kml")
	tap "# cdg-kmemleak $n unreferenced object(s) after the test"
	head -n 40 "$kml" | while IFS= read -r line; do tap "# cdg-bad kmemleak: $line"; done
fi

[ "${CDG_SHARE:-0}" != 1 ] || share_out
finish "$rc"
