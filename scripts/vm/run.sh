#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel in QEMU and run one VM test inside it.
#
#   scripts/vm/run.sh [--kver K] [--timeout S] [--in PATH] [--out DIR] [--smp N] TEST [ARGS]
#
# Runs tests/vm/TEST.sh, or the guest script TEST.sh when TEST is a path
# from the top of the tree (scripts/bench/guest/bench), with bash as the
# guest's only job, streams its TAP lines to stdout as they come, and
# exits with the test's status.
#
#   --kver K     kernel release to boot (KROOT/boot/vmlinuz-K, below); its
#                module must be built (make ko KVER=K).  Default: $KVER,
#                else the newest kernel that has both a vmlinuz and a
#                build/K/tcp_cdg.ko.
#   --timeout S  limit for the whole VM (default 300).  The test is stopped
#                inside the guest, on the guest's clock, 20 s before that,
#                so that the kernel log is still checked; QEMU is killed
#                after S s of wall time (in virtual time, after S times
#                CDG_VM_WALL_FACTOR, see below).
#   --in PATH    the guest's /out (a tmpfs) starts with a copy of the host
#                file PATH, or of what the directory PATH holds (a
#                benchmark's plan, the packages a guest checks), carried in
#                the initramfs.  Only what the guest reads: its bytes are
#                part of the run.
#   --out DIR    /out is copied into the host directory DIR after the test,
#                through a virtio 9p share (tag "out", security_model=none):
#                files appear owned by the user running QEMU.  Nothing
#                crosses the share while the test runs (a 9p request ends
#                when a host thread gets to it, which would make virtual
#                time depend on the host), so a guest that dies loses its
#                /out.  Without --out, /out vanishes with the guest.
#   --smp N      vCPUs (default 1; more only with CDG_VM_CLOCK=real).
#   --env V=X    export V=X to the test in the guest (repeatable); e.g.
#                --env CDG_KO=/lib/modules/intree/tcp_cdg.ko.xz makes the
#                tests treat the in-tree module as ours, which must fail.
#
# Environment:
#   CDG_KROOT=DIR          boot DIR/boot/vmlinuz-K with the modules of
#                          DIR/lib/modules/K.  Default: build/kernels/root,
#                          Debian's kernel lines as scripts/vm/kernels.sh
#                          unpacks them (none is installed on the host);
#                          scripts/vm/debug-kernel.sh's is another; / is this
#                          host's own /boot and /lib/modules
#   CDG_VM_TIMEOUT_SCALE=N multiply every timeout by N (a KASAN kernel under
#                          TCG runs the same test several times slower)
#   CDG_VM_MEM=MiB         guest memory (default 1024)
#   CDG_VM_CLOCK=virtual   the guest's clock (default virtual, below);
#                          real: the old mode, kept for comparison only
#   CDG_VM_SHIFT=N         icount shift: the virtual CPU runs one guest
#                          instruction per 2^N ns (default 0: 1 GIPS)
#   CDG_VM_WALL_FACTOR=N   in virtual time, the host's wall-time limits
#                          are N (default 5) times the guest's
#   CDG_VM_SEED=N          QEMU's -seed N: the guest's RDRAND (-cpu max)
#                          and every other random number QEMU makes come
#                          from a generator seeded with N (default 1)
#   CDG_VM_IMG=FILE        boot this initramfs, already built for K by
#                          mkinitramfs.sh, instead of checking it is up to
#                          date (suite.sh does that once per kernel: the
#                          check hashes every file, 3-7 s per test)
#
# Never hangs.  Every failure of the harness itself becomes one TAP line,
#   not ok N - TEST: <reason> (console log: PATH)
# with N one past the last number the test printed.  Reasons: the test ran
# out of time, the guest panicked or died without reporting an exit status,
# the kernel logged a warning (WARNING, BUG, Oops, KASAN, slab errors,
# general protection ...) while the test ran, or the test failed without
# saying which check failed.  A test that exits 0 but prints no result fails
# too.  The boot always has slub_debug=FZPU, so slab corruption shows up.
#
# Logs, overwritten per test: build/vm/K/logs/TEST.console.log (everything the
# kernel printed on ttyS0) and TEST.tap (the raw guest stream).
#
# Retry: Debian's 6.12 kernel sometimes panics under TCG before /init runs
# (int3 oops in sched_clock_cpu; vm-notes: 1 boot in 26 with -smp 2).  When
# the guest dies or stays silent before /init's first line, that boot is
# retried once (its console log kept as TEST.console.1.log); that is never a
# test failure.  Anything after /init started is the test's.
#
# Exclusive tests (real time only): a test whose script has a line
# "# vm-exclusive: REASON" (it measures throughput or time) never runs
# beside another VM on this machine: in real time TCG guests lose most of
# their speed when they share the two cores.  Every run.sh takes a
# machine-wide lock, shared for ordinary tests and exclusive for those,
# through a turnstile so that a waiting exclusive run is not starved by a
# stream of shared ones.  The lock files live in
# ${CDG_VM_LOCKDIR:-/tmp} (one directory for every checkout on the host);
# CDG_VM_LOCK=0 skips locking.
#
# Virtual time (the default): QEMU's -icount shift=N,align=off,sleep=off
# with one vCPU.  The guest's clock advances 2^N ns per guest instruction
# and skips idle time (a netem timer is reached at once, not waited for),
# so what a test or benchmark measures inside the guest depends on the
# guest's instructions and its virtual devices, not on the host: a busy
# host only makes the run take longer in wall time.  In real time (the
# old mode) the guest's CPU and timer jitter, not the emulated network,
# set the figures (docs/benchmarks.md, "Virtual time").  Virtual time
# needs TCG and one vCPU (with -smp 2 and sleep=off a 6.1 guest hung
# bringing up the second CPU).  Since figures no longer depend on what
# else runs, virtual-time VMs take the VM lock shared, test and benchmark
# alike, and never wait for an idle host.
#
# Accelerator: TCG unless the host CPU has VMX/SVM, /dev/kvm is usable and a
# 15 s KVM boot probe reaches the kernel's panic on a missing init (cached in
# build/vm/accel).  On these machines /dev/kvm exists but KVM hangs.  Force
# one with CDG_VM_ACCEL=tcg|kvm.
# The whole script is one compound command, read before any of it runs:
# bash reads scripts as it goes, so editing this file while a long run is
# under way would otherwise feed the old run the new file's lines.
{
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
die() { echo "run.sh: $*" >&2; exit 2; }

kver=${KVER:-}
timeout=300
timeout_given=0
outdir=
indir=
smp=1
mem=${CDG_VM_MEM:-1024}
clock=${CDG_VM_CLOCK:-virtual}
shift_=${CDG_VM_SHIFT:-0}
seed=${CDG_VM_SEED:-1}
case $clock in virtual|real) ;; *) die "CDG_VM_CLOCK must be virtual or real" ;; esac
[[ $shift_ =~ ^[0-9]$ ]] || die "CDG_VM_SHIFT must be 0..9"
[[ $seed =~ ^[0-9]+$ ]] || die "CDG_VM_SEED must be a non-negative integer"
# Debian's kernels as scripts/vm/kernels.sh unpacks them (never installed on
# the host); CDG_KROOT=/ boots this host's own /boot and /lib/modules.
kroot=${CDG_KROOT:-$top/build/kernels/root}
[ "$kroot" != / ] || kroot=
tscale=${CDG_VM_TIMEOUT_SCALE:-1}
[[ $tscale =~ ^[1-9][0-9]*$ ]] || die "CDG_VM_TIMEOUT_SCALE must be a positive integer"
envs=()
boot_timeout=90	# seconds from QEMU start to /init's first line

