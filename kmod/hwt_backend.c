// SPDX-License-Identifier: GPL-2.0
/* Backend registry and the calls backends make: see hwt_backend.h. */
#include <linux/bitmap.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "hwt_backend_int.h"
#include "hwt_context.h"
#include "hwt_rec.h"
#include "hwt_record.h"
#include "hwt_thread.h"

static LIST_HEAD(hwt_backends);	/* hwt_mtx */

int hwt_backend_register(struct hwt_backend *b)
{
	struct hwt_backend *o;
	int ret = 0;

	if (!b->name || !b->ops || strlen(b->name) >= HWT_BACKEND_NAME_MAX)
		return -EINVAL;
	if (!b->ops->thread_enable || !b->ops->thread_disable)
		return -EINVAL;
	b->busy_cpus = bitmap_zalloc(nr_cpu_ids, GFP_KERNEL);
	if (!b->busy_cpus)
		return -ENOMEM;
	b->nctx_cpu = b->nctx_thread = 0;
	mutex_lock(&hwt_mtx);
	list_for_each_entry(o, &hwt_backends, link) {
		if (!strcmp(o->name, b->name)) {
			ret = -EEXIST;
			break;
		}
	}
	if (!ret)
		list_add_tail(&b->link, &hwt_backends);
	mutex_unlock(&hwt_mtx);
	if (ret) {
		bitmap_free(b->busy_cpus);
		b->busy_cpus = NULL;
	}
	return ret;
}
EXPORT_SYMBOL_GPL(hwt_backend_register);

void hwt_backend_unregister(struct hwt_backend *b)
{
	mutex_lock(&hwt_mtx);
	/* A context pins the backend's module, so none can be using @b. */
	WARN_ON(b->nctx_cpu || b->nctx_thread);
	list_del(&b->link);
	mutex_unlock(&hwt_mtx);
	bitmap_free(b->busy_cpus);
	b->busy_cpus = NULL;
}
EXPORT_SYMBOL_GPL(hwt_backend_unregister);

struct hwt_backend *hwt_backend_lookup(const char *name)
{
	struct hwt_backend *b;

	lockdep_assert_held(&hwt_mtx);
	list_for_each_entry(b, &hwt_backends, link) {
		if (!strcmp(b->name, name))
			return try_module_get(b->owner) ? b : NULL;
	}
	return NULL;
}

struct hwt_context *hwt_thread_context(struct hwt_thread *thr)
{
	return thr->ctx;
}
EXPORT_SYMBOL_GPL(hwt_thread_context);

struct hwt_buffer *hwt_thread_buffer(struct hwt_thread *thr)
{
	return thr->buf;
}
EXPORT_SYMBOL_GPL(hwt_thread_buffer);

struct hwt_buffer *hwt_thread_aux_buffer(struct hwt_thread *thr)
{
	return thr->aux;
}
EXPORT_SYMBOL_GPL(hwt_thread_aux_buffer);

struct task_struct *hwt_thread_task(struct hwt_thread *thr)
{
	return thr->task;
}
EXPORT_SYMBOL_GPL(hwt_thread_task);

struct hwt_thread *hwt_thread_of(struct task_struct *task, struct hwt_backend *b)
{
	struct hwt_thread *thrs[HWT_HOOK_MAX_CTX];
	int i, n;

	n = hwt_thread_find(task, thrs, HWT_HOOK_MAX_CTX);
	for (i = 0; i < n; i++) {
		if (thrs[i]->ctx->backend == b)
			return thrs[i];
	}
	return NULL;
}
EXPORT_SYMBOL_GPL(hwt_thread_of);

bool hwt_thread_tracing(struct hwt_thread *thr)
{
	return READ_ONCE(thr->ctx->state) == HWT_CTX_RUNNING &&
	       test_bit(HWT_THR_ENABLED, &thr->flags) && !hwt_thread_quiet(thr) &&
	       !test_bit(HWT_THR_UNTRACED, &thr->flags);
}
EXPORT_SYMBOL_GPL(hwt_thread_tracing);

bool hwt_thread_request_work(struct hwt_thread *thr)
{
	return hwt_thread_queue_work(thr, HWT_WORK_BACKEND);
}
EXPORT_SYMBOL_GPL(hwt_thread_request_work);

void *hwt_thread_backend_priv(struct hwt_thread *thr)
{
	return thr->backend_priv;
}
EXPORT_SYMBOL_GPL(hwt_thread_backend_priv);

void hwt_thread_set_backend_priv(struct hwt_thread *thr, void *priv)
{
	thr->backend_priv = priv;
}
EXPORT_SYMBOL_GPL(hwt_thread_set_backend_priv);

void hwt_buffer_full(struct hwt_context *ctx, struct hwt_buffer *buf)
{
	struct hwt_record_buffer rec;

	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_BUFFER, sizeof(rec), current);
	rec.buffer = buf->id;
	rec.offset = READ_ONCE(buf->offset);
	hwt_context_record(ctx, &rec.hdr);
}
EXPORT_SYMBOL_GPL(hwt_buffer_full);

void hwt_buffer_lost(struct hwt_context *ctx, u64 bytes)
{
	struct hwt_record_lost rec;

	memset(&rec, 0, sizeof(rec));
	hwt_rec_hdr(&rec.hdr, HWT_RECORD_LOST, sizeof(rec), current);
	rec.reason = HWT_LOST_BUFFER_WRAP;
	rec.bytes = bytes;
	hwt_context_record(ctx, &rec.hdr);
}
EXPORT_SYMBOL_GPL(hwt_buffer_lost);
