// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI (include/uapi/hwt_ioctl.h): allocation of contexts on
 * /dev/hwt, and the context file descriptor's read, poll, mmap and ioctls.
 */
#include <linux/anon_inodes.h>
#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mm.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hwt_ioctl.h"
#include "hwt_backend_int.h"
#include "hwt_buffer.h"
#include "hwt_context.h"
#include "hwt_dev.h"
#include "hwt_pause.h"
#include "hwt_perm.h"
#include "hwt_select.h"
#include "hwt_probe.h"
#include "hwt_stats.h"
#include "hwt_thread.h"

#define HWT_BACKEND_CONFIG_MAX	4096u

/*
 * Copies a struct whose first u32 is its size as user space knows it:
 * smaller than @minsize is EINVAL, larger than a page E2BIG, larger than
 * @ksize with non-zero bytes beyond it E2BIG, a bad pointer EFAULT.
 */
static int hwt_copy_in(void *dst, size_t ksize, size_t minsize, const void __user *uarg, u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (*usize < minsize)
		return -EINVAL;
	if (*usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(dst, ksize, uarg, *usize);
}

static int hwt_copy_out(void __user *uarg, const void *src, size_t ksize, u32 usize)
{
	return copy_to_user(uarg, src, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

/* Reads a CPU set of @size bytes at @uptr; every CPU must be possible. */
static int hwt_ioctl_cpuset(struct cpumask *mask, u64 uptr, u64 size)
{
	unsigned long *bits;
	unsigned int cpu, nbits;
	int ret = 0;

	if (size == 0 || size > HWT_CPUSETSIZE_MAX)
		return -EINVAL;
	bits = kzalloc(round_up(size, sizeof(long)), GFP_KERNEL);
	if (!bits)
		return -ENOMEM;
	if (copy_from_user(bits, u64_to_user_ptr(uptr), size)) {
		ret = -EFAULT;
		goto out;
	}
	nbits = size * BITS_PER_BYTE;
	cpumask_clear(mask);
	for_each_set_bit(cpu, bits, nbits) {
		if (cpu >= nr_cpu_ids || !cpu_possible(cpu)) {
			ret = -EINVAL;
			goto out;
		}
		cpumask_set_cpu(cpu, mask);
	}
	if (cpumask_empty(mask))
		ret = -EINVAL;
out:
	kfree(bits);
	return ret;
}

/*
 * THREAD mode: traces every thread of @leader's process. Threads created
 * meanwhile are caught by the fork hook (which skips threads already here).
 */
static int hwt_ioctl_attach(struct hwt_context *ctx, struct task_struct *leader)
{
	struct hwt_thread *thr, *found;
	struct task_struct *t;
	int ret = 0, n = 0;

	HWT_CTX_LOCK(ctx);
	spin_lock(&hwt_thread_lock);
	rcu_read_lock();
	for_each_thread(leader, t) {
		if (t->flags & PF_EXITING)
			continue;
		if (hwt_thread_lookup(ctx, t)) {
			n++;
			continue;
		}
		if (hwt_thread_busy(t, ctx->backend)) {
			ret = -EBUSY;
			break;
		}
		thr = hwt_thread_alloc(ctx, t, GFP_ATOMIC);
		if (!thr) {
			ret = -ENOMEM;
			break;
		}
		hwt_thread_insert(thr);
		n++;
	}
	rcu_read_unlock();
	spin_unlock(&hwt_thread_lock);
	HWT_CTX_UNLOCK(ctx);
	if (!ret && !n)
		ret = -ESRCH;
	if (ret)
		return ret;

	/* Buffers, one thread at a time (allocation sleeps). */
	for (;;) {
		found = NULL;
		HWT_CTX_LOCK(ctx);
		list_for_each_entry(thr, &ctx->threads, link) {
			if (!test_bit(HWT_THR_READY, &thr->flags) &&
			    !test_bit(HWT_THR_EXITED, &thr->flags)) {
				hwt_thread_get(thr);
				found = thr;
				break;
			}
		}
		HWT_CTX_UNLOCK(ctx);
		if (!found)
			return 0;
		ret = hwt_thread_buffer_ensure(found);
		hwt_thread_put(found);
		if (ret)
			return ret;
	}
}

static int hwt_ctx_release(struct inode *inode, struct file *file)
{
	hwt_context_teardown(file->private_data);
	return 0;
}

static ssize_t hwt_ctx_read(struct file *file, char __user *buf, size_t len, loff_t *pos)
{
	struct hwt_context *ctx = file->private_data;

	return hwt_recq_read(&ctx->recq, buf, len, file->f_flags & O_NONBLOCK);
}

static __poll_t hwt_ctx_poll(struct file *file, poll_table *pt)
{
	struct hwt_context *ctx = file->private_data;

	return hwt_recq_poll(&ctx->recq, file, pt);
}

/*
 * The buffer of CPU or thread @id (the second one of a thread with @aux),
 * or NULL. The buffer lives until teardown.
 */
static struct hwt_buffer *hwt_ctx_buffer(struct hwt_context *ctx, u64 id, bool aux)
{
	struct hwt_buffer *buf = NULL;
	struct hwt_thread *thr;

	if (ctx->mode == HWT_MODE_CPU)
		return id < nr_cpu_ids && !aux ? ctx->cpu_bufs[id] : NULL;
	HWT_CTX_LOCK(ctx);
	list_for_each_entry(thr, &ctx->threads, link) {
		/* The newest thread of that id wins (tids are reused). */
		if (READ_ONCE(thr->tid) == id && test_bit(HWT_THR_READY, &thr->flags))
			buf = aux ? thr->aux : thr->buf;
	}
	HWT_CTX_UNLOCK(ctx);
	return buf;
}

/* The buffer an ioctl's id and HWT_BUF_* flags name, or ERR_PTR (-EINVAL, -ENOENT). */
static struct hwt_buffer *hwt_ctx_buffer_arg(struct hwt_context *ctx, u32 id, u32 flags,
					     u32 reserved)
{
	struct hwt_buffer *buf;

	if ((flags & ~HWT_BUF_AUX) || reserved)
		return ERR_PTR(-EINVAL);
	buf = hwt_ctx_buffer(ctx, id, flags & HWT_BUF_AUX);
	return buf ? buf : ERR_PTR(-ENOENT);
}

static int hwt_ctx_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct hwt_context *ctx = file->private_data;
	unsigned long aux = HWT_MMAP_AUX >> PAGE_SHIFT;
	unsigned long low = (1ul << (HWT_MMAP_SHIFT - PAGE_SHIFT)) - 1;
	struct hwt_buffer *buf;

	if (vma->vm_pgoff & low & ~aux)
		return -EINVAL;
	buf = hwt_ctx_buffer(ctx, vma->vm_pgoff >> (HWT_MMAP_SHIFT - PAGE_SHIFT),
			     vma->vm_pgoff & aux);
	if (!buf)
		return -ENOENT;
	return hwt_buffer_mmap(buf, vma);
}

static long hwt_ctx_set_config(struct hwt_context *ctx, void __user *uarg)
{
	struct hwt_select *sel, *old = NULL;
	struct hwt_config c;
	void *bcfg = NULL;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&c, sizeof(c), HWT_CONFIG_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (c.flags & ~HWT_CFG_FLAGS)
		return -EINVAL;
	if ((c.flags & (HWT_CFG_PAUSE_EXEC | HWT_CFG_PAUSE_MMAP)) &&
	    (ctx->mode != HWT_MODE_THREAD || c.pause_timeout_ms == 0))
		return -EINVAL;
	if (c.pause_timeout_ms > HWT_PAUSE_TIMEOUT_MAX_MS ||
	    c.backend_config_size > HWT_BACKEND_CONFIG_MAX)
		return -EINVAL;
	if (c.backend_config_size && !ctx->backend->ops->configure)
		return -EINVAL;
	if ((c.flags & HWT_CFG_SELECT) && ctx->mode != HWT_MODE_THREAD)
		return -EINVAL;
	sel = hwt_select_from_user(&c);
	if (IS_ERR(sel))
		return PTR_ERR(sel);
	if (c.backend_config_size) {
		bcfg = memdup_user(u64_to_user_ptr(c.backend_config), c.backend_config_size);
		if (IS_ERR(bcfg)) {
			hwt_select_free(sel);
			return PTR_ERR(bcfg);
		}
	}
	mutex_lock(&ctx->mtx);
	if (ctx->backend->ops->configure)
		ret = ctx->backend->ops->configure(ctx, bcfg, c.backend_config_size);
	if (!ret) {
		HWT_CTX_LOCK(ctx);
		old = rcu_replace_pointer(ctx->select, sel, lockdep_is_held(&ctx->lock));
		sel = NULL;
		WRITE_ONCE(ctx->cfg_flags, c.flags);
		if (c.pause_timeout_ms)
			WRITE_ONCE(ctx->pause_timeout_ms, c.pause_timeout_ms);
		HWT_CTX_UNLOCK(ctx);
	}
	mutex_unlock(&ctx->mtx);
	if (old) {
		synchronize_rcu();	/* a judgement may be reading the lists */
		hwt_select_free(old);
	}
	hwt_select_free(sel);
	kfree(bcfg);
	return ret;
}

static long hwt_ctx_wakeup(struct hwt_context *ctx, void __user *uarg)
{
	struct hwt_wakeup w;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&w, sizeof(w), HWT_WAKEUP_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	if (w.tid < -1 || w.tid == 0)
		return -EINVAL;
	return hwt_pause_wakeup(ctx, w.tid);
}

static long hwt_ctx_bufptr(struct hwt_context *ctx, void __user *uarg)
{
	struct hwt_buffer *buf;
	struct hwt_bufptr bp;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&bp, sizeof(bp), HWT_BUFPTR_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	buf = hwt_ctx_buffer_arg(ctx, bp.id, bp.flags, bp.reserved);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (ctx->backend->ops->read) {
		ctx->backend->ops->read(buf, &bp.offset, &bp.wraps);
	} else {
		bp.offset = READ_ONCE(buf->offset);
		bp.wraps = READ_ONCE(buf->wraps);
	}
	bp.bufsize = buf->size;
	return hwt_copy_out(uarg, &bp, sizeof(bp), usize);
}

static long hwt_ctx_bufread(struct hwt_context *ctx, void __user *uarg)
{
	struct hwt_buffer *buf;
	struct hwt_bufread br;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&br, sizeof(br), HWT_BUFREAD_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	buf = hwt_ctx_buffer_arg(ctx, br.id, br.flags, br.reserved);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* One collector per context: no lock, only the bounds. */
	if (br.offset < READ_ONCE(buf->read) || br.offset > READ_ONCE(buf->offset))
		return -EINVAL;
	WRITE_ONCE(buf->read, br.offset);
	/* A thread may wait for the room (hwt_thread_wait). */
	wake_up_all(&ctx->pause_wq);
	return 0;
}

static long hwt_ctx_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hwt_context *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	if (_IOC_TYPE(cmd) != HWT_IOC_TYPE)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HWT_IOC_START):
		return hwt_context_start(ctx);
	case _IOC_NR(HWT_IOC_STOP):
		return hwt_context_stop(ctx);
	case _IOC_NR(HWT_IOC_SET_CONFIG):
		return hwt_ctx_set_config(ctx, uarg);
	case _IOC_NR(HWT_IOC_WAKEUP):
		return hwt_ctx_wakeup(ctx, uarg);
	case _IOC_NR(HWT_IOC_BUFPTR):
		return hwt_ctx_bufptr(ctx, uarg);
	case _IOC_NR(HWT_IOC_BUFREAD):
		return hwt_ctx_bufread(ctx, uarg);
	}
	return -ENOTTY;
}

