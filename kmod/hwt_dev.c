// SPDX-License-Identifier: GPL-2.0
/*
 * hwt.ko: the HWT tracing framework (FreeBSD hwt(4)) for Linux. Module
 * entry points and /dev/hwt.
 */
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/workqueue.h>

#include "hwt_ioctl.h"
#include "hwt_cache.h"
#include "hwt_context.h"
#include "hwt_dev.h"
#include "hwt_perm.h"
#include "hwt_probe.h"
#include "hwt_scratch.h"
#include "hwt_stats.h"

struct hwt_stats_counters hwt_stats;

static int hwt_dev_open(struct inode *inode, struct file *file)
{
	return hwt_perm_open();
}

static const struct file_operations hwt_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= hwt_dev_open,
	.unlocked_ioctl	= hwt_ioctl_dev,
	.llseek		= noop_llseek,
};

/*
 * Root's (0600) unless the access parameters open it to a group or to all:
 * then 0666, and open() admits whom they name (hwt_perm.h).
 */
static struct miscdevice hwt_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "hwt",
	.fops	= &hwt_dev_fops,
};
static DEFINE_MUTEX(hwt_dev_mtx);	/* hwt_miscdev and hwt_dev_up */
static bool hwt_dev_up;

static int hwt_dev_register(void)
{
	int ret;

	hwt_miscdev.minor = MISC_DYNAMIC_MINOR;
	hwt_miscdev.mode = hwt_perm_dev_mode();
	ret = misc_register(&hwt_miscdev);
	hwt_dev_up = !ret;
	return ret;
}

int hwt_dev_update(void)
{
	int ret = 0;

	mutex_lock(&hwt_dev_mtx);
	/* Open files keep working: they hold the fops, not the node. */
	if (hwt_dev_up && hwt_miscdev.mode != hwt_perm_dev_mode()) {
		misc_deregister(&hwt_miscdev);
		ret = hwt_dev_register();
		if (ret)
			pr_err("hwt: /dev/hwt not re-created (%d)\n", ret);
	}
	mutex_unlock(&hwt_dev_mtx);
	return ret;
}

static int __init hwt_init(void)
{
	int ret;

	ret = hwt_cache_init();
	if (ret)
		return ret;
	hwt_wq = alloc_workqueue("hwt", 0, 0);
	if (!hwt_wq) {
		ret = -ENOMEM;
		goto err_cache;
	}
	ret = hwt_scratch_init();
	if (ret)
		goto err_wq;
	ret = hwt_probe_init();
	if (ret)
		goto err_scratch;
	hwt_perm_init();
	mutex_lock(&hwt_dev_mtx);
	ret = hwt_dev_register();
	mutex_unlock(&hwt_dev_mtx);
	if (ret)
		goto err_hook;
	return 0;

err_hook:
	hwt_probe_exit();
err_scratch:
	hwt_scratch_exit();
err_wq:
	destroy_workqueue(hwt_wq);
err_cache:
	hwt_cache_exit();
	return ret;
}

static void __exit hwt_exit(void)
{
	mutex_lock(&hwt_dev_mtx);
	if (hwt_dev_up)
		misc_deregister(&hwt_miscdev);
	hwt_dev_up = false;
	mutex_unlock(&hwt_dev_mtx);
	/* Waits for the last context frees (they hold module references until done). */
	destroy_workqueue(hwt_wq);
	hwt_probe_exit();
	hwt_scratch_exit();
	if (atomic64_read(&hwt_stats.contexts) || atomic64_read(&hwt_stats.threads) ||
	    atomic64_read(&hwt_stats.buffers) || atomic64_read(&hwt_stats.works) ||
	    atomic64_read(&hwt_stats.locked_pages))
		pr_err("hwt: leak: %lld contexts, %lld threads, %lld buffers, %lld works, %lld locked pages\n",
		       (long long)atomic64_read(&hwt_stats.contexts),
		       (long long)atomic64_read(&hwt_stats.threads),
		       (long long)atomic64_read(&hwt_stats.buffers),
		       (long long)atomic64_read(&hwt_stats.works),
		       (long long)atomic64_read(&hwt_stats.locked_pages));
	hwt_cache_exit();
}

module_init(hwt_init);
module_exit(hwt_exit);
MODULE_DESCRIPTION("HWT hardware trace framework (FreeBSD hwt(4) for Linux)");
MODULE_LICENSE("GPL");
