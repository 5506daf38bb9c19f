# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the VM tests (sourced; each test runs alone in a fresh guest
# booted by scripts/vm/run.sh, as root, with bash).
#
# TAP as tests/lib/tap.sh describes it (the guest's /init prefixes
# stderr with "# ").
#
# Do not `dmesg -C` in a test: the harness checks the kernel log after the
# test for warnings, from the mark it wrote before the test started.  Use
# kmsg_mark / dmesg_since to look at the lines of one step.

# TAP, cleanup_add and the exit trap: tests/lib/tap.sh.
# shellcheck source=../lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

# need_tracefs: T is the tracefs mount, mounted here if it was not;
# without tracefs the test has nothing to read and skips.
need_tracefs() {
	T=/sys/kernel/tracing
	[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null ||
		skip_all "no tracefs"
}

# --- prerequisites -------------------------------------------------------------
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || skip_all "no $c in the guest"
	done
}

# Load a Debian module the test needs, or skip the whole test.
require_mod() {
	local m
	for m in "$@"; do
		modprobe -q "$m" 2>/dev/null || skip_all "cannot load module $m"
	done
}

# --- kernel log ------------------------------------------------------------------
_kmsg_seq=0
kmsg_mark() {	# kmsg_mark: start a new step; dmesg_since shows what follows
	_kmsg_seq=$((_kmsg_seq + 1))
	echo "cdg-test: mark $_kmsg_seq" > /dev/kmsg
}
dmesg_since() { dmesg | sed -n "/cdg-test: mark $_kmsg_seq\$/,\$p" | sed 1d; }

# --- the module under test, and the reference -----------------------------------
# Both can be overridden (run.sh --env CDG_KO=...), e.g. to check that the
# tests fail when "ours" is really the in-tree module.
CDG_KO=${CDG_KO:-/opt/cdg/tcp_cdg.ko}
# A kernel without the in-tree module (make check-debug's) leaves it empty.
CDG_INTREE=${CDG_INTREE:-$(ls /lib/modules/intree/tcp_cdg.ko* 2>/dev/null | head -n 1 || true)}
CDG_SYS=/sys/module/tcp_cdg
CDG_PARAMS=$CDG_SYS/parameters
# Our version, from the .ko itself (dkms.conf is the one place it is named).
CDG_VERSION=$(modinfo -F version "$CDG_KO" 2>/dev/null || true)

# ours | intree | none (| other:VERSION for a stranger named tcp_cdg)
cdg_which() {
	local v
	[ -d "$CDG_SYS" ] || { echo none; return; }
	if [ -r "$CDG_SYS/version" ]; then
		v=$(cat "$CDG_SYS/version")
		if [ -n "$CDG_VERSION" ] && [ "$v" = "$CDG_VERSION" ]; then echo ours
		else echo "other:$v"; fi
	else
		echo intree
	fi
}

# run.sh's CDG_VM_TIMEOUT_SCALE (a slow debug kernel) stretches the waits.
_wait_scale=${CDG_VM_TIMEOUT_SCALE:-1}

# Unload whichever tcp_cdg is loaded.  Sockets that are closing still hold a
# reference for a moment, so retry for up to 5 s (times _wait_scale).
cdg_unload() {
	local i
	for i in $(seq 1 $((50 * _wait_scale))); do
		[ -d "$CDG_SYS" ] || return 0
		rmmod tcp_cdg 2>/dev/null && return 0
		sleep 0.1
	done
	echo "cdg_unload: tcp_cdg still loaded: $(rmmod tcp_cdg 2>&1)" >&2
	return 1
}

# CDG_OURS_PARAMS (run.sh --env) is added to every load of ours: a way to
# check that a test fails for a module that behaves differently, e.g.
# --env CDG_OURS_PARAMS=backoff_factor=0 (never backs off on delay).
cdg_load_ours() {	# cdg_load_ours [PARAM=VALUE...]
	cdg_unload
	# shellcheck disable=SC2086 # a list of PARAM=VALUE words
	insmod "$CDG_KO" ${CDG_OURS_PARAMS:-} "$@"
	[ "$(cdg_which)" = ours ] || { echo "cdg_load_ours: $(cdg_which) loaded" >&2; return 1; }
}

