/* /dev/hwt and the context file descriptor (kmod_int.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "hwt_ioctl.h"
#include "kmod_int.h"

int kmod_errno_error(int err, enum kmod_call call)
{
	switch (err) {
	case ENOENT: return call == kmod_call_open ? -hke_no_module : -hke_no_backend;
	case EPERM: return call == kmod_call_open ? -hke_no_access : -hke_perm;
	case EACCES:
		if (call == kmod_call_open)
			return -hke_no_access;
		return call == kmod_call_alloc_cpu ? -hke_paranoid : -hke_perm;
	case EBUSY: return -hke_busy;
	case ESRCH: return -hke_no_process;
	case ENOMEM: return -hke_nomem;
	case EINVAL: return -hke_invalid;
	case EOPNOTSUPP: return call == kmod_call_alloc_thread ? -hke_no_ptrace : -hke_mode;
	case ENOBUFS: return -hke_memlock;
	case EMFILE: return call == kmod_call_open ? -hke_io : -hke_contexts;
	}
	errno = err;
	return -hke_io;
}

int kmod_ctx_alloc(struct kmod_ctx *c, const struct hwt_kmod_options *o, size_t bufsize,
		   size_t aux_bufsize)
{
	struct hwt_alloc a;
	int dev, fd, err;

	c->fd = -1;
	dev = open(HWT_DEVICE, O_RDWR | O_CLOEXEC);
	if (dev < 0)
		return kmod_errno_error(errno, kmod_call_open);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	snprintf(a.backend_name, sizeof(a.backend_name), "%s", o->backend ? o->backend : HWT_SW_BACKEND);
	a.bufsize = bufsize;
	if (o->mode == HWT_KMOD_CPU) {
		a.mode = HWT_MODE_CPU;
		a.cpu_map = (uintptr_t)o->cpus;
		a.cpusetsize = o->cpusetsize;
	} else {
		a.mode = HWT_MODE_THREAD;
		a.pid = o->pid;
		a.flags = o->children ? HWT_ALLOC_CHILDREN : 0;
		a.aux_bufsize = aux_bufsize;
	}
	fd = ioctl(dev, HWT_IOC_ALLOC, &a);
	err = errno;
	close(dev);
	if (fd < 0)
		return kmod_errno_error(err, o->mode == HWT_KMOD_CPU ? kmod_call_alloc_cpu
								      : kmod_call_alloc_thread);
	/* Reads return what is queued; poll() waits. */
	if (fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
		close(fd);
		return -hke_io;
	}
	c->fd = fd;
	return 0;
}

uint32_t kmod_features_off(void)
{
	struct hwt_stats st;
	int dev = open(HWT_DEVICE, O_RDWR | O_CLOEXEC), r;

	if (dev < 0)
		return 0;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	r = ioctl(dev, HWT_IOC_STATS, &st);
	close(dev);
	/* A module older than the field leaves it zero: nothing known to be off. */
	return r ? 0 : st.features_off;
}

int kmod_ctx_configure(struct kmod_ctx *c, const struct hwt_kmod_options *o,
		       const struct hwt_sw_range *ranges, uint32_t nranges)
{
	size_t len = sizeof(struct hwt_sw_config) + nranges * sizeof(*ranges);
	struct hwt_sw_config *sw;
	struct hwt_config cfg;
	int ret;

	if (len > 4096)
		return -hke_invalid;	/* the kernel's bound on a backend configuration */
	sw = calloc(1, len);
	if (!sw)
		return -hke_nomem;
	sw->size = sizeof(*sw);
	sw->flags = (o->wrap ? HWT_SW_WRAP : 0) | (o->debug_blocks ? HWT_SW_BLOCKS : 0) |
		    (o->filters && o->filters[0] ? HWT_SW_FILTER : 0);
	sw->psb_period = o->psb_period;
	sw->nranges = nranges;
	if (nranges)
		memcpy(sw->ranges, ranges, nranges * sizeof(*ranges));
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	if (o->mode == HWT_KMOD_THREAD) {
		/*
		 * An exec pauses until its thread's trace of the old image is
		 * read (and its filters set); an mmap only when filters may
		 * need setting for it.
		 */
		cfg.flags = HWT_CFG_PAUSE_EXEC;
		if (o->filters && o->filters[0])
			cfg.flags |= HWT_CFG_PAUSE_MMAP;
		cfg.pause_timeout_ms = 60000;
		if (o->select) {
			cfg.flags |= HWT_CFG_SELECT;
			if (o->trace) {
				cfg.select_trace = (uintptr_t)o->trace;
				cfg.select_trace_size = strlen(o->trace);
			}
			if (o->no_trace) {
				cfg.select_no_trace = (uintptr_t)o->no_trace;
				cfg.select_no_trace_size = strlen(o->no_trace);
			}
		}
	}
	cfg.backend_config = (uintptr_t)sw;
	cfg.backend_config_size = len;
	ret = ioctl(c->fd, HWT_IOC_SET_CONFIG, &cfg);
	ret = ret < 0 ? kmod_errno_error(errno, kmod_call_ctx) : 0;
	free(sw);
	if (!ret)
		c->flags = cfg.flags;
	return ret;
}

int kmod_ctx_ioctl(struct kmod_ctx *c, unsigned long cmd, void *arg)
{
	return ioctl(c->fd, cmd, arg) < 0 ? kmod_errno_error(errno, kmod_call_ctx) : 0;
}

void kmod_ctx_close(struct kmod_ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
