// SPDX-License-Identifier: GPL-2.0
/* Selection at exec: see hwt_select.h. */
#include <linux/dcache.h>
#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/limits.h>
#include <linux/mmap_lock.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hwt_buildid.h"
#include "hwt_record.h"
#include "hwt_cache.h"
#include "hwt_compat.h"
#include "hwt_context.h"
#include "hwt_dest.h"
#include "hwt_perm.h"
#include "hwt_rec.h"
#include "hwt_scratch.h"
#include "hwt_select.h"
#include "hwt_thread.h"

/* Bounds on what one judgement reads (the same as the preloaded library's). */
#define HWT_SEL_MAX_SHNUM	1024u	/* section headers looked at */
#define HWT_SEL_NAMES_MAX	8192u	/* bytes of section names */
#define HWT_SEL_SH_BATCH	16u	/* section headers per kernel_read */
#define HWT_SEL_LINK_MAX	256u	/* bytes of a .gnu_debuglink name */
#define HWT_SEL_DEBUG_DIR	"/usr/lib/debug"

/* Work area of one judgement: section names, a batch of headers, a path. */
struct hwt_sel_work {
	char		names[HWT_SEL_NAMES_MAX];
	Elf64_Shdr	sh[HWT_SEL_SH_BATCH];
	char		link[HWT_SEL_LINK_MAX];
	char		path[PATH_MAX + sizeof(HWT_SEL_DEBUG_DIR) + HWT_SEL_LINK_MAX + 8];
};

static int hwt_sel_copy_list(char *dst, u64 uptr, u32 size)
{
	if (!size)
		return 0;
	if (copy_from_user(dst, u64_to_user_ptr(uptr), size))
		return -EFAULT;
	return memchr(dst, '\0', size) ? -EINVAL : 0;
}

struct hwt_select *hwt_select_from_user(const struct hwt_config *c)
{
	struct hwt_select *sel;
	int ret;

	if (!(c->flags & HWT_CFG_SELECT))
		return (c->select_trace_size || c->select_no_trace_size) ? ERR_PTR(-EINVAL) : NULL;
	if (c->select_trace_size > HWT_SELECT_GLOBS_MAX ||
	    c->select_no_trace_size > HWT_SELECT_GLOBS_MAX)
		return ERR_PTR(-EINVAL);
	sel = hwt_cache_zalloc(hwt_select_cache, GFP_KERNEL);
	if (!sel)
		return ERR_PTR(-ENOMEM);
	sel->trace_len = c->select_trace_size;
	sel->no_trace_len = c->select_no_trace_size;
	ret = hwt_sel_copy_list(sel->globs, c->select_trace, sel->trace_len);
	if (!ret)
		ret = hwt_sel_copy_list(sel->globs + sel->trace_len, c->select_no_trace,
					sel->no_trace_len);
	if (ret) {
		hwt_select_free(sel);
		return ERR_PTR(ret);
	}
	return sel;
}

void hwt_select_free(struct hwt_select *sel)
{
	if (sel)
		kmem_cache_free(hwt_select_cache, sel);
}

/* @len bytes at @pos of @f, all of them, or an error. May sleep. */
static int hwt_sel_read(struct file *f, u64 pos, void *buf, size_t len)
{
	loff_t p = pos;
	ssize_t r;

	if (pos > (u64)LLONG_MAX - len)
		return -EINVAL;
	r = kernel_read(f, buf, len, &p);
	if (r == len)
		return 0;
	return r < 0 ? r : -EIO;
}

/* Whether @path names a regular file (symbolic links followed). May sleep. */
static bool hwt_sel_is_file(const char *path)
{
	struct path p;
	bool reg;

	if (kern_path(path, LOOKUP_FOLLOW, &p))
		return false;
	reg = d_is_reg(p.dentry);
	path_put(&p);
	return reg;
}

/*
 * The file a .gnu_debuglink section names, where gdb looks for it: next to
 * the executable (not the executable itself), in .debug/ there, or under
 * /usr/lib/debug/DIR.
 */
static bool hwt_sel_debuglink(struct file *f, const Elf64_Shdr *sh, const char *exe,
			      struct hwt_sel_work *w)
{
	size_t n = min_t(u64, sh->sh_size, HWT_SEL_LINK_MAX - 1);
	const char *slash = strrchr(exe, '/');
	int dlen;

