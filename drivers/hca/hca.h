/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xib_hca private definitions: the device, the verbs objects' driver
 * parts, and the interfaces between the files of the transport engine.
 *
 * Files
 * -----
 *   hca_main.c   module init/exit, link add/del, device attributes
 *   hca_verbs.c  the driver ops: ucontext, PD, MR, CQ, QP, SRQ, AH, kick
 *   hca_queue.c  rings shared with user space; CQE writing and arming;
 *                receive WQE fetching; SGE copies
 *   hca_engine.c the per-device worker thread, QP scheduling, flushing,
 *                the QP async events of states (COMM_EST, SQ_DRAINED,
 *                LAST_WQE_REACHED)
 *   hca_recv.c   packet receive: xib_hca_recv() checks the common headers
 *                and dispatches to the responder or the completer
 *   hca_req.c    requester: WQE fetch and validation, segmentation into
 *                packets, send queue flush
 *   hca_comp.c   completer: ACK/NAK/RNR NAK and read response handling,
 *                the QP timer (local ACK timeout, RNR wait), rewind,
 *                send completions
 *   hca_resp.c   responder: SEND, WRITE, READ, atomics, UD receive, UC
 *                receive; ACKs, READ responses and atomic ACKs, receive
 *                queue flush
 *   hca_atomic.c the responder's atomic checks and read-modify-write of
 *                user memory (pure functions)
 *   hca_retx.c   retransmission arithmetic, the responder resources'
 *                replay and the UC responder's PSN rules (pure functions)
 *   hca_pkt.c    packet building shared by all (xib_hca_build_pkt())
 *   hca_mcast.c  multicast: joining the IP groups of the MGIDs the core's
 *                table names (a work item, under RTNL), and the receive
 *                fan-out to the attached QPs (xib_hca_mcast_recv())
 *   hca_mgid.c   MGID to IP group and MAC address (pure functions)
 *   hca_net.c    the network side (UDP socket, ICRC, routing)
 *   hca_stats.c  the device counters' names and reader
 *   hca_prof.c   the data path profile: its switch and debugfs table
 *   hca_trace.c  the tracepoints (hca_trace.h)
 *   hca_wire.c   header formats, the opcode table and the requester's
 *                [WR opcode][position] table
 *   pci.c        the PCI front end: a pci_driver for a function that
 *                carries xib's signature (pci.h, Documentation/pcie.rst)
 *   pci_sig.c    the signature check (a pure function)
 *
 * Concurrency
 * -----------
 * Contexts:
 *  - process context (ioctl through xib_core): create/modify/destroy of
 *    objects, ops->kick.  modify_qp runs under the core's qp->mutex.
 *    A kick also runs the QP's requester once (xib_hca_req_run()): the
 *    transmit side runs in one context at a time, the worker's or a
 *    kicker's, never both (@req_busy).
 *  - the device's worker thread (hca_engine.c, one kthread per device):
 *    the requester's transmit side of every QP (WQE fetch, validation,
 *    segmentation), RDMA READ responses and the atomic ACKNOWLEDGEs queued
 *    behind them (responder resources), flushing of QPs in the error
 *    state.
 *  - softirq (xib_hca_recv() from the network side, or nested in a local
 *    xib_hca_xmit()): the responder (atomics execute here, under
 *    rq.lock), and the completer's ACK, NAK, read response and atomic
 *    ACKNOWLEDGE processing (hca_comp.c).
 *  - timer (softirq): the QP's timer (RNR wait or local ACK timeout)
 *    only sets a flag under sq.lock and wakes the worker.
 *  The worker may take the core's qp->mutex (mutex_trylock only) to
 *  record an engine-made ERR in qp->attr.
 *
 * Locks, in the order they nest (outermost first):
 *  - xib_hca_dev.qps_lock (spin, _bh): the worker's list of QPs.
 *  - xib_hca_qp.sq.lock (spin, _bh): requester state (struct
 *    xib_hca_sq).  Taken by the worker and by the ACK path.
 *  - xib_hca_qp.rq.lock (spin, _bh): responder state (struct xib_hca_rq,
 *    struct xib_hca_resp), including the read resource table.
 *    modify_qp nests it inside sq.lock (order: sq.lock, rq.lock) to
 *    change attributes both sides use; no other path holds both.
 *  - xib_hca_srq.lock (spin, _bh): the SRQ's consumer index.
 *  - xib_hca_cq.lock (spin, irqsave): the CQ's producer index and arming.
 *  - xib_hca_qp.state_lock (spin, irqsave, innermost): @hstate changes.
 *  The comp and event handlers are called with these held; they only take
 *  their own leaf spinlocks and wake up (xib_verbs.h).
 *
 * Nothing is ever held across xib_hca_xmit(): a packet to a local QP may
 * be delivered (and answered) before xib_hca_xmit() returns.
 *
 * Front ends: one engine serves a device of the netdev front end
 * (hca_main.c's link add) and a device bound to a PCI function too (pci.c,
 * Documentation/pcie.rst).  What differs goes through hooks that test
 * @pci: xib_hca_wake() (the kick path wakes the engine directly, or by
 * the function's doorbell register, whose MSI-X interrupt calls
 * xib_hca_kick_engine()), a CQ's completion event (xib_hca_cq_fire()) and
 * the async events of a QP, CQ or SRQ (xib_hca_qp_event(), _cq_event(),
 * _srq_event(): at once, or queued for the function's event vector), the
 * port events the core derives from the interface (xib_hca_port_event(),
 * the device op: likewise), and
 * xib_hca_pci_attach()/_detach() around the device's life (detach after
 * the engine stopped).
 *
 * QP state: qp->hstate is written under state_lock (xib_hca_qp_set_state(),
 * from modify_qp or from the engine when it finds an error) and read with
 * READ_ONCE(); entering ERR sets flush_sq/flush_rq and wakes the worker,
 * which completes every outstanding WQE with WR_FLUSH_ERR.  The QP's
 * attributes (path, MTU, keys, PSNs) are written by modify_qp with
 * sq.lock and rq.lock held and read under either.
 *
 * Timer: qp->timer is armed (mod_timer()) only with sq.lock held and
 * never re-armed by its own callback; the callback takes sq.lock and
 * does nothing once @dead is set.  So del_timer_sync(), which must be
 * called without sq.lock, stops it for good after @dead is set (destroy)
 * or the state left RTS (reset).
 *
 * Destroy: destroy_qp marks the QP dead under sq.lock and rq.lock, stops
 * the timer and takes it off the worker list; every path that touches a
 * QP's rings or CQs checks @dead under the lock it holds, so after
 * destroy_qp returns nothing touches the QP's CQs, SRQ or MRs again.
 * The worker may still hold a kref on the QP (its memory and rings stay
 * until release_qp).  CQs and SRQs can only be destroyed once no QP uses
 * them (the core's usecnt), so their destroy has nothing to wait for.
 */
#ifndef _XIB_HCA_H
#define _XIB_HCA_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <xib/ring.h>
#include <xib/xib_verbs.h>

#include "hca_net.h"
#include "pci.h"
#include "hca_prof.h"
#include "hca_stats.h"
#include "hca_wire.h"

#define XIB_HCA_MAX_SGE		32
#define XIB_HCA_MAX_INLINE	512
#define XIB_HCA_MAX_RD_ATOM	16
#define XIB_HCA_MAX_QP		16384	/* QPs (and CQs) of one device */
#define XIB_HCA_MAX_MSG		BIT_ULL(31)	/* largest message a WQE may name */
#define XIB_HCA_DEFAULT_PKEY	0xffff

/*
 * RC send window: packets a requester sends beyond the oldest unacknowledged
 * PSN, and how often it asks for an ACK inside a long burst
 * (xib_hca_ackreq()).  Without it, a 1 MiB message (1024 packets at MTU
 * 1024) overruns the receiving CPU's backlog (net.core.netdev_max_backlog,
 * 1000) and every overrun costs a go-back-N retransmission.
 */
#define XIB_HCA_SEND_WINDOW	128
#define XIB_HCA_ACKREQ_EVERY	32

/*
 * The device's budget of RC request packets in flight (the max_inflight
 * parameter, hca_req.c): the send windows of many QPs add up, and 256
 * QPs' full windows at once overran the receiving backlog
 * (netdev_max_backlog, 1000) by far.  Beyond the budget a QP sends only
 * while it has fewer than this many packets in flight (or fewer than its
 * cwnd, if that is smaller), so that no QP starves
 * (xib_hca_cc_may_send()).
 */
#define XIB_HCA_CC_MIN		2

/*
 * Worker tuning: WQE packets per QP per pass (and per KICK, sent in the
 * caller's context).  How long an idle worker polls, dozes and when it
 * sleeps are the module parameters idle_spin_us, idle_doze_us and
 * idle_scan_us (hca_engine.c).
 */
#define XIB_HCA_QP_BUDGET	16

/* What an idle worker does next (xib_hca_idle_step()). */
enum xib_hca_idle_step {
	XIB_HCA_IDLE_SPIN,	/* another pass at once (RUNNING) */
	XIB_HCA_IDLE_DOZE,	/* a pass after idle_scan_us or a kick (DOZING) */
	XIB_HCA_IDLE_SLEEP,	/* SLEEPING until a kick */
};

/**
 * xib_hca_idle_step() - what an idle engine does next
 * @idle_ns: nanoseconds since the end of its last pass that found work
 * @spin_us: how long it polls (idle_spin_us)
 * @doze_us: how long after its last work it dozes (idle_doze_us)
 * @scan_us: the period of a dozing engine's passes (idle_scan_us)
 * @busy_cpu: idle_spin_yield is set and another task waits for the
 *	worker's CPU: no more polling
 *
 * Both times count from the last work, so a @doze_us not above @spin_us
 * (or a @scan_us of 0) means no dozing.  Pure; KUnit-tested in
 * tests/kunit/xib_hca_net_test.c.
 *
 * Return: XIB_HCA_IDLE_SPIN while @idle_ns is below @spin_us and the CPU
 * is not wanted, then XIB_HCA_IDLE_DOZE while it is below @doze_us, then
 * XIB_HCA_IDLE_SLEEP.
 */
static inline enum xib_hca_idle_step
xib_hca_idle_step(u64 idle_ns, u32 spin_us, u32 doze_us, u32 scan_us,
		  bool busy_cpu)
{
	if (!busy_cpu && idle_ns < (u64)spin_us * NSEC_PER_USEC)
		return XIB_HCA_IDLE_SPIN;
	if (scan_us && idle_ns < (u64)doze_us * NSEC_PER_USEC)
		return XIB_HCA_IDLE_DOZE;
	return XIB_HCA_IDLE_SLEEP;
}

/**
 * struct xib_hca_dev - one software HCA, bound to one network interface
 * @xdev: the xib device; first member (xib_alloc_device() requires it)
 * @ndev: the interface the HCA sends and receives on, held from creation
 *	until the interface's NETDEV_UNREGISTER (which lets go of it at once,
 *	under RTNL) or the device's destruction, then NULL; set and cleared
 *	in the control path, read elsewhere under RCU with READ_ONCE()
 * @ndev_tracker: tracks the reference on @ndev
 * @list: on xib_hca_devices, while the device is registered and nobody
 *	has begun to remove it
 * @remove_work: the removal that the interface's NETDEV_UNREGISTER
 *	queues (hca_main.c)
 * @remove_node: on xib_hca_removing from that NETDEV_UNREGISTER until
 *	the device is unregistered and stopped (hca_main.c)
 * @db: the doorbell page (struct xib_hca_db_page), read-only to users
 * @worker: the engine thread
 * @wait: the worker sleeps here
 * @kicked: set by xib_hca_kick_engine() before it wakes @wait
 * @qps_lock: protects @qps
 * @qps: every QP of the device (struct xib_hca_qp.engine_node)
 * @nqps: entries of @qps
 * @ooo_held: requests kept out of order by the device's QPs
 *	(struct xib_hca_resp @ooo), at most XIB_HCA_OOO_DEV_MAX
 * @cc_inflight: RC request PSNs the device's QPs have sent beyond their
 *	oldest unacknowledged one: the sum of their xib_hca_sq.cc_charged,
 *	each changed under its QP's sq.lock (xib_hca_cc_sync()); read
 *	without a lock against the max_inflight budget; 0 once no QP has
 *	anything in flight or every QP is gone
 * @cc_wait: set (fully ordered, atomic_xchg()) by a QP the budget holds
 *	back before it looks at @cc_inflight again; whoever brings
 *	@cc_inflight below the budget takes it back and kicks the worker
 * @stats: the device's counters (hca_stats.h), per CPU; allocated before
 *	the device can count and freed with its memory (xib_hca_dealloc())
 * @prof: the device's profile (hca_prof.h), per CPU; allocated and freed
 *	as @stats
 * @prof_dir: the device's directory in debugfs (xib_hca/<name>/), from
 *	registration until unregistration, or NULL
 * @prof_kick: local_clock() of the first kick since the worker last went
 *	to sleep while the profile is on, or 0 (the worker's wake latency)
 * @pci: the PCI function of the PCI front end (pci.c), or NULL for a
 *	device of the netdev front end only; set before registration and
 *	cleared after the engine stopped (xib_hca_pci_attach()/_detach())
 */
struct xib_hca_dev {
	struct xib_device xdev;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct list_head list;
	struct work_struct remove_work;
	struct list_head remove_node;

	struct xib_mmap_entry *db;
	struct task_struct *worker;
	wait_queue_head_t wait;
	atomic_t kicked;
	spinlock_t qps_lock;		/* protects @qps */
	struct list_head qps;
	unsigned int nqps;

	atomic_t ooo_held;
	atomic_t cc_inflight;
	atomic_t cc_wait;
	struct xib_hca_stats __percpu *stats;
	struct xib_hca_prof __percpu *prof;
	struct dentry *prof_dir;
	u64 prof_kick;
	struct xib_hca_pci *pci;
};

static_assert(offsetof(struct xib_hca_dev, xdev) == 0);

static inline struct xib_hca_dev *to_hca_dev(struct xib_device *xdev)
{
	return container_of(xdev, struct xib_hca_dev, xdev);
}

/* Count one event @s on @hca; any context. */
static inline void xib_hca_stat_inc(struct xib_hca_dev *hca,
				    enum xib_hca_stat s)
{
	this_cpu_inc(hca->stats->v[s]);
}

static inline void xib_hca_stat_add(struct xib_hca_dev *hca,
				    enum xib_hca_stat s, u64 n)
{
	this_cpu_add(hca->stats->v[s], n);
}

/* End the profile's stage @s of @hca begun at @t0 (xib_hca_prof_begin()). */
static inline void xib_hca_prof_end(struct xib_hca_dev *hca,
				    enum xib_hca_prof_stage s, u64 t0)
{
	xib_hca_prof_add(hca->prof, s, t0);
}

static inline struct xib_hca_db_page *xib_hca_db(struct xib_hca_dev *hca)
{
	return hca->db->vaddr;
}

/**
 * struct xib_hca_ring - a queue shared with user space
 * @mmap: the memory: a header page, then @slots slots of @stride bytes
 * @uctx: the context it is published in (NULL: kernel queue)
 * @offset: the mmap offset in @uctx
 * @slots: power of two
 * @stride: bytes per slot, power of two
 * @dma: on a device on a PCI function, @mmap's pages as mapped for the
 *	function's DMA (its page list, pci.c), from the ring's allocation
 *	until it is retired (xib_hca_ring_unpublish()); NULL otherwise
 */
struct xib_hca_ring {
	struct xib_mmap_entry *mmap;
	struct xib_ucontext *uctx;
	u64 offset;
	u32 slots;
	u32 stride;
	struct xib_hca_ring_dma *dma;
};

static inline void *xib_hca_ring_hdr(const struct xib_hca_ring *ring)
{
	return ring->mmap->vaddr;
}

static inline void *xib_hca_ring_slot(const struct xib_hca_ring *ring, u32 idx)
{
	return (u8 *)ring->mmap->vaddr + XIB_HCA_RING_HDR_SIZE +
	       (size_t)xib_ring_slot(idx, ring->slots) * ring->stride;
}

struct xib_hca_pd {
	struct xib_pd ibpd;
};

struct xib_hca_mr {
	struct xib_mr ibmr;
};

/**
 * struct xib_hca_cq - a completion queue
 * @ibcq: the core's CQ; first member (the core allocates ops->size_cq)
 * @lock: protects everything below
 * @ring: the CQE ring
 * @prod: the trusted producer index (the header's is a copy)
 * @fired_sn: the arm sequence fired last
 * @overflow: a CQE did not fit; no more CQEs are written
 * @ev_pending: on a device on a PCI function, completion events fired
 *	but not yet delivered by the event vector's handler (pci.c)
 * @ev_node: on the function's list of CQs with events (under its
 *	ev_lock) from the first pending event until the handler takes it
 * @dead: destroyed: events no longer delivered
 */
struct xib_hca_cq {
	struct xib_cq ibcq;
	spinlock_t lock;		/* protects the fields below */
	struct xib_hca_ring ring;
	u32 prod;
	u32 fired_sn;
	bool overflow;
	u32 ev_pending;
	struct list_head ev_node;
	bool dead;
};

/**
 * struct xib_hca_srq - a shared receive queue
 * @ibsrq: the core's SRQ; first member (the core allocates ops->size_srq)
 * @lock: protects @cons and @error
 * @ring: the receive WQE ring
 * @cons: the trusted consumer index
 * @error: the ring was found broken; receives fail
 * @limit: the SRQ limit (0: disarmed)
 */
struct xib_hca_srq {
	struct xib_srq ibsrq;
	spinlock_t lock;		/* protects the fields below */
	struct xib_hca_ring ring;
	u32 cons;
	bool error;
	u32 limit;
};

struct xib_hca_ah {
	struct xib_ah ibah;
	struct xib_hca_path path;
};

/* A receive WQE, copied out of a ring. */
struct xib_hca_rwqe {
	u64 wr_id;
	u32 num_sge;
	u64 length;			/* sum of the SGE lengths */
	struct xib_hca_sge sge[XIB_HCA_MAX_SGE];
};

/**
 * struct xib_hca_swqe - the requester's copy of one send WQE
 * @wqe: the WQE header as copied from the ring (validated)
 * @sge: its SGEs (when not inline), at most the QP's max_send_sge
 * @inline_data: the inline data, copied at fetch (XIB_HCA_SEND_INLINE), at
 *	most the QP's max_inline_data bytes
 * @len: message length in bytes
 * @first_psn: PSN of the first packet (RC, UC)
 * @npkts: packets of the request (1 for a READ request)
 * @resp_pkts: packets of the READ response
 * @path: UD: the AH's path
 * @dqpn: UD: the destination QP number, from the WQE
 * @qkey: UD: the Q_Key to send with: the WQE's, or the QP's own when the
 *	WQE's has its high bit set
 * @rcvd: READ: response packets received
 * @status: XIB_HCA_WC_* to complete with (not SUCCESS: at the head)
 * @acked: RC: acknowledged (READ: all response data arrived); UC, UD:
 *	its last packet was sent
 */
struct xib_hca_swqe {
	struct xib_hca_send_wqe wqe;
	u32 len;
	u32 first_psn;
	u32 npkts;
	u32 resp_pkts;
	struct xib_hca_path path;
	u32 dqpn;
	u32 qkey;
	u32 rcvd;
	u8 status;
	bool acked;
	/* sized per QP: xib_hca_sq.wqe_size */
	union {
		DECLARE_FLEX_ARRAY(struct xib_hca_sge, sge);
		DECLARE_FLEX_ARRAY(u8, inline_data);
	};
};

/* The timer backs off to at most 2^this times its length (4x, IBTA). */
#define XIB_HCA_RTO_MAX_BACKOFF	2
/* The round-trip estimate lengthens the timer to at most this. */
#define XIB_HCA_RTO_MAX_US	(4 * USEC_PER_SEC)
/* The tail-loss probe timeout is at least this many timer ticks. */
#define XIB_HCA_PTO_MIN_TICKS	2

/*
 * Probe timeouts a QP waits again, once per stall, before its tail-loss
 * probe while its device has (nearly) its budget of packets in flight:
 * its packets then wait behind the other QPs' in the receiving backlog,
 * and a round trip longer than two usual ones is queueing, not loss
 * (xib_hca_retx_probe_defer()).
 */
#define XIB_HCA_PTO_MAX_DEFER	2
/*
 * A responder NAKs a gap still open again after this long (xib_hca_renak_us())
 * before it has timed a NAK's round trip, never sooner than the minimum
 * and never later than the maximum.
 */
#define XIB_HCA_RENAK_DEFAULT_US	4000
#define XIB_HCA_RENAK_MIN_US		250
#define XIB_HCA_RENAK_MAX_US		(100 * USEC_PER_MSEC)
/*
 * Out-of-order requests a responder keeps while a gap may still be
 * closed by the network's reordering (hca_retx.c, "Keeping what arrives
 * early"): a window of this many PSNs past the expected one (a power of
 * two: a packet's slot is its PSN modulo it), and at most this many
 * packets per device.
 */
#define XIB_HCA_OOO_SLOTS	32
#define XIB_HCA_OOO_DEV_MAX	4096

/**
 * struct xib_hca_retx - the requester's retry budget (hca_retx.c)
 * @una: oldest PSN not acknowledged yet (by an ACK, a NAK or a READ
 *	response)
 * @nak_psn: the PSN of the sequence NAK last acted on
 * @nak_valid: @nak_psn is set (cleared by progress and by a timeout)
 * @retry_cnt: the QP's retry_cnt
 * @retry_left: retries left; restored to @retry_cnt by progress
 * @backoff: timer expiries in a row without progress
 * @probed: a tail-loss probe went out since the last progress; no other
 *	until the next (xib_hca_retx_probe_due())
 * @pto_defers: probe timeouts waited again since the last progress
 *	because the device's queue was full (xib_hca_retx_probe_defer())
 * @nak_ns: when the sequence NAK @nak_psn was acted on (caller's clock, ns)
 */
struct xib_hca_retx {
	u32 una;
	u32 nak_psn;
	u64 nak_ns;
	bool nak_valid;
	u8 retry_cnt;
	u8 retry_left;
	u8 backoff;
	bool probed;
	u8 pto_defers;
};

/**
 * struct xib_hca_rtt - the round-trip estimator of RFC 6298
 * @srtt_us: smoothed round trip in microseconds (0: no sample yet)
 * @rttvar_us: its variation in microseconds
 */
struct xib_hca_rtt {
	u32 srtt_us;
	u32 rttvar_us;
};

/**
 * struct xib_hca_rtx_stats - per-QP requester retransmission counters,
 *	since the QP was created; under sq.lock
 * @timeouts: local ACK timer expiries acted on with packets unacknowledged
 * @rewinds: times the sender was moved back to resend
 * @seq_naks: PSN sequence NAKs received
 * @stale: ACKs and NAKs received that acknowledged nothing new
 * @stale_naks: sequence NAKs older than the oldest unacknowledged PSN
 *	(reordered behind later responses): ignored
 * @dup_naks: sequence NAKs for the PSN a NAK was already acted on for,
 *	with no progress in between (duplicated by the network): ignored
 * @retries: retries spent from retry_cnt
 * @retry_run: retries spent since the last progress
 * @run_timeouts: of @retry_run, those after a timer expiry
 * @retry_run_max: the longest run of retries without progress
 * @probes: tail-loss probes sent (the probe timer expired: no retry spent)
 * @probe_progress: probes followed by progress before any timeout
 */
struct xib_hca_rtx_stats {
	u64 timeouts;
	u64 probes;
	u64 probe_progress;
	u64 rewinds;
	u64 seq_naks;
	u64 stale;
	u64 stale_naks;
	u64 dup_naks;
	u64 retries;
	u32 retry_run;
	u32 run_timeouts;
	u32 retry_run_max;
};

/**
 * struct xib_hca_sq - requester state, under @lock
 * @ring: the send ring
 * @wqes: one struct xib_hca_swqe per slot, for WQEs in [@cons, @fetch),
 *	each @wqe_size bytes (use xib_hca_swqe_at())
 * @wqe_size: bytes of a slot of @wqes: the header and room for the QP's
 *	own max_send_sge SGEs or max_inline_data bytes, not the device's
 * @cons: first WQE not retired
 * @fetch: next WQE to copy out of the ring
 * @send: next WQE to transmit ([@cons, @send) are sent, awaiting ACK)
 * @send_pkt: packets of WQE @send already sent
 * @psn: PSN of the next new packet
 * @hi_psn: PSN after the newest packet sent (READ: after its last
 *	response); responses about later PSNs are ignored
 * @rx: the retry budget and the oldest unacknowledged PSN (@rx.una); the
 *	sender keeps fewer than XIB_HCA_SEND_WINDOW packets beyond @rx.una,
 *	so a burst cannot overrun the receiver's backlog
 * @blocked: the next WQE waits for RDMA READ or atomic responses
 *	(max_rd_atomic credit, fence) or for ACKs (send window)
 * @rnr_left: RNR retries left (7: infinite); restored by progress
 * @rto_floor_us: the local ACK timeout in microseconds (0: infinite),
 *	from the QP's timeout attribute; written by modify_qp under both
 *	locks.  The timer runs for xib_hca_rto_us() of it, @rtt and
 *	@rx.backoff: never shorter, longer on a slow path, backed off
 *	after expiries in a row
 * @rtt: the round-trip estimate (RFC 6298)
 * @rtt_psn: the PSN being timed for @rtt, sent once at @rtt_start
 * @rtt_start: when @rtt_psn was sent (ktime, ns)
 * @rtt_timing: @rtt_psn is being timed; a retransmission cancels it
 *	(Karn: the ACK of a resent packet says nothing of the round trip)
 * @stalled: waiting for the RNR timer (qp->timer)
 * @timed_out: qp->timer found packets unacknowledged; the worker
 *	retransmits from @rx.una (go-back-N) or fails the head WQE.
 *	Progress before the worker acts clears it
 * @pto_armed: qp->timer runs for the probe timeout, not the local ACK
 *	timeout (hca_comp.c, "tail-loss probe")
 * @probe_due: the probe timer expired with packets unacknowledged; the
 *	worker sends a probe.  Progress before it acts clears it
 * @probe_out: the newest retransmission is a probe: the next progress is
 *	counted in @st.probe_progress
 * @cwnd: packets the sender may have beyond @rx.una: XIB_HCA_SEND_WINDOW,
 *	1 after a timeout (probe, every packet asks for an ACK), doubled
 *	back by each progress; a slow peer is not flooded with copies of
 *	packets it still has queued
 * @cc_charged: what this QP has charged to the device's budget
 *	(xib_hca_dev.cc_inflight): @hi_psn - @rx.una while it lives and sends
 *	(RTS, SQD), else 0; brought up to date by xib_hca_cc_sync()
 * @cc_held: the device's budget holds the next new packet back; an ACK
 *	that frees budget kicks the worker (xib_hca_dev.cc_wait)
 * @ack_asked: the PSN after the newest request packet sent that asked
 *	for an ACK (an ACK is on its way while @rx.una is before it)
 * @unasked: request packets sent since the newest that asked for an ACK
 *	(xib_hca_ackreq())
 * @rd_gap: a READ was re-requested from @rd_gap_psn after a gap in its
 *	responses; later responses past the same gap are ignored
 * @rd_gap_psn: the first missing READ response PSN
 * @broken: the ring's producer index was impossible; nothing more is read
 * @rnr_naks: RNR NAKs received since creation, for dumps
 * @st: what the retransmission did, since creation (for dumps and the
 *	kernel log line of a retry exhaustion)
 */
struct xib_hca_sq {
	/** @lock: protects the fields below */
	spinlock_t lock;
	struct xib_hca_ring ring;
	void *wqes;
	u32 wqe_size;
	u32 cons;
	u32 fetch;
	u32 send;
	u32 send_pkt;
	u32 psn;
	u32 hi_psn;
	struct xib_hca_retx rx;
	bool blocked;
	u8 rnr_left;
	u64 rto_floor_us;
	struct xib_hca_rtt rtt;
	u32 rtt_psn;
	u64 rtt_start;
	bool rtt_timing;
	bool stalled;
	bool timed_out;
	bool pto_armed;
	bool probe_due;
	bool probe_out;
	u32 cwnd;
	u32 cc_charged;
	bool cc_held;
	u32 ack_asked;
	u32 unasked;
	bool rd_gap;
	u32 rd_gap_psn;
	bool broken;
	u64 rnr_naks;
	struct xib_hca_rtx_stats st;
};

/**
 * struct xib_hca_rd_res - one responder resource: an RDMA READ or an
 *	atomic to answer (IBTA 9.7.5.2.2: both use the max_dest_rd_atomic
 *	resources)
 * @psn: PSN of the request (and of the first response packet)
 * @va: the remote address, from its RETH or AtomicETH
 * @rkey: the R_Key, from its RETH or AtomicETH
 * @len: the DMA length in bytes, from its RETH (an atomic: 8)
 * @sent: response packets sent so far (@npkts: done; a duplicate
 *	request sets it back to the first packet it asks for)
 * @npkts: response packets in all
 * @first: the packet the current answer started at: it goes out as a
 *	FIRST (or ONLY) response, as for a new READ of the rest (9.7.5.1.3)
 * @replay: answered once and being answered again for a duplicate
 *	request; the requester has every response of it that it will use
 *	once it sends a new READ, so a new READ may take its place
 * @atomic: an atomic, executed when it arrived: its one response is an
 *	ATOMIC ACKNOWLEDGE carrying @orig, the same every time it is sent
 *	again (a duplicate is answered from here and never executed again)
 * @orig: atomic: the remote data before the operation
 * @srq: a READ of an XRC target: the XRC SRQ its XRCETH named, with a
 *	reference, whose PD the R_Key is checked against each time a
 *	response is built (the target's current SRQ may be another's by
 *	then); NULL for other QPs and for atomics.  Dropped when the slot
 *	is taken again (xib_hca_res_srq_set()), reset or freed.
 */
struct xib_hca_rd_res {
	u32 psn;
	u64 va;
	u32 rkey;
	u32 len;
	u32 sent;
	u32 npkts;
	u32 first;
	bool replay;
	bool atomic;
	u64 orig;
	struct xib_srq *srq;
};

/**
 * struct xib_hca_resp - RC and UC responder state, under xib_hca_rq.lock
 * @epsn: expected PSN
 * @msn: message sequence number (messages completed)
 * @nak_sent: a PSN sequence NAK was sent for @epsn
 * @in_msg: inside a multi-packet SEND or WRITE
 * @has_wqe: @wqe holds the receive WQE of the SEND in progress (UC: also
 *	one kept from an aborted message, for the next one)
 * @wqe: the receive WQE being filled
 * @is_write: the message in progress (@in_msg) is a WRITE, not a SEND
 * @off: bytes placed so far in the current message
 * @va: WRITE in progress: the remote address, from its RETH
 * @rkey: WRITE in progress: the R_Key, from its RETH
 * @wlen: WRITE in progress: the DMA length in bytes, from its RETH
 * @rd: the responder resources (READs and atomics), a ring of which the
 *	newest max_dest_rd_atomic entries are held
 * @rd_head: oldest resource still to answer (resources before it are
 *	kept for duplicate requests until the ring wraps: the replay cache)
 * @rd_tail: next free resource
 * @ack_held: an ACK or NAK decided while READ responses were still to
 *	send; the worker sends it after them, so that responses stay in
 *	PSN order on the wire
 * @ack_syn: the held ACK's AETH syndrome
 * @ack_psn: the held ACK's PSN
 * @ack_msn: the held ACK's MSN
 * @seq_naks_sent: PSN sequence NAKs sent, since the last reset
 * @dup_reqs: duplicate requests received (acknowledged or answered
 *	again, never executed again), since the last reset
 * @ahead: requests ahead of the expected PSN (dropped), since the last
 *	reset
 * @nak_seq: the NAK @nak_sent stands for is a PSN sequence NAK (not an
 *	RNR NAK): it may be sent again (xib_hca_renak_due())
 * @nak_timed: the sequence NAK of the open gap went out once: the
 *	arrival of the expected PSN times the NAK's round trip (Karn)
 * @nak_ns: when the last sequence NAK went out (ktime, ns)
 * @nak_rtt: the round trip from a sequence NAK to the retransmission it
 *	asked for (RFC 6298 estimator): how long before NAKing a gap again
 * @renaks: sequence NAKs sent again for a gap still open, since the last
 *	reset
 * @ooo: requests that arrived ahead of @epsn, kept for when the gap
 *	closes: slot PSN % XIB_HCA_OOO_SLOTS, each with a reference; counted
 *	in the device's ooo_held
 * @nooo: the packets in @ooo
 * @gap_ns: when the open gap was first seen (ktime, ns); 0: no gap
 */
struct xib_hca_resp {
	u32 epsn;
	u32 msn;
	bool nak_sent;
	bool in_msg;
	bool has_wqe;
	bool is_write;
	struct xib_hca_rwqe wqe;
	u64 off;
	u64 va;
	u32 rkey;
	u32 wlen;
	struct xib_hca_rd_res rd[XIB_HCA_MAX_RD_ATOM];
	u32 rd_head;
	u32 rd_tail;
	bool ack_held;
	u8 ack_syn;
	u32 ack_psn;
	u32 ack_msn;
	u64 seq_naks_sent;
	u64 dup_reqs;
	u64 ahead;
	bool nak_seq;
	bool nak_timed;
	u64 nak_ns;
	struct xib_hca_rtt nak_rtt;
	u64 renaks;
	struct sk_buff *ooo[XIB_HCA_OOO_SLOTS];
	unsigned int nooo;
	u64 gap_ns;
};

/**
 * struct xib_hca_rq - receive side state, under @lock
 * @ring: the receive ring (unused with an SRQ)
 * @cons: trusted consumer index of @ring
 * @resp: RC responder state
 */
struct xib_hca_rq {
	/** @lock: protects the fields below */
	spinlock_t lock;
	struct xib_hca_ring ring;
	u32 cons;
	struct xib_hca_resp resp;
	/**
	 * @ooo_timer: NAKs a gap whose packets stopped coming (soft
	 * hrtimer, armed under @lock while the QP is not dead; cancelled
	 * at destroy)
	 */
	struct hrtimer ooo_timer;
};

/**
 * struct xib_hca_qp - a queue pair
 * @ibqp: the core's QP; first member (the core allocates ops->size_qp)
 * @engine_node: on xib_hca_dev.qps; under its qps_lock
 * @state_lock: serialises changes of @hstate and the flush flags
 * @hstate: enum xib_qp_state as the engine sees it (see hca.h top)
 * @dead: destroyed: nothing may touch the QP's queues any more; set
 *	under sq.lock and under rq.lock
 * @flush_sq: entered ERR; the worker flushes the send queue and clears it
 * @flush_rq: entered ERR; the worker flushes the receive queue and clears
 *	it
 * @sync_attr: the engine moved the QP to ERR; the worker updates the
 *	core's qp->attr.qp_state (it needs qp->mutex)
 * @mtu: path MTU in bytes (RC, UC), the port's MTU (UD)
 * @path: the primary path (RC, UC)
 * @dest_qpn: the remote QP number (RC, UC)
 * @qkey: the QP's Q_Key (UD): received datagrams must carry it, and sends
 *	use it when the WQE asks for it
 * @access: the remote access the responder allows (enum xib_access_flags)
 * @retry_cnt: retries after a timeout or a sequence NAK (0 to 7)
 * @timeout: the local ACK timeout attribute (4.096 us * 2^timeout)
 * @rnr_retry: retries after an RNR NAK (0 to 7; 7: infinite)
 * @min_rnr_timer: the 5-bit RNR NAK timer code this responder sends in
 *	its RNR NAKs
 * @max_rd_atomic: RDMA READs and atomics this requester may have
 *	outstanding (0 counts as 1)
 * @max_dest_rd_atomic: RDMA READs and atomics this responder accepts
 *	outstanding, and keeps resources (the atomic replay cache) for
 * @timer: the requester's timer: the RNR wait (sq.stalled) or the local
 *	ACK timeout (sq.rto); armed under sq.lock, see "Timer" above
 * @req_busy: bit 0 is set while a context runs the requester's transmit
 *	side (xib_hca_req_run()): the worker or a KICK's caller, never both
 * @events: enum xib_hca_qp_event_bits: async events armed or due (atomic
 *	bitops; see "Async events" in hca_engine.c)
 * @sq: the requester's state
 * @rq: the receive side's state
 * @xsrq: an XRC target's SRQ of the message in progress (the last one an
 *	XRCETH named between messages), with a reference; under rq.lock
 */
struct xib_hca_qp {
	struct xib_qp ibqp;
	struct list_head engine_node;
	spinlock_t state_lock;		/* protects @hstate, @flush_* writes */
	int hstate;
	bool dead;
	bool flush_sq;
	bool flush_rq;
	bool sync_attr;

	/* attributes, written by modify_qp under both locks */
	u32 mtu;
	struct xib_hca_path path;
	u32 dest_qpn;
	u32 qkey;
	u32 access;
	u8 retry_cnt;
	u8 timeout;
	u8 rnr_retry;
	u8 min_rnr_timer;
	u8 max_rd_atomic;
	u8 max_dest_rd_atomic;

	struct timer_list timer;
	unsigned long req_busy;
	unsigned long events;
	struct xib_hca_sq sq;
	struct xib_hca_rq rq;
	struct xib_srq *xsrq;
};

/**
 * enum xib_hca_qp_event_bits - bits of xib_hca_qp.events
 * @XIB_HCA_QP_EV_COMM_EST: RC/UC in RTR: the first request packet raises
 *	COMM_EST (and clears the bit)
 * @XIB_HCA_QP_EV_SQ_DRAIN: in SQD with en_sqd_async_notify: SQ_DRAINED is
 *	due once the send queue has nothing outstanding
 * @XIB_HCA_QP_EV_LAST_WQE: entered ERR with an SRQ: LAST_WQE_REACHED is
 *	due once the worker has flushed the receive side
 */
enum xib_hca_qp_event_bits {
	XIB_HCA_QP_EV_COMM_EST,
	XIB_HCA_QP_EV_SQ_DRAIN,
	XIB_HCA_QP_EV_LAST_WQE,
};

static inline struct xib_hca_qp *to_hca_qp(struct xib_qp *qp)
{
	return container_of(qp, struct xib_hca_qp, ibqp);
}

static inline struct xib_hca_cq *to_hca_cq(struct xib_cq *cq)
{
	return container_of(cq, struct xib_hca_cq, ibcq);
}

static inline struct xib_hca_srq *to_hca_srq(struct xib_srq *srq)
{
	return container_of(srq, struct xib_hca_srq, ibsrq);
}

static inline struct xib_hca_ah *to_hca_ah(struct xib_ah *ah)
{
	return container_of(ah, struct xib_hca_ah, ibah);
}

static inline struct xib_hca_dev *qp_hca(struct xib_hca_qp *qp)
{
	return to_hca_dev(qp->ibqp.device);
}

/* The transport (BTH opcode bits 7-5) of @qp's type. */
static inline u8 xib_hca_qp_transport(const struct xib_hca_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case XIB_QPT_RC:
		return XIB_TRANSPORT_RC;
	case XIB_QPT_XRC_SEND:
	case XIB_QPT_XRC_RECV:
		return XIB_TRANSPORT_XRC;
	case XIB_QPT_UC:
		return XIB_TRANSPORT_UC;
	default:
		return XIB_TRANSPORT_UD;
	}
}