cdg_load_intree() {	# cdg_load_intree [PARAM=VALUE...]
	[ -n "$CDG_INTREE" ] || { echo "no in-tree tcp_cdg in the guest" >&2; return 1; }
	cdg_unload
	insmod "$CDG_INTREE" "$@"
	[ "$(cdg_which)" = intree ] || { echo "cdg_load_intree: $(cdg_which) loaded" >&2; return 1; }
}

cdg_param() { cat "$CDG_PARAMS/$1"; }

# Run a command, print its stderr+stdout and exit status as "STATUS OUTPUT".
status_of() {
	local out rc=0
	out=$("$@" 2>&1) || rc=$?
	printf '%s %s' "$rc" "$out"
}

# --- network namespaces -------------------------------------------------------------
# Two namespaces joined by a veth pair, inside the guest only, with addresses
# from the benchmarking range (RFC 2544, 198.18.0.0/15) and ULA fd00::/8:
#
#   $NS_C  veth_c 198.18.0.1/24 fd00::1/64  ==  veth_s 198.18.0.2/24 fd00::2/64  $NS_S
#
# The client sends the bulk data, so the bottleneck (netem_bottleneck) is
# the client's egress on veth_c.
NS_C=cdg-client
NS_S=cdg-server
ADDR_C=198.18.0.1
ADDR_S=198.18.0.2
ADDR6_C=fd00::1
ADDR6_S=fd00::2

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

ns_add() {	# ns_add NAME: an empty namespace with lo up, deleted at exit
	ip netns add "$1"
	cleanup_add "ip netns del $1"
	ip -n "$1" link set lo up
	# No ssthresh carried from one connection into the next (tcp_metrics):
	# each transfer must start from the same state, whatever ran before.
	nsx "$1" sysctl -qw net.ipv4.tcp_no_metrics_save=1
}

ns_pair() {
	require_mod veth tcp_diag
	ns_add "$NS_C"
	ns_add "$NS_S"
	ip link add veth_c netns "$NS_C" type veth peer name veth_s netns "$NS_S"
	ip -n "$NS_C" addr add "$ADDR_C/24" dev veth_c
	ip -n "$NS_S" addr add "$ADDR_S/24" dev veth_s
	ip -n "$NS_C" addr add "$ADDR6_C/64" dev veth_c nodad
	ip -n "$NS_S" addr add "$ADDR6_S/64" dev veth_s nodad
	ip -n "$NS_C" link set veth_c up
	ip -n "$NS_S" link set veth_s up
	ns_wait_up
}

# Until both ends carry traffic: a veth is "up" a little after `link set up`.
ns_wait_up() {
	local i
	for i in $(seq 1 $((50 * _wait_scale))); do
		nsx "$NS_C" ping -c 1 -W 1 "$ADDR_S" >/dev/null 2>&1 &&
			nsx "$NS_C" ping -6 -c 1 -W 1 "$ADDR6_S" >/dev/null 2>&1 &&
			return 0
		sleep 0.1
	done
	echo "ns_wait_up: no connectivity between $NS_C and $NS_S" >&2
	return 1
}

# netem on the client's egress: netem_bottleneck DELAY RATE LIMIT_PACKETS.
# veth's TSO/GSO is cut to one segment per skb: netem counts its limit in
# skbs, and a 64 KB GSO skb would turn "limit 1000" into a 64 MB queue.
#
# The only queue that may drop is netem's: veth hands each packet netem
# releases to the peer's per-CPU backlog, and when a TCG vCPU was stalled
# netem releases hundreds at once, more than netdev_max_backlog (1000)
# holds.  Those drops are an artefact of the emulation, so the backlog is
# made deep; softnet_drops tells whether any happened anyway.
netem_bottleneck() {	# ... [NETEM_ARGS...], e.g. loss 0.05%
	local delay=$1 rate=$2 limit=$3
	shift 3
	require_mod sch_netem
	sysctl -qw net.core.netdev_max_backlog=30000
	ip -n "$NS_C" link set veth_c gso_max_segs 1 gso_max_size 1500 2>/dev/null ||
		echo "netem_bottleneck: cannot limit GSO on veth_c" >&2
	ip netns exec "$NS_C" tc qdisc replace dev veth_c root netem \
		delay "$delay" rate "$rate" limit "$limit" "$@"
}

