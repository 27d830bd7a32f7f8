/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Selection (HWT_CFG_SELECT): which images of a THREAD-mode context's
 * threads are traced, by the rule user space applies (docs/select.md,
 * common/hwt_select_rule.c). The exec hook runs atomic, so it only marks
 * the thread SELECTING and hands the exec'd file to the thread's task work,
 * which judges it here on the thread's way back to user mode, before the
 * first instruction of the new image: it reads the ELF header and section
 * headers (kernel_read) and looks separate debug files up (kern_path), all
 * of which may sleep, then records what it decided.
 */
#ifndef HWT_SELECT_H
#define HWT_SELECT_H

#include <linux/rcupdate.h>
#include <linux/types.h>

#include "hwt_ioctl.h"
#include "hwt_select_rule.h"

struct file;
struct hwt_config;
struct hwt_context;
struct hwt_thread;

/* A context's glob lists (the hwt_select cache). */
struct hwt_select {
	u32	trace_len;
	u32	no_trace_len;
	char	globs[2 * HWT_SELECT_GLOBS_MAX];	/* trace list, then no-trace list */
};

/* The lists of @c copied from user memory and checked; NULL if none. */
struct hwt_select *hwt_select_from_user(const struct hwt_config *c);
void hwt_select_free(struct hwt_select *sel);

/*
 * Judges the executable @f for @ctx: process context, may sleep, no lock
 * held. @pathbuf (PATH_MAX bytes) receives the path (*path points into it,
 * or to ""); *why the reason of a NATIVE verdict. Returns HWT_RULE_TRACE or
 * HWT_RULE_NATIVE; TRACE when the context does not select.
 */
enum hwt_rule_verdict hwt_select_judge(struct hwt_context *ctx, struct file *f, char *pathbuf,
				       const char **path, const char **why);

/*
 * The SELECT task work of @thr (hwt_pause.c), on the thread's way back to
 * user mode after an exec, before the new image's first instruction; no
 * lock held, may sleep. Judges the exec'd file (thr->sel_file, dropped
 * here). Selected: the buffer is made if missing, the context gets EXEC
 * (paused on request) and the MMAPs of the image, and the thread is traced
 * again; true is returned (the caller turns the unit on). Not selected:
 * UNSELECTED, one UNTRACED record (path, reason), no pause.
 */
bool hwt_select_work(struct hwt_thread *thr);

#endif /* HWT_SELECT_H */