while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--timeout) timeout=$2; timeout_given=1; shift 2 ;;
	--in) indir=$2; shift 2 ;;
	--out) outdir=$2; shift 2 ;;
	--smp) smp=$2; shift 2 ;;
	--env) [[ $2 == [A-Za-z_]*=* ]] || die "--env wants VAR=VALUE"
		envs+=("$2"); shift 2 ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "usage: $0 [--kver K] [--timeout S] [--in PATH] [--out DIR] [--smp N] [--env V=X] TEST [ARGS]"
test=${1%.sh}
shift
# TEST is a VM test's name (tests/vm/NAME.sh), or the path from the top of
# the tree of a script the guest runs that is not a test (a benchmark's
# runner, scripts/bench/guest/bench.sh).  The guest holds both where the
# tree has them.
case $test in
*/*) test_file=$top/$test.sh ;;
*) test_file=$top/tests/vm/$test.sh ;;
esac
[ -f "$test_file" ] || die "no test ${test_file#"$top"/}"
# A test may ask for more time than the default with "# vm-timeout: S"
# (an explicit --timeout still wins).
if [ "$timeout_given" = 0 ]; then
	t_hdr=$(sed -n 's/^# vm-timeout: *\([0-9][0-9]*\).*/\1/p' "$test_file" | head -n 1)
	[ -z "$t_hdr" ] || timeout=$t_hdr
