#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Every installed Debian ELF object that links an RDMA library loads
# against xib's library directory, on the build machine (no device
# needed): the provider libraries there (libmlx5, libefa, libmlx4,
# libmana) export the whole symbol set of rdma-core 44's, each function
# answering "not this device" (provider-answers.py), and every binary,
# shared object and Python extension module (imported too) of the
# installed packages that depend on libibverbs1,
# librdmacm1, libibumad3 or ibverbs-providers resolves every symbol and
# version through xib-run (ldd -r).  make deps installs those packages
# (tests/deps.sh: rdma-core's utilities, perftest, python3-pyverbs,
# qperf; qemu-system-x86 links libibverbs too).

bats_require_minimum_version 1.5.0

setup() {
	BUILD=${XIB_BUILD:-$BATS_TEST_DIRNAME/../../../build}
	XR=$BUILD/bin/xib-run
	[ -x "$XR" ]
	# as the loader prints it
	LIBDIR=$(cd "$BUILD/lib/xib" 2>/dev/null && pwd -P)
	[ -n "$LIBDIR" ] && [ -f "$LIBDIR/libibverbs.so.1" ] || skip "libibverbs.so.1 not built (make userspace)"
	SYSLIB=/usr/lib/x86_64-linux-gnu
}

# symbol@version of every function (and version node) a library defines.
defined_syms() {
	nm -D --with-symbol-versions --defined-only "$1" | awk '{ print $2, $3 }' | sort
}

@test "the provider libraries: rdma-core 44's every function at every version node" {
	local lib ours theirs
	for lib in libmlx5.so.1 libefa.so.1 libmlx4.so.1 libmana.so.1; do
		[ -e "$SYSLIB/$lib" ] || skip "ibverbs-providers not installed (make deps)"
		ours=$(defined_syms "$LIBDIR/$lib")
		theirs=$(defined_syms "$SYSLIB/$lib")
		diff <(echo "$theirs") <(echo "$ours") || { echo "$lib differs (< rdma-core, > xib)"; false; }
	done
	# As counted on Debian 12's rdma-core 44: libmlx5 128 functions
	# (mlx5dv_init_obj twice, at MLX5_1.0 and MLX5_1.2) in 25 nodes;
	# libefa 6 in 3; libmlx4 4 and libmana 2 in one.
	[ "$(defined_syms "$LIBDIR/libmlx5.so.1" | grep -c '^T ')" -eq 129 ]
	[ "$(defined_syms "$LIBDIR/libmlx5.so.1" | grep -c '^A ')" -eq 25 ]
	[ "$(defined_syms "$LIBDIR/libefa.so.1" | grep -c '^T ')" -eq 6 ]
	[ "$(defined_syms "$LIBDIR/libmlx4.so.1" | grep -c '^T ')" -eq 4 ]
	[ "$(defined_syms "$LIBDIR/libmana.so.1" | grep -c '^T ')" -eq 2 ]
	defined_syms "$LIBDIR/libmlx5.so.1" | grep -qx 'T mlx5dv_init_obj@MLX5_1.0'
	defined_syms "$LIBDIR/libmlx5.so.1" | grep -qx 'T mlx5dv_init_obj@@MLX5_1.2'
}