static const struct file_operations hwt_ctx_fops = {
	.owner		= THIS_MODULE,
	.release	= hwt_ctx_release,
	.read		= hwt_ctx_read,
	.poll		= hwt_ctx_poll,
	.mmap		= hwt_ctx_mmap,
	.unlocked_ioctl	= hwt_ctx_ioctl,
	.llseek		= noop_llseek,
};

/* An allocation request, checked, with the references its steps take. */
struct hwt_alloc_req {
	struct hwt_alloc a;
	u64 recq_size;
	cpumask_var_t mask;		/* CPU mode: the CPUs to trace */
	struct pid *pid;		/* THREAD mode: the target, until its context holds it */
	struct task_struct *task;	/* THREAD mode: the target's leader */
};

/* The request's fields on their own, before anything is looked up. */
static int hwt_ioctl_alloc_check(struct hwt_alloc_req *r)
{
	const struct hwt_alloc *a = &r->a;

	if (a->reserved || (a->flags & ~HWT_ALLOC_CHILDREN))
		return -EINVAL;
	if (strnlen(a->backend_name, HWT_BACKEND_NAME_MAX) == HWT_BACKEND_NAME_MAX)
		return -EINVAL;
	if (a->bufsize < HWT_BUFSIZE_MIN || a->bufsize > HWT_BUFSIZE_MAX ||
	    !PAGE_ALIGNED(a->bufsize))
		return -EINVAL;
	if (a->aux_bufsize && (a->mode != HWT_MODE_THREAD || a->aux_bufsize < HWT_BUFSIZE_MIN ||
			       a->aux_bufsize > HWT_BUFSIZE_MAX || !PAGE_ALIGNED(a->aux_bufsize)))
		return -EINVAL;
	r->recq_size = a->recq_size ? a->recq_size : HWT_RECQ_SIZE_DEFAULT;
	if (r->recq_size < PAGE_SIZE || r->recq_size > HWT_RECQ_SIZE_MAX ||
	    !is_power_of_2(r->recq_size))
		return -EINVAL;
	return 0;
}

