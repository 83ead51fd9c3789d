// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca engine: one worker thread per device.
 *
 * While there is work the worker makes passes over the device's QPs; each
 * QP gets a budget of packets per pass (requester and read responder), so
 * a busy QP cannot starve the others.  With nothing to do it goes
 * through three states (xib_hca_idle_step()):
 *  - it keeps polling (RUNNING) for idle_spin_us (with idle_spin_yield,
 *    only while no other task waits for its CPU);
 *  - then, if idle_doze_us is set (it is 0 by default), it dozes (DOZING
 *    in the doorbell page) until idle_doze_us after its last work: it
 *    leaves the CPU but makes a pass every idle_scan_us (an hrtimer), or
 *    at once on a kick;
 *  - then it announces SLEEPING in the doorbell page, issues a full
 *    barrier, looks at every QP once more, and sleeps until a kick
 *    (ops->kick, a received packet that leaves work, the QP timer).
 * User space posts, issues a full barrier and kicks only if it reads
 * SLEEPING (hca-abi.h), so a post is never missed (RUNNING and DOZING
 * both promise a pass soon), a post shortly after the last work (a
 * ping-pong whose round trip outlasts the spin, a program slowed by a
 * tracer) costs no system call, and an idle device uses no CPU once
 * idle_doze_us has passed.
 *
 * Locking: qps_lock protects the QP list; the worker holds a kref on the
 * QP it works on, never qps_lock.  QP state changes take the QP's
 * state_lock (innermost) and leave the flushing to the worker.
 */
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>

#include "hca.h"
#include "hca_trace.h"

/*
 * How long an idle worker keeps polling before it dozes.  Polling saves
 * the KICK system call of the next post and answers it at once; dozing
 * and sleeping free the CPU, which matters where CPUs are few.  Changes
 * take effect at once.
 */
static unsigned int idle_spin_us = 1000;
module_param(idle_spin_us, uint, 0644);
MODULE_PARM_DESC(idle_spin_us, "microseconds an idle engine polls before it dozes (default 1000)");

/*
 * How long after its last work a worker that stopped polling keeps
 * looking at the doorbells every idle_scan_us, in the DOZING state that
 * obliges no poster to kick, before it sleeps for real.  A device in use
 * costs one pass per idle_scan_us during that time instead of a KICK per
 * post; an idle one nothing once it has passed.  0: sleep after the spin.
 *
 * Off by default.  Where CPUs are few the doze's timer passes cost more
 * than the kicks they save: the test gate's data-path suites took 10 to
 * 40 % longer with 20000 (and idle_spin_yield) than without, and stock
 * ib_send_lat's typical latency rose from 22-39 us to 72-163 us in the
 * 2-vCPU guest, for 0 KICKs per WR instead of 1 (Documentation/
 * hca-queues.rst).
 */
static unsigned int idle_doze_us;
module_param(idle_doze_us, uint, 0644);
MODULE_PARM_DESC(idle_doze_us, "microseconds after its last work an idle engine keeps scanning the doorbells before it sleeps (default 0: off)");

/* The dozing worker's period: the latency of a post it has to find. */
static unsigned int idle_scan_us = 50;
module_param(idle_scan_us, uint, 0644);
MODULE_PARM_DESC(idle_scan_us, "microseconds between the passes of a dozing engine (default 50; 0: no dozing)");

/*
 * An idle worker that polls while another task waits for its CPU takes
 * the CPU from that task, typically the program that posts and polls the
 * CQ, until the scheduler's tick preempts it: milliseconds of latency,
 * to save a system call.  Set, the poll ends at once when the worker is
 * not alone on its CPU, and it dozes.  Measured in the 2-vCPU test guest
 * (stock ib_send_lat -s 2 across two namespaces, 2000 iterations, both
 * dozing): typical 142 to 174 us instead of 598 us, the engines' CPU
 * 0.7 s instead of 4.6 s; ib_send_bw -s 64 0.0137 to 0.0145 Mpps instead
 * of 0.0123.  Where the worker has a CPU of its own it polls as before.
 * Off by default, as the doze is: without it, a poll that ends early
 * makes the next post kick.
 */
