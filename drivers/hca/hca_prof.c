// SPDX-License-Identifier: GPL-2.0
/*
 * xib_hca data path profile: the switch (the module parameter "profile",
 * or a write to a device's profile file) and the per-device table in
 * debugfs, xib_hca/<device>/profile (Documentation/counters.rst).
 *
 * The switch is module-wide (one static key); the counts are per device
 * and per CPU (hca->prof), as the device counters are.
 */
#include <linux/debugfs.h>
#include <linux/kstrtox.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "hca.h"

DEFINE_STATIC_KEY_FALSE(xib_hca_prof_on);

enum xib_hca_prof_kind {
	XIB_HCA_PROF_TOP,	/* CPU time; the top-level stages partition it */
	XIB_HCA_PROF_OFF_CPU,	/* waiting: not in the shares */
	XIB_HCA_PROF_NESTED,	/* inside @parent's time */
};

/**
 * struct xib_hca_prof_stage_info - how a stage is shown
 * @name: its row's name
 * @parent: the stage it is timed inside ("-": none; "*": any)
 * @kind: enum xib_hca_prof_kind
 */
struct xib_hca_prof_stage_info {
	const char *name;
	const char *parent;
	u8 kind;
};

static const struct xib_hca_prof_stage_info xib_hca_prof_stages[XIB_HCA_NPROF] = {
	[XIB_HCA_PROF_PASS_WORK] = { "engine.pass_work", "-", XIB_HCA_PROF_TOP },
	[XIB_HCA_PROF_PASS_IDLE] = { "engine.pass_idle", "-", XIB_HCA_PROF_TOP },
	[XIB_HCA_PROF_KICK] = { "kick", "-", XIB_HCA_PROF_TOP },
	[XIB_HCA_PROF_RX_WIRE] = { "rx.wire", "-", XIB_HCA_PROF_TOP },
	[XIB_HCA_PROF_SLEEP] = { "engine.sleep", "-", XIB_HCA_PROF_OFF_CPU },
	[XIB_HCA_PROF_WAKE] = { "engine.wake", "-", XIB_HCA_PROF_OFF_CPU },
	[XIB_HCA_PROF_KICK_WAKE] = { "kick.wake", "kick", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_REQ] = { "req", "pass_work|kick", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_REQ_FETCH] = { "req.fetch", "req", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_REQ_BUILD] = { "req.build", "req", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_REQ_PAYLOAD] = { "req.payload", "req.build", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_PKT_ALLOC] = { "pkt.alloc", "req.build|ack|rd_resp", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RD_RESP] = { "rd_resp", "pass_work", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT] = { "xmit", "req|ack|rd_resp", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT_SGID] = { "xmit.sgid", "xmit", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT_ROUTE] = { "xmit.route", "xmit", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT_ICRC] = { "xmit.icrc", "xmit", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT_OUT] = { "xmit.out", "xmit", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_XMIT_LOOP] = { "xmit.loop", "xmit", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_ICRC] = { "rx.icrc", "rx.wire", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_PKT] = { "rx.pkt", "rx.wire|xmit.loop", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_PARSE] = { "rx.parse", "rx.pkt", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_QP] = { "rx.qp", "rx.pkt", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_RESP] = { "rx.resp", "rx.pkt", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_RX_COMP] = { "rx.comp", "rx.pkt", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_ACK] = { "ack", "rx.resp|rd_resp", XIB_HCA_PROF_NESTED },
	[XIB_HCA_PROF_CQ_POST] = { "cq.post", "*", XIB_HCA_PROF_NESTED },
};

static int xib_hca_prof_param_set(const char *val,
				  const struct kernel_param *kp)
{
	bool on;
	int ret;

	ret = kstrtobool(val, &on);
	if (ret)
		return ret;
	if (on)
		static_branch_enable(&xib_hca_prof_on);
	else
		static_branch_disable(&xib_hca_prof_on);
	return 0;
}

static int xib_hca_prof_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%c\n",
			  static_key_enabled(&xib_hca_prof_on) ? 'Y' : 'N');
}

static const struct kernel_param_ops xib_hca_prof_param_ops = {
	.set = xib_hca_prof_param_set,
	.get = xib_hca_prof_param_get,
};

module_param_cb(profile, &xib_hca_prof_param_ops, NULL, 0644);
MODULE_PARM_DESC(profile, "time the stages of the data path (debugfs xib_hca/<device>/profile; default N)");

