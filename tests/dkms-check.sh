#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms-check.sh: "dkms add", "build" and "remove" of this tree against the
# installed Debian 6.1 headers, in a scratch DKMS tree so that nothing on
# this machine changes.  Prints one TAP line per step.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/vm/kernels.sh
. "$root/tests/vm/kernels.sh"
krel=$(xib_stock_release) || { echo "not ok - dkms: no 6.1 headers installed"; exit 1; }
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/dkms.conf")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
src=$scratch/src/xib-$ver
tree=$scratch/tree
mkdir -p "$src" "$tree"

# What a source package would ship: the module sources and dkms.conf.
(cd "$root" && rsync -a --relative Kbuild dkms.conf core drivers include "$src/")

dk=(dkms --dkmstree "$tree" --sourcetree "$scratch/src" --installtree "$scratch/install")
failed=0
step() {	# step NAME COMMAND...
	local name=$1
	shift
	if "$@" >"$scratch/log" 2>&1; then
		echo "ok - dkms: $name"
	else
		echo "not ok - dkms: $name"
		sed 's/^/#   /' "$scratch/log" | tail -n 30
		find "$tree" -name make.log -exec tail -n 30 {} + 2>/dev/null | sed 's/^/#   /'
		failed=1
	fi
}

step "add xib/$ver" "${dk[@]}" add -m xib -v "$ver"
step "build xib/$ver for $krel" "${dk[@]}" build -m xib -v "$ver" -k "$krel"
built=$(find "$tree/xib/$ver/$krel" -name 'xib_*.ko*' 2>/dev/null | wc -l)
if [ "$built" -eq 5 ]; then
	echo "ok - dkms: all 5 modules built"
else
	echo "not ok - dkms: $built of 5 modules built"
	failed=1
fi
step "remove xib/$ver" "${dk[@]}" remove -m xib -v "$ver" --all
exit $failed