static bool idle_spin_yield;
module_param(idle_spin_yield, bool, 0644);
MODULE_PARM_DESC(idle_spin_yield, "an idle engine stops polling (and dozes, or sleeps) when another task waits for its CPU (default N)");

/**
 * xib_hca_kick_engine() - wake the worker of @hca
 * @hca: the device
 *
 * Any context.
 */
void xib_hca_kick_engine(struct xib_hca_dev *hca)
{
	u64 t = xib_hca_prof_begin();

	/* the first kick since the worker went to sleep: its wake latency */
	if (t && !READ_ONCE(hca->prof_kick))
		WRITE_ONCE(hca->prof_kick, t);
	atomic_set(&hca->kicked, 1);
	wake_up(&hca->wait);
}

/**
 * xib_hca_wake() - wake the worker of @hca through its front end
 * @hca: the device
 *
 * A device of the PCI front end rings its function's doorbell register
 * (an MMIO write); the function's doorbell vector comes back as an MSI-X
 * interrupt whose handler calls xib_hca_kick_engine().  A device of the
 * netdev front end is woken directly.
 */
void xib_hca_wake(struct xib_hca_dev *hca)
{
	if (hca->pci)
		xib_hca_pci_ring_db(hca->pci);
	else
		xib_hca_kick_engine(hca);
}

/**
 * xib_hca_qp_event() - raise async event @type of @qp through its
 *	device's front end
 * @qp: the QP
 * @type: the event
 *
 * A device on a PCI function queues it for the function's event vector,
 * whose handler delivers it (pci.c); a netdev device delivers it at
 * once, in the caller's context.  Any context; the caller may hold the
 * QP's locks.
 */
void xib_hca_qp_event(struct xib_hca_qp *qp, enum xib_event_type type)
{
	struct xib_hca_dev *hca = qp_hca(qp);

	if (hca->pci)
		xib_hca_pci_queue_async(hca->pci, XIB_HCA_PCI_AE_QP, &qp->ibqp,
					type, 0);
	else
		xib_qp_event(&qp->ibqp, type);
}

/**
 * xib_hca_cq_event() - raise async event @type of @cq (CQ_ERR) through
 *	its device's front end
 * @cq: the CQ
 * @type: the event
 *
 * As xib_hca_qp_event().  Any context; the caller may hold @cq's lock.
 */
void xib_hca_cq_event(struct xib_hca_cq *cq, enum xib_event_type type)
{
	struct xib_hca_dev *hca = to_hca_dev(cq->ibcq.device);

	if (hca->pci)
		xib_hca_pci_queue_async(hca->pci, XIB_HCA_PCI_AE_CQ, &cq->ibcq,
					type, 0);
	else
		xib_cq_event(&cq->ibcq, type);
}

/**
 * xib_hca_srq_event() - raise async event @type of @srq through its
 *	device's front end
 * @srq: the SRQ
 * @type: the event
 *
 * SRQ_LIMIT_REACHED disarms the limit the core reports now, when the
 * engine raises it, whichever way it is delivered: a limit armed again
 * before the event vector's handler runs stays armed.  Otherwise as
 * xib_hca_qp_event().  Any context; the caller may hold @srq's lock.
 */
void xib_hca_srq_event(struct xib_hca_srq *srq, enum xib_event_type type)
{
	struct xib_hca_dev *hca = to_hca_dev(srq->ibsrq.device);

	if (!hca->pci) {
		xib_srq_event(&srq->ibsrq, type);
		return;
	}
	if (type == XIB_EVENT_SRQ_LIMIT_REACHED)
		WRITE_ONCE(srq->ibsrq.srq_limit, 0);
	xib_hca_pci_queue_async(hca->pci, XIB_HCA_PCI_AE_SRQ, &srq->ibsrq, type,
				0);
}

/**
 * xib_hca_port_event() - deliver port event @event of @xdev through its
 *	front end (xib_device_ops.port_event)
 * @xdev: the device, registered
 * @event: a port event the core derived from the interface's state
 *
 * A device on a PCI function queues it for the function's event vector,
 * behind the QP, CQ and SRQ events raised before it, as a real HCA
 * writes a port change to its event queue and raises the queue's MSI-X;
 * the vector's thread hands it to the core's xib_dispatch_event().  A
 * netdev device delivers it at once.  Called by the core under its
 * registration lock; process context.
 */