	if (!slash || hwt_sel_read(f, sh->sh_offset, w->link, n))
		return false;
	w->link[n] = '\0';
	if (!w->link[0] || strchr(w->link, '/'))
		return false;
	dlen = slash - exe;
	snprintf(w->path, sizeof(w->path), "%.*s/%s", dlen, exe, w->link);
	if (strcmp(w->path, exe) && hwt_sel_is_file(w->path))
		return true;
	snprintf(w->path, sizeof(w->path), "%.*s/.debug/%s", dlen, exe, w->link);
	if (hwt_sel_is_file(w->path))
		return true;
	snprintf(w->path, sizeof(w->path), HWT_SEL_DEBUG_DIR "%.*s/%s", dlen, exe, w->link);
	return hwt_sel_is_file(w->path);
}

/* The debug file of the GNU build-id, /usr/lib/debug/.build-id/xx/rest.debug. */
static bool hwt_sel_buildid_file(struct file *f, struct hwt_sel_work *w)
{
	u8 id[HWT_BUILD_ID_MAX];
	int n = hwt_buildid_get(f, HWT_BID_READ, id);

	if (n < 2)
		return false;
	snprintf(w->path, sizeof(w->path), HWT_SEL_DEBUG_DIR "/.build-id/%02x/%*phN.debug",
		 id[0], n - 1, id + 1);
	return hwt_sel_is_file(w->path);
}

/*
 * .debug_info or .zdebug_info with contents, or a separate debug file
 * (.gnu_debuglink, build-id). The sections are walked in order, as the
 * preloaded library does: the first .debug_info decides.
 */
static int hwt_sel_debug_info(struct file *f, const Elf64_Ehdr *eh, const char *exe,
			      struct hwt_sel_work *w)
{
	u32 shnum = min_t(u32, eh->e_shnum, HWT_SEL_MAX_SHNUM);
	Elf64_Shdr shstr;
	size_t names_len;
	u32 i, j, batch;

	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= eh->e_shnum)
		return 0;
	if (hwt_sel_read(f, eh->e_shoff + (u64)eh->e_shstrndx * sizeof(shstr), &shstr,
			 sizeof(shstr)))
		return 0;
	names_len = min_t(u64, shstr.sh_size, HWT_SEL_NAMES_MAX - 1);
	if (hwt_sel_read(f, shstr.sh_offset, w->names, names_len))
		return 0;
	w->names[names_len] = '\0';
	for (i = 0; i < shnum; i += batch) {
		batch = min(shnum - i, HWT_SEL_SH_BATCH);
		if (hwt_sel_read(f, eh->e_shoff + (u64)i * sizeof(Elf64_Shdr), w->sh,
				 batch * sizeof(Elf64_Shdr)))
			break;
		for (j = 0; j < batch; j++) {
			const Elf64_Shdr *sh = &w->sh[j];
			const char *name;

			if (sh->sh_name >= names_len)
				continue;
			name = w->names + sh->sh_name;
			if (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info"))
				return sh->sh_type != SHT_NOBITS;
			if (!strcmp(name, ".gnu_debuglink") && hwt_sel_debuglink(f, sh, exe, w))
				return 1;
		}
	}
	return hwt_sel_buildid_file(f, w);
}

enum hwt_rule_verdict hwt_select_judge(struct hwt_context *ctx, struct file *f, char *pathbuf,
				       const char **path, const char **why)
{
	struct hwt_rule_facts facts = { .debug_info = -1 };
	enum hwt_rule_verdict v;
	struct hwt_select *sel;
	struct hwt_sel_work *w;
	Elf64_Ehdr eh;
	const char *p;

	*why = NULL;
	p = d_path(&f->f_path, pathbuf, PATH_MAX);
	if (IS_ERR(p))
		p = "";
	*path = p;
	rcu_read_lock();
	sel = rcu_dereference(ctx->select);
	if (!sel || !(READ_ONCE(ctx->cfg_flags) & HWT_CFG_SELECT)) {
		rcu_read_unlock();
		return HWT_RULE_TRACE;
	}
	facts.no_trace = hwt_rule_globs(sel->globs + sel->trace_len, sel->no_trace_len, p);
	facts.trace = hwt_rule_globs(sel->globs, sel->trace_len, p);
	rcu_read_unlock();

	facts.set_id = !!(file_inode(f)->i_mode & (S_ISUID | S_ISGID));
	facts.elf = !hwt_sel_read(f, 0, &eh, sizeof(eh)) && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
		    eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == HWT_EM_NATIVE &&
		    eh.e_phentsize == sizeof(Elf64_Phdr);
	facts.system_dir = hwt_rule_system_dir(p);
	v = hwt_rule_decide(&facts, why);
	if (v != HWT_RULE_NEED_DEBUG_INFO)
		return v;
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	facts.debug_info = w ? hwt_sel_debug_info(f, &eh, p, w) : 0;
	kfree(w);
	return hwt_rule_decide(&facts, why);
}