/* RC and XRC: acknowledged, retransmitted, errors move the QP to ERR. */
static inline bool xib_hca_qp_reliable(const struct xib_hca_qp *qp)
{
	return qp->ibqp.qp_type == XIB_QPT_RC ||
	       qp->ibqp.qp_type == XIB_QPT_XRC_SEND ||
	       qp->ibqp.qp_type == XIB_QPT_XRC_RECV;
}

/*
 * The PD the receive side of @qp checks local keys against: an XRC
 * target's is that of the SRQ of the message (rq.lock held), any other
 * QP's its own.
 */
static inline struct xib_pd *xib_hca_qp_pd(const struct xib_hca_qp *qp)
{
	return qp->xsrq ? qp->xsrq->pd : qp->ibqp.pd;
}

static inline u32 xib_hca_mtu_bytes(u32 mtu_enum)
{
	return 128U << mtu_enum;
}

/* The requester's copy of send WQE @idx (sq.lock held). */
static inline struct xib_hca_swqe *xib_hca_swqe_at(struct xib_hca_qp *qp,
						   u32 idx)
{
	return qp->sq.wqes +
	       (size_t)xib_ring_slot(idx, qp->sq.ring.slots) * qp->sq.wqe_size;
}

static inline bool xib_hca_is_read(const struct xib_hca_swqe *swqe)
{
	return swqe->wqe.opcode == XIB_HCA_WR_RDMA_READ;
}

