/*
 * CPU mode (kmod_int.h): each traced CPU's buffer holds the streams of
 * every thread that ran there, one after another. The sw backend says
 * where each begins and ends with SWITCH records that carry the buffer's
 * offset, so the cut is exact: no clock is needed (unlike a perf.data
 * per-CPU trace, collector/perf/split.c). Each stream begins with a PSB+
 * and ends disabled (TIP.PGD), so a thread's stream file is its pieces
 * from every CPU, appended in the order they ran: the bundle gets the
 * per-thread streams the decoders read for any unit.
 *
 * Which bytes are whose: the buffers' offsets are read first, then the
 * records. A SWITCH in is queued before its stream's first byte, so every
 * byte below those offsets belongs to a stream whose SWITCH in has been
 * read; an open stream takes what its CPU holds up to the offset read
 * first, a closed one what its SWITCH out says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "kmod_int.h"

static int cpu_bufptr(struct hwt_kmod *k, const struct kmod_cpu *c, struct hwt_bufptr *bp)
{
	memset(bp, 0, sizeof(*bp));
	bp->size = sizeof(*bp);
	bp->id = c->cpu;
	return kmod_ctx_ioctl(&k->ctx, HWT_IOC_BUFPTR, bp);
}

int kmod_cpus_open(struct hwt_kmod *k)
{
	for (size_t i = 0; i < k->opts.cpusetsize * 8; i++) {
		struct hwt_bufptr bp;
		struct kmod_cpu *c;
		void *p;
		int ret;

		if (!(k->opts.cpus[i / 8] & (1u << (i % 8))))
			continue;
		c = realloc(k->cpus, (k->ncpus + 1) * sizeof(*k->cpus));
		if (!c)
			return -hke_nomem;
		k->cpus = c;
		c = &k->cpus[k->ncpus];
		memset(c, 0, sizeof(*c));
		c->cpu = (uint32_t)i;
		ret = cpu_bufptr(k, c, &bp);
		if (ret == -hke_no_backend)
			continue;	/* ENOENT: a CPU the kernel does not have */
		if (ret)
			return ret;
		p = mmap(NULL, bp.bufsize, PROT_READ, MAP_SHARED, k->ctx.fd,
			 (off_t)HWT_MMAP_OFFSET(c->cpu));
		if (p == MAP_FAILED)
			return -hke_io;
		c->base = p;
		c->size = bp.bufsize;
		k->ncpus++;
	}
	return k->ncpus ? 0 : -hke_invalid;
}

void kmod_cpus_close(struct hwt_kmod *k)
{
	for (size_t i = 0; i < k->ncpus; i++)
		if (k->cpus[i].base)
			munmap(k->cpus[i].base, k->cpus[i].size);
	free(k->cpus);
	k->cpus = NULL;
	k->ncpus = 0;
}

int kmod_cpus_snapshot(struct hwt_kmod *k)
{
	for (size_t i = 0; i < k->ncpus; i++) {
		struct hwt_bufptr bp;
		int ret = cpu_bufptr(k, &k->cpus[i], &bp);

		if (ret)
			return ret;
		k->cpus[i].written = bp.offset;
	}
	return 0;
}

static struct kmod_cpu *cpu_of(struct hwt_kmod *k, uint32_t cpu)
{
	for (size_t i = 0; i < k->ncpus; i++)
		if (k->cpus[i].cpu == cpu)
			return &k->cpus[i];
	return NULL;
}

/* [c->from, to) of the CPU's ring to its owner's stream (dropped without an image). */
static int cpu_copy(struct hwt_kmod *k, struct kmod_cpu *c, uint64_t to)
{
	struct kmod_thread *t = c->owner;
	uint64_t from = c->from, newest = to > c->written ? to : c->written;
	int ret = 0;

	if (to <= from)
		return 0;
	c->from = to;
	if (newest - from > c->size) {
		/* Written over before it was read (the kernel's LOST record says so too). */
		uint64_t first = newest - c->size;

		from = kmod_find_psb(c->base, c->size, first, to);
		if (t->image)
			ret = kmod_thread_write(k, t, kmod_ovf, sizeof(kmod_ovf));
	}
	while (!ret && t->image && from < to) {
		size_t at = from % c->size, n = to - from;

		if (n > c->size - at)
			n = c->size - at;
		ret = kmod_thread_write(k, t, (const uint8_t *)c->base + at, n);
		from += n;
	}
	return ret;
}

int kmod_cpu_switch(struct hwt_kmod *k, const struct hwt_record_switch *rec,
		    struct kmod_thread *t)
{
	struct kmod_cpu *c = cpu_of(k, rec->cpu);
	int ret = 0;

	if (!c)
		return 0;
	/* A stream whose end was not recorded (the queue was full) ends where the next begins. */
	if (c->owner)
		ret = cpu_copy(k, c, rec->offset);
	c->owner = rec->in ? t : NULL;
	c->from = rec->offset;
	return ret;
}

int kmod_cpus_drain(struct hwt_kmod *k)
{
	for (size_t i = 0; i < k->ncpus; i++) {
		struct kmod_cpu *c = &k->cpus[i];
		struct hwt_bufread br = { .size = sizeof(br), .id = c->cpu };
		int ret = 0;

		if (c->owner)
			ret = cpu_copy(k, c, c->written);
		if (ret)
			return ret;
		/* What lies below is copied or nobody's: the kernel counts what it writes over from here. */
		br.offset = c->from < c->written ? c->from : c->written;
		if (br.offset > c->read) {
			ret = kmod_ctx_ioctl(&k->ctx, HWT_IOC_BUFREAD, &br);
			if (ret)
				return ret;
			c->read = br.offset;
		}
	}
	return 0;
}

void kmod_cpus_forget(struct hwt_kmod *k, struct kmod_thread *t)
{
	for (size_t i = 0; i < k->ncpus; i++) {
		if (k->cpus[i].owner == t) {
			cpu_copy(k, &k->cpus[i], k->cpus[i].written);
			k->cpus[i].owner = NULL;
		}
	}
}
