#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/layers.sh - every #include in src/ points down (tests/layers.txt)
#
#   tests/layers.sh
#
# Reads the ranks in tests/layers.txt and checks each '#include "..."' of
# every file under src/: the included module must be the file's own or of
# a lower rank.  One PASS/FAIL line per rule to $TEST_RESULTS (tests/run.sh):
# "layers-listed" (every module has a rank) and "layers-down" (no include
# up or sideways).  Each offending edge is printed as
#   up: src/port/port_tap.c -> src/switch.h (rank 10 -> 12)
#
# Edges that the port API redesign (issue 10) is still removing are listed
# after "pending:" in tests/layers.txt, one "FROM -> TO" per line: they are
# reported, not failed.  The list may only shrink: a pending edge that no
# longer exists fails the check until its line is deleted.
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS=${TEST_RESULTS:-/dev/null}

declare -A rank=()	# exact module -> rank
declare -A pending=()	# "FROM -> TO" -> 1 (still to be removed)
prefixes=()		# "prefix rank" for patterns ending in *
each=()			# "prefix rank" for patterns ending in %
r=0
section=ranks
while read -r line; do
	line=${line%%#*}
	[ -z "${line// /}" ] && continue
	if [ "$line" = "pending:" ]; then
		section=pending
		continue
	fi
	if [ $section = pending ]; then
		pending[$line]=1
		continue
	fi
	for m in $line; do
		if [[ $m == *'*' ]]; then
			prefixes+=("${m%\*} $r")
		elif [[ $m == *'%' ]]; then
			each+=("${m%\%} $r")
		else
			rank[$m]=$r
		fi
	done
	r=$((r + 1))
done <tests/layers.txt

# module_of FILE - "module rank" of a path under src/, or nothing
module_of() {
	local m=${1#src/} p
	m=${m%.[ch]}
	if [ -n "${rank[$m]+x}" ]; then
		echo "$m ${rank[$m]}"
		return
	fi
	for p in "${prefixes[@]}"; do
		if [[ $m == "${p% *}"* ]]; then
			echo "${p% *}* ${p#* }"
			return
		fi
	done
	for p in "${each[@]}"; do
		if [[ $m == "${p% *}"* ]]; then
			echo "$m ${p#* }"
			return
		fi
	done
}

bad=0 unlisted=0 npend=0
declare -A seen=()
while IFS= read -r f; do
	read -r fm fr < <(module_of "$f")
	if [ -z "${fm:-}" ]; then
		echo "unlisted: $f has no rank in tests/layers.txt"
		unlisted=$((unlisted + 1))
		continue
	fi
	while IFS= read -r inc; do
		t=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
		read -r tm tr < <(module_of "$t")
		[ -z "${tm:-}" ] && continue	# counted when the file is seen
		[ "$tm" = "$fm" ] && continue
		if [ "$tr" -ge "$fr" ]; then
			if [ "$tr" -gt "$fr" ]; then kind=up; else kind=sideways; fi
			if [ -n "${pending["$f -> $t"]+x}" ]; then
				echo "pending $kind: $f -> $t"
				seen["$f -> $t"]=1
				npend=$((npend + 1))
				continue
			fi
			echo "$kind: $f -> $t (rank $fr -> $tr)"
			bad=$((bad + 1))
		fi
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done < <(find src -name '*.[ch]' | sort)

for e in "${!pending[@]}"; do
	[ -n "${seen[$e]+x}" ] && continue
	echo "gone: $e is no longer an include: delete it from tests/layers.txt"
	bad=$((bad + 1))
done

[ $unlisted = 0 ] && echo "PASS layers-listed" >>"$RESULTS" ||
	echo "FAIL layers-listed $unlisted files without a rank" >>"$RESULTS"
[ $bad = 0 ] && echo "PASS layers-down" >>"$RESULTS" ||
	echo "FAIL layers-down $bad includes up or sideways" >>"$RESULTS"
echo "layers: $unlisted unlisted, $bad includes up or sideways, $npend pending"
[ $unlisted = 0 ] && [ $bad = 0 ]
