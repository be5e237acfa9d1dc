#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/mutants/run.sh - prove the suite's guards still bite: build vhostd
# with one guard removed (a mutant) and expect the tests that claim to
# catch it to fail
#
#   working tree --tar--> $WORK/base --make--> base/build   (unmutated)
#                            |                    |
#                            |        --control: every named test must
#                            |        PASS here, or its failure proves nothing
#                            |
#                            +--cp -a--> $WORK/m + NAME.patch --make--> m/build
#                                        (only the patched files recompile)
#                                                   |
#                       every test NAME.patch names must FAIL against m/build
#
# Usage: tests/mutants/run.sh [--control] [--keep] [--verbose] [--list]
#                             [--ci | --all | NAME...]
#   --ci       the mutants whose header says "ci: yes" (the default)
#   --all      every mutant but the known gaps; implies --control
#   NAME...    those mutants (tests/mutants/NAME.patch), gaps included
#   --control  run the named tests on the unmutated build first
#   --keep     keep $WORK (the trees, builds and logs) and say where
#   --verbose  show each kill's failure line too
#   --list     print each mutant's guard and tests, run nothing
#
# In --ci mode the control run is left out: CI runs this after the main
# suite, which has already shown the same tests passing on the same tree.
#
# A mutant is a patch (patch -p1 --fuzz=0) after a header of "# key:
# value" lines (see README.md): "tests:" names what must kill it --
# unit:test_NAME (a unit binary), it:NAME (tests/integration/run.sh NAME,
# BUILD= the mutated build), offload:NAME (tests/integration/offload.sh
# NAME), SCRIPT:NAME for any other tests/integration/SCRIPT.sh (l2:NAME
# runs tests/integration/l2.sh NAME).  A kill is a real failure of that test: a cmocka "[  FAILED  ]",
# or the script's "FAIL NAME" line -- not a missing binary, not "vhostd
# did not start".  A timeout counts as a kill only for a test the header
# lists under "hang-kills:".  A patch that does not apply, a mutated tree
# that does not build or builds to the same daemon is "stale".
#
# One line per mutant, then exactly "N passed, M failed, K skipped" (K:
# mutants whose prerequisite, "needs:", is missing).  Exit 1 on any
# failure, else 0; skips are counted, not failed.
#
# Environment: MUTANTS_JOBS (make -j, 2), MUTANTS_TIMEOUT (seconds per
# script or unit run, 300), MUTANTS_HANG_TIMEOUT (seconds for a
# hang-kills test, 10; it runs in milliseconds unmutated).

set -uo pipefail
# The test scripts append their result lines to $TEST_RESULTS when set:
# the failures a mutant provokes are expected, not the suite's.  Only the
# mutants' own lines go there (res).
MUT_RESULTS=${TEST_RESULTS:-}
unset TEST_RESULTS

# res LINE...: print one result line; append it to the caller's results
res() {
	echo "$*"
	[ -n "$MUT_RESULTS" ] && echo "$*" >>"$MUT_RESULTS"
	return 0
}

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
JOBS=${MUTANTS_JOBS:-2}
TMO=${MUTANTS_TIMEOUT:-300}
HANG_TMO=${MUTANTS_HANG_TIMEOUT:-10}

mode=ci
control=0
keep=0
verbose=0
list=0
names=()
while [ $# -gt 0 ]; do
	case "$1" in
	--ci) mode=ci ;;
	--all) mode=all; control=1 ;;
	--control) control=1 ;;
	--keep) keep=1 ;;
	-v|--verbose) verbose=1 ;;
	--list) list=1 ;;
	-h|--help) sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) mode=names; names+=("$1") ;;
	esac
	shift
done

# hdr PATCH KEY: the value of "# KEY: value" in PATCH's header (one line)
hdr() {
	sed -n '/^\(---\|diff\|Index:\) /q; s/^# '"$2"': *//p' "$1" | head -n 1
}

