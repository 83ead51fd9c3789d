# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/vm/run-vm (--wire) and tests/bats/host/wire.bats: the
# QEMU arguments of the emulated wire between two test guests.
#
# The wire is a QEMU "dgram" netdev: each side's virtio-net NIC sends its
# Ethernet frames as UDP datagrams on 127.0.0.1 to the other side's port
# and receives on its own.  Side "a" binds PORT and sends to PORT+1, side
# "b" binds PORT+1 and sends to PORT; neither needs the other to be up
# first, and a frame sent while the peer is down is lost, as on a cable.
# Each side has a fixed MAC (XIB_WIRE_MAC_A, XIB_WIRE_MAC_B), by which the
# guest finds its NIC.

XIB_WIRE_MAC_A=52:54:00:78:69:0a
XIB_WIRE_MAC_B=52:54:00:78:69:0b
XIB_WIRE_PORT=47910

# xib_wire_args SPEC: SPEC is SIDE[:PORT] (SIDE a or b, PORT the base UDP
# port, default XIB_WIRE_PORT).  Sets the array WIRE_ARGS to the QEMU
# arguments of that side's NIC and netdev, or says why not and returns 1.
xib_wire_args() {
	local side=${1%%:*} port=$XIB_WIRE_PORT lport rport mac
	[[ $1 != *:* ]] || port=${1#*:}
	if ! [[ $port =~ ^[0-9]+$ ]] || [ "$port" -lt 1024 ] || [ "$port" -gt 65534 ]; then
		echo "wire: port '$port' is not a number in 1024..65534" >&2
		return 1
	fi
	case $side in
	a) lport=$port rport=$((port + 1)) mac=$XIB_WIRE_MAC_A ;;
	b) lport=$((port + 1)) rport=$port mac=$XIB_WIRE_MAC_B ;;
	*)
		echo "wire: side '$side' is not a or b (SPEC: SIDE[:PORT])" >&2
		return 1
		;;
	esac
	# shellcheck disable=SC2034 # for the caller
	WIRE_ARGS=(-netdev "dgram,id=xibwire,local.type=inet,local.host=127.0.0.1,local.port=$lport,remote.type=inet,remote.host=127.0.0.1,remote.port=$rport"
		   -device "virtio-net-pci,netdev=xibwire,mac=$mac")
}