static inline bool xib_hca_is_atomic(const struct xib_hca_swqe *swqe)
{
	return swqe->wqe.opcode == XIB_HCA_WR_ATOMIC_CMP_AND_SWP ||
	       swqe->wqe.opcode == XIB_HCA_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * A local operation (BIND_MW, LOCAL_INV): executed when the requester
 * fetches it, in order, no packet, no PSN; it completes in order after
 * the WQEs before it.
 */
static inline bool xib_hca_wr_local(u32 opcode)
{
	return opcode == XIB_HCA_WR_BIND_MW || opcode == XIB_HCA_WR_LOCAL_INV;
}

static inline bool xib_hca_is_local(const struct xib_hca_swqe *swqe)
{
	return xib_hca_wr_local(swqe->wqe.opcode);
}

/*
 * A READ or an atomic: the responder answers with data (READ responses,
 * an ATOMIC ACKNOWLEDGE), which the WQE needs before it completes; it
 * uses a responder resource and counts against max_rd_atomic.
 */
static inline bool xib_hca_has_resp(const struct xib_hca_swqe *swqe)
{
	return xib_hca_is_read(swqe) || xib_hca_is_atomic(swqe);
}

/* PSNs a WQE uses: request packets, or response packets for a READ. */
static inline u32 xib_hca_swqe_psns(const struct xib_hca_swqe *swqe)
{
	return xib_hca_has_resp(swqe) ? swqe->resp_pkts : swqe->npkts;
}

/* hca_retx.c: retransmission arithmetic (pure functions, KUnit-tested) */
u64 xib_hca_ack_timeout_ns(u8 timeout);
u32 xib_hca_resume_pkt(u32 first_psn, u32 npsns, u32 psn);
void xib_hca_read_rereq(u64 va, u32 len, u32 mtu, u32 rcvd, u64 *nva,
			u32 *nlen);
enum xib_hca_psn_class {
	XIB_HCA_PSN_EXPECTED,
	XIB_HCA_PSN_DUPLICATE,
	XIB_HCA_PSN_AHEAD,
};

enum xib_hca_psn_class xib_hca_psn_classify(u32 psn, u32 epsn);
bool xib_hca_rd_replay(struct xib_hca_resp *r, u32 max_res, u32 psn,
		       bool atomic);
struct xib_hca_rd_res *xib_hca_res_new(struct xib_hca_resp *r, u32 max_res);

/**
 * enum xib_hca_retx_verdict - what a response or a timer expiry means for
 *	the requester's retry budget (hca_retx.c)
 * @XIB_HCA_RETX_IGNORE: nothing new: no retry, nothing restored
 * @XIB_HCA_RETX_PROGRESS: something new acknowledged: budget restored
 * @XIB_HCA_RETX_RETRY: resend; one retry spent
 * @XIB_HCA_RETX_EXHAUSTED: resend asked for, but no retry is left
 */
enum xib_hca_retx_verdict {
	XIB_HCA_RETX_IGNORE,
	XIB_HCA_RETX_PROGRESS,
	XIB_HCA_RETX_RETRY,
	XIB_HCA_RETX_EXHAUSTED,
};

void xib_hca_retx_init(struct xib_hca_retx *r, u32 una, u8 retry_cnt);
enum xib_hca_retx_verdict xib_hca_retx_ack(struct xib_hca_retx *r, u32 next);
enum xib_hca_retx_verdict xib_hca_retx_seq_nak(struct xib_hca_retx *r,
					       u32 psn);
enum xib_hca_retx_verdict xib_hca_retx_seq_nak_at(struct xib_hca_retx *r,
						  u32 psn, u64 now_ns,
						  u64 renak_us);
u64 xib_hca_renak_us(const struct xib_hca_rtt *e);
u64 xib_hca_ooo_wait_us(const struct xib_hca_rtt *e, u64 max_us);
bool xib_hca_ooo_keep(u32 psn, u32 epsn, unsigned int dev_held,
		      unsigned int dev_max);
bool xib_hca_renak_due(u64 last_ns, u64 now_ns, u64 interval_us);
enum xib_hca_retx_verdict xib_hca_retx_read_gap(struct xib_hca_retx *r);
enum xib_hca_retx_verdict xib_hca_retx_expiry(struct xib_hca_retx *r);
void xib_hca_rtt_sample(struct xib_hca_rtt *e, u32 r_us);
u64 xib_hca_rto_us(const struct xib_hca_rtt *e, u64 floor_us, u32 gran_us,
		   u8 backoff);
u64 xib_hca_tlp_pto_us(const struct xib_hca_rtt *e, u64 rto_us, u32 gran_us);
bool xib_hca_retx_probe_due(const struct xib_hca_retx *r);
bool xib_hca_retx_probe(struct xib_hca_retx *r);
bool xib_hca_retx_probe_defer(struct xib_hca_retx *r, bool queued);
bool xib_hca_cc_queued(unsigned int dev_inflight, unsigned int budget);

/**
 * struct xib_hca_ask - what decides an RC request packet's AckReq
 * (xib_hca_ackreq())
 * @ask: the device's budget wants an ACK (the QP will wait for it)
 * @wqe_last: the packet is the last of its WQE
 * @more: another WQE is posted behind the packet's
 * @cwnd: the QP's send window
 * @inflight: PSNs the QP has in flight once the packet is sent
 * @unasked: packets the QP sent since the newest that asked
 */
struct xib_hca_ask {
	bool ask;
	bool wqe_last;
	bool more;
	u32 cwnd;
	u32 inflight;
	u32 unasked;
};

bool xib_hca_ackreq(const struct xib_hca_ask *a);
bool xib_hca_cc_unasked(u32 una, u32 asked, u32 hi);
bool xib_hca_cc_may_send(u32 inflight, u32 cwnd, bool charged,
			 unsigned int dev_inflight, unsigned int budget);

/**
 * enum xib_hca_uc_action - what a UC responder does with a request packet
 * @XIB_HCA_UC_DROP: drop it; the message in progress (if any) is
 *	aborted, and everything up to the next FIRST or ONLY is dropped
 * @XIB_HCA_UC_CONTINUE: the next packet of the message in progress
 * @XIB_HCA_UC_START: a FIRST or ONLY packet: the message in progress
 *	(if any) is aborted, a new one starts and the expected PSN is
 *	resynchronised to the packet's
 */
enum xib_hca_uc_action {
	XIB_HCA_UC_DROP,
	XIB_HCA_UC_CONTINUE,
	XIB_HCA_UC_START,
};

enum xib_hca_uc_action xib_hca_uc_classify(bool in_msg, bool in_write,
					   u32 epsn, u32 psn, u8 flags,
					   bool write);

/* hca_atomic.c: the responder's atomics (pure functions, KUnit-tested) */
int xib_hca_atomic_check(u32 qp_access, const struct xib_pd *pd,
			 const struct xib_mr *mr, u64 va, u32 rkey);
int xib_hca_atomic_exec(struct xib_umem *umem, u64 offset, bool cmp_swap,
			u64 swap_add, u64 compare, u64 *orig);

/* hca_main.c */
int xib_hca_dellink(struct xib_device *xdev);
void xib_hca_list(struct xib_hca_dev *hca);
bool xib_hca_unlist(struct xib_hca_dev *hca);
void xib_hca_destroy(struct xib_hca_dev *hca);
struct net_device *xib_hca_get_netdev(struct xib_device *xdev, u32 port);
void xib_hca_dealloc(struct xib_device *xdev);
void xib_hca_get_stats(struct xib_device *xdev, u64 *vals);
void xib_hca_trace_tx(struct xib_hca_dev *hca, const struct sk_buff *skb,
		      u32 len);
void xib_hca_port_violations(struct xib_device *xdev, u64 *pkey, u64 *qkey);

/* hca_verbs.c */
extern const struct xib_device_ops xib_hca_dev_ops;
void xib_hca_set_attrs(struct xib_hca_dev *hca);
int xib_hca_path_from_av(struct xib_hca_dev *hca,
			 const struct xib_uverbs_ah_attr *av, u32 flow_seed,
			 struct xib_hca_path *path);

/* hca_queue.c */
int xib_hca_ring_alloc(struct xib_hca_dev *hca, struct xib_hca_ring *ring,
		       struct xib_ucontext *uctx, u32 slots, u32 stride,
		       struct xib_uverbs_ring *out);
void xib_hca_ring_unpublish(struct xib_hca_ring *ring);
void xib_hca_ring_free(struct xib_hca_ring *ring);
u32 xib_hca_ring_read_prod(const struct xib_hca_ring *ring);
void xib_hca_ring_write_cons(const struct xib_hca_ring *ring, u32 cons);
int xib_hca_cq_post(struct xib_hca_cq *cq, const struct xib_hca_cqe *cqe,
		    bool solicited);
int xib_hca_get_rwqe(struct xib_hca_qp *qp, struct xib_hca_rwqe *wqe);
int xib_hca_sge_copy(struct xib_hca_qp *qp, const struct xib_hca_sge *sge,
		     u32 num_sge, u64 off, void *buf, u32 len, bool to_sge);
int xib_hca_sge_check(struct xib_hca_qp *qp, const struct xib_hca_sge *sge,
		      u32 num_sge, u32 access, u64 *total);

/* hca_engine.c */
int xib_hca_engine_start(struct xib_hca_dev *hca, const char *name);
void xib_hca_engine_stop(struct xib_hca_dev *hca);
void xib_hca_kick_engine(struct xib_hca_dev *hca);
void xib_hca_wake(struct xib_hca_dev *hca);
void xib_hca_qp_event(struct xib_hca_qp *qp, enum xib_event_type type);
void xib_hca_cq_event(struct xib_hca_cq *cq, enum xib_event_type type);
void xib_hca_srq_event(struct xib_hca_srq *srq, enum xib_event_type type);
void xib_hca_port_event(struct xib_device *xdev, const struct xib_event *event);
void xib_hca_engine_beat(struct xib_hca_dev *hca);
void xib_hca_engine_add_qp(struct xib_hca_qp *qp);
void xib_hca_engine_del_qp(struct xib_hca_qp *qp);
void xib_hca_qp_error(struct xib_hca_qp *qp);
void xib_hca_qp_send_error(struct xib_hca_qp *qp);
void xib_hca_qp_set_state(struct xib_hca_qp *qp, int state);
void xib_hca_qp_modify_state(struct xib_hca_qp *qp, int state,
			     bool sqd_notify);
void xib_hca_qp_comm_est(struct xib_hca_qp *qp);
int xib_hca_req_run(struct xib_hca_qp *qp, int budget);

/* hca_recv.c: xib_hca_recv() is declared in hca_net.h */

/* hca_req.c */
int xib_hca_req_process(struct xib_hca_qp *qp, int budget);
bool xib_hca_req_has_work(struct xib_hca_qp *qp);
void xib_hca_cc_sync(struct xib_hca_qp *qp);
bool xib_hca_cc_busy(struct xib_hca_dev *hca);
int xib_hca_req_flush(struct xib_hca_qp *qp);

/* hca_comp.c */
bool xib_hca_send_cqe(struct xib_hca_qp *qp, u64 wr_id, u32 opcode,
		      u32 flags, u32 len, u8 status);
int xib_hca_retire_done(struct xib_hca_qp *qp);
void xib_hca_rto_arm(struct xib_hca_qp *qp);
void xib_hca_qp_timer(struct timer_list *t);
void xib_hca_comp_timeout(struct xib_hca_qp *qp);
void xib_hca_comp_probe(struct xib_hca_qp *qp);
void xib_hca_comp_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		       const struct xib_hca_pkt *pkt);

