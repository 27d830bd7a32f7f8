/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend interface of hwt.ko: what a trace unit driver (Intel PT, ETM, the
 * software single-step unit, the test backends) implements and may call.
 */
#ifndef HWT_BACKEND_H
#define HWT_BACKEND_H

#include <linux/list.h>
#include <linux/types.h>

struct hwt_context;
struct hwt_record_header;
struct hwt_thread;
struct module;
struct task_struct;

/*
 * One trace buffer: per CPU (CPU mode) or per thread (THREAD mode), mapped
 * read-only into the collector. Only the backend writes it, and only from
 * the CPU or thread that owns it, so offset and wraps need no lock; readers
 * use READ_ONCE.
 */
struct hwt_buffer {
	void		*base;		/* const: vmalloc_user() memory */
	size_t		size;		/* const: bytes, page multiple */
	u32		id;		/* const: CPU number or tid */
	u64		offset;		/* owner: bytes written in total */
	u64		wraps;		/* owner: times the write pointer went round */
	u64		read;		/* HWT_IOC_BUFREAD: bytes the collector has copied */
	struct user_struct *charged;	/* const: whose locked memory holds its pages
					   (reference held; hwt_buffer.h) */
};

/*
 * Operations. Calls marked "atomic" come from scheduler or tracepoint
 * context with preemption (and for enable/disable/switch, interrupts) off:
 * they must not sleep or take locks that sleep.
 */
struct hwt_backend_ops {
	/* Context allocated / freed (process context). */
	int	(*init)(struct hwt_context *ctx);
	void	(*deinit)(struct hwt_context *ctx);
	/* HWT_IOC_SET_CONFIG payload (process context, tracing stopped or idle). */
	int	(*configure)(struct hwt_context *ctx, const void *cfg, size_t len);
	/* CPU mode: start/stop the unit of @cpu, called on @cpu (atomic). */
	void	(*enable)(struct hwt_context *ctx, int cpu);
	void	(*disable)(struct hwt_context *ctx, int cpu);
	/* CPU mode, optional: @prev is switched out of @cpu, @next in (atomic, interrupts off). */
	void	(*cpu_switch)(struct hwt_context *ctx, int cpu, struct task_struct *prev,
			      struct task_struct *next);
	/*
	 * CPU mode, optional, for each context that traces the CPU current
	 * runs on (atomic; current is the task): cpu_exec, current execs (in
	 * the exec hook, before its records; the new image's registers are in
	 * place); cpu_signal, a signal is delivered to current (get_signal:
	 * siglock held, interrupts off), before its frame; cpu_exit, current
	 * exits (before THREAD_EXIT is queued). cpu_fork: @child of current
	 * was just created and has not run; called for every CPU-mode context
	 * of the backend whatever its state or CPUs (the child may carry what
	 * the backend set in its parent's registers).
	 */
	void	(*cpu_exec)(struct hwt_context *ctx);
	void	(*cpu_signal)(struct hwt_context *ctx, int sig);
	void	(*cpu_exit)(struct hwt_context *ctx);
	void	(*cpu_fork)(struct hwt_context *ctx, struct task_struct *child);
	/* THREAD mode: @thr is switched in / out on @cpu (atomic). */
	void	(*thread_enable)(struct hwt_thread *thr, int cpu);
	void	(*thread_disable)(struct hwt_thread *thr, int cpu);
	/* Optional: how far the unit has written; default: buf->offset, buf->wraps. */
	void	(*read)(struct hwt_buffer *buf, u64 *offset, u64 *wraps);
	/* Tracing of @ctx stops for good (process context). */
	void	(*stop)(struct hwt_context *ctx);
	/* Per-thread state: after the thread's buffer exists / before it goes (process context). */
	int	(*thread_alloc)(struct hwt_thread *thr);
	void	(*thread_free)(struct hwt_thread *thr);
	/*
	 * Optional, THREAD mode, called for a thread with a buffer. The
	 * thread is current in all but task_fork.
	 * thread_exec: the thread execs; in the exec hook, before its records
	 * (atomic); the new image's registers are in place.
	 * thread_signal: a signal is delivered to it, before its frame is
	 * set up (get_signal: siglock held, interrupts off).
	 * task_fork: @child of @parent (current) was just created and has
	 * not run; @cthr is its thread when the context follows it, else NULL
	 * (atomic).
	 * thread_work: what hwt_thread_request_work() asked for, in the
	 * thread's task work on its way back to user mode (process context,
	 * no lock held, may sleep).
	 */
	void	(*thread_exec)(struct hwt_thread *thr);
	void	(*thread_signal)(struct hwt_thread *thr, int sig);
	void	(*task_fork)(struct hwt_thread *parent, struct task_struct *child,
			     struct hwt_thread *cthr);
	void	(*thread_work)(struct hwt_thread *thr);
};