void xib_hca_port_event(struct xib_device *xdev, const struct xib_event *event)
{
	struct xib_hca_dev *hca = to_hca_dev(xdev);

	if (hca->pci)
		xib_hca_pci_queue_async(hca->pci, XIB_HCA_PCI_AE_PORT, xdev,
					event->type, event->port_num);
	else
		xib_dispatch_event(event);
}

void xib_hca_engine_add_qp(struct xib_hca_qp *qp)
{
	struct xib_hca_dev *hca = qp_hca(qp);

	spin_lock_bh(&hca->qps_lock);
	list_add_tail(&qp->engine_node, &hca->qps);
	hca->nqps++;
	spin_unlock_bh(&hca->qps_lock);
}

void xib_hca_engine_del_qp(struct xib_hca_qp *qp)
{
	struct xib_hca_dev *hca = qp_hca(qp);

	spin_lock_bh(&hca->qps_lock);
	if (!list_empty(&qp->engine_node)) {
		list_del_init(&qp->engine_node);
		hca->nqps--;
	}
	spin_unlock_bh(&hca->qps_lock);
}

/*
 * Async events
 * ------------
 * Three QP events the IBTA (vol 1 11.6.3.1) ties to states, each a bit of
 * qp->events, armed when the state is entered (under state_lock) and
 * cleared when it is left, so an event never outlives its state:
 *  - COMM_EST: an RC or UC QP in RTR receives its first request packet
 *    (the CM's RTU may not have come yet).  Raised by the receive path
 *    (xib_hca_qp_comm_est()), once per stay in RTR.
 *  - SQ_DRAINED: modify RTS -> SQD with en_sqd_async_notify.  In SQD the
 *    requester fetches no new WQE; it finishes (and retransmits) those
 *    it has fetched.  The worker raises the event once none is left
 *    (sq.cons == sq.fetch): the send queue has no outstanding work.
 *  - LAST_WQE_REACHED: a QP attached to an SRQ enters ERR.  The worker
 *    raises it after the flush of the receive side, when the QP will take
 *    no further WQE from the SRQ.
 */
static void xib_hca_qp_arm_events(struct xib_hca_qp *qp, int state)
{
	lockdep_assert_held(&qp->state_lock);
	if (state == XIB_QPS_RTR && qp->hstate != XIB_QPS_RTR &&
	    qp->ibqp.qp_type != XIB_QPT_UD)
		set_bit(XIB_HCA_QP_EV_COMM_EST, &qp->events);
	else if (state != XIB_QPS_RTR)
		clear_bit(XIB_HCA_QP_EV_COMM_EST, &qp->events);
	if (state != XIB_QPS_SQD)
		clear_bit(XIB_HCA_QP_EV_SQ_DRAIN, &qp->events);
	if (state == XIB_QPS_ERR && qp->hstate != XIB_QPS_ERR && qp->ibqp.srq)
		set_bit(XIB_HCA_QP_EV_LAST_WQE, &qp->events);
	else if (state != XIB_QPS_ERR)
		clear_bit(XIB_HCA_QP_EV_LAST_WQE, &qp->events);
}

/**
 * xib_hca_qp_comm_est() - a request packet reached @qp in RTR
 * @qp: the RC or UC QP
 *
 * Softirq context.  Raises COMM_EST the first time in this stay in RTR.
 */
void xib_hca_qp_comm_est(struct xib_hca_qp *qp)
{
	if (test_bit(XIB_HCA_QP_EV_COMM_EST, &qp->events) &&
	    test_and_clear_bit(XIB_HCA_QP_EV_COMM_EST, &qp->events))
		xib_hca_qp_event(qp, XIB_EVENT_COMM_EST);
}

/* Lockless: in SQD with a drain notice due, and nothing outstanding? */
static bool xib_hca_sq_drain_due(struct xib_hca_qp *qp)
{
	return test_bit(XIB_HCA_QP_EV_SQ_DRAIN, &qp->events) &&
	       READ_ONCE(qp->hstate) == XIB_QPS_SQD &&
	       READ_ONCE(qp->sq.cons) == READ_ONCE(qp->sq.fetch);
}