fi
[[ $timeout =~ ^[0-9]+$ ]] && [ "$timeout" -ge 30 ] || die "--timeout must be >= 30 s"
[ "$clock" = real ] || [ "$smp" = 1 ] || die "--smp $smp needs CDG_VM_CLOCK=real (virtual time runs one vCPU)"
timeout=$((timeout * tscale)) boot_timeout=$((boot_timeout * tscale))
# The test's own limit runs in the guest (guest-init.sh: timeout(1)), on
# the guest's clock: in virtual time whether a test times out then
# depends on the guest alone.  The host's limits (wall time) only catch
# a guest that stopped running at all, so in virtual time they are
# CDG_VM_WALL_FACTOR (default 5) times longer: a busy host makes a guest
# slower in wall time, and that must not fail a test.
guest_timeout=$((timeout - 20))
if [ "$clock" = virtual ]; then
	wall=${CDG_VM_WALL_FACTOR:-5}
	[[ $wall =~ ^[1-9][0-9]*$ ]] || die "CDG_VM_WALL_FACTOR must be a positive integer"
	timeout=$((timeout * wall)) boot_timeout=$((boot_timeout * wall))
fi
# lib.sh stretches its own waits (unload, listen, established) by as much.
envs+=("CDG_VM_TIMEOUT_SCALE=$tscale")

if [ -z "$kver" ]; then
	for v in $(ls "$kroot/boot" | sed -n 's/^vmlinuz-//p' | sort -V); do
		[ -f "$top/build/$v/tcp_cdg.ko" ] && kver=$v
	done
	[ -n "$kver" ] || die "no kernel with both ${kroot:-}/boot/vmlinuz-K and build/K/tcp_cdg.ko: run make kernels (or make ko)"
fi
vmlinuz=$kroot/boot/vmlinuz-$kver
[ -r "$vmlinuz" ] || die "no $vmlinuz"

vmdir=$top/build/vm/$kver
logs=$vmdir/logs
mkdir -p "$logs"
img=${CDG_VM_IMG:-}
[ -n "$img" ] || img=$("$top/scripts/vm/mkinitramfs.sh" "$kver") || die "initramfs build failed"
[ -f "$img" ] || die "no initramfs $img"

# --- accelerator -------------------------------------------------------------
kvm_probe() {
	local log=$top/build/vm/accel.probe.log
	grep -qw -E 'vmx|svm' /proc/cpuinfo || return 1
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	timeout -s KILL 15 qemu-system-x86_64 -accel kvm -m 256 -smp 1 \
		-nic none -no-reboot -nographic -monitor none \
		-serial "file:$log" -kernel "$vmlinuz" \
		-append "console=ttyS0 panic=-1 rdinit=/nonexistent" \
		</dev/null >/dev/null 2>&1
	grep -q 'Kernel panic' "$log"
}
accel=${CDG_VM_ACCEL:-}
if [ "$clock" = virtual ]; then
	[ -z "$accel" ] || [ "$accel" = tcg ] || die "virtual time needs TCG, not CDG_VM_ACCEL=$accel"
	accel=tcg