struct hwt_backend {
	const char			*name;	/* const, unique */
	const struct hwt_backend_ops	*ops;	/* const */
	struct module			*owner;	/* const: pinned while a context uses the backend */

	/* Private to hwt.ko, guarded by hwt_mtx. */
	struct list_head		link;
	unsigned long			*busy_cpus;	/* CPUs of its CPU-mode contexts */
	unsigned int			nctx_cpu;	/* live CPU-mode contexts */
	unsigned int			nctx_thread;	/* live THREAD-mode contexts */
};

/* Registers @b; -EEXIST if the name is taken. */
int hwt_backend_register(struct hwt_backend *b);
/* Unregisters @b. Its module cannot unload while a context holds it. */
void hwt_backend_unregister(struct hwt_backend *b);

/* Accessors for backends. */
struct hwt_context *hwt_thread_context(struct hwt_thread *thr);
struct hwt_buffer *hwt_thread_buffer(struct hwt_thread *thr);
/* The second buffer (HWT_ALLOC_SIZE_VER1 aux_bufsize), or NULL. */
struct hwt_buffer *hwt_thread_aux_buffer(struct hwt_thread *thr);
struct task_struct *hwt_thread_task(struct hwt_thread *thr);
/* The thread of @task in a context of backend @b (any state but unhashed), or NULL. RCU held. */
struct hwt_thread *hwt_thread_of(struct task_struct *task, struct hwt_backend *b);
/* True while the backend may trace @thr: context running, thread traced, unit on. */
bool hwt_thread_tracing(struct hwt_thread *thr);
void *hwt_thread_backend_priv(struct hwt_thread *thr);
void hwt_thread_set_backend_priv(struct hwt_thread *thr, void *priv);
struct hwt_buffer *hwt_context_cpu_buffer(struct hwt_context *ctx, int cpu);
void *hwt_context_backend_priv(struct hwt_context *ctx);
void hwt_context_set_backend_priv(struct hwt_context *ctx, void *priv);
u32 hwt_context_ident(struct hwt_context *ctx);
/* True for a CPU-mode context (HWT_MODE_CPU). */
bool hwt_context_cpu_mode(struct hwt_context *ctx);

/* Queues a BUFFER record: @buf filled up (callable from atomic context). */
void hwt_buffer_full(struct hwt_context *ctx, struct hwt_buffer *buf);
/* Queues a LOST record: @bytes of a buffer were written over unread (atomic-safe). */
void hwt_buffer_lost(struct hwt_context *ctx, u64 bytes);
/* Queues @rec (its header filled, sealed here) if @ctx runs (atomic-safe). */
void hwt_context_record(struct hwt_context *ctx, struct hwt_record_header *rec);
/* Time of the newest record queued in @ctx (hwt_clock), for a backend's sideband clock. */
u64 hwt_context_record_time(struct hwt_context *ctx);

/* Asks for ops->thread_work in @thr's task work (atomic-safe); false if it is exiting. */
bool hwt_thread_request_work(struct hwt_thread *thr);
/*
 * In thread_work: waits (killable) until @done(@arg) holds. Returns 0, or
 * -ESHUTDOWN when the context stops or dies or the thread is untraced
 * meanwhile, -EINTR on a fatal signal. HWT_IOC_BUFREAD and WAKEUP wake it.
 */
int hwt_thread_wait(struct hwt_thread *thr, bool (*done)(void *arg), void *arg);

#endif /* HWT_BACKEND_H */
