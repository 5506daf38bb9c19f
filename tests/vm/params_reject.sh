#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-tier: functional
#
# Bad parameters are refused (cdg-spec §2):
#  - at load: finit_module fails with the errno of the rule (ERANGE out of
#    range, EINVAL for a window that is not a power of two or a non-number),
#    insmod says so (kmod words EINVAL as "Invalid parameters", not
#    strerror's "Invalid argument"), nothing stays loaded, and the kernel
#    log names the parameter;
#  - at run time, through /sys/module/tcp_cdg/parameters: a bad value or a
#    non-number fails with EINVAL and the old value stays; window is
#    read-only.  The in-tree module stores such values, which the last
#    checks show (it is the contrast that makes ours worth having).
. "$(dirname "$0")/lib.sh"

[ -f "$CDG_KO" ] || skip_all "no $CDG_KO in the initramfs"

declare -A MSG=(
	[ERANGE]="Numerical result out of range"
	[EINVAL]="Invalid parameters"
)

cdg_unload

# --- load time ---------------------------------------------------------------
# One case per line: NAME=VALUE, the errno, and what the kernel log must
# show (default: the parameter's name).
load_cases() {
	cat <<EOT
window=0	ERANGE
window=3	EINVAL
window=512	ERANGE
window=-8	ERANGE
backoff_beta=1025	ERANGE
window=abc	EINVAL
EOT
	# ref_rtt_us, ours beyond the spec, if this build has it.
	if grep -q '^ref_rtt_us:' <<<"$(modinfo -F parm "$CDG_KO")"; then
		printf 'ref_rtt_us=10000001\tERANGE\tref_rtt_us=10000001 out of range\n'
	fi
	if grep -q '^compete:' <<<"$(modinfo -F parm "$CDG_KO")"; then
		printf 'compete=2\tERANGE\tcompete=2 out of range\n'
	fi
}

while IFS=$'\t' read -r arg err want_log; do
	kmsg_mark
	res=$(cc_sockopt finit "$CDG_KO" "$arg") || true
	tap_match "finit_module $arg: $err" "$res" "^ERR $err "
	cdg_unload	# in case it did load
	rc=0
	out=$(insmod "$CDG_KO" "$arg" 2>&1) || rc=$?
	if [ "$rc" -ne 0 ] && [[ $out == *"${MSG[$err]}"* ]]; then
		tap_ok "insmod $arg fails: ${MSG[$err]}"
	else
		tap_fail "insmod $arg fails: ${MSG[$err]}" "status $rc: $out"
	fi
	tap_eq "insmod $arg leaves nothing loaded" "$(cdg_which)" none
	cdg_unload	# in case it did load
	log=$(dmesg_since)
	want_log=${want_log:-${arg%%=*}}
	if grep -q "$want_log" <<< "$log"; then
		tap_ok "insmod $arg: kernel log shows '$want_log'"
		diag "$(grep "$want_log" <<< "$log")"
	else
		tap_fail "insmod $arg: kernel log shows '$want_log'" "log: $log"
	fi
done < <(load_cases)

# --- run time ------------------------------------------------------------------
cdg_load_ours
# write PARAM VALUE WANT: one write(2) through cc_sockopt, which names the errno
write_param() {
	local p=$1 v=$2 want=$3 before after res
	before=$(cdg_param "$p")
	res=$(cc_sockopt write "$CDG_PARAMS/$p" "$v") || true
	after=$(cdg_param "$p")
	if [[ $res == "$want"* ]]; then
		tap_ok "write $p='${v//$'\n'/\\n}': $want"
	else
		tap_fail "write $p='${v//$'\n'/\\n}': $want" "got: $res"
	fi
	if [[ $want == ERR* ]]; then
		tap_eq "$p keeps $before after the rejected write" "$after" "$before"
	fi
}

while read -r p v; do
	[ "$v" = '<newline>' ] && v=$'\n'	# what `echo "" > file` writes
	write_param "$p" "$v" "ERR EINVAL"
done <<'EOT'
backoff_beta	2000
backoff_beta	1025
backoff_beta	-1
backoff_beta	abc
backoff_beta	<newline>
backoff_factor	abc
backoff_factor	99999999999
hystart_detect	9
hystart_detect	4
use_ineff	1000
use_ineff	256
use_ineff	abc
use_shadow	abc
use_tolerance	2x
EOT
# backoff_drain and no_extrapolate, ours beyond the spec (bools), if this build has them.
for p in backoff_drain no_extrapolate; do
	[ ! -e "$CDG_PARAMS/$p" ] || write_param "$p" abc "ERR EINVAL"
done
if [ -e "$CDG_PARAMS/ref_rtt_us" ]; then
	write_param ref_rtt_us 10000001 "ERR EINVAL"
	write_param ref_rtt_us -1 "ERR EINVAL"
	write_param ref_rtt_us 10000000 OK
	tap_eq "ref_rtt_us reads 10000000" "$(cdg_param ref_rtt_us)" 10000000
	write_param ref_rtt_us 0 OK
fi

# Good writes still work (so the rejections above are about the values),
# and the boundaries are allowed at run time too.
write_param backoff_beta 1024 OK
tap_eq "backoff_beta reads 1024" "$(cdg_param backoff_beta)" 1024
write_param backoff_beta $'512\n' OK
tap_eq "backoff_beta reads 512" "$(cdg_param backoff_beta)" 512
write_param hystart_detect 2 OK
tap_eq "hystart_detect reads 2" "$(cdg_param hystart_detect)" 2
write_param use_ineff 255 OK
tap_eq "use_ineff reads 255" "$(cdg_param use_ineff)" 255
write_param use_tolerance 1 OK
tap_eq "use_tolerance reads Y" "$(cdg_param use_tolerance)" Y

# window is 0444: even root cannot open it for writing (sysfs checks the
# mode), and the value stays.
write_param window 16 "ERR EACCES"
tap_eq "window is still 8" "$(cdg_param window)" 8

# The same bad writes on Debian's module: accepted and stored.
if [ -n "$CDG_INTREE" ] && cdg_load_intree; then
	res=$(cc_sockopt write "$CDG_PARAMS/backoff_beta" 2000) || true
	tap_eq "in-tree (reference) accepts backoff_beta=2000" \
		"${res%% *} $(cdg_param backoff_beta)" "OK 2000"
	cdg_unload
else
	tap_skip "in-tree (reference) accepts backoff_beta=2000" "no in-tree tcp_cdg"
fi
cdg_unload
tap_end