@test "the provider libraries: every function gives the \"not this device\" answer" {
	local pair lib hdr
	for pair in mlx5:mlx5dv efa:efadv mlx4:mlx4dv mana:manadv; do
		lib=lib${pair%%:*}.so.1
		hdr=/usr/include/infiniband/${pair#*:}.h
		[ -f "$hdr" ] || skip "rdma-core's headers not installed (make deps)"
		run /usr/bin/python3 "$BATS_TEST_DIRNAME/provider-answers.py" "$LIBDIR/$lib" "$hdr"
		echo "$output"
		[ "$status" -eq 0 ]
	done
}

# Files xib-run never loads: the libraries xib replaces (its own copies
# come first on the search path) and rdma-core's provider plugins, which
# only rdma-core's libibverbs dlopen()s.
replaced() {
	case "$1" in
	*/libibverbs.so.1* | */librdmacm.so.1* | */libmlx5.so.1* | */libefa.so.1* | \
	*/libmlx4.so.1* | */libmana.so.1*) return 0 ;;
	"$SYSLIB"/libibverbs/*-rdmav*.so) return 0 ;;
	esac
	return 1
}

@test "ldd -r through xib-run: every ELF object of the installed RDMA packages resolves" {
	local pkgs pkg f needed out checked=0 skipped=0 bad=0 lib
	pkgs=$(dpkg-query -W -f '${Package}\t${Depends}\n' |
	       awk -F'\t' '$2 ~ /(^|[ ,])(libibverbs1|librdmacm1|libibumad3|ibverbs-providers)([ ,(]|$)/ { print $1 }')
	pkgs="$pkgs libibverbs1 librdmacm1 libibumad3 ibverbs-providers"
	for pkg in $pkgs; do
		while read -r f; do
			[ -f "$f" ] && [ ! -L "$f" ] || continue
			[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
			needed=$(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
			grep -Eq '^(libibverbs|librdmacm|libmlx5|libefa|libmlx4|libmana)\.so\.1$|^libibumad\.so\.3$' \
				<<<"$needed" || continue
			if replaced "$f"; then
				skipped=$((skipped + 1))
				continue
			fi
			checked=$((checked + 1))
			out=$("$XR" ldd -r "$f" 2>&1)
			if grep -Eq 'undefined symbol|not found|no version information' <<<"$out"; then
				echo "$pkg: $f:"
				grep -E 'undefined symbol|not found|no version information' <<<"$out" | head -5
				bad=1
			fi
			# The replaced libraries come from xib's directory.
			for lib in libibverbs.so.1 librdmacm.so.1 libmlx5.so.1 libefa.so.1 \
				   libmlx4.so.1 libmana.so.1; do
				if grep -q "$lib =>" <<<"$out" && ! grep -q "$lib => $LIBDIR/$lib" <<<"$out"; then
					echo "$f: $(grep "$lib =>" <<<"$out")"
					bad=1
				fi
			done
		done < <(dpkg -L "$pkg" 2>/dev/null)
	done
	echo "# checked $checked objects, left out $skipped (replaced by xib or rdma-core plugins)"
	[ "$bad" = 0 ]
	# ibverbs-utils, rdmacm-utils and perftest alone are 28 programs.
	[ "$checked" -ge 28 ]
}

@test "the Python extension modules of python3-pyverbs resolve and import" {
	local f n=0 out
	dpkg-query -W -f '${Status}\n' python3-pyverbs 2>/dev/null | grep -q 'install ok installed' ||
		skip "python3-pyverbs not installed (make deps)"
	while read -r f; do
		case "$f" in */pyverbs/*.so) ;; *) continue ;; esac
		n=$((n + 1))
		out=$("$XR" ldd -r "$f" 2>&1)
		! grep -Eq 'undefined symbol|not found|no version information' <<<"$out" ||
			{ echo "$f: $out"; false; }
	done < <(dpkg -L python3-pyverbs)
	# pyverbs' own modules, mlx5's (the mlx5dv_* users) and efa's
	[ "$n" -ge 30 ]
	# Python loads them with RTLD_NOW: each imports through xib-run, and
	# pyverbs lists the devices (if any) through xib's libibverbs.
	run "$XR" /usr/bin/python3 -c '
import importlib, subprocess
files = subprocess.run(["dpkg", "-L", "python3-pyverbs"], capture_output=True, text=True).stdout
mods = [f.split("dist-packages/")[1].split(".")[0].replace("/", ".")
        for f in files.split() if "/pyverbs/" in f and f.endswith(".so")]
for m in mods:
    importlib.import_module(m)
import pyverbs.device
print(len(mods), "imported;", len(pyverbs.device.get_device_list()), "devices")'
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^$n\ imported\;\ [0-9]+\ devices$ ]]
}
