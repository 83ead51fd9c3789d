// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: a module that injects one kernel fault on load, so
 * that "make check-harness" can prove the VM runner notices it.
 *
 *   fault=kasan	a use-after-free read (a KASAN report in the debug VM)
 *   fault=leak		an allocation nobody points to (kmemleak, debug VM)
 *   fault=warn		a WARN()
 *   fault=hang		every CPU spins with interrupts off: the guest hangs
 *
 * Never loaded by the normal test run.
 */

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/smp.h>

static char *fault = "";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "kasan, leak, warn or hang");

static void xib_selftest_spin(void *unused)
{
	local_irq_disable();
	for (;;)
		cpu_relax();
}

/*
 * Lose eight allocations.  A stale copy of a pointer (in a register or a
 * dead stack slot) can hide one of them from kmemleak; not all eight.
 */
static noinline void xib_selftest_leak(void)
{
	int i;

	for (i = 0; i < 8; i++) {
		void *p = kmalloc(64 + 64 * i, GFP_KERNEL);

		OPTIMIZER_HIDE_VAR(p);
	}
}

static int __init xib_selftest_fault_init(void)
{
	if (!strcmp(fault, "kasan")) {
		char *p = kmalloc(32, GFP_KERNEL);

		if (!p)
			return -ENOMEM;
		kfree(p);
		/* Keep the compiler from seeing, and dropping, the bug. */
		OPTIMIZER_HIDE_VAR(p);
		pr_info("read after free: %d\n", READ_ONCE(p[8]));
	} else if (!strcmp(fault, "leak")) {
		xib_selftest_leak();
	} else if (!strcmp(fault, "warn")) {
		WARN(1, "injected warning");
	} else if (!strcmp(fault, "hang")) {
		on_each_cpu(xib_selftest_spin, NULL, 0);
	} else {
		return -EINVAL;
	}
	return 0;
}

static void __exit xib_selftest_fault_exit(void)
{
}

module_init(xib_selftest_fault_init);
module_exit(xib_selftest_fault_exit);

MODULE_DESCRIPTION("xib test harness self-test: injected kernel faults");
MODULE_LICENSE("GPL");
