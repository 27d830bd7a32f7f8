// SPDX-License-Identifier: GPL-2.0
/* Record queue: see hwt_recq.h. */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "hwt_compat.h"
#include "hwt_record.h"
#include "hwt_recq.h"
#include "hwt_stats.h"

static void hwt_recq_wake(struct irq_work *work)
{
	struct hwt_recq *q = container_of(work, struct hwt_recq, wake_work);

	wake_up_interruptible_all(&q->wq);
}

int hwt_recq_init(struct hwt_recq *q, u64 size)
{
	q->ring = vmalloc(size);
	if (!q->ring)
		return -ENOMEM;
	q->size = size;
	q->head = q->tail = 0;
	q->lost = 0;
	spin_lock_init(&q->lock);
	mutex_init(&q->read_mtx);
	init_waitqueue_head(&q->wq);
	init_irq_work(&q->wake_work, hwt_recq_wake);
	return 0;
}

void hwt_recq_fini(struct hwt_recq *q)
{
	irq_work_sync(&q->wake_work);
	vfree(q->ring);
	q->ring = NULL;
}

/* Records queued, or drops to report. */
static bool hwt_recq_readable(struct hwt_recq *q)
{
	return READ_ONCE(q->head) != READ_ONCE(q->tail) || READ_ONCE(q->lost);
}

/* Copies len bytes into the ring at position pos (modulo size). */
static void hwt_recq_put(struct hwt_recq *q, u64 pos, const void *src, u32 len)
{
	u64 off = pos & (q->size - 1);
	u64 first = min_t(u64, len, q->size - off);

	memcpy(q->ring + off, src, first);
	if (first < len)
		memcpy(q->ring, src + first, len - first);
}

static void hwt_recq_get(struct hwt_recq *q, u64 pos, void *dst, u32 len)
{
	u64 off = pos & (q->size - 1);
	u64 first = min_t(u64, len, q->size - off);

	memcpy(dst, q->ring + off, first);
	if (first < len)
		memcpy(dst + first, q->ring, len - first);
}

/* Queues a LOST record for the records dropped so far if @extra more bytes fit too. Lock held. */
static void hwt_recq_put_lost(struct hwt_recq *q, u32 extra)
{
	struct hwt_record_lost lost;

	if (!q->lost || q->size - (q->head - q->tail) < sizeof(lost) + extra)
		return;
	memset(&lost, 0, sizeof(lost));
	lost.hdr.magic = HWT_RECORD_MAGIC;
	lost.hdr.type = HWT_RECORD_LOST;
	lost.hdr.size = sizeof(lost);
	lost.hdr.time = hwt_clock();
	lost.reason = HWT_LOST_RECORD_QUEUE;
	lost.records = q->lost;
	hwt_record_seal(&lost.hdr);
	hwt_recq_put(q, q->head, &lost, sizeof(lost));
	q->head += sizeof(lost);
	q->lost = 0;
}

bool hwt_recq_push(struct hwt_recq *q, const struct hwt_record_header *rec)
{
	unsigned long flags;
	u64 room;
	bool ok = false;

	HWT_RECQ_LOCK(q, flags);
	hwt_recq_put_lost(q, rec->size);
	room = q->size - (q->head - q->tail);
	if (!q->lost && room >= rec->size) {
		hwt_recq_put(q, q->head, rec, rec->size);
		q->head += rec->size;
		ok = true;
	} else {
		q->lost++;
	}
	HWT_RECQ_UNLOCK(q, flags);

	irq_work_queue(&q->wake_work);
	if (!ok)
		atomic64_inc(&hwt_stats.records_lost);
	return ok;
}

ssize_t hwt_recq_read(struct hwt_recq *q, char __user *buf, size_t len, bool nonblock)
{
	struct hwt_record_header hdr;
	unsigned long flags;
	u64 head, tail, pos;
	size_t done = 0;
	ssize_t ret;

	if (mutex_lock_interruptible(&q->read_mtx))
		return -ERESTARTSYS;
	for (;;) {
		HWT_RECQ_LOCK(q, flags);
		/* The reader made room: report drops even if no record follows. */
		hwt_recq_put_lost(q, 0);
		head = q->head;
		tail = q->tail;
		HWT_RECQ_UNLOCK(q, flags);
		if (head != tail)
			break;
		if (nonblock) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(q->wq, hwt_recq_readable(q));
		if (ret)
			goto out;
	}

	/*
	 * Only this reader moves tail, and producers only write beyond head,
	 * so [tail, head) is stable without the spinlock while we copy.
	 */
	pos = tail;
	ret = 0;
	while (pos < head) {
		u64 off = pos & (q->size - 1);
		u64 first;

		hwt_recq_get(q, pos, &hdr, sizeof(hdr));
		if (done + hdr.size > len)
			break;
		first = min_t(u64, hdr.size, q->size - off);
		if (copy_to_user(buf + done, q->ring + off, first) ||
		    (first < hdr.size &&
		     copy_to_user(buf + done + first, q->ring, hdr.size - first))) {
			ret = -EFAULT;
			break;
		}
		done += hdr.size;
		pos += hdr.size;
	}
	if (pos != tail) {
		HWT_RECQ_LOCK(q, flags);
		q->tail = pos;
		HWT_RECQ_UNLOCK(q, flags);
	}
	if (done)
		ret = done;
	else if (!ret)
		ret = -EINVAL;	/* @len is smaller than the next record */
out:
	mutex_unlock(&q->read_mtx);
	return ret;
}

__poll_t hwt_recq_poll(struct hwt_recq *q, struct file *file, poll_table *pt)
{
	poll_wait(file, &q->wq, pt);
	if (hwt_recq_readable(q))
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}