/* The SELECT work: see hwt_select.h. */
/*
 * The exec'd image of @thr (file @f) passed the credential replay: the owner
 * is asked (hwt_perm_exec_ask) whether it may ptrace the thread now, LSMs
 * included. If not, the thread is untraced as the exec hook untraces one
 * (hwt_hook.c): unit off, out of the hash, an UNTRACED record; true then.
 * @s is a scratch area. Task work of the thread, no lock held.
 */
static bool hwt_select_ask_owner(struct hwt_thread *thr, struct file *f, void *s)
{
	struct hwt_context *ctx = thr->ctx;
	struct hwt_record_header *rec;
	const char *why, *path;
	unsigned long flags;

	why = hwt_perm_exec_ask(ctx->owner_task, current, READ_ONCE(ctx->pause_timeout_ms));
	if (!why)
		return false;
	set_bit(HWT_THR_UNTRACED, &thr->flags);
	local_irq_save(flags);
	if (test_and_clear_bit(HWT_THR_ENABLED, &thr->flags))
		ctx->backend->ops->thread_disable(thr, smp_processor_id());
	local_irq_restore(flags);
	spin_lock(&hwt_thread_lock);
	hwt_thread_unhash(thr);
	spin_unlock(&hwt_thread_lock);
	path = d_path(&f->f_path, hwt_scratch_path(s), PATH_MAX);
	if (IS_ERR(path))
		path = "";
	rec = hwt_rec_untraced(s, HWT_SCRATCH_PATH, current, path, why);
	if (rec)
		hwt_context_record(ctx, rec);
	return true;
}

bool hwt_select_work(struct hwt_thread *thr)
{
	struct hwt_context *ctx = thr->ctx;
	struct file *f = xchg(&thr->sel_file, NULL);
	struct hwt_dest d = { ctx, thr, false };
	struct task_struct *p = current;
	struct hwt_record_header *rec;
	struct mm_struct *mm = p->mm;
	enum hwt_rule_verdict v;
	const char *path, *why;
	bool traced = false;
	char *args;
	void *s;

	if (!f)
		return false;
	s = kmalloc(HWT_SCRATCH_SIZE, GFP_KERNEL);
	if (!s) {
		set_bit(HWT_THR_UNSELECTED, &thr->flags);
		hwt_dest_lost(&d, 1, HWT_LOST_IMAGE, p);
		goto out;
	}
	if (test_and_clear_bit(HWT_THR_ASK, &thr->flags) && hwt_select_ask_owner(thr, f, s)) {
		clear_bit(HWT_THR_UNSELECTED, &thr->flags);
		goto out_free;
	}
	v = hwt_select_judge(ctx, f, hwt_scratch_path(s), &path, &why);
	if (v == HWT_RULE_TRACE && hwt_thread_buffer_ensure(thr)) {
		v = HWT_RULE_NATIVE;
		why = "no memory for the trace buffer";
	}
	if (v != HWT_RULE_TRACE) {
		set_bit(HWT_THR_UNSELECTED, &thr->flags);
		rec = hwt_rec_untraced(s, HWT_SCRATCH_PATH, p, path, why ? why : "not selected");
		if (rec)
			hwt_context_record(ctx, rec);
		goto out_free;
	}
	clear_bit(HWT_THR_UNSELECTED, &thr->flags);
	traced = true;
	if (READ_ONCE(ctx->state) != HWT_CTX_RUNNING)
		goto out_free;	/* nothing is recorded, and no pause */
	args = hwt_rec_process_begin(s, path);
	rec = hwt_rec_process_end(s, HWT_RECORD_EXEC, p, args, hwt_rec_current_args(args));
	hwt_dest_deliver(&d, 1, rec, HWT_CFG_PAUSE_EXEC, false);
	if (mm && mmap_read_lock_killable(mm) == 0) {
		hwt_dest_image(&d, 1, p, mm, s);
		mmap_read_unlock(mm);
	} else {
		hwt_dest_lost(&d, 1, HWT_LOST_IMAGE, p);
	}
out_free:
	kfree(s);
out:
	smp_mb__before_atomic();
	clear_bit(HWT_THR_SELECTING, &thr->flags);
	fput(f);
	return traced;
}
