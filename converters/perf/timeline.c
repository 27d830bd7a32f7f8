/*
 * The global clock of an export: the process images one after another on
 * one timeline (docs/perf.md). An image follows the image that forked it
 * and the previous generation of its pid (an exec, or a pid used again),
 * so that perf sees a parent's FORK before the child's records and one
 * process's EXIT before the next process of the same pid begins.
 */
#include "export_int.h"

#include <stdlib.h>
#include <string.h>

/* Global times stay below this (perf's TSC packets carry 56 bits). */
#define CLOCK_LIMIT (1ull << 55)
#define SCALE_MAX (1ull << 20)
#define SCALE_MIN 16ull

/* The image that forked im: one of pid ppid with a FORK record naming im's pid. */
static void find_parent(struct xport *x, size_t i)
{
	struct xport_image *im = &x->images[i];
	const struct hwt_record_process *start = NULL;

	im->parent = -1;
	if (im->exec_entered || !im->nrecs || im->recs[0]->type != HWT_RECORD_PROCESS_START)
		return;
	start = (const void *)im->recs[0];
	for (size_t k = 0; k < x->nimages; k++) {
		const struct xport_image *p = &x->images[k];

		if (k == i || p->bi->pid != start->ppid)
			continue;
		for (size_t r = 0; r < p->nrecs; r++) {
			const struct hwt_record_fork *f = (const void *)p->recs[r];

			if (f->hdr.type == HWT_RECORD_FORK && f->child_pid == im->bi->pid) {
				/* The latest generation that forked this pid. */
				im->parent = (long)k;
				im->fork_tid = f->hdr.tid;
			}
		}
	}
}

int hwt_xport_timeline(struct xport *x)
{
	uint64_t total = 0, cur;
	size_t placed = 0;
	size_t *order;
	const char *clock = hwt_bundle_key(x->bundle, "clock");

	for (size_t i = 0; i < x->nimages; i++) {
		struct xport_image *im = &x->images[i];

		im->prev_gen = -1;
		im->fork_tid = 0;
		for (size_t k = 0; k < x->nimages; k++) {
			const struct xport_image *o = &x->images[k];

			if (o->bi->pid == im->bi->pid && o->bi->generation < im->bi->generation &&
			    (im->prev_gen < 0 ||
			     o->bi->generation > x->images[im->prev_gen].bi->generation))
				im->prev_gen = (long)k;
		}
		/* Entered by exec: the bundle's previous generation ended in EXEC. */
		im->exec_entered = 0;
		if (im->bi->generation > 0) {
			const struct hwt_bundle_image *prev =
				hwt_bundle_image_find(x->bundle, im->bi->pid, im->bi->generation - 1);

			im->exec_entered = prev && prev->has_exec;
		}
		find_parent(x, i);
		if (!im->fork_tid && im->nrecs && im->recs[0]->type == HWT_RECORD_PROCESS_START)
			im->fork_tid = ((const struct hwt_record_process *)(const void *)im->recs[0])->ppid;
		im->pending = (im->prev_gen >= 0) + (im->parent >= 0);
		im->placed = 0;
		total += im->max_time + 2;
	}

	if (clock && !strcmp(clock, "tsc")) {
		/* Already one clock (a recording of hardware): kept as it is. */
		x->scale = 1;
		x->identity = 1;
		return 0;
	}
	x->scale = SCALE_MAX;
	while (x->scale > SCALE_MIN && total + 1 > CLOCK_LIMIT / x->scale)
		x->scale >>= 1;
	if (total + 1 > CLOCK_LIMIT / x->scale)
		return -hxe_clock;

	order = calloc(x->nimages ? x->nimages : 1, sizeof(*order));
	if (!order)
		return -hxe_nomem;
	/* In bundle order, each image as soon as what it follows is placed. */
	while (placed < x->nimages) {
		size_t before = placed;

		for (size_t i = 0; i < x->nimages; i++) {
			struct xport_image *im = &x->images[i];

			if (im->placed || im->pending)
				continue;
			im->placed = 1;
			order[placed++] = i;
			for (size_t k = 0; k < x->nimages; k++) {
				struct xport_image *o = &x->images[k];

				if (!o->placed && (o->prev_gen == (long)i || o->parent == (long)i))
					o->pending--;
			}
		}
		if (placed == before) {
			/* A cycle (impossible in a real recording): break it in bundle order. */
			for (size_t i = 0; i < x->nimages; i++)
				if (!x->images[i].placed) {
					hwt_xport_warn(x, "image %s: its parent and generation links "
						       "form a cycle; placed in bundle order",
						       x->images[i].bi->name);
					x->images[i].pending = 0;
					break;
				}
		}
	}
	cur = x->scale;
	for (size_t k = 0; k < x->nimages; k++) {
		struct xport_image *im = &x->images[order[k]];

		im->base = cur;
		cur += (im->max_time + 2) * x->scale;
	}
	free(order);
	return 0;
}