elif [ -z "$accel" ]; then
	cache=$top/build/vm/accel
	key="$(uname -r) $(qemu-system-x86_64 --version | head -n 1)"
	if [ -f "$cache" ] && [ "$(sed -n 2p "$cache")" = "$key" ]; then
		accel=$(sed -n 1p "$cache")
	else
		if kvm_probe; then accel=kvm; else accel=tcg; fi
		printf '%s\n%s\n' "$accel" "$key" > "$cache"
	fi
fi

# --- machine-wide VM lock ----------------------------------------------------------
vm_lock() {
	local dir=${CDG_VM_LOCKDIR:-/tmp} mode=-s t=$SECONDS
	if [ "${CDG_VM_LOCK:-1}" = 0 ]; then
		exec {gate_fd}>/dev/null {lock_fd}>/dev/null
		return 0
	fi
	[ "$clock" = virtual ] || ! grep -q '^# vm-exclusive:' "$test_file" || mode=-x
	exec {gate_fd}>>"$dir/tcp_cdg-vm.gate"
	exec {lock_fd}>>"$dir/tcp_cdg-vm.lock"
	# The gate is held only while queueing for the lock: an exclusive
	# waiter holds it until it gets the lock, so newcomers queue behind it.
	flock -x "$gate_fd"
	if ! flock -n "$mode" "$lock_fd"; then
		echo "# run.sh: waiting for other VMs on this machine ($([ "$mode" = -x ] && echo exclusive || echo shared))" >&2
		# Bounded, so that a stuck holder cannot hang us forever.
		flock -w "${CDG_VM_LOCK_WAIT:-1800}" "$mode" "$lock_fd" ||
			echo "# run.sh: WARNING: no VM lock after ${CDG_VM_LOCK_WAIT:-1800}s: running anyway" >&2
	fi
	flock -u "$gate_fd"
	[ $((SECONDS - t)) -lt 2 ] || echo "# run.sh: waited $((SECONDS - t)) s for the VM lock" >&2
}
vm_lock

# Host CPU time (jiffies) busy and total, from /proc/stat.
cpu_times() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat; }