/* Worker: raise the events the QP's state has made due. */
static void xib_hca_qp_due_events(struct xib_hca_qp *qp)
{
	bool drained;

	if (xib_hca_sq_drain_due(qp)) {
		spin_lock_bh(&qp->sq.lock);
		drained = !qp->dead && qp->sq.cons == qp->sq.fetch;
		spin_unlock_bh(&qp->sq.lock);
		if (drained &&
		    test_and_clear_bit(XIB_HCA_QP_EV_SQ_DRAIN, &qp->events))
			xib_hca_qp_event(qp, XIB_EVENT_SQ_DRAINED);
	}
	/*
	 * Once xib_hca_resp_flush() has run for this entry into ERR (it
	 * clears flush_rq): no WQE of the SRQ is taken any more.
	 */
	if (READ_ONCE(qp->hstate) != XIB_QPS_ERR)
		return;
	smp_rmb();	/* pairs with xib_hca_qp_set_state()'s smp_wmb() */
	if (!READ_ONCE(qp->flush_rq) &&
	    test_and_clear_bit(XIB_HCA_QP_EV_LAST_WQE, &qp->events))
		xib_hca_qp_event(qp, XIB_EVENT_QP_LAST_WQE_REACHED);
}

/**
 * xib_hca_qp_set_state() - change the state the engine sees
 * @qp: the QP
 * @state: enum xib_qp_state
 *
 * Entering ERR schedules the flush of both queues: every outstanding WQE
 * completes with WR_FLUSH_ERR.  Entering SQE (only the HCA moves a QP
 * there, and only from RTS or SQD) schedules the flush of the send queue;
 * the receive queue works on.  Any context.
 */
void xib_hca_qp_set_state(struct xib_hca_qp *qp, int state)
{
	unsigned long flags;
	bool kick = false;
	int old;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->hstate;
	if (state == XIB_QPS_SQE && old != XIB_QPS_RTS && old != XIB_QPS_SQD) {
		/* a send error that raced with a move out of RTS/SQD */
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return;
	}
	if (state == XIB_QPS_ERR && qp->hstate != XIB_QPS_ERR) {
		WRITE_ONCE(qp->flush_sq, true);
		WRITE_ONCE(qp->flush_rq, true);
		kick = true;
	}
	if (state == XIB_QPS_SQE && old != XIB_QPS_SQE) {
		WRITE_ONCE(qp->flush_sq, true);
		kick = true;
	}
	xib_hca_qp_arm_events(qp, state);
	/* the flush flags and event bits before the state they go with */
	smp_wmb();
	WRITE_ONCE(qp->hstate, state);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (old != state)
		trace_xib_hca_qp_state(qp->ibqp.device->index, qp->ibqp.qp_num,
				       old, state);
	if (kick)
		xib_hca_kick_engine(qp_hca(qp));
}

/**
 * xib_hca_qp_modify_state() - a state change that modify_qp asks for
 * @qp: the QP
 * @state: enum xib_qp_state
 * @sqd_notify: into SQD with en_sqd_async_notify: SQ_DRAINED once drained
 *
 * Process context, under the core's qp->mutex.
 */
void xib_hca_qp_modify_state(struct xib_hca_qp *qp, int state,
			     bool sqd_notify)
{
	if (state == XIB_QPS_SQD && sqd_notify) {
		set_bit(XIB_HCA_QP_EV_SQ_DRAIN, &qp->events);
		/* before the state the worker reads */
		smp_mb__after_atomic();
	}
	xib_hca_qp_set_state(qp, state);
	/* SQD: it may be drained now; back in RTS: WQEs posted in SQD */
	if ((state == XIB_QPS_SQD && sqd_notify) || state == XIB_QPS_RTS)
		xib_hca_kick_engine(qp_hca(qp));
}

/*
 * The engine found @qp broken or a WQE in error: move it to ERR.  The
 * worker also records it in the core's qp->attr (under qp->mutex, which
 * this context cannot take), so QUERY_QP reports ERR.
 */