# guard PATCH: the "guard:" text with its continuation lines, on one line
guard() {
	sed -n '/^\(---\|diff\|Index:\) /q; /^# guard:/,/^# [a-z-]*:/p' "$1" |
		sed '1s/^# guard: *//; 2,$ { /^# [a-z-]*:/d; s/^# *// }' |
		tr '\n' ' ' | sed 's/ *$//'
}

# ---- which mutants -----------------------------------------------------------

sel=()
case $mode in
ci|all)
	for p in "$HERE"/*.patch; do
		[ -e "$p" ] || continue
		[ $mode = all ] || [ "$(hdr "$p" ci)" = yes ] || continue
		# a known gap survives until a test covers it: by name only
		[ -z "$(hdr "$p" gap)" ] || continue
		sel+=("$(basename "$p" .patch)")
	done ;;
names)
	for n in "${names[@]}"; do
		if [ ! -f "$HERE/$n.patch" ]; then
			echo "run.sh: no mutant $n ($HERE/$n.patch)" >&2
			exit 2
		fi
		sel+=("$n")
	done ;;
esac
if [ ${#sel[@]} = 0 ]; then
	echo "run.sh: no mutants selected" >&2
	exit 2
fi

if [ $list = 1 ]; then
	for n in "${sel[@]}"; do
		p=$HERE/$n.patch
		printf '%s [ci: %s]\n  guard: %s\n  tests: %s\n' "$n" \
			"$(hdr "$p" ci)" "$(guard "$p")" "$(hdr "$p" tests)"
		g=$(hdr "$p" gap)
		[ -z "$g" ] || printf '  gap: %s\n' "$g"
	done
	exit 0
fi

# ---- work area; only what we started is stopped ----------------------------

WORK=$(mktemp -d /tmp/vhostd-mut.XXXXXX)
CHILD=
cleanup() {
	# timeout passes the TERM on to the test's process group, whose
	# own trap stops its vhostd and removes its netns and temp dir
	if [ -n "$CHILD" ]; then
		kill "$CHILD" 2>/dev/null
		wait "$CHILD" 2>/dev/null
	fi
	if [ $keep = 1 ]; then
		echo "kept $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$WORK/logs"

# targets TEST...: the make targets (relative to a tree) the tests need
targets() {
	local t
	for t in "$@"; do
		case "$t" in
		unit:*) echo "build/tests/${t#unit:}" ;;
		it:*)
			# run.sh runs offload.sh too, whatever the filter:
			# every integration program, so that nothing is
			# missing (they link libvdrv.a only, a mutant in
			# src/ never rebuilds them)
			echo build/vhostd build/vhostctl \
				build/tests/vdrv_itest build/tests/vdrv_tool \
				build/tests/tapdirect_itest \
				build/tests/offload_itest ;;
		offload:*)
			echo build/vhostd build/vhostctl \
				build/tests/offload_itest ;;
		*:*)
			# another script of tests/integration: every program,
			# as for it:
			if [ -f "$ROOT/tests/integration/${t%%:*}.sh" ]; then
				echo build/vhostd build/vhostctl \
					build/tests/vdrv_itest build/tests/vdrv_tool \
					build/tests/tapdirect_itest \
					build/tests/offload_itest
			else
				echo "BAD-TEST-NAME:$t"
			fi ;;
		*) echo "BAD-TEST-NAME:$t" ;;
		esac
	done | tr ' ' '\n' | sort -u
}

# need_ok PATCH: the mutant's prerequisites ("needs: root jq ..."); prints
# the first one missing
need_ok() {
	local n
	for n in $(hdr "$1" needs); do
		case "$n" in
		root) [ "$(id -u)" = 0 ] || { echo root; return 1; } ;;
		*) command -v "$n" >/dev/null || { echo "$n"; return 1; } ;;
		esac
	done
	return 0
}

# bounded SECONDS LOG DIR CMD...: run CMD in DIR under timeout, output to
# LOG; in the background, so that a signal to us is handled at once (and
# passed on by cleanup()).  Return: CMD's status, 124/137 on timeout
bounded() {
	local tmo=$1 log=$2 dir=$3 rc
	shift 3
	(cd "$dir" && exec timeout -k 10 "$tmo" "$@") >"$log" 2>&1 &
	CHILD=$!
	wait "$CHILD"
	rc=$?
	CHILD=
	return $rc
}

# build TREE LOG TARGET...: make the targets in TREE (O=build)
build() {
	local tree=$1 log=$2
	shift 2
	make -C "$tree" -j"$JOBS" O=build "$@" >"$log" 2>&1
}

# ---- running tests against a build ------------------------------------------
#
# Each sets, per test name in the arrays below, VERDICT[test]: pass,
# fail (a real failure), hang (timed out), skip, or error:WHY; and
# DETAIL[test], a line to show.

declare -A VERDICT DETAIL

# A FAIL line saying this is the set-up's failure, not the test's
SETUP_FAIL='(vhostd did not start|no start|missing /)'

# scan_script LOG RC NAME...: classify script tests by their result lines
scan_script() {
	local log=$1 rc=$2 name line
	shift 2
	for name in "$@"; do
		line=$(awk -v n="$name" '/^(PASS|FAIL|SKIP) / && $2 == n {
			print; exit }' "$log")
		case "$line" in
		PASS*) VERDICT[$name]=pass ;;
		SKIP*) VERDICT[$name]=skip ;;
		FAIL*)
			if [[ $line =~ $SETUP_FAIL ]]; then
				VERDICT[$name]="error:set-up failure, no kill"
			else
				VERDICT[$name]=fail
			fi ;;
		*)
			if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				VERDICT[$name]=hang
			elif grep -q '^missing ' "$log"; then
				VERDICT[$name]="error:$(grep -m1 '^missing ' \
					"$log")"
			else
				VERDICT[$name]="error:no result line (rc $rc)"
			fi ;;
		esac
		DETAIL[$name]=${line:-$(tail -n 3 "$log" | tr '\n' ' ')}
	done
}

# run_tests DIR TAG TEST...: run TESTs against DIR/build, logs under TAG;
# HANG_OK (space-separated tests) get the short timeout
run_tests() {
	local dir=$1 tag=$2 t rc log its=() offs=() tmo sc
	local -A others=()
	shift 2
	for t in "$@"; do
		case "$t" in
		it:*) its+=("${t#it:}") ;;
		offload:*) offs+=("${t#offload:}") ;;
		unit:*) ;;
		*:*) others[${t%%:*}]+=" ${t#*:}" ;;
		esac
		case "$t" in
		unit:*)
			log=$WORK/logs/$tag.${t#unit:}.log
			tmo=$TMO
			[[ " $HANG_OK " == *" $t "* ]] && tmo=$HANG_TMO
			bounded "$tmo" "$log" "$dir" "build/tests/${t#unit:}"
			rc=$?
			if [ $rc = 0 ]; then
				VERDICT[$t]=pass
			elif [ $rc = 124 ] || [ $rc = 137 ]; then
				VERDICT[$t]=hang
			elif grep -q '^\[  FAILED  \]' "$log"; then
				VERDICT[$t]=fail
			else
				VERDICT[$t]="error:exit $rc, no cmocka failure"
			fi
			DETAIL[$t]=$(grep -m3 -E \
				'^\[  (FAILED|ERROR) +\]|Test failed' "$log" |
				tr '\n' ' ')
			;;
		esac
	done
	run_script "$dir" "$tag.it" tests/integration/run.sh it "${its[@]}"
	run_script "$dir" "$tag.offload" tests/integration/offload.sh offload \
		"${offs[@]}"
	for sc in "${!others[@]}"; do
		# shellcheck disable=SC2086 # test names have no spaces
		run_script "$dir" "$tag.$sc" "tests/integration/$sc.sh" "$sc" \
			${others[$sc]}
	done
}

# run_script DIR TAG SCRIPT PREFIX NAME...: one run of SCRIPT for NAMEs
run_script() {
	local dir=$1 log=$WORK/logs/$2.log script=$3 pfx=$4 rc n tmo=$TMO
	shift 4
	[ $# -gt 0 ] || return 0
	for n in "$@"; do
		[[ " $HANG_OK " == *" $pfx:$n "* ]] && tmo=$HANG_TMO
	done
	# On expiry timeout signals the script's whole process group: its
	# trap then stops the vhostd it started and removes its netns.
	BUILD="$dir/build" bounded "$tmo" "$log" "$dir" "$script" "$@"
	rc=$?
	scan_script "$log" $rc "$@"
	for n in "$@"; do
		VERDICT[$pfx:$n]=${VERDICT[$n]}
		DETAIL[$pfx:$n]=${DETAIL[$n]}
		unset "VERDICT[$n]" "DETAIL[$n]"
	done
}

# ---- the unmutated tree ------------------------------------------------------

alltests=()
for n in "${sel[@]}"; do
	# shellcheck disable=SC2207 # test names have no spaces
	alltests+=($(hdr "$HERE/$n.patch" tests))
done
mapfile -t alltargets < <(targets "${alltests[@]}")
if printf '%s\n' "${alltargets[@]}" | grep -q '^BAD-TEST-NAME:'; then
	echo "run.sh: bad test name(s): $(printf '%s\n' "${alltargets[@]}" |
		sed -n 's/^BAD-TEST-NAME://p' | tr '\n' ' ')" >&2
	exit 2
fi

t0=$SECONDS
mkdir "$WORK/base"
tar -C "$ROOT" --exclude-vcs --exclude=./build --exclude='./build-*' \
	--exclude=./tests/guest/cache --exclude='*.o' -cf - . |
	tar -C "$WORK/base" -xf - ||
	{ echo "FAIL: cannot copy the working tree"; exit 1; }
if ! build "$WORK/base" "$WORK/logs/base.build.log" "${alltargets[@]}"; then
	echo "FAIL: the unmutated tree does not build:"
	tail -n 20 "$WORK/logs/base.build.log" | sed 's/^/    /'
	echo "0 passed, ${#sel[@]} failed, 0 skipped"
	exit 1
fi

declare -A CONTROL_BAD
if [ $control = 1 ]; then
	mapfile -t uniq < <(printf '%s\n' "${alltests[@]}" | sort -u)
	# a test whose timeout may count as a kill must pass unmutated
	# within that same timeout
	HANG_OK=
	for n in "${sel[@]}"; do
		HANG_OK="$HANG_OK $(hdr "$HERE/$n.patch" hang-kills)"
	done
	run_tests "$WORK/base" control "${uniq[@]}"
	nbad=0
	for t in "${uniq[@]}"; do
		# a skipped test makes its mutant's skip, below
		case "${VERDICT[$t]}" in pass|skip) continue ;; esac
		CONTROL_BAD[$t]=1
		nbad=$((nbad + 1))
		res "FAIL control: $t does not pass unmutated" \
		     "(${VERDICT[$t]}): ${DETAIL[$t]}"
	done
	[ $nbad -gt 0 ] ||
		res "PASS control (the ${#uniq[@]} named tests pass unmutated)"
fi

# ---- the mutants ----------------------------------------------------------

# mutant_build NAME: copy the base tree and build, M=the mutant's tree;
# prints the FAIL line and returns 1 if the mutant is stale
mutant_build() {
	local n=$1 p=$HERE/$1.patch f changed=0 tg
	M=$WORK/m-$n
	cp -a "$WORK/base" "$M"
	if ! patch -d "$M" -p1 --fuzz=0 --no-backup-if-mismatch -s \
			<"$p" >"$WORK/logs/$n.patch.log" 2>&1; then
		res "FAIL mutant-$n: stale (patch does not apply)"
		sed 's/^/    /' "$WORK/logs/$n.patch.log" | head -n 5
		return 1
	fi
	mapfile -t tg < <(targets "${tests[@]}")
	if ! build "$M" "$WORK/logs/$n.build.log" "${tg[@]}"; then
		res "FAIL mutant-$n: stale (the mutated tree does not build)"
		grep -m5 -E 'error|Error' "$WORK/logs/$n.build.log" |
			sed 's/^/    /'
		return 1
	fi
	# The daemon or its library must differ, or the patch hit a file
	# nothing here builds.
	for f in build/libvhostd.a build/vhostd; do
		[ -e "$M/$f" ] && ! cmp -s "$WORK/base/$f" "$M/$f" && changed=1
	done
	if [ $changed = 0 ]; then
		res "FAIL mutant-$n: stale (the patch changes no built code)"
		return 1
	fi
	return 0
}

# list A...: "A, B, C"
list() {
	local IFS=, all
	all="$*"
	echo "${all//,/, }"
}

# mutant_judge NAME: one line from the VERDICTs of its tests.
# Return: 0 killed, 1 failed, 2 skipped
mutant_judge() {
	local n=$1 t v e msg=
	local killed=() survived=() errors=() errnames=() skips=()

	for t in "${tests[@]}"; do
		v=${VERDICT[$t]}
		case "$v" in
		fail) killed+=("$t") ;;
		hang)
			if [[ " $HANG_OK " == *" $t "* ]]; then
				killed+=("$t [timeout]")
			else
				errors+=("$t timed out (not counted as a kill)")
				errnames+=("$t")
			fi ;;
		pass) survived+=("$t") ;;
		skip) skips+=("$t") ;;
		*) errors+=("$t: ${v#error:}"); errnames+=("$t") ;;
		esac
	done
	if [ ${#survived[@]} = 0 ] && [ ${#errors[@]} = 0 ]; then
		if [ ${#skips[@]} -gt 0 ]; then
			res "SKIP mutant-$n ($(list "${skips[@]}") skipped" \
			     "by the test script)"
			return 2
		fi
		res "PASS mutant-$n (killed by $(list "${killed[@]}"))"
		if [ $verbose = 1 ]; then
			for t in "${tests[@]}"; do
				echo "    $t: ${DETAIL[$t]:-}"
			done
		fi
		return 0
	fi
	[ ${#survived[@]} = 0 ] || msg="survived $(list "${survived[@]}")"
	for e in "${errors[@]}" "${skips[@]/%/ skipped}"; do
		[ -n "$e" ] && msg="${msg:+$msg; }$e"
	done
	res "FAIL mutant-$n: $msg"
	for t in "${survived[@]}" "${errnames[@]}"; do
		[ -n "$t" ] && [ -n "${DETAIL[$t]:-}" ] &&
			echo "    $t: ${DETAIL[$t]}"
	done
	return 1
}

passed=0
failed=0
skipped=0
for n in "${sel[@]}"; do
	p=$HERE/$n.patch
	# shellcheck disable=SC2207 # test names have no spaces
	tests=($(hdr "$p" tests))
	HANG_OK=$(hdr "$p" hang-kills)
	bad=()
	for t in "${tests[@]}"; do
		[ -z "${CONTROL_BAD[$t]:-}" ] || bad+=("$t")
	done
	if [ ${#tests[@]} = 0 ]; then
		res "FAIL mutant-$n: its header names no tests"
		rc=1
	elif ! miss=$(need_ok "$p"); then
		res "SKIP mutant-$n (needs $miss)"
		rc=2
	elif [ ${#bad[@]} -gt 0 ]; then
		res "FAIL mutant-$n: $(list "${bad[@]}") fail unmutated," \
		     "a failure proves nothing"
		rc=1
	elif ! mutant_build "$n"; then
		rc=1
	else
		run_tests "$M" "$n" "${tests[@]}"
		mutant_judge "$n"
		rc=$?
	fi
	case $rc in
	0) passed=$((passed + 1)) ;;
	1) failed=$((failed + 1)) ;;
	2) skipped=$((skipped + 1)) ;;
	esac
	[ $keep = 1 ] || rm -rf "$WORK/m-$n"
done

echo "time: $((SECONDS - t0)) s"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