# --- per-run settings: a second cpio appended to the cached initramfs ---------
tmp=$(mktemp -d "$vmdir/run.XXXXXX")
qpid=
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$tmp/cpio/etc"
{
	printf 'CDG_TEST=%q\n' "$test"
	printf 'CDG_ARGS=('
	[ $# -gt 0 ] && printf '%q ' "$@"
	printf ')\n'
	printf 'CDG_SHARE=%d\n' "$([ -n "$outdir" ] && echo 1 || echo 0)"
	printf 'CDG_GUEST_TIMEOUT=%d\n' "$guest_timeout"
	for e in "${envs[@]}"; do printf 'export %s=%q\n' "${e%%=*}" "${e#*=}"; done
} > "$tmp/cpio/etc/cdg-run"
if [ -n "$indir" ]; then
	mkdir -p "$tmp/cpio/out.in"
	if [ -d "$indir" ]; then
		cp -a "$indir/." "$tmp/cpio/out.in/"
	else
		cp "$indir" "$tmp/cpio/out.in/" || die "--in $indir: cannot copy it"
	fi
fi
# Byte for byte the same archive for the same settings (no mtime, no inode
# numbers): the guest spends a different number of instructions on
# unpacking different bytes, and in virtual time that is a different run.
find "$tmp/cpio" -exec touch -h -d @0 {} +
(cd "$tmp/cpio" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --reproducible --quiet) | gzip -n > "$tmp/run.cpio.gz"
# The kernel unpacks concatenated archives one after the other (an
# uncompressed one would have to start 4-byte aligned: gzip it too).
cat "$img" "$tmp/run.cpio.gz" > "$tmp/initrd"

share=()
if [ -n "$outdir" ]; then
	mkdir -p "$outdir"
	outdir=$(cd "$outdir" && pwd)
	share=(-virtfs "local,path=$outdir,mount_tag=out,security_model=none,id=out")
fi

logname=${test##*/}	# scripts/bench/guest/bench -> bench
console=$logs/$logname.console.log
taplog=$logs/$logname.tap
append="console=ttyS0 slub_debug=FZPU panic=-1 oops=panic loglevel=7"
clockargs=(-smp "$smp")
if [ "$clock" = virtual ]; then
	# -cpu max: RDRAND, which -seed makes repeatable (qemu64 has none).
	# -rtc: the guest's wall clock starts at a fixed date and follows
	# the virtual clock (the RNG mixes the boot time in).
	# shellcheck disable=SC2054 # QEMU's option values have commas
	clockargs=(-smp 1 -cpu max -seed "$seed"
		-rtc base=2026-01-01T00:00:00,clock=vm
		-icount "shift=$shift_,align=off,sleep=off")
fi

# --- one boot ------------------------------------------------------------------
# Sets: booted exit_rc last_n seen_fail bad errors timed_out qemu_rc
run_vm() {
	local fd line buf='' start=$SECONDS limit rc
	booted=0 exit_rc='' last_n=0 seen_fail=0 bad=() errors=() timed_out=0
	: > "$console"
	: > "$taplog"
	: > "$tmp/tap.raw"
	# Both serial ports write to files: a write to a file never blocks, so
	# when the guest's UART is done with a byte does not depend on how
	# soon this script reads it (a pipe that fills up would stall the
	# guest for a host-dependent time and break the repeatability of
	# virtual time).  tail follows the file until QEMU is gone.
	# QEMU must not inherit the VM lock: it would outlive a killed run.sh.
	(exec {lock_fd}>&- {gate_fd}>&-; exec timeout -s KILL "$((timeout + 30))" \
		qemu-system-x86_64 -accel "$accel" -m "$mem" "${clockargs[@]}" \
		-nic none -no-reboot -nographic -monitor none \
		-kernel "$vmlinuz" -initrd "$tmp/initrd" -append "$append" \
		-serial "file:$console" -serial "file:$tmp/tap.raw" \
		"${share[@]}" </dev/null >/dev/null 2>"$logs/$logname.qemu.err") &
	qpid=$!
	exec {fd}< <(exec {lock_fd}>&- {gate_fd}>&-; exec tail -s 0.2 -n +1 -f --pid="$qpid" "$tmp/tap.raw")
	while :; do
		limit=$timeout
		[ "$booted" = 1 ] || limit=$((boot_timeout < timeout ? boot_timeout : timeout))
		if [ $((SECONDS - start)) -ge "$limit" ]; then
			timed_out=1
			break
		fi
		line=
		if IFS= read -r -t 1 -u "$fd" line; then
			handle "$buf$line"
			buf=
		else
			rc=$?
			if [ "$rc" -gt 128 ]; then
				buf+=$line	# timed out mid-line: keep the start
				continue
			fi
			[ -n "$buf$line" ] && handle "$buf$line"
			break		# EOF: QEMU is gone
		fi
		# After the exit line only the power-off remains.
		[ -n "$exit_rc" ] && break
	done
	# After the exit line the guest powers itself off: give it 10 s.
	local _
	if [ -n "$exit_rc" ]; then
		for _ in $(seq 1 50); do
			kill -0 "$qpid" 2>/dev/null || break
			sleep 0.2
		done
	fi
	kill "$qpid" 2>/dev/null || true
	qemu_rc=0
	wait "$qpid" 2>/dev/null || qemu_rc=$?
	qpid=
	exec {fd}<&-
}

handle() {
	local line=${1%$'\r'}
	printf '%s\n' "$line" >> "$taplog"
	case $line in
	"# cdg-boot "*) booted=1 ;;
	"# cdg-exit "*) exit_rc=${line#\# cdg-exit } ;;
	"# cdg-bad "*) bad+=("${line#\# cdg-bad }") ;;
	"# cdg-error "*) errors+=("${line#\# cdg-error }") ;;
	"ok "[0-9]* | "not ok "[0-9]*)
		local n=${line#not }
		n=${n#ok }
		n=${n%%[!0-9]*}
		[ -n "$n" ] && [ "$n" -gt "$last_n" ] && last_n=$n
		case $line in "not ok "*) seen_fail=1 ;; esac
		;;
	esac
	[ -n "$line" ] && printf '%s\n' "$line"
	return 0
}