static int xib_hca_prof_show(struct seq_file *m, void *v)
{
	const struct xib_hca_dev *hca = m->private;
	u64 count[XIB_HCA_NPROF] = {}, ns[XIB_HCA_NPROF] = {}, top = 0;
	const struct xib_hca_prof_stage_info *st;
	int cpu, i;

	for_each_possible_cpu(cpu) {
		const struct xib_hca_prof *p = per_cpu_ptr(hca->prof, cpu);

		for (i = 0; i < XIB_HCA_NPROF; i++) {
			count[i] += READ_ONCE(p->count[i]);
			ns[i] += READ_ONCE(p->ns[i]);
		}
	}
	for (i = 0; i < XIB_HCA_NPROF; i++)
		if (xib_hca_prof_stages[i].kind == XIB_HCA_PROF_TOP)
			top += ns[i];

	seq_printf(m, "# profile %s; share: of the top-level stages' %llu ns\n",
		   static_key_enabled(&xib_hca_prof_on) ? "on" : "off", top);
	seq_printf(m, "%-18s %-18s %12s %14s %10s %7s\n", "stage", "in",
		   "count", "total_ns", "ns_per_op", "share");
	for (i = 0; i < XIB_HCA_NPROF; i++) {
		st = &xib_hca_prof_stages[i];
		seq_printf(m, "%-18s %-18s %12llu %14llu %10llu ", st->name,
			   st->parent, count[i], ns[i],
			   count[i] ? div64_u64(ns[i], count[i]) : 0);
		if (st->kind == XIB_HCA_PROF_OFF_CPU || !top)
			seq_printf(m, "%7s\n", "-");
		else
			seq_printf(m, "%6llu%%\n", div64_u64(ns[i] * 100, top));
	}
	return 0;
}

static int xib_hca_prof_open(struct inode *inode, struct file *file)
{
	return single_open(file, xib_hca_prof_show, inode->i_private);
}

/* Zero the counts; counts being added meanwhile may survive in part. */
static void xib_hca_prof_reset(struct xib_hca_dev *hca)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct xib_hca_prof *p = per_cpu_ptr(hca->prof, cpu);
		int i;

		for (i = 0; i < XIB_HCA_NPROF; i++) {
			WRITE_ONCE(p->count[i], 0);
			WRITE_ONCE(p->ns[i], 0);
		}
	}
}

/* "0" or "reset": zero the counts; "1" or "on", "off": the switch. */
static ssize_t xib_hca_prof_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct xib_hca_dev *hca = file_inode(file)->i_private;
	char buf[8];
	char *cmd;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);
	if (!strcmp(cmd, "0") || !strcmp(cmd, "reset"))
		xib_hca_prof_reset(hca);
	else if (!strcmp(cmd, "1") || !strcmp(cmd, "on"))
		static_branch_enable(&xib_hca_prof_on);
	else if (!strcmp(cmd, "off"))
		static_branch_disable(&xib_hca_prof_on);
	else
		return -EINVAL;
	return len;
}

static const struct file_operations xib_hca_prof_fops = {
	.owner = THIS_MODULE,
	.open = xib_hca_prof_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = xib_hca_prof_write,
};

/**
 * xib_hca_prof_debugfs_add() - create xib_hca/<device>/profile
 * @hca: the device, registered: its name and index are final (xib devices
 *	are never renamed nor moved)
 *
 * Debugfs is global but names are per network namespace: a device of the
 * initial namespace has its name, one of another namespace its name and
 * its (global, unique) index, "xib0:3" (':' is in no device name, so
 * the two never meet).  Without debugfs the file is absent.
 */
void xib_hca_prof_debugfs_add(struct xib_hca_dev *hca)
{
	struct xib_device *xdev = &hca->xdev;
	char name[XIB_DEVICE_NAME_MAX + 12];
	struct dentry *dir;

	if (net_eq(xib_device_net(xdev), &init_net))
		strscpy(name, xdev->name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s:%u", xdev->name, xdev->index);
	dir = debugfs_create_dir(name, xib_hca_debugfs);
	if (IS_ERR(dir))
		return;
	hca->prof_dir = dir;
	debugfs_create_file("profile", 0600, dir, hca, &xib_hca_prof_fops);
}

/**
 * xib_hca_prof_debugfs_del() - remove what xib_hca_prof_debugfs_add() made
 * @hca: the device, before it is unregistered
 *
 * Waits for readers and writers of the file to leave it.
 */
void xib_hca_prof_debugfs_del(struct xib_hca_dev *hca)
{
	debugfs_remove(hca->prof_dir);
	hca->prof_dir = NULL;
}
