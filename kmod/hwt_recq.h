/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Record queue of a context: a byte ring of sealed records (common/
 * hwt_record.h) that hooks fill from any context, even under the scheduler's
 * run-queue lock, and that the collector drains with read().
 */
#ifndef HWT_RECQ_H
#define HWT_RECQ_H

#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

struct hwt_record_header;

struct hwt_recq {
	spinlock_t		lock;		/* irqsave: guards head, tail, lost */
	void			*ring;		/* const: vmalloc'ed, size bytes */
	u64			size;		/* const: power of two */
	u64			head;		/* lock: bytes ever written */
	u64			tail;		/* lock: bytes ever read */
	u32			lost;		/* lock: records dropped since the last LOST record */
	struct mutex		read_mtx;	/* one reader at a time; taken before lock */
	wait_queue_head_t	wq;		/* readers and pollers */
	struct irq_work		wake_work;	/* wakes wq outside the producer's locks */
};

#define HWT_RECQ_LOCK(q, flags)		spin_lock_irqsave(&(q)->lock, flags)
#define HWT_RECQ_UNLOCK(q, flags)	spin_unlock_irqrestore(&(q)->lock, flags)

int hwt_recq_init(struct hwt_recq *q, u64 size);
/* Waits for a pending wake-up, then frees the ring. */
void hwt_recq_fini(struct hwt_recq *q);
/*
 * Copies the sealed record @rec into the queue. Never sleeps and never
 * wakes anyone directly (an irq_work does), so it is safe under the
 * run-queue lock. When full, counts the record as lost and returns false; a
 * LOST record goes in first once there is room again.
 */
bool hwt_recq_push(struct hwt_recq *q, const struct hwt_record_header *rec);
/* Copies whole records to user space; blocks unless @nonblock. */
ssize_t hwt_recq_read(struct hwt_recq *q, char __user *buf, size_t len, bool nonblock);
__poll_t hwt_recq_poll(struct hwt_recq *q, struct file *file, poll_table *pt);

#endif /* HWT_RECQ_H */