panic_line() {
	grep -a -m 1 -E 'Kernel panic|BUG:|Oops|general protection' "$console" |
		sed 's/^\[[ 0-9.]*\] //' | tr -d '\r'
}

# CPU time of this shell's reaped children (QEMU, through timeout), ticks.
child_cpu() { sed 's/^.*) //' "/proc/$$/stat" | awk '{ print $14 + $15 }'; }
t0=$SECONDS
read -r busy0 total0 < <(cpu_times)
cpu0=$(child_cpu)
run_vm
if [ "$booted" = 0 ]; then
	why=$(panic_line)
	echo "# run.sh: $kver boot failed before /init (${why:-no output}): retrying once" >&2
	cp "$console" "$logs/$logname.console.1.log"
	run_vm
fi

status=0
report() {	# report REASON: one harness failure line
	last_n=$((last_n + 1))
	echo "not ok $last_n - $test: $1 (console log: $console)"
	status=1
}

if [ -z "$exit_rc" ]; then
	why=$(panic_line)
	if [ "$booted" = 0 ]; then
		report "guest did not reach /init twice${why:+: $why}"
	elif [ -n "$why" ]; then
		report "kernel crashed: $why"
	elif [ "$timed_out" = 1 ]; then
		report "timed out after ${timeout}s of wall time"
	else
		report "guest ended without an exit status (qemu status $qemu_rc)"
	fi
fi
for e in "${errors[@]}"; do
	report "harness: $e"
done
if [ "${#bad[@]}" -gt 0 ]; then
	report "kernel log during the test: ${bad[0]}"
fi
if [ -n "$exit_rc" ] && [ "$exit_rc" != 0 ]; then
	[ "$seen_fail" = 1 ] || [ "${#errors[@]}" -gt 0 ] ||
		report "exited with status $exit_rc without a failed check"
	status=$exit_rc
elif [ -n "$exit_rc" ] && [ "$last_n" = 0 ]; then
	report "no results"
fi
[ "$seen_fail" = 1 ] && [ "$status" = 0 ] && status=1
# Not a TAP plan: suite.sh concatenates many tests, and its stdout holds
# only result lines and comments.
echo "# $test: $last_n results"
# What the rest of the host took while the guest ran (QEMU's own CPU time is
# in /proc/stat too: subtract it), so that a slow or noisy figure can be
# told apart from a slow module.
read -r busy1 total1 < <(cpu_times)
qemu_cpu=$(( $(child_cpu) - cpu0 ))
if [ "$total1" -gt "$total0" ]; then
	other=$(( (busy1 - busy0 - qemu_cpu) * 100 / (total1 - total0) ))
	echo "# run.sh: other processes used $((other < 0 ? 0 : other))% of the host CPU during the run" >&2
fi
clockdesc="real time, -smp $smp"
[ "$clock" = real ] || clockdesc="virtual time, shift $shift_, seed $seed"
echo "# run.sh: $test on $kver ($accel, $clockdesc): $((SECONDS - t0)) s, status $status" >&2
exit "$status"
}
