# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM scripts: where each test kernel and its build tree are.
#
# xib_kernel_paths stock|debug sets
#   KREL    the kernel release
#   KIMAGE  the bootable image
#   KDIR    the tree to build external modules against

xib_stock_release() {
	# The newest Debian 6.1 kernel image that has its headers installed.
	local v
	for v in $(ls -1 /boot/vmlinuz-6.1.*-amd64 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -rV); do
		if [ -d "/usr/src/linux-headers-$v" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

xib_kernel_paths() {
	case $1 in
	stock)
		KREL=$(xib_stock_release) || {
			echo "no Debian 6.1 kernel with headers (run 'make deps')" >&2
			return 1
		}
		KIMAGE=/boot/vmlinuz-$KREL
		KDIR=/usr/src/linux-headers-$KREL
		;;
	debug)
		KDIR=$("$(dirname "${BASH_SOURCE[0]}")/build-debug-kernel")
		KREL=$(sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' "$KDIR/include/generated/utsrelease.h")
		KIMAGE=$KDIR/arch/x86/boot/bzImage
		;;
	*)
		echo "unknown kernel '$1' (stock or debug)" >&2
		return 1
		;;
	esac
}
