#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the shipped documents claim, against what they document.
#
# docs/examples/modprobe.d/tcp_cdg.conf (the .deb installs it as an
# example; a user may copy it to /etc/modprobe.d as it is):
#  - the lines modprobe reads (not comments) set nothing but defaults, so
#    the file as shipped changes nothing;
#  - every parameter tcp_cdg.c declares is there as a commented-out
#    "#options tcp_cdg NAME=VALUE" line, VALUE its default as tcp_cdg.c
#    initialises it, and no other name is;
#  - its backoff_factor text has the probability's real direction.
# README's "What to use" paragraph: its figures are the ranges of
# docs/tuning.md's "Against the targets" table (defaults and recommended
# mode columns), written the way the README writes them.
#
# Needs no root and no kernel.
. "$(dirname "$0")/lib.sh"

ex=$top/docs/examples/modprobe.d/tcp_cdg.conf

# NAME=DEFAULT for each module parameter, from the declarations in
# tcp_cdg.c ("static <type> NAME __read_mostly[ = V];"; no initialiser is
# 0, bools as 0/1).
defaults() {
	local n
	for n in $(sed -n 's/^module_param\(_cb\)\{0,1\}(\([a-z_]*\),.*/\2/p' "$top/tcp_cdg.c"); do
		sed -n "s/^static [a-z ]*\\b$n __read_mostly\\( = \\([^;]*\\)\\)\\{0,1\\};.*/$n=\\2/p" "$top/tcp_cdg.c" |
			sed 's/=$/=0/; s/=true$/=1/; s/=false$/=0/'
	done
}
norm() {	# a value as modprobe/param_set_bool reads it: Y/N/1/0 -> 1/0
	case $1 in y|Y|1|true) echo 1 ;; n|N|0|false) echo 0 ;; *) echo "$1" ;; esac
}
defaults >"$_tmp/defaults"
diag "tcp_cdg.c defaults: $(paste -sd" " "$_tmp/defaults")"
tap_eq "tcp_cdg.c: a default for each of its 11 parameters" "$(grep -c = "$_tmp/defaults")" 11

# The settings modprobe would apply: "options tcp_cdg a=1 b=2" lines.
active=$(sed -n 's/^[[:space:]]*options[[:space:]]\{1,\}tcp_cdg[[:space:]]\{1,\}//p' "$ex" | tr ' \t' '\n\n' | grep . || true)
bad=
for kv in $active; do
	n=${kv%%=*} v=$(norm "${kv#*=}")
	d=$(sed -n "s/^$n=//p" "$_tmp/defaults")
	[ -n "$d" ] && [ "$(norm "$d")" = "$v" ] || bad="$bad $kv"
done
tap_eq "the example as shipped sets no value but a default" "${bad# }" ""
tap_eq "no other modprobe directive for tcp_cdg" \
	"$(grep -E '^[[:space:]]*(install|remove|softdep|blacklist|alias)[[:space:]].*tcp_cdg' "$ex" || true)" ""

# The commented-out lines: one per parameter, each at its default.
shown=$(sed -n 's/^#options tcp_cdg \([a-z_]*=[^ ]*\)$/\1/p' "$ex")
wrong=
while IFS='=' read -r n d; do
	v=$(printf '%s\n' "$shown" | sed -n "s/^$n=//p")
	if [ -z "$v" ]; then wrong="$wrong $n:missing"
	elif [ "$(norm "$v")" != "$(norm "$d")" ]; then wrong="$wrong $n=$v(default $d)"; fi
done <"$_tmp/defaults"
for kv in $shown; do
	grep -q "^${kv%%=*}=" "$_tmp/defaults" || wrong="$wrong ${kv%%=*}:unknown"
done
tap_eq "every parameter shown commented out at tcp_cdg.c's default" "${wrong# }" ""

# backoff_factor multiplies the gradient: a larger one backs off more.
fac=$(sed -n '/^# backoff_factor/,/^#options tcp_cdg backoff_factor/p' "$ex" | tr '\n' ' ')
tap_match "backoff_factor: the probability is 1 - exp(-gradient * factor)" "$fac" \
	'1 - exp\(-gradient[^)]* \* factor[^)]*\)'
tap_match "backoff_factor: larger backs off more readily, 0 never" "$fac" \
	'Larger backs off more readily.*0 never backs off'
tap_match "tcp_cdg.c agrees: x = gradient * backoff_factor, back off when a draw exceeds e^-x" \
	"$(grep -A1 -E 'u64 x = \(u64\)used \* READ_ONCE\(backoff_factor\)' "$top/tcp_cdg.c" | tr '\n' ' ')" \
	'nexp_u32'

# --- README against docs/tuning.md ----------------------------------------------------
# col ROW COL: the figures of the "Against the targets" rows whose first
# cell starts with ROW, column COL (3 defaults, 5 recommended), unbolded.
col() {
	awk -F'|' -v row="$1" -v c="$2" '
		/^## Against the targets/ { on = 1; next } /^## / { on = 0 }
		on && index($2, " " row) == 1 { v = $(c + 1); gsub(/[* ]/, "", v); print v }' \
		"$top/docs/tuning.md"
}
range() {	# "min-max" of numbers as written (their text, not reformatted)
	sort -g | sed -n '1h; ${H; x; s/\n/-/p}'
}
u_rec=$(col utilization 5 | range) u_def=$(col utilization 3 | range)
k_rec=$(col "Kleinrock power" 5 | range)
q_rec=$(col "p95 queueing delay, 20 ms" 5 | range) q_def=$(col "p95 queueing delay, 20 ms" 3 | range)
s_def=$(col "share against" 3) s_rec=$(col "share against" 5)
tap_match "tuning.md's table read (utilization ranges)" "$u_rec $u_def" '^[0-9.]+-[0-9.]+ [0-9.]+-[0-9.]+$'
readme=$(sed -n '/^The opt-in mode that measured best/,/^$/p' "$top/README.md" | tr '\n' ' ' | tr -s ' ')
tap_match "README: utilization $u_rec, defaults $u_def (tuning.md)" "$readme" \
	"used $(re_quote "$u_rec") of the link on all four paths where the defaults used $(re_quote "$u_def"),"
tap_match "README: $k_rec times bbr's Kleinrock power (tuning.md)" "$readme" \
	"at $(re_quote "$k_rec") times bbr's Kleinrock power"
tap_match "README: p95 $q_rec ms at 20 ms against $q_def (tuning.md)" "$readme" \
	"p95 $(re_quote "$q_rec") ms at 20 ms against $(re_quote "$q_def")\\)"
tap_match "README: share against cubic $s_def and $s_rec (tuning.md)" "$readme" \
	"\\($(re_quote "$s_def") and $(re_quote "$s_rec") of the link"

pkg_end