# Packets dropped so far by a full per-CPU backlog (all CPUs), and by the
# bottleneck's netem (a full buffer: the drops the test is about).
softnet_drops() {
	local n=0 _ d _r
	while read -r _ d _r; do n=$((n + 16#$d)); done < /proc/net/softnet_stat
	echo "$n"
}
netem_drops() { nsx "$NS_C" tc -s qdisc show dev veth_c | awk '/dropped/ { gsub(/[(),]/, ""); for (i = 1; i <= NF; i++) if ($i == "dropped") print $(i + 1); exit }'; }

# Wait until something listens on TCP port $2 in namespace $1.
wait_listen() {
	local i
	for i in $(seq 1 $((100 * _wait_scale))); do
		ss -N "$1" -Htln "sport = :$2" | grep -q . && return 0
		sleep 0.05
	done
	echo "wait_listen: nothing listens on port $2 in $1" >&2
	return 1
}

# wait_established NS FILTER: until ss shows an established socket matching
# the ss FILTER in namespace NS (up to 10 s).
wait_established() {
	local i
	for i in $(seq 1 $((100 * _wait_scale))); do
		ss -N "$1" -Htn state established "$2" | grep -q . && return 0
		sleep 0.1
	done
	echo "wait_established: no established socket matching '$2' in $1" >&2
	return 1
}

# ss_cc NS FILTER: the congestion controls `ss -ti` shows for the
# established sockets in namespace NS that match the ss FILTER (for example
# "dport = :5201"), sorted, one per line.  ss prints flags (ts, sack, ecn,
# ...) first on the info line, then the CC name.
ss_cc() {
	ss -N "$1" -Htin state established "$2" | awk "$_ss_cc_awk"' { print cc }' | sort -u
}
_ss_cc_awk='/^[^ \t]/ { next }
	{ cc = ""; for (i = 1; i <= NF; i++) if ($i !~ /:/ && $i !~ /^(ts|sack|ecn|ecnseen|fastopen|ecnflags)$/) { cc = $i; break } }'


# --- bulk transfer measurement ---------------------------------------------------------
# measure_bulk CC DST SECONDS [IPERF_ARGS...]
# An iperf3 bulk transfer from $NS_C to DST (in $NS_S) with congestion
# control CC, while cc_sockopt samples the data socket through inet_diag
# every 50 ms (what `ss -ti` reads, without its ~200 ms start-up cost per
# call under TCG).  Sets:
#   MB_GOODPUT  receiver goodput, Mbit/s (iperf3)
#   MB_RTT      median srtt (ms) of the samples after the first second,
#               i.e. after slow start
#   MB_RTT_P90  90th percentile of the same
#   MB_SAMPLES  samples used, MB_RATE sampling rate (Hz)
#   MB_CC       the CC name(s) inet_diag reported for the data socket
#   MB_RETRANS  segments the data socket retransmitted (iperf3's Retr)
#   MB_NETEM_DROPS, MB_BACKLOG_DROPS  packets dropped by the bottleneck's
#               full buffer, and by full per-CPU backlogs (emulation noise)
#   MB_BACKOFFS, MB_BETA  window reductions without a retransmission (a
#               delay backoff), and the median of ssthresh after each over
#               cwnd in the sample before it (backoff_beta/1024, a little
#               less: cwnd may grow between a sample and the backoff)
#   MB_LOSSES, MB_LOSS_BETA  the same for reductions with a retransmission
#               (loss); "-" for a median of none
#   MB_LOSS_ABOVE  loss reductions to more than 0.55 of cwnd: more than
#               Reno's half, which CDG's shadow window gives after a delay
#               backoff (cdg-spec section 10)
# Both count only changes of ssthresh after slow start: the first exit
# from it (ssthresh infinite before) is neither.
# The data socket is the one that acknowledged the most bytes (iperf3's
# control connection to the same port carries a few hundred, and keeps the
# namespace's default CC: iperf3 -C sets only the data socket's).
measure_bulk() {
	local cc=$1 dst=$2 secs=$3 port=5201 log samples
	shift 3
	log=$(mktemp /tmp/iperf.XXXXXX)
	samples=$(mktemp /tmp/samples.XXXXXX)

	local sn0 nd0
	sn0=$(softnet_drops) nd0=$(netem_drops 2>/dev/null || true)
	nsx "$NS_S" iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
	local srv=$!
	wait_listen "$NS_S" "$port"
	nsx "$NS_C" cc_sockopt sample "$port" 50 > "$samples" &
	local smp=$!
	local rc=0
	nsx "$NS_C" iperf3 -c "$dst" -p "$port" -t "$secs" -C "$cc" -f m "$@" \
		> "$log" 2>&1 || rc=$?
	wait "$srv" || true
	# The sampler stops by itself when the sockets are gone.
	local i
	for i in $(seq 1 30); do kill -0 "$smp" 2>/dev/null || break; sleep 0.1; done
	kill "$smp" 2>/dev/null || true
	wait "$smp" 2>/dev/null || true
	if [ "$rc" -ne 0 ]; then
		sed 's/^/iperf3: /' "$log" >&2
		rm -f "$log" "$samples"
		return 1
	fi

	# Keep the data socket's samples only: after it closed, the busiest
	# socket left is the control connection.
	awk '$5 >= 100000' "$samples" > "$samples.data"
	mv "$samples.data" "$samples"
	MB_GOODPUT=$(awk '/receiver/ { v = $(NF-2) } END { print v }' "$log")
	MB_SAMPLES=$(awk '$1 >= 1000' "$samples" | wc -l)
	MB_RATE=$(awk 'NR == 1 { t = $1 } { n++; e = $1 } END { if (e > t) printf "%.1f", (n - 1) * 1000 / (e - t); else print 0 }' "$samples")
	MB_RTT=$(awk '$1 >= 1000 { print $2 / 1000 }' "$samples" | sort -n |
		awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }')
	MB_RTT_P90=$(awk '$1 >= 1000 { print $2 / 1000 }' "$samples" | sort -n |
		awk '{ a[NR] = $1 } END { i = int(NR * 0.9 + 0.5); if (i < 1) i = 1; if (NR) print a[i] }')
	MB_CC=$(awk '$1 >= 1000 { print $3 }' "$samples" | sort -u | tr '\n' ' ' | sed 's/ $//')
	local red
	red=$(awk 'NR > 1 && $7 != ps && ps < 2147483647 {
			print ($4 > pr ? "loss" : "delay"), $7 / pc }
		{ ps = $7; pc = $6; pr = $4 }' "$samples")
	MB_BACKOFFS=$(grep -c '^delay' <<< "$red" || true)
	MB_LOSSES=$(grep -c '^loss' <<< "$red" || true)
	MB_BETA=$(awk '$1 == "delay" { print $2 }' <<< "$red" | median_or_dash)
	MB_LOSS_BETA=$(awk '$1 == "loss" { print $2 }' <<< "$red" | median_or_dash)
	MB_LOSS_ABOVE=$(awk '$1 == "loss" && $2 > 0.55 { n++ } END { print n + 0 }' <<< "$red")
	# iperf3's sender line: "... 93.8 Mbits/sec  123  sender" (Retr).
	MB_RETRANS=$(awk '/sender/ { v = $(NF-1) } END { print v + 0 }' "$log")
	MB_BACKLOG_DROPS=$(( $(softnet_drops) - sn0 ))
	MB_NETEM_DROPS=$(( $(netem_drops 2>/dev/null || echo 0) - ${nd0:-0} ))
	rm -f "$log" "$samples"
	[ -n "$MB_GOODPUT" ] && [ -n "$MB_RTT" ] || {
		echo "measure_bulk: no goodput or no RTT samples" >&2
		return 1
	}
}

# "cc=cubic goodput=93.1Mbit/s rtt=120.3ms p90=..." for diagnostics.
mb_summary() {
	echo "$1: goodput ${MB_GOODPUT} Mbit/s, srtt median ${MB_RTT} ms p90 ${MB_RTT_P90} ms ($MB_SAMPLES samples at $MB_RATE Hz), retrans $MB_RETRANS, drops netem $MB_NETEM_DROPS backlog $MB_BACKLOG_DROPS, cc seen '$MB_CC', backoffs $MB_BACKOFFS x $MB_BETA, losses $MB_LOSSES x $MB_LOSS_BETA ($MB_LOSS_ABOVE above 0.55)"
}

# perf_check NAME CONDITION: a check on a measured figure (CONDITION is an
# awk expression, see fcmp).  In virtual time (scripts/vm/run.sh) figures
# do not depend on how busy the host is, so a failed figure is a failure.
# One exception: a KASAN kernel (make check-debug) runs several times more
# instructions for the same work, so its sender is CPU-bound and its
# figures say nothing about the congestion control: there a failed figure
# is a SKIP with that reason, never a pass.
# Read when the test starts, while the boot messages are still in the log
# (not `dmesg | grep -q`: grep's early exit kills dmesg with SIGPIPE, and
# with pipefail the pipeline then fails although it matched).
_lib_kasan=0
[[ $(dmesg) != *'KernelAddressSanitizer initialized'* ]] || _lib_kasan=1
perf_check() {
	if fcmp "$2"; then
		tap_ok "$1"
	elif [ "$_lib_kasan" = 1 ]; then
		tap_skip "$1" "KASAN kernel: figures not meaningful"
	else
		tap_fail "$1" "failed: $2"
	fi
}

# Floating-point comparison for figures: fcmp "A < B" (awk does the maths).
fcmp() { awk "BEGIN { exit !($1) }"; }

# Median of the arguments.
median() { printf '%s\n' "$@" | median_or_dash; }
# Median of the numbers on stdin, one a line; "-" when there are none.
median_or_dash() { sort -g | awk 'NF { a[++n] = $1 } END { if (!n) print "-"; else printf "%.4g\n", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'; }

# Shrink slab caches: kmem_cache_shrink also frees what a KASAN kernel holds
# in its quarantine of freed objects, which /proc/slabinfo counts as active
# (make check-debug saw +1250 such "leaks" without it, kmemleak none).
slab_shrink() {
	local c
	for c in "$@"; do echo 1 > "/sys/kernel/slab/$c/shrink" 2>/dev/null || true; done
}

# Active objects in slab cache $1 (/proc/slabinfo), after a shrink.  With
# window=256 a ring is 256 x 8 bytes, one kmalloc-2k object: the stress
# tests count rings so.
slab_active() {
	slab_shrink "$1"
	awk -v c="$1" '$1 == c { print $2 }' /proc/slabinfo
}

# Counter $2 (Sockets, RingAllocFail, ...) of /proc/net/stat/tcp_cdg as
# seen from namespace $1 (the counters are per network namespace).
cdg_counter() { nsx "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/stat/tcp_cdg; }

# churn_server PORT [CLOSE_AFTER]: tests/vm/churn.c's sink in $NS_S, killed
# at exit; returns once it listens.
churn_server() {
	nsx "$NS_S" churn serve "$@" &
	cleanup_add "kill $!"
	wait_listen "$NS_S" "$1"
}

# ns_wait_closed NS [SECONDS]: until NS has no connected socket left but
# TIME-WAIT ones (orphans drain their data first); up to SECONDS (default
# 20) times _wait_scale.
ns_wait_closed() {
	local i
	for i in $(seq 1 $((${2:-20} * 5 * _wait_scale))); do
		[ "$(ss -N "$1" -Htn state connected | grep -vc TIME-WAIT)" -eq 0 ] && return 0
		sleep 0.2
	done
	echo "ns_wait_closed: sockets still open in $1" >&2
	return 1
}

# tap_slab_back NAME CACHE BASE: ok if CACHE holds at most 100 objects more
# than BASE (other users of the cache, skb heads and such, move by a few
# dozen; a leaked ring per connection would be hundreds or thousands).
tap_slab_back() {
	local now
	now=$(slab_active "$2")
	diag "$2: baseline $3, now $now"
	if [ "$now" -le $(($3 + 100)) ]; then
		tap_ok "$1: $2 back to baseline ($3 -> $now)"
	else
		tap_fail "$1: $2 $now, baseline $3: leaked rings?"
	fi
}