void xib_hca_qp_error(struct xib_hca_qp *qp)
{
	xib_hca_qp_set_state(qp, XIB_QPS_ERR);
	WRITE_ONCE(qp->sync_attr, true);
}

/*
 * A send WQE of @qp completed in error.  An RC QP goes to ERR; a UC or UD
 * QP to SQE (IBTA 10.3.1, "Send Queue Error"): its other send WQEs, and
 * those posted until modify_qp takes it back to RTS, are flushed, while
 * its receive queue keeps working.  Published in qp->attr as ERR is.
 */
void xib_hca_qp_send_error(struct xib_hca_qp *qp)
{
	if (xib_hca_qp_reliable(qp)) {
		xib_hca_qp_error(qp);
		return;
	}
	xib_hca_qp_set_state(qp, XIB_QPS_SQE);
	WRITE_ONCE(qp->sync_attr, true);
}

/*
 * Worker: publish an engine-made ERR or SQE in qp->attr.  modify_qp runs
 * under qp->mutex and sets @hstate there, so if @hstate is still ERR or
 * SQE under the mutex, no modify has happened since.  Never waits for the
 * mutex.
 */
static void xib_hca_sync_attr(struct xib_hca_qp *qp)
{
	int state;

	if (!READ_ONCE(qp->sync_attr) || !mutex_trylock(&qp->ibqp.mutex))
		return;
	state = READ_ONCE(qp->hstate);
	if (state == XIB_QPS_ERR || state == XIB_QPS_SQE)
		qp->ibqp.attr.qp_state = state;
	WRITE_ONCE(qp->sync_attr, false);
	mutex_unlock(&qp->ibqp.mutex);
}

/* Take the next QP in round-robin order, with a reference; or NULL. */
static struct xib_hca_qp *xib_hca_next_qp(struct xib_hca_dev *hca)
{
	struct xib_hca_qp *qp = NULL;

	spin_lock_bh(&hca->qps_lock);
	if (!list_empty(&hca->qps)) {
		qp = list_first_entry(&hca->qps, struct xib_hca_qp,
				      engine_node);
		list_move_tail(&qp->engine_node, &hca->qps);
		kref_get(&qp->ibqp.ref);
	}
	spin_unlock_bh(&hca->qps_lock);
	return qp;
}

/**
 * xib_hca_req_run() - run @qp's requester unless another context does
 * @qp: the QP
 * @budget: packets
 *
 * The worker and a KICK's caller both run the requester; one at a time,
 * so that packets leave in PSN order.  Process context.
 *
 * Return: the work done; 0 if another context is running it (that one
 * will see whatever was posted before it looks at the ring again).
 */
int xib_hca_req_run(struct xib_hca_qp *qp, int budget)
{
	u64 t0;
	int done;

	if (test_and_set_bit_lock(0, &qp->req_busy))
		return 0;
	t0 = xib_hca_prof_begin();
	done = xib_hca_req_process(qp, budget);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_REQ, t0);
	clear_bit_unlock(0, &qp->req_busy);
	return done;
}

/* One QP's share of a pass; returns the work done. */
static int xib_hca_qp_step(struct xib_hca_qp *qp)
{
	int done = 0;
	u64 t0;

	xib_hca_sync_attr(qp);
	/*
	 * In SQE, send WQEs are flushed as they come and the receive side
	 * works on (unless ERR has been entered since: flush_rq).
	 */
	if (READ_ONCE(qp->hstate) == XIB_QPS_SQE && !READ_ONCE(qp->flush_rq)) {
		done += xib_hca_req_flush(qp);
		done += xib_hca_resp_process(qp, XIB_HCA_QP_BUDGET);
		xib_hca_qp_due_events(qp);
		return done;
	}
	/* In ERR, WQEs posted after the flush are flushed as they come. */
	if (READ_ONCE(qp->flush_sq) || READ_ONCE(qp->flush_rq) ||
	    READ_ONCE(qp->hstate) == XIB_QPS_ERR) {
		done += xib_hca_req_flush(qp);
		done += xib_hca_resp_flush(qp);
		xib_hca_qp_due_events(qp);
		return done;
	}
	done += xib_hca_req_run(qp, XIB_HCA_QP_BUDGET);
	t0 = xib_hca_prof_begin();
	done += xib_hca_resp_process(qp, XIB_HCA_QP_BUDGET);
	xib_hca_prof_end(qp_hca(qp), XIB_HCA_PROF_RD_RESP, t0);
	xib_hca_qp_due_events(qp);
	return done;
}