/* hca_resp.c */
void xib_hca_send_ack(struct xib_hca_qp *qp, u8 syndrome, u32 psn, u32 msn);
void xib_hca_ud_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		     const struct xib_hca_pkt *pkt);
void xib_hca_rc_recv(struct xib_hca_qp *qp, struct sk_buff *skb,
		     const struct xib_hca_pkt *pkt);
enum hrtimer_restart xib_hca_ooo_timer(struct hrtimer *t);
void xib_hca_ooo_purge(struct xib_hca_qp *qp);
void xib_hca_xrc_recv(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt);
void xib_hca_uc_recv(struct xib_hca_qp *qp, const struct xib_hca_pkt *pkt);
int xib_hca_resp_process(struct xib_hca_qp *qp, int budget);
bool xib_hca_resp_has_work(struct xib_hca_qp *qp);
int xib_hca_resp_flush(struct xib_hca_qp *qp);
void xib_hca_resp_reset(struct xib_hca_qp *qp);
void xib_hca_resp_release(struct xib_hca_qp *qp);

/**
 * struct xib_hca_mgid_map - what an MGID names on RoCEv2 (hca_mgid.c)
 * @ipv6: an IPv6 group (@addr6), else IPv4 (@addr4)
 * @addr4: the IPv4 group, network order
 * @addr6: the IPv6 group
 * @mac: the group's Ethernet multicast address
 */