/*
 * What is traced and whether the caller may: the CPU set, or the target
 * process (its pid and leader are held in @r, for hwt_ioctl_alloc_release).
 */
static int hwt_ioctl_alloc_target(struct hwt_alloc_req *r)
{
	const struct hwt_alloc *a = &r->a;
	int ret;

	switch (a->mode) {
	case HWT_MODE_CPU:
		if (a->pid || a->flags)
			return -EINVAL;
		ret = hwt_ioctl_cpuset(r->mask, a->cpu_map, a->cpusetsize);
		return ret ? ret : hwt_perm_cpu();
	case HWT_MODE_THREAD:
		if (a->cpu_map || a->cpusetsize || a->pid <= 0)
			return -EINVAL;
		r->pid = find_get_pid(a->pid);
		if (!r->pid)
			return -ESRCH;
		r->task = get_pid_task(r->pid, PIDTYPE_TGID);
		if (!r->task)
			return -ESRCH;
		if (r->task->flags & PF_KTHREAD)
			return -EPERM;
		return hwt_perm_thread(r->task);
	}
	return -EINVAL;
}

/* Whether backend @b can take one more context of this request. Called with hwt_mtx held. */
static int hwt_ioctl_alloc_admit(struct hwt_backend *b, const struct hwt_alloc_req *r)
{
	u32 mode = r->a.mode;

	lockdep_assert_held(&hwt_mtx);
	/* A backend without CPU units (sw: it steps threads) has no CPU mode. */
	if (mode == HWT_MODE_CPU && !b->ops->enable)
		return -EOPNOTSUPP;
	/* One backend drives one unit per CPU: its CPU and THREAD modes exclude each other. */
	if ((mode == HWT_MODE_CPU &&
	     (b->nctx_thread || bitmap_intersects(b->busy_cpus, cpumask_bits(r->mask), nr_cpu_ids))) ||
	    (mode == HWT_MODE_THREAD && b->nctx_cpu))
		return -EBUSY;
	/* Each context may re-register the hooks: a user cannot have them churn without end. */
	if (hwt_perm_limited() &&
	    hwt_context_count_user(current_user()) >= READ_ONCE(hwt_max_contexts))
		return -EMFILE;
	return 0;
}