/*
 * The doorbell page's passes and beats: a poster that published work
 * while the engine was RUNNING tells from them whether a pass has seen it
 * and whether the engine is on a CPU at all (hca-abi.h).  Only the
 * worker writes them.
 */
static void xib_hca_count(u32 *counter)
{
	WRITE_ONCE(*counter, *counter + 1);
}

/**
 * xib_hca_engine_beat() - the worker is on a CPU: move the beats counter
 * @hca: the device
 *
 * Called for every packet the requester or the read responder sends, so
 * that a long pass does not look like a worker off the CPU; does nothing
 * in other contexts (a kick, softirq).
 */
void xib_hca_engine_beat(struct xib_hca_dev *hca)
{
	if (current == hca->worker)
		xib_hca_count(&xib_hca_db(hca)->beats);
}

/* A pass over every QP; returns the work done. */
static int xib_hca_engine_pass(struct xib_hca_dev *hca)
{
	struct xib_hca_db_page *db = xib_hca_db(hca);
	struct xib_hca_qp *qp;
	unsigned int n;
	int done = 0;

	spin_lock_bh(&hca->qps_lock);
	n = hca->nqps;
	spin_unlock_bh(&hca->qps_lock);

	while (n--) {
		qp = xib_hca_next_qp(hca);
		if (!qp)
			break;
		done += xib_hca_qp_step(qp);
		xib_qp_put(&qp->ibqp);
		xib_hca_count(&db->beats);
	}
	xib_hca_count(&db->passes);
	return done;
}

static bool xib_hca_qp_has_work(struct xib_hca_qp *qp)
{
	return READ_ONCE(qp->flush_sq) || READ_ONCE(qp->flush_rq) ||
	       READ_ONCE(qp->sync_attr) || xib_hca_req_has_work(qp) || xib_hca_resp_has_work(qp) ||
	       test_bit(XIB_HCA_QP_EV_LAST_WQE, &qp->events) || xib_hca_sq_drain_due(qp);
}

/* Does any QP have work?  The last look before sleeping. */
static bool xib_hca_engine_any_work(struct xib_hca_dev *hca)
{
	struct xib_hca_qp *qp;
	bool work = false;

	spin_lock_bh(&hca->qps_lock);
	list_for_each_entry(qp, &hca->qps, engine_node) {
		if (xib_hca_qp_has_work(qp)) {
			work = true;
			break;
		}
	}
	spin_unlock_bh(&hca->qps_lock);
	return work;
}

static void xib_hca_set_engine_state(struct xib_hca_dev *hca, u32 state)
{
	WRITE_ONCE(xib_hca_db(hca)->engine_state, state);
}

/*
 * Doze for at most @scan_us: off the CPU until the hrtimer fires, a kick
 * comes (xib_hca_kick_engine() wakes @hca->wait) or the thread is told
 * to stop.  TASK_IDLE: a dozing worker is not load.
 */
static void xib_hca_doze(struct xib_hca_dev *hca, unsigned int scan_us)
{
	ktime_t t = ns_to_ktime((u64)scan_us * NSEC_PER_USEC);
	DEFINE_WAIT(wait);

	prepare_to_wait(&hca->wait, &wait, TASK_IDLE);
	/* a kick before the doze: its work is for the next pass */
	if (!atomic_xchg(&hca->kicked, 0) && !kthread_should_stop())
		schedule_hrtimeout_range(&t, (u64)scan_us * NSEC_PER_USEC / 4,
					 HRTIMER_MODE_REL);
	finish_wait(&hca->wait, &wait);
	xib_hca_stat_inc(hca, XIB_HCA_STAT_ENGINE_DOZES);
}

