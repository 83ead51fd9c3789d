#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lint.sh [--tap]
#
# checkpatch.pl --strict (from Debian's linux-source-6.1) over every kernel
# source file, sparse (C=2) over the modules, cppcheck over user space.
# Any message fails.  With --tap, prints one TAP line per tool.
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

checkpatch() {
	local ver dir
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) || {
		echo "linux-source-6.1 is not installed (make deps)"; return 1; }
	dir=$cache/checkpatch-$ver
	if [ ! -f "$dir/scripts/checkpatch.pl" ]; then
		mkdir -p "$dir"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$dir" --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch || return 1
	fi
	mapfile -t files < <(git ls-files -co --exclude-standard \
		'core/*.[ch]' 'drivers/*.[ch]' 'include/*.h' 'tests/kunit/*.c' \
		'tests/vm/selftest/*.c' | grep -v '\.mod\.c$' | sort -u)
	echo "checkpatch: ${#files[@]} files"
	# .checkpatch.conf in the repository root supplies the options.
	perl "$dir/scripts/checkpatch.pl" --quiet --no-summary -f "${files[@]}"
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
		-I include/uapi userspace/
}

checkpatch >"$log/checkpatch.log" 2>&1
result $? "checkpatch --strict" "$log/checkpatch.log"
sparse_check >"$log/sparse.log" 2>&1
result $? "sparse (C=2)" "$log/sparse.log"
cppcheck_check >"$log/cppcheck.log" 2>&1
result $? "cppcheck (user space)" "$log/cppcheck.log"
exit $failed
