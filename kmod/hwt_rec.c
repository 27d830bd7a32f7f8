// SPDX-License-Identifier: GPL-2.0
/* Record builders: see hwt_rec.h. */
#include <linux/dcache.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "hwt_compat.h"
#include "hwt_rec.h"
#include "hwt_scratch.h"

/* Bytes of an UNTRACED reason, its NUL included (they are short constants). */
#define HWT_REC_REASON_MAX	256u

void hwt_rec_hdr(struct hwt_record_header *h, u16 type, u32 size, struct task_struct *t)
{
	h->magic = HWT_RECORD_MAGIC;
	h->type = type;
	h->flags = 0;
	h->size = size;
	h->crc32 = 0;
	h->time = hwt_clock();
	h->pid = task_tgid_nr(t);
	h->tid = task_pid_nr(t);
}

static u32 hwt_rec_ppid(struct task_struct *t)
{
	struct task_struct *parent;
	u32 ppid;

	rcu_read_lock();
	parent = rcu_dereference(t->real_parent);
	ppid = parent ? task_tgid_nr(parent) : 0;
	rcu_read_unlock();
	return ppid;
}

const char *hwt_rec_exe_path(struct mm_struct *mm, char *buf)
{
	const char *p = "";
	struct file *f;

	if (!mm)
		return p;
	rcu_read_lock();
	f = hwt_mm_exe_file_rcu(mm);
	rcu_read_unlock();
	if (f) {
		p = d_path(&f->f_path, buf, PATH_MAX);
		if (IS_ERR(p))
			p = "";
		fput(f);
	}
	return p;
}

char *hwt_rec_process_begin(void *s, const char *path)
{
	struct hwt_record_process *rec = s;
	char *p = (char *)(rec + 1);
	size_t len = strnlen(path, PATH_MAX - 1);

	memmove(p, path, len);	/* path may lie in the scratch area */
	p[len] = '\0';
	return p + len + 1;
}

struct hwt_record_header *hwt_rec_process_end(void *s, u16 type, struct task_struct *t,
					      char *args, size_t an)
{
	struct hwt_record_process *rec = s;
	u32 size, asize, argc = 0;
	size_t i;

	while (an && args[an - 1] != '\0')	/* drop a truncated argument */
		an--;
	for (i = 0; i < an; i++)
		argc += args[i] == '\0';
	size = (args + an) - (char *)s;
	asize = hwt_record_align(size);
	memset((char *)s + size, 0, asize - size);
	hwt_rec_hdr(&rec->hdr, type, asize, t);
	rec->ppid = hwt_rec_ppid(t);
	rec->argc = argc;
	rec->generation = 0;
	rec->reserved = 0;
	return &rec->hdr;
}

size_t hwt_rec_current_args(char *dst)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end;
	size_t n;

	if (!mm)
		return 0;
	start = READ_ONCE(mm->arg_start);
	end = READ_ONCE(mm->arg_end);
	if (end <= start)
		return 0;
	n = min_t(size_t, end - start, HWT_REC_ARGS_MAX);
	if (copy_from_user_nofault(dst, (const void __user *)start, n))
		return 0;
	return n;
}

static bool hwt_rec_is_vdso(struct vm_area_struct *vma)
{
/* Both keep the vDSO's text address in the mm's context (arm64's after its data pages). */
#if defined(CONFIG_X86) || defined(CONFIG_ARM64)
	return vma->vm_mm && (unsigned long)vma->vm_mm->context.vdso == vma->vm_start;
#else
	return false;
#endif
}

bool hwt_rec_vma_wanted(struct vm_area_struct *vma)
{
	return (vma->vm_flags & VM_EXEC) && (vma->vm_file || hwt_rec_is_vdso(vma));
}

void hwt_rec_map_of(struct vm_area_struct *vma, struct hwt_map *m)
{
	m->file = hwt_rec_is_vdso(vma) ? NULL : vma->vm_file;
	m->start = vma->vm_start;
	m->end = vma->vm_end;
	m->pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	m->vm_flags = vma->vm_flags;
}

struct hwt_record_header *hwt_rec_mmap(void *s, struct task_struct *t, const struct hwt_map *m,
				       enum hwt_bid_how how)
{
	struct hwt_record_mmap *rec = s;
	const char *path;
	u16 flags = 0;
	u32 size, asize;
	size_t len;
	int bid;

	if (!m->file) {
		path = "[vdso]";
		flags = HWT_MMAP_VDSO;
	} else {
		path = d_path(&m->file->f_path, hwt_scratch_path(s), PATH_MAX);
		if (IS_ERR(path))
			return NULL;
	}
	len = strlen(path);
	memmove(rec + 1, path, len + 1);
	size = sizeof(*rec) + len + 1;
	asize = hwt_record_align(size);
	memset((char *)s + size, 0, asize - size);
	memset(rec, 0, sizeof(*rec));
	hwt_rec_hdr(&rec->hdr, HWT_RECORD_MMAP, asize, t);
	rec->hdr.flags = flags;
	rec->addr = m->start;
	rec->len = m->end - m->start;
	rec->pgoff = m->pgoff;
	rec->prot = ((m->vm_flags & VM_READ) ? HWT_PROT_READ : 0) |
		    ((m->vm_flags & VM_WRITE) ? HWT_PROT_WRITE : 0) |
		    ((m->vm_flags & VM_EXEC) ? HWT_PROT_EXEC : 0);
	bid = m->file ? hwt_buildid_get(m->file, how, rec->build_id) : 0;
	if (bid > 0) {
		rec->build_id_size = bid;
	} else {
		rec->build_id_size = 0;
		memset(rec->build_id, 0, sizeof(rec->build_id));
	}
	return &rec->hdr;
}

struct hwt_record_header *hwt_rec_vma(void *s, struct task_struct *t, struct vm_area_struct *vma)
{
	struct hwt_map m;

	hwt_rec_map_of(vma, &m);
	return hwt_rec_mmap(s, t, &m, HWT_BID_CACHED);
}

struct hwt_record_header *hwt_rec_untraced(void *s, size_t size, struct task_struct *p,
					   const char *path, const char *why)
{
	struct hwt_record_untraced *rec = s;

	if (!hwt_record_untraced_build(s, size, hwt_rec_ppid(p), 0, path, PATH_MAX, why,
				       HWT_REC_REASON_MAX))
		return NULL;
	rec->hdr.time = hwt_clock();
	rec->hdr.pid = task_tgid_nr(p);
	rec->hdr.tid = task_pid_nr(p);
	return &rec->hdr;
}
