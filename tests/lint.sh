#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [--tap]
#
# checkpatch.pl --strict and kernel-doc -none (both from Debian's
# linux-source-6.1) over every kernel source file, sparse (C=2) over the
# modules, cppcheck over user space.  Any message fails.  With --tap,
# prints one TAP line per tool.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
tap=0
[ "${1:-}" = --tap ] && tap=1
cache=${XIB_CACHE:-$HOME/.cache/xib}
log=$root/build/lint
mkdir -p "$log"
failed=0

result() {	# result STATUS NAME LOGFILE
	if [ "$1" = 0 ]; then
		[ $tap = 1 ] && echo "ok - lint: $2" || echo "lint: $2: clean"
	else
		failed=1
		if [ $tap = 1 ]; then
			echo "not ok - lint: $2"
			sed 's/^/#   /' "$3" | head -n 60
		else
			cat "$3"
			echo "lint: $2: FAILED"
		fi
	fi
}

# The kernel source files checkpatch and kernel-doc read.
kernel_files() {
	git ls-files -co --exclude-standard \
		'core/*.[ch]' 'drivers/*.[ch]' 'include/*.h' 'tests/kunit/*.c' \
		'tests/vm/selftest/*.c' | grep -v '\.mod\.c$' | sort -u
}

# Where the scripts of the installed linux-source-6.1 are extracted.
scripts_dir() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
		echo "linux-source-6.1 is not installed (make deps)" >&2; return 1; }
	echo "$cache/checkpatch-$ver"
}

checkpatch() {
	local dir
	dir=$(scripts_dir) || return 1
	if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$dir"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$dir" --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch || return 1
	fi
	local trace=() rest=() f status=0
	mapfile -t files < <(kernel_files)
	echo "checkpatch: ${#files[@]} files"
	for f in "${files[@]}"; do
		case $f in
		*_trace.h) trace+=("$f") ;;
		*) rest+=("$f") ;;
		esac
	done
	# .checkpatch.conf in the repository root supplies the options.
	perl "$dir/scripts/checkpatch.pl" --quiet --no-summary -f "${rest[@]}" || status=1
	# tracepoint headers: TRACE_EVENT()'s own layout, as in the kernel's
	# include/trace/events/, which checkpatch's --strict does not know
	if [ ${#trace[@]} -gt 0 ]; then
		perl "$dir/scripts/checkpatch.pl" --quiet --no-summary \
			--ignore OPEN_ENDED_LINE,PARENTHESIS_ALIGNMENT -f "${trace[@]}" || status=1
	fi
	return $status
}

# kernel-doc comments: any warning or error fails (its exit status does
# not tell with -none).
kerneldoc_check() {
	local dir out status
	dir=$(scripts_dir) || return 1
	if [ ! -f "$dir/scripts/kernel-doc" ]; then
		mkdir -p "$dir"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$dir" --strip-components=1 \
			linux-source-6.1/scripts/kernel-doc || return 1
	fi
	mapfile -t files < <(kernel_files)
	echo "kernel-doc: ${#files[@]} files"
	out=$(perl "$dir/scripts/kernel-doc" -none "${files[@]}" 2>&1)
	status=$?
	[ -n "$out" ] && echo "$out"
	[ "$status" = 0 ] && [ -z "$out" ]
}

sparse_check() {
	local kdir src
	kdir=$(bash -c ". tests/vm/kernels.sh && xib_kernel_paths stock && echo \$KDIR") || return 1
	src=$root/build/sparse
	rm -rf "$src"
	mkdir -p "$src"
	rsync -a --relative Kbuild core drivers include tests/kunit tests/vm/selftest "$src/"
	make -s -C "$kdir" M="$src" C=2 XIB_TEST_MODULES=1 modules >"$log/sparse.raw" 2>&1 || {
		cat "$log/sparse.raw"; return 1; }
	# Only our files count: the distribution's headers have their own.
	grep -E "^$src/[^:]+:[0-9]+:[0-9]+: (warning|error):" "$log/sparse.raw" &&
		return 1
	return 0
}

cppcheck_check() {
	cppcheck --quiet --error-exitcode=1 --inline-suppr \
		--enable=warning,style,performance,portability \
		--suppress=missingIncludeSystem --std=c11 \
		-I include/uapi userspace/ tests/vm/xib-ivshmem-server.c
}

checkpatch >"$log/checkpatch.log" 2>&1
result $? "checkpatch --strict" "$log/checkpatch.log"
kerneldoc_check >"$log/kernel-doc.log" 2>&1
result $? "kernel-doc" "$log/kernel-doc.log"
sparse_check >"$log/sparse.log" 2>&1
result $? "sparse (C=2)" "$log/sparse.log"
cppcheck_check >"$log/cppcheck.log" 2>&1
result $? "cppcheck (user space)" "$log/cppcheck.log"
exit $failed