/*
 * Announce SLEEPING, make the last look at every QP and, if there is
 * nothing to do, sleep until a kick.  The barrier pairs with the
 * poster's after it publishes prod (hca-abi.h): either the look sees the
 * post or the poster sees SLEEPING and kicks.
 */
static void xib_hca_sleep(struct xib_hca_dev *hca)
{
	u64 t0, kick;

	xib_hca_set_engine_state(hca, XIB_HCA_ENGINE_SLEEPING);
	smp_mb(); /* pairs with the poster's barrier after prod */
	if (xib_hca_engine_any_work(hca))
		return;
	xib_hca_stat_inc(hca, XIB_HCA_STAT_ENGINE_SLEEPS);
	/* kicks before this one are no wake-up's */
	WRITE_ONCE(hca->prof_kick, 0);
	t0 = xib_hca_prof_begin();
	wait_event_idle(hca->wait,
			atomic_xchg(&hca->kicked, 0) || kthread_should_stop());
	xib_hca_prof_end(hca, XIB_HCA_PROF_SLEEP, t0);
	kick = READ_ONCE(hca->prof_kick);
	if (kick && t0)
		xib_hca_prof_end(hca, XIB_HCA_PROF_WAKE, kick);
}

static int xib_hca_worker(void *arg)
{
	struct xib_hca_dev *hca = arg;
	u32 state = XIB_HCA_ENGINE_RUNNING;
	u64 idle_since = 0, now, t0;
	unsigned int scan_us;
	bool busy_cpu;

	while (!kthread_should_stop()) {
		t0 = xib_hca_prof_begin();
		if (xib_hca_engine_pass(hca)) {
			xib_hca_prof_end(hca, XIB_HCA_PROF_PASS_WORK, t0);
			idle_since = 0;
			if (state != XIB_HCA_ENGINE_RUNNING) {
				state = XIB_HCA_ENGINE_RUNNING;
				xib_hca_set_engine_state(hca, state);
			}
			cond_resched();
			continue;
		}
		xib_hca_prof_end(hca, XIB_HCA_PROF_PASS_IDLE, t0);
		now = ktime_get_ns();
		if (!idle_since)
			idle_since = now;
		busy_cpu = READ_ONCE(idle_spin_yield) && !single_task_running();
		scan_us = READ_ONCE(idle_scan_us);
		switch (xib_hca_idle_step(now - idle_since,
					  READ_ONCE(idle_spin_us),
					  READ_ONCE(idle_doze_us), scan_us,
					  busy_cpu)) {
		case XIB_HCA_IDLE_SPIN:
			cond_resched();
			continue;
		case XIB_HCA_IDLE_DOZE:
			if (state != XIB_HCA_ENGINE_DOZING) {
				state = XIB_HCA_ENGINE_DOZING;
				xib_hca_set_engine_state(hca, state);
			}
			xib_hca_doze(hca, scan_us);
			continue;
		case XIB_HCA_IDLE_SLEEP:
			break;
		}
		xib_hca_sleep(hca);
		state = XIB_HCA_ENGINE_RUNNING;
		xib_hca_set_engine_state(hca, state);
		idle_since = 0;
	}
	return 0;
}

/**
 * xib_hca_engine_start() - start the worker of @hca
 * @hca: the device; its doorbell page exists
 * @name: the device's name, for the thread's
 *
 * Return: 0 or a negative errno.
 */
int xib_hca_engine_start(struct xib_hca_dev *hca, const char *name)
{
	struct task_struct *t;

	spin_lock_init(&hca->qps_lock);
	INIT_LIST_HEAD(&hca->qps);
	init_waitqueue_head(&hca->wait);
	xib_hca_set_engine_state(hca, XIB_HCA_ENGINE_RUNNING);
	t = kthread_run(xib_hca_worker, hca, "xib_hca/%s", name);
	if (IS_ERR(t))
		return PTR_ERR(t);
	hca->worker = t;
	return 0;
}

/* Stop the worker; the device has no QPs any more. */
void xib_hca_engine_stop(struct xib_hca_dev *hca)
{
	if (!hca->worker)
		return;
	kthread_stop(hca->worker);
	hca->worker = NULL;
}
