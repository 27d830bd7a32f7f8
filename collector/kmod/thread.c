/*
 * Threads (kmod_int.h): each has a trace buffer (and with the block log a
 * second one) that the kernel writes as a ring and this collector maps
 * read-only, copies out into streams/<image>-<tid>.pt (blocks/...blk) and
 * hands back with HWT_IOC_BUFREAD. With HWT_SW_WRAP the kernel may have
 * written over bytes not read yet: the copy then goes on at the first PSB
 * of what is left, after an OVF packet, so that a decoder knows of the gap
 * and synchronises there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "kmod_int.h"

const uint8_t kmod_ovf[2] = { 0x02, 0xf3 };
static const uint8_t psb[16] = { 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82,
				 0x02, 0x82, 0x02, 0x82, 0x02, 0x82, 0x02, 0x82 };

uint64_t kmod_find_psb(const uint8_t *base, size_t size, uint64_t from, uint64_t to)
{
	for (uint64_t at = from; at + sizeof(psb) <= to; at++) {
		size_t i;

		for (i = 0; i < sizeof(psb); i++)
			if (base[(at + i) % size] != psb[i])
				break;
		if (i == sizeof(psb))
			return at;
	}
	return to;
}

/* Maps the ring when the kernel has made the buffer; 0 when there is none yet. */
static int ring_map(struct hwt_kmod *k, struct kmod_thread *t, struct kmod_ring *r)
{
	struct hwt_bufptr bp = { .size = sizeof(bp), .id = t->tid,
				 .flags = r->aux ? HWT_BUF_AUX : 0 };
	void *p;
	int ret;

	if (r->base)
		return 1;
	ret = kmod_ctx_ioctl(&k->ctx, HWT_IOC_BUFPTR, &bp);
	if (ret == -hke_no_backend)
		return 0;	/* ENOENT: no buffer (yet, or ever) */
	if (ret)
		return ret;
	p = mmap(NULL, bp.bufsize, PROT_READ, MAP_SHARED, k->ctx.fd,
		 (off_t)(HWT_MMAP_OFFSET(t->tid) | (r->aux ? HWT_MMAP_AUX : 0)));
	if (p == MAP_FAILED)
		return -hke_io;
	r->base = p;
	r->size = bp.bufsize;
	return 1;
}

/* The file of ring r of t in its image, opened at the first bytes. */
static int ring_file(struct hwt_kmod *k, struct kmod_thread *t, struct kmod_ring *r)
{
	char path[4096];

	if (r->fd >= 0)
		return 0;
	snprintf(path, sizeof(path), "%s/%s/%s-%u.%s", k->bundle, r->aux ? "blocks" : "streams",
		 t->image->name, t->tid, r->aux ? "blk" : "pt");
	r->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	return r->fd < 0 ? -hke_bundle : 0;
}

int kmod_thread_write(struct hwt_kmod *k, struct kmod_thread *t, const void *data, size_t n)
{
	while (n) {
		ssize_t w;

		if (ring_file(k, t, &t->pt) < 0)
			return -hke_bundle;
		w = write(t->pt.fd, data, n);
		if (w <= 0)
			return -hke_bundle;
		data = (const uint8_t *)data + w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copies [from, to) of the ring to its file. */
static int ring_copy(struct hwt_kmod *k, struct kmod_thread *t, struct kmod_ring *r,
		     uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t at = from % r->size, n = to - from;
		ssize_t w;

		if (n > r->size - at)
			n = r->size - at;
		if (ring_file(k, t, r) < 0)
			return -hke_bundle;
		w = write(r->fd, (const uint8_t *)r->base + at, n);
		if (w <= 0)
			return -hke_bundle;
		from += (size_t)w;
	}
	return 0;
}

static int ring_drain(struct hwt_kmod *k, struct kmod_thread *t, struct kmod_ring *r)
{
	struct hwt_bufptr bp = { .size = sizeof(bp), .id = t->tid,
				 .flags = r->aux ? HWT_BUF_AUX : 0 };
	struct hwt_bufread br = { .size = sizeof(br), .id = t->tid,
				  .flags = r->aux ? HWT_BUF_AUX : 0 };
	uint64_t from;
	int ret;

	ret = ring_map(k, t, r);
	if (ret <= 0)
		return ret;
	ret = kmod_ctx_ioctl(&k->ctx, HWT_IOC_BUFPTR, &bp);
	if (ret == -hke_no_backend)
		return 0;	/* tid taken by a newer thread of another process: gone */
	if (ret)
		return ret;
	if (bp.offset == r->read)
		return 0;
	from = r->read;
	if (bp.offset - from > r->size) {
		/* Written over before it was read (the kernel's LOST record says so). */
		from = bp.offset - r->size;
		if (!r->aux) {
			from = kmod_find_psb(r->base, r->size, from, bp.offset);
			if (t->image && ring_file(k, t, r) == 0 &&
			    write(r->fd, kmod_ovf, sizeof(kmod_ovf)) != (ssize_t)sizeof(kmod_ovf))
				return -hke_bundle;
		}
	}
	if (t->image) {
		ret = ring_copy(k, t, r, from, bp.offset);
		if (ret)
			return ret;
	}
	r->read = bp.offset;
	br.offset = bp.offset;
	return kmod_ctx_ioctl(&k->ctx, HWT_IOC_BUFREAD, &br);
}

int kmod_thread_drain(struct hwt_kmod *k, struct kmod_thread *t)
{
	int ret;

	if (k->opts.mode == HWT_KMOD_CPU)
		return 0;	/* no buffer of its own: cpu.c copies its streams */
	ret = ring_drain(k, t, &t->pt);

	if (!ret && k->opts.debug_blocks)
		ret = ring_drain(k, t, &t->blk);
	return ret;
}

static void ring_close(struct kmod_ring *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

void kmod_thread_move(struct kmod_thread *t, struct kmod_image *image)
{
	ring_close(&t->pt);
	ring_close(&t->blk);
	t->image = image;
	t->pid = image ? image->pid : t->pid;
}

void kmod_thread_close(struct kmod_thread *t)
{
	ring_close(&t->pt);
	ring_close(&t->blk);
	if (t->pt.base)
		munmap(t->pt.base, t->pt.size);
	if (t->blk.base)
		munmap(t->blk.base, t->blk.size);
	t->pt.base = t->blk.base = NULL;
}