/* Counts the new context in its backend; the context takes the target pid. Called with hwt_mtx held. */
static void hwt_ioctl_alloc_register(struct hwt_context *ctx, struct hwt_backend *b,
				     struct hwt_alloc_req *r)
{
	lockdep_assert_held(&hwt_mtx);
	hwt_charge_init(&ctx->charge);
	if (r->a.mode == HWT_MODE_CPU) {
		cpumask_copy(ctx->cpus, r->mask);
		bitmap_or(b->busy_cpus, b->busy_cpus, cpumask_bits(r->mask), nr_cpu_ids);
		b->nctx_cpu++;
		list_add_tail_rcu(&ctx->cpu_link, &hwt_cpu_contexts);
		atomic_inc(&hwt_nr_cpu_contexts);
	} else {
		b->nctx_thread++;
		ctx->target = r->pid;
		r->pid = NULL;
		ctx->owner_cred = get_current_cred();
		ctx->owner_task = get_task_struct(current);
	}
}

/*
 * The context, on the backend the request names. Returns with the
 * backend's module reference held by the context, or an ERR_PTR.
 */
static struct hwt_context *hwt_ioctl_alloc_context(struct hwt_alloc_req *r)
{
	struct hwt_context *ctx;
	struct hwt_backend *b;
	int ret;

	mutex_lock(&hwt_mtx);
	b = hwt_backend_lookup(r->a.backend_name);
	if (!b) {
		ctx = ERR_PTR(-ENOENT);
		goto out_unlock;
	}
	ret = hwt_ioctl_alloc_admit(b, r);
	if (ret) {
		ctx = ERR_PTR(ret);
		goto out_put;
	}
	ctx = hwt_context_alloc(b, r->a.mode, r->a.flags, r->a.bufsize, r->a.aux_bufsize,
				r->recq_size);
	if (IS_ERR(ctx))
		goto out_put;
	hwt_ioctl_alloc_register(ctx, b, r);
	goto out_unlock;
out_put:
	module_put(b->owner);
out_unlock:
	mutex_unlock(&hwt_mtx);
	return ctx;
}

