// SPDX-License-Identifier: BSD-2-Clause
/*
 * The numbers of include/uapi/xib/netlink.h are ABI: commands and
 * attributes are only ever appended.  This file pins them (it does not
 * compile if one moved); run, it prints one TAP line.
 */
#include <assert.h>
#include <stdio.h>

#include <xib/netlink.h>

#define PIN(x, n) static_assert((x) == (n), #x " moved from " #n)

PIN(XIB_CMD_DEV_GET, 1);
PIN(XIB_CMD_LINK_ADD, 2);
PIN(XIB_CMD_LINK_DEL, 3);
PIN(XIB_CMD_PORT_GET, 4);
PIN(XIB_CMD_RES_QP_GET, 5);
PIN(XIB_CMD_RES_CQ_GET, 6);
PIN(XIB_CMD_RES_MR_GET, 7);
PIN(XIB_CMD_RES_PD_GET, 8);
PIN(XIB_CMD_RES_SRQ_GET, 9);
PIN(XIB_CMD_RES_AH_GET, 10);
PIN(XIB_CMD_RES_CTX_GET, 11);
PIN(XIB_CMD_STAT_GET, 12);
PIN(XIB_CMD_STAT_RESET, 13);
PIN(XIB_CMD_TRACE_PKT, 14);
PIN(XIB_CMD_SYS_GET, 15);
PIN(XIB_CMD_SYS_SET, 16);
PIN(XIB_CMD_RES_MW_GET, 17);
PIN(XIB_CMD_RES_CM_ID_GET, 18);
static_assert(XIB_CMD_MAX >= XIB_CMD_RES_CM_ID_GET, "XIB_CMD_MAX");

PIN(XIB_ATTR_DEV_INDEX, 1);
PIN(XIB_ATTR_PAD, 8);
PIN(XIB_ATTR_PORT_INDEX, 9);
PIN(XIB_ATTR_GID_TYPE, 17);
PIN(XIB_ATTR_DEV_RES, 18);
PIN(XIB_ATTR_RES_PD, 19);
PIN(XIB_ATTR_RES_UCONTEXT, 25);
PIN(XIB_ATTR_RES_CM_ID, 26);
PIN(XIB_ATTR_RES_MAD_SEND, 27);
PIN(XIB_ATTR_RES_PID, 28);
PIN(XIB_ATTR_RES_KERN, 31);
PIN(XIB_ATTR_RES_QPN, 33);
PIN(XIB_ATTR_RES_RETRANSMITS, 41);
PIN(XIB_ATTR_RES_PDN, 43);
PIN(XIB_ATTR_RES_LKEY, 51);
PIN(XIB_ATTR_RES_DGID, 59);
PIN(XIB_ATTR_STATS, 60);
PIN(XIB_ATTR_STAT_ENTRY, 61);
PIN(XIB_ATTR_STAT_NAME, 62);
PIN(XIB_ATTR_STAT_VALUE, 63);
PIN(XIB_ATTR_TRACE_DIR, 64);
PIN(XIB_ATTR_TRACE_PKT, 66);
PIN(XIB_ATTR_SYS_NETNS_SHARED, 67);
PIN(XIB_ATTR_LINK_PCI, 68);
PIN(XIB_ATTR_RES_MW, 69);
PIN(XIB_ATTR_RES_XRCD, 70);
PIN(XIB_ATTR_RES_MW_TYPE, 71);
PIN(XIB_ATTR_RES_MW_STATE, 72);
PIN(XIB_ATTR_RES_CM_IDN, 73);
PIN(XIB_ATTR_RES_PS, 74);
PIN(XIB_ATTR_RES_CM_STATE, 75);
PIN(XIB_ATTR_RES_SRC_ADDR, 76);
PIN(XIB_ATTR_RES_DST_ADDR, 77);
PIN(XIB_ATTR_RES_BACKLOG, 78);
static_assert(XIB_ATTR_MAX >= XIB_ATTR_RES_BACKLOG, "XIB_ATTR_MAX");
static_assert(XIB_TRACE_RX == 0 && XIB_TRACE_TX == 1, "enum xib_trace_dir");
static_assert(XIB_NL_MW_FREE == 0 && XIB_NL_MW_BOUND == 1, "enum xib_nl_mw_state");
static_assert(XIB_NL_CM_IDLE == 0 && XIB_NL_CM_LISTEN == 9 &&
	      XIB_NL_CM_DESTROYING == 11, "enum xib_nl_cm_state");
static_assert(XIB_NL_PS_TCP == 0x0106 && XIB_NL_PS_UDP == 0x0111 &&
	      XIB_NL_PS_IPOIB == 0x0002 && XIB_NL_PS_IB == 0x013f, "enum xib_nl_ps");

int main(void)
{
	printf("ok - host: uapi netlink commands and attributes keep their numbers\n");
	return 0;
}
