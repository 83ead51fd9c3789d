// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca engine: one worker thread per device.
 *
 * While there is work the worker makes passes over the device's QPs; each
 * QP gets a budget of packets per pass (requester and read responder), so
 * a busy QP cannot starve the others.  With nothing to do it keeps polling
 * for idle_spin_us, then announces SLEEPING in the doorbell page,
 * issues a full barrier, looks at every QP once more, and sleeps until a
 * kick (ops->kick, a received packet that leaves work, the QP timer).
 * User space posts, issues a full barrier and kicks only if it reads
 * SLEEPING (hca-abi.h), so a post is never missed and an idle device uses
 * no CPU.
 *
 * Locking: qps_lock protects the QP list; the worker holds a kref on the
 * QP it works on, never qps_lock.  QP state changes take the QP's
 * state_lock (innermost) and leave the flushing to the worker.
 */
#include <linux/kthread.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>

#include "hca.h"

/*
 * How long an idle worker keeps polling before it sleeps.  Polling saves
 * the KICK system call of the next post; sleeping frees the CPU, which
 * matters where CPUs are few.  Changes take effect at once.
 */
static unsigned int idle_spin_us = 1000;
module_param(idle_spin_us, uint, 0644);
MODULE_PARM_DESC(idle_spin_us, "microseconds an idle engine polls before it sleeps (default 1000)");

/**
 * xib_hca_kick_engine() - wake the worker of @hca
 * @hca: the device
 *
 * Any context.
 */
void xib_hca_kick_engine(struct xib_hca_dev *hca)
{
	atomic_set(&hca->kicked, 1);
	wake_up(&hca->wait);
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

/**
 * xib_hca_qp_set_state() - change the state the engine sees
 * @qp: the QP
 * @state: enum xib_qp_state
 *
 * Entering ERR schedules the flush of both queues: every outstanding WQE
 * completes with WR_FLUSH_ERR.  Any context.
 */
void xib_hca_qp_set_state(struct xib_hca_qp *qp, int state)
{
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (state == XIB_QPS_ERR && qp->hstate != XIB_QPS_ERR) {
		WRITE_ONCE(qp->flush_sq, true);
		WRITE_ONCE(qp->flush_rq, true);
		kick = true;
	}
	WRITE_ONCE(qp->hstate, state);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (kick)
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
 * Worker: publish an engine-made ERR in qp->attr.  modify_qp runs under
 * qp->mutex and sets @hstate there, so if @hstate is still ERR under the
 * mutex, no modify has happened since.  Never waits for the mutex.
 */
static void xib_hca_sync_attr(struct xib_hca_qp *qp)
{
	if (!READ_ONCE(qp->sync_attr) || !mutex_trylock(&qp->ibqp.mutex))
		return;
	if (READ_ONCE(qp->hstate) == XIB_QPS_ERR)
		qp->ibqp.attr.qp_state = XIB_QPS_ERR;
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
	int done;

	if (test_and_set_bit_lock(0, &qp->req_busy))
		return 0;
	done = xib_hca_req_process(qp, budget);
	clear_bit_unlock(0, &qp->req_busy);
	return done;
}

/* One QP's share of a pass; returns the work done. */
static int xib_hca_qp_step(struct xib_hca_qp *qp)
{
	int done = 0;

	xib_hca_sync_attr(qp);
	/* In ERR, WQEs posted after the flush are flushed as they come. */
	if (READ_ONCE(qp->flush_sq) || READ_ONCE(qp->flush_rq) ||
	    READ_ONCE(qp->hstate) == XIB_QPS_ERR) {
		done += xib_hca_req_flush(qp);
		done += xib_hca_resp_flush(qp);
		return done;
	}
	done += xib_hca_req_run(qp, XIB_HCA_QP_BUDGET);
	done += xib_hca_resp_process(qp, XIB_HCA_QP_BUDGET);
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
	       READ_ONCE(qp->sync_attr) || xib_hca_req_has_work(qp) || xib_hca_resp_has_work(qp);
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

static int xib_hca_worker(void *arg)
{
	struct xib_hca_dev *hca = arg;
	u64 idle_since = 0;

	while (!kthread_should_stop()) {
		if (xib_hca_engine_pass(hca)) {
			idle_since = 0;
			cond_resched();
			continue;
		}
		if (!idle_since)
			idle_since = ktime_get_ns();
		if (ktime_get_ns() - idle_since <
		    (u64)READ_ONCE(idle_spin_us) * NSEC_PER_USEC) {
			cond_resched();
			continue;
		}
		xib_hca_set_engine_state(hca, XIB_HCA_ENGINE_SLEEPING);
		smp_mb(); /* pairs with the poster's barrier after prod */
		if (!xib_hca_engine_any_work(hca))
			wait_event_idle(hca->wait,
					atomic_xchg(&hca->kicked, 0) ||
					kthread_should_stop());
		xib_hca_set_engine_state(hca, XIB_HCA_ENGINE_RUNNING);
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