/* The buffers: one per CPU, or the threads of the target with theirs. */
static int hwt_ioctl_alloc_buffers(struct hwt_context *ctx, struct hwt_alloc_req *r)
{
	unsigned int cpu;
	int ret;

	if (r->a.mode == HWT_MODE_CPU) {
		for_each_cpu(cpu, r->mask) {
			ctx->cpu_bufs[cpu] = hwt_buffer_alloc(r->a.bufsize, cpu, &ctx->charge);
			if (IS_ERR(ctx->cpu_bufs[cpu])) {
				ret = PTR_ERR(ctx->cpu_bufs[cpu]);
				ctx->cpu_bufs[cpu] = NULL;
				return ret;
			}
		}
		return 0;
	}
	ret = hwt_ioctl_attach(ctx, r->task);
	if (ret)
		return ret;
	/*
	 * Again, now that the threads are hashed: an exec that made the
	 * target untraceable after the first check ran its hook before
	 * the threads were there to be untraced (the hook runs after
	 * the new credentials are committed, so one of the two sees them).
	 */
	return hwt_perm_thread(r->task);
}

/*
 * Hands the context to user space: its file descriptor, and its ident in
 * @ua. Returns the descriptor; on error the context is torn down (by the
 * file's release once the file holds it).
 */
static int hwt_ioctl_alloc_publish(struct hwt_context *ctx, struct hwt_alloc __user *ua)
{
	struct file *file;
	int fd, ret;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out_teardown;
	}
	file = anon_inode_getfile("[hwt]", &hwt_ctx_fops, ctx, O_RDWR);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_fd;
	}
	if (put_user(ctx->ident, &ua->ident)) {
		put_unused_fd(fd);
		fput(file);	/* tears the context down */
		return -EFAULT;
	}
	fd_install(fd, file);
	return fd;

out_put_fd:
	put_unused_fd(fd);
out_teardown:
	hwt_context_teardown(ctx);
	return ret;
}

static void hwt_ioctl_alloc_release(struct hwt_alloc_req *r)
{
	if (r->task)
		put_task_struct(r->task);
	put_pid(r->pid);
	free_cpumask_var(r->mask);
}

/* HWT_IOC_ALLOC: check the request, find what it traces, make the context, its buffers and its file. */
static long hwt_ioctl_alloc(void __user *uarg)
{
	struct hwt_alloc_req r = { };
	struct hwt_context *ctx;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&r.a, sizeof(r.a), HWT_ALLOC_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	ret = hwt_ioctl_alloc_check(&r);
	if (ret)
		return ret;
	if (!zalloc_cpumask_var(&r.mask, GFP_KERNEL))
		return -ENOMEM;
	ret = hwt_ioctl_alloc_target(&r);
	if (ret)
		goto out;
	ctx = hwt_ioctl_alloc_context(&r);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out;
	}
	/* From here on, errors undo through the teardown of the context. */
	ret = hwt_ioctl_alloc_buffers(ctx, &r);
	if (ret)
		hwt_context_teardown(ctx);
	else
		ret = hwt_ioctl_alloc_publish(ctx, uarg);
out:
	hwt_ioctl_alloc_release(&r);
	return ret;
}

static long hwt_ioctl_stats(void __user *uarg)
{
	struct hwt_stats s;
	u32 usize;
	int ret;

	ret = hwt_copy_in(&s, sizeof(s), HWT_STATS_SIZE_VER0, uarg, &usize);
	if (ret)
		return ret;
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.contexts = atomic64_read(&hwt_stats.contexts);
	s.threads = atomic64_read(&hwt_stats.threads);
	s.buffers = atomic64_read(&hwt_stats.buffers);
	s.works = atomic64_read(&hwt_stats.works);
	s.paused = atomic64_read(&hwt_stats.paused);
	s.pause_timeouts = atomic64_read(&hwt_stats.pause_timeouts);
	s.records_lost = atomic64_read(&hwt_stats.records_lost);
	s.hook_registrations = atomic64_read(&hwt_stats.hook_registrations);
	s.untraced_lookups = atomic64_read(&hwt_stats.untraced_lookups);
	s.features_off = hwt_probe_features_off;
	s.locked_pages = atomic64_read(&hwt_stats.locked_pages);
	return hwt_copy_out(uarg, &s, sizeof(s), usize);
}

long hwt_ioctl_dev(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;

	if (_IOC_TYPE(cmd) != HWT_IOC_TYPE)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HWT_IOC_ALLOC):
		return hwt_ioctl_alloc(uarg);
	case _IOC_NR(HWT_IOC_STATS):
		return hwt_ioctl_stats(uarg);
	}
	return -ENOTTY;
}