struct xib_hca_mgid_map {
	bool ipv6;
	__be32 addr4;
	struct in6_addr addr6;
	u8 mac[ETH_ALEN];
};

/* QP number of multicast datagrams (IBTA 9.8.3.1: the DQPN is 0xffffff) */
#define XIB_HCA_MCAST_QPN	XIB_QPN_MASK
/* the device's multicast limits (query_device reports them) */
#define XIB_HCA_MAX_MCAST_GRP		1024
#define XIB_HCA_MAX_MCAST_QP_ATTACH	32
#define XIB_HCA_MAX_TOTAL_MCAST_QP	8192

/* hca_mgid.c */
int xib_hca_mgid_map(const u8 *mgid, struct xib_hca_mgid_map *map);

/* hca_mcast.c */
int xib_hca_mcast_init(void);
void xib_hca_mcast_exit(void);
int xib_hca_mcast_join(struct xib_device *xdev, const u8 *mgid);
void xib_hca_mcast_leave(struct xib_device *xdev, const u8 *mgid);
void xib_hca_mcast_recv(struct xib_hca_dev *hca, struct sk_buff *skb,
			const struct xib_hca_pkt *pkt);

/* hca_recv.c */
void xib_hca_dispatch(struct xib_hca_qp *qp, struct sk_buff *skb,
		      const struct xib_hca_pkt *pkt);

/* hca_pkt.c */
struct sk_buff *xib_hca_build_pkt(struct xib_hca_qp *qp,
				  struct xib_hca_hdr_fields *f,
				  u32 payload_len, void **payload);

/* hca_gsi.c: QP1 (GSI) datagrams of the MAD layer */
int xib_hca_post_mad(struct xib_device *xdev, const struct xib_mad_addr *addr,
		     const struct xib_mad *mad);
void xib_hca_gsi_recv(struct xib_hca_dev *hca, struct sk_buff *skb,
		      const struct xib_hca_pkt *pkt);

#endif /* _XIB_HCA_H */
