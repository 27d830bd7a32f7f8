// SPDX-License-Identifier: GPL-2.0
/*
 * hwt_test.ko: two test backends, "test" and "test2", for the framework's
 * tests. They have no trace hardware: they write recognisable 32-byte
 * entries into the buffers (magic "HWTT" or "HWT2") at every event the
 * framework gives a backend, advance the write pointer, and report a full
 * buffer with a BUFFER record each time the pointer goes round.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "hwt_backend.h"
#include "hwt_test_entry.h"

static void hwt_test_write(struct hwt_context *ctx, struct hwt_buffer *buf, u32 magic,
			   u32 what, u32 pid, int cpu)
{
	struct hwt_test_entry e = {
		.magic = magic,
		.id = buf->id,
		.seq = buf->offset / sizeof(e),
		.pid = pid,
		.cpu = cpu,
		.ident = hwt_context_ident(ctx),
		.what = what,
	};
	u64 off = buf->offset;

	memcpy(buf->base + off % buf->size, &e, sizeof(e));
	WRITE_ONCE(buf->offset, off + sizeof(e));
	if ((off + sizeof(e)) % buf->size == 0) {
		WRITE_ONCE(buf->wraps, buf->wraps + 1);
		hwt_buffer_full(ctx, buf);
	}
}

static u32 hwt_test_magic(struct hwt_context *ctx)
{
	return (uintptr_t)hwt_context_backend_priv(ctx);
}

static int hwt_test_init(struct hwt_context *ctx)
{
	hwt_context_set_backend_priv(ctx, (void *)(uintptr_t)HWT_TEST_MAGIC);
	return 0;
}

static int hwt_test2_init(struct hwt_context *ctx)
{
	hwt_context_set_backend_priv(ctx, (void *)(uintptr_t)HWT_TEST2_MAGIC);
	return 0;
}

/* The configuration is at most 16 bytes; anything longer is refused. */
static int hwt_test_configure(struct hwt_context *ctx, const void *cfg, size_t len)
{
	return len > 16 ? -EINVAL : 0;
}

static void hwt_test_enable(struct hwt_context *ctx, int cpu)
{
	hwt_test_write(ctx, hwt_context_cpu_buffer(ctx, cpu), hwt_test_magic(ctx),
		       HWT_TEST_CPU_ENABLE, 0, cpu);
}

static void hwt_test_disable(struct hwt_context *ctx, int cpu)
{
	hwt_test_write(ctx, hwt_context_cpu_buffer(ctx, cpu), hwt_test_magic(ctx),
		       HWT_TEST_CPU_DISABLE, 0, cpu);
}

static void hwt_test_cpu_switch(struct hwt_context *ctx, int cpu, struct task_struct *prev,
				struct task_struct *next)
{
	hwt_test_write(ctx, hwt_context_cpu_buffer(ctx, cpu), hwt_test_magic(ctx),
		       HWT_TEST_CPU_SWITCH, task_pid_nr(next), cpu);
}

static void hwt_test_thread_enable(struct hwt_thread *thr, int cpu)
{
	struct hwt_context *ctx = hwt_thread_context(thr);
	struct hwt_buffer *buf = hwt_thread_buffer(thr);

	/*
	 * pid: the task the enable ran in: the thread itself (its task work,
	 * e.g. sent there by START's kick) or the one it is switched in after.
	 */
	hwt_test_write(ctx, buf, hwt_test_magic(ctx), HWT_TEST_THREAD_IN, task_pid_nr(current), cpu);
}

static void hwt_test_thread_disable(struct hwt_thread *thr, int cpu)
{
	struct hwt_context *ctx = hwt_thread_context(thr);
	struct hwt_buffer *buf = hwt_thread_buffer(thr);

	hwt_test_write(ctx, buf, hwt_test_magic(ctx), HWT_TEST_THREAD_OUT, buf->id, cpu);
}

/* Runs before hooks see the buffer: nothing else writes it yet. */
static int hwt_test_thread_alloc(struct hwt_thread *thr)
{
	struct hwt_context *ctx = hwt_thread_context(thr);
	struct hwt_buffer *buf = hwt_thread_buffer(thr);

	hwt_test_write(ctx, buf, hwt_test_magic(ctx), HWT_TEST_THREAD_ALLOC, buf->id,
		       raw_smp_processor_id());
	return 0;
}

static const struct hwt_backend_ops hwt_test_ops = {
	.init		= hwt_test_init,
	.configure	= hwt_test_configure,
	.enable		= hwt_test_enable,
	.disable	= hwt_test_disable,
	.cpu_switch	= hwt_test_cpu_switch,
	.thread_enable	= hwt_test_thread_enable,
	.thread_disable	= hwt_test_thread_disable,
	.thread_alloc	= hwt_test_thread_alloc,
};

static const struct hwt_backend_ops hwt_test2_ops = {
	.init		= hwt_test2_init,
	.configure	= hwt_test_configure,
	.enable		= hwt_test_enable,
	.disable	= hwt_test_disable,
	.cpu_switch	= hwt_test_cpu_switch,
	.thread_enable	= hwt_test_thread_enable,
	.thread_disable	= hwt_test_thread_disable,
	.thread_alloc	= hwt_test_thread_alloc,
};

static struct hwt_backend hwt_test_backend = {
	.name	= "test",
	.ops	= &hwt_test_ops,
	.owner	= THIS_MODULE,
};

static struct hwt_backend hwt_test2_backend = {
	.name	= "test2",
	.ops	= &hwt_test2_ops,
	.owner	= THIS_MODULE,
};

static int __init hwt_test_mod_init(void)
{
	int ret;

	ret = hwt_backend_register(&hwt_test_backend);
	if (ret)
		return ret;
	ret = hwt_backend_register(&hwt_test2_backend);
	if (ret)
		hwt_backend_unregister(&hwt_test_backend);
	return ret;
}

static void __exit hwt_test_mod_exit(void)
{
	hwt_backend_unregister(&hwt_test2_backend);
	hwt_backend_unregister(&hwt_test_backend);
}

module_init(hwt_test_mod_init);
module_exit(hwt_test_mod_exit);
MODULE_DESCRIPTION("hwt test backends");
MODULE_LICENSE("GPL");
