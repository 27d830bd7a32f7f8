/*
 * Plugin registration: options, translation, and the QEMU events that
 * become sideband records or change a thread's tracing state.
 *
 *   qemu-x86_64 -plugin libhwt-qemu.so,bundle=DIR[,psb_period=N][,debug_blocks=on]
 *               [,fast_encode=off][,filter=GLOB]...[,select_filter=on][,spe=INTERVAL]
 *               [-0 ARGV0] -- PROGRAM ARGS...
 *   qemu-aarch64 -L SYSROOT -U LD_PRELOAD -plugin libhwt-qemu.so,... -- PROGRAM ARGS...
 *
 * `hwt record` and the preloaded library (collector/preload) write that
 * command line; the bundle directory must exist. An x86-64 guest gets Intel
 * PT streams, an aarch64 guest ETMv4 streams (psb_period is then the bytes
 * between two ETMv4 sync points). filter=GLOB (repeatable) traces only the
 * images whose path or base name a glob matches, as a hardware IP filter
 * would: TIP.PGD with the target where a branch leaves them, TIP.PGE where
 * one enters them again. select_filter=on (hwt-cov's and hwt-pgo's default)
 * does the same for the images the selection selects (the rule the preloaded
 * library applies to libraries, read from the HWT_SELECT_* environment:
 * image.c); x86-64 guests only. spe=INTERVAL (aarch64 guests) also writes Arm SPE
 * records, one per INTERVAL operations (spe.c); x86-64 guests ignore it,
 * so that a run of both kinds of program can ask for it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "insn.h"
#include "qemu_plugin_api.h"
#include "unit.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct hwt_qemu_options hwt_qemu_opts = {
	.psb_period = 4096,
	.fast_encode = true,
};
bool hwt_qemu_etm;

/*
 * The system calls the plugin watches, by the guest's numbers: x86-64's
 * are the host's <sys/syscall.h>; aarch64 has the generic table
 * (asm-generic/unistd.h), without fork and vfork (-1: none).
 */
struct syscall_numbers {
	int64_t rt_sigaction, rt_sigreturn, munmap, mprotect, mmap, clone, fork, vfork;
	int64_t execve, execveat, kill, tkill, tgkill, exit_group;
};
static const struct syscall_numbers x86_64_syscalls = {
	SYS_rt_sigaction, SYS_rt_sigreturn, SYS_munmap, SYS_mprotect, SYS_mmap, SYS_clone,
	SYS_fork, SYS_vfork, SYS_execve, SYS_execveat, SYS_kill, SYS_tkill, SYS_tgkill,
	SYS_exit_group,
};
static const struct syscall_numbers aarch64_syscalls = {
	134, 139, 215, 226, 222, 220, -1, -1, 221, 281, 129, 130, 131, 94,
};
static const struct syscall_numbers *nr = &x86_64_syscalls;
/* The guest's machine, for the classifier. */
static unsigned guest_machine = HWT_INSN_X86_64;

static pid_t owner_pid;
static int exit_status = -1;      /* from exit_group; -1 until seen */
static bool checked_addresses;
static bool ended;                /* PROCESS_EXIT written */
static bool spe;                  /* the software SPE unit is on (aarch64, spe=N) */
/* Guest addresses are host addresses: guest memory can be read directly. */
static bool direct_memory;
/* clone flags of the call in progress, per thread. */
static __thread uint64_t clone_flags;

/*
 * Reads guest memory at guest address addr (= host address when
 * direct_memory). A bad pointer from the guest fails here (EFAULT) instead
 * of crashing QEMU. Returns the bytes read.
 */
static size_t guest_read(uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

	return n > 0 ? (size_t)n : 0;
}

/* The little-endian word an instruction of 4 bytes or more starts with. */
static uint32_t insn_word(const struct qemu_plugin_insn *insn)
{
	const uint8_t *p = qemu_plugin_insn_data(insn);

	return qemu_plugin_insn_size(insn) >= 4 ?
		       (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			       (uint32_t)p[3] << 24 :
		       0;
}

/* Blocks live as long as the process: QEMU may run a translation until exit. */
static struct hwt_qemu_block *new_block(void)
{
	static struct hwt_qemu_block *chunk;
	static size_t left;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct hwt_qemu_block *b;

	pthread_mutex_lock(&lock);
	if (left == 0) {
		left = 4096;
		chunk = calloc(left, sizeof(*chunk));
		if (!chunk) {
			left = 0;
			pthread_mutex_unlock(&lock);
			return NULL;
		}
	}
	b = chunk++;
	left--;
	pthread_mutex_unlock(&lock);
	return b;
}

static void tb_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct qemu_plugin_insn *last;
	struct hwt_insn insn;
	struct hwt_qemu_block *b;
	const uint8_t *bytes;
	size_t size;
	int decoded;
	bool file;

	(void)id;
	if (n == 0 || !(b = new_block()))
		return;
	b->start = qemu_plugin_tb_vaddr(tb);
	/*
	 * QEMU 7.2 ends a block before an instruction that reaches past the
	 * first one's page, but its plugin instruction list still holds the
	 * part of that instruction it had read: it runs as the next block.
	 */
	for (;;) {
		last = qemu_plugin_tb_get_insn(tb, n - 1);
		size = qemu_plugin_insn_size(last);
		bytes = qemu_plugin_insn_data(last);
		decoded = hwt_insn_decode(guest_machine, bytes, size, &insn) == (int)size;
		if (n == 1 || (decoded && ((qemu_plugin_insn_vaddr(last) + size - 1) >> 12) ==
						  (b->start >> 12)))
			break;
		n--;
	}
	b->insn = qemu_plugin_insn_vaddr(last);
	b->fallthrough = b->insn + size;
	b->ninsns = (uint32_t)n;
	if (!checked_addresses) {
		/* This QEMU maps guest memory at the guest's addresses (no guest_base). */
		uint8_t copy[HWT_INSN_MAX_LEN];

		direct_memory = size <= sizeof(copy) && guest_read(b->insn, copy, size) == size &&
				memcmp(copy, bytes, size) == 0;
		checked_addresses = true;
		if (!direct_memory)
			dprintf(2, "hwt: this QEMU does not map guest memory 1:1: signal handlers "
				   "and exec paths will not be seen\n");
	}
	if (decoded) {
		b->branch = insn.kind;
		b->rep = (insn.flags & HWT_INSN_REP) != 0;
		if (insn.flags & HWT_INSN_HAS_TARGET)
			b->target = hwt_insn_target(&insn, b->insn);
	}
	file = hwt_qemu_image_seen(b->start);
	if (b->fallthrough - 1 - b->start > 0)
		hwt_qemu_image_seen(b->fallthrough - 1);
	/* QEMU's aarch64 signal frame returns through "mov x8, #139; svc #0" on the stack. */
	b->untraced = hwt_qemu_etm && !file && n == 2 &&
		      insn_word(qemu_plugin_tb_get_insn(tb, 0)) == 0xd2801168u &&
		      insn_word(last) == 0xd4000001u;
	/* Outside the filter, as an IP filter would: no packets, and its
	   callback only notes that the thread left traced code. */
	if (!hwt_qemu_image_filtered_in(b->start))
		b->untraced = 1;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, b->untraced ? hwt_qemu_vcpu_outside :
						  hwt_qemu_vcpu_block, QEMU_PLUGIN_CB_NO_REGS, b);
	/* SPE samples what the ETM traces (EL0 code of the traced images). */
	if (hwt_qemu_etm && hwt_qemu_opts.spe_interval && !b->untraced) {
		struct hwt_qemu_spe_block *sb = hwt_qemu_spe_translate(b, tb);

		if (sb)
			qemu_plugin_register_vcpu_tb_exec_cb(tb, hwt_qemu_spe_block,
							     QEMU_PLUGIN_CB_NO_REGS, sb);
	}
}

/* EXEC, written by the image that calls execve (flags: HWT_EXEC_FAILED). */
static void write_exec(unsigned flags)
{
	struct {
		struct hwt_record_process rec;
		char empty_path[8];
	} exec;

	memset(&exec, 0, sizeof(exec));
	exec.rec.hdr.flags = (uint16_t)flags;
	hwt_qemu_process_record(&exec.rec.hdr, HWT_RECORD_EXEC, sizeof(exec));
}

/*
 * A static program's exec is not seen by the preloaded library (it does not
 * load it): the new image runs natively and unrecorded, so say so here.
 */
static void write_unfollowed(uint64_t path)
{
	static const char reason[] = "started by a statically linked program: not followed";
	uint64_t words[(sizeof(struct hwt_record_untraced) + 256 + sizeof(reason) + 7) / 8];
	char name[256] = "";
	uint32_t size;

	if (direct_memory && path)
		name[strnlen(name, guest_read(path, name, sizeof(name) - 1))] = '\0';
	size = hwt_record_untraced_build(words, sizeof(words), (uint32_t)getppid(), 0, name,
					 sizeof(name), reason, sizeof(reason));
	hwt_qemu_process_record((struct hwt_record_header *)words, HWT_RECORD_UNTRACED, size);
}

/* A NUL-terminated string of the guest, copied (malloc'd); NULL when unreadable or too long. */
static char *guest_string(uint64_t addr)
{
	size_t size = 256, len = 0;
	char *s = NULL;

	while (addr && size <= (1u << 20)) {
		char *grown = realloc(s, size);
		size_t n;

		if (!grown)
			break;
		s = grown;
		n = guest_read(addr + len, s + len, size - len);
		if (memchr(s + len, '\0', n))
			return s;
		if (n < size - len)
			break;
		len = size;
		size *= 2;
	}
	free(s);
	return NULL;
}

/* The guest's NULL-terminated vector of strings, copied; NULL when unreadable. */
static char **guest_vector(uint64_t addr, size_t *count)
{
	size_t n = 0, cap = 64;
	char **v = malloc(cap * sizeof(*v));
	uint64_t p;

	for (; v && addr; n++, addr += sizeof(p)) {
		if (guest_read(addr, &p, sizeof(p)) != sizeof(p) || n > (1u << 20))
			break;
		if (n + 1 == cap) {
			char **grown = realloc(v, (cap *= 2) * sizeof(*v));

			if (!grown)
				break;
			v = grown;
		}
		if (!p) {
			v[n] = NULL;
			*count = n;
			return v;
		}
		if (!(v[n] = guest_string(p)))
			break;
	}
	*count = n;
	if (v) {
		while (n--)
			free(v[n]);
		free(v);
	}
	return NULL;
}

static void free_vector(char **v, size_t n)
{
	while (v && n--)
		free(v[n]);
	free(v);
}

/*
 * An aarch64 guest's execve/execveat (its arguments a1..a5): the host
 * kernel cannot run an aarch64 program, so QEMU's own exec would fail, and
 * a host program would lose the preloaded library that -U took from the
 * guest. The preloaded library, loaded into QEMU, decides as at any exec of
 * the tree: another qemu-aarch64 (traced or not), or the host program with
 * the library. Only a failed exec returns here; QEMU's then fails too.
 */
static void exec_guest(bool at, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
	typedef int execve_fn(const char *, char *const[], char *const[]);
	typedef int execveat_fn(int, const char *, char *const[], char *const[], int);
	execve_fn *exec_ve = (execve_fn *)dlsym(RTLD_DEFAULT, "execve");
	execveat_fn *exec_at = (execveat_fn *)dlsym(RTLD_DEFAULT, "execveat");
	size_t argc = 0, envc = 0;
	char *path, **argv, **envp;

	if (!direct_memory || !dlsym(RTLD_DEFAULT, "hwt_preload_on_self_kill"))
		return; /* not under `hwt record`: QEMU does what it does */
	path = guest_string(at ? a2 : a1);
	argv = guest_vector(at ? a3 : a2, &argc);
	envp = guest_vector(at ? a4 : a3, &envc);
	if (path && argv && envp) {
		if (at && exec_at)
			exec_at((int)a1, path, argv, envp, (int)a5);
		else if (!at && exec_ve)
			exec_ve(path, argv, envp);
	}
	free(path);
	free_vector(argv, argc);
	free_vector(envp, envc);
}

static void syscall_entry(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, uint64_t a1,
			  uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5, uint64_t a6,
			  uint64_t a7, uint64_t a8)
{
	(void)id;
	(void)vcpu;
	(void)a6;
	(void)a7;
	(void)a8;
	/* Tracing stops at the system call, after the blocks that led to it. */
	hwt_qemu_vcpu_syscall(num == nr->rt_sigreturn);
	if (spe)
		hwt_qemu_spe_syscall();
	if (num == nr->rt_sigaction) {
		/* struct sigaction as the kernel takes it: the handler comes first. */
		if (direct_memory && a2) {
			uint64_t handler = 0;

			if (guest_read(a2, &handler, sizeof(handler)) == sizeof(handler) &&
			    handler > 1) /* not SIG_DFL, SIG_IGN */
				hwt_qemu_vcpu_add_handler(handler);
		}
	} else if (num == nr->munmap) {
		hwt_qemu_image_unmapped(a1, a2);
	} else if (num == nr->mprotect) {
		if (!(a3 & 4)) /* PROT_EXEC */
			hwt_qemu_image_unmapped(a1, a2);
	} else if (num == nr->mmap) {
		if (a4 & 0x10) /* MAP_FIXED: replaces what was there */
			hwt_qemu_image_unmapped(a1, a2);
	} else if (num == nr->clone || num == nr->fork || num == nr->vfork) {
		clone_flags = num == nr->clone ? a1 : 0;
	} else if (num == nr->execve || num == nr->execveat) {
		/* An aarch64 guest's execs are followed below: not "unfollowed". */
		if (hwt_qemu_process_static() && !hwt_qemu_etm)
			write_unfollowed(num == nr->execve ? a1 : a2);
		write_exec(0);
		if (hwt_qemu_vcpu_others_busy())
			/* The kernel ends the other threads at the exec: what they ran
			   since their last write cannot be read from here. */
			hwt_qemu_process_lost(HWT_LOST_TRACE_WRITE, 0, 0);
		hwt_qemu_vcpu_drain_self();
		if (spe)
			hwt_qemu_spe_drain_self();
		if (hwt_qemu_etm)
			exec_guest(num == nr->execveat, a1, a2, a3, a4, a5);
	} else if (num == nr->kill || num == nr->tkill || num == nr->tgkill) {
		/* The process may be gone when the call returns (SIGKILL, say). */
		hwt_qemu_vcpu_drain_self();
		if (spe)
			hwt_qemu_spe_drain_self();
	} else if (num == nr->exit_group) {
		exit_status = (int)((a1 & 0xff) << 8);
	}
}

static void syscall_return(qemu_plugin_id_t id, unsigned int vcpu, int64_t num, int64_t ret)
{
	(void)id;
	(void)vcpu;
	if (num == nr->execve || num == nr->execveat) {
		write_exec(HWT_EXEC_FAILED); /* only a failed exec returns */
	} else if ((num == nr->clone || num == nr->fork || num == nr->vfork) && ret > 0) {
		if (clone_flags & 0x10000) { /* CLONE_THREAD */
			struct hwt_record_thread rec;

			memset(&rec, 0, sizeof(rec));
			rec.child_tid = (uint32_t)ret;
			hwt_qemu_process_record(&rec.hdr, HWT_RECORD_THREAD_CREATE, sizeof(rec));
		} else {
			struct hwt_record_fork rec;

			memset(&rec, 0, sizeof(rec));
			rec.child_pid = (uint32_t)ret;
			hwt_qemu_process_record(&rec.hdr, HWT_RECORD_FORK, sizeof(rec));
		}
	} else if ((num == nr->clone || num == nr->fork || num == nr->vfork) && ret == 0 &&
		   getpid() != owner_pid) {
		/* A fork child (QEMU has no fork callback): its own image and files. */
		owner_pid = getpid();
		exit_status = -1;
		hwt_qemu_vcpu_forget_all();
		hwt_qemu_process_start_forked();
		if (spe)
			hwt_qemu_spe_forget_all();
	}
}

static void vcpu_exit(qemu_plugin_id_t id, unsigned int vcpu)
{
	struct hwt_record_thread rec;

	(void)id;
	(void)vcpu;
	/* QEMU runs this in the exiting thread. */
	hwt_qemu_vcpu_finish_self();
	if (spe)
		hwt_qemu_spe_finish_self();
	memset(&rec, 0, sizeof(rec));
	hwt_qemu_process_record(&rec.hdr, HWT_RECORD_THREAD_EXIT, sizeof(rec));
}

static void at_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	if (ended)
		return;
	ended = true;
	/* QEMU has stopped the other threads and removed their callbacks. */
	hwt_qemu_vcpu_finish_all();
	if (spe)
		hwt_qemu_spe_finish_all();
	/* Without exit_group (a fatal signal), the status is not known here. */
	hwt_qemu_process_exit(exit_status >= 0 ? exit_status : 0);
}

/*
 * QEMU 7.2 runs no plugin callback when a signal kills the guest: it
 * resets the host signal's action and kill()s itself. The preloaded
 * library, which the environment also loads into QEMU, wraps kill() and
 * calls this first (registered through hwt_preload_on_self_kill).
 */
static void dying(int sig)
{
	if (ended || getpid() != owner_pid)
		return;
	ended = true;
	hwt_qemu_vcpu_die();
	if (spe)
		hwt_qemu_spe_finish_all();
	hwt_qemu_process_exit(sig & 0x7f);
}

static void register_dying(void)
{
	void (*on_self_kill)(void (*)(int)) =
		(void (*)(void (*)(int)))dlsym(RTLD_DEFAULT, "hwt_preload_on_self_kill");

	if (on_self_kill)
		on_self_kill(dying);
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "on") || !strcmp(v, "yes") || !strcmp(v, "true")) {
		*out = true;
		return true;
	}
	if (!strcmp(v, "off") || !strcmp(v, "no") || !strcmp(v, "false")) {
		*out = false;
		return true;
	}
	return false;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc,
					   char **argv)
{
	bool etm_on = true;

	if (info->system_emulation || (strcmp(info->target_name, "x86_64") != 0 &&
					strcmp(info->target_name, "aarch64") != 0)) {
		dprintf(2, "hwt: the QEMU trace unit runs under qemu-x86_64 and qemu-aarch64 "
			   "(user mode) only\n");
		return -1;
	}
	if (strcmp(info->target_name, "aarch64") == 0) {
		hwt_qemu_etm = true;
		nr = &aarch64_syscalls;
		guest_machine = HWT_INSN_AARCH64;
	}
	for (int i = 0; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		const char *v = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		char *end;

		if (klen == 6 && !strncmp(argv[i], "bundle", 6) && *v &&
		    strlen(v) < sizeof(hwt_qemu_opts.bundle)) {
			strcpy(hwt_qemu_opts.bundle, v);
		} else if (klen == 10 && !strncmp(argv[i], "psb_period", 10)) {
			hwt_qemu_opts.psb_period = strtol(v, &end, 0);
			if (*end || hwt_qemu_opts.psb_period < 256 || hwt_qemu_opts.psb_period > (1 << 20)) {
				dprintf(2, "hwt: psb_period wants 256..1048576, not '%s'\n", v);
				return -1;
			}
		} else if (klen == 12 && !strncmp(argv[i], "debug_blocks", 12) &&
			   parse_bool(v, &hwt_qemu_opts.debug_blocks)) {
		} else if (klen == 11 && !strncmp(argv[i], "fast_encode", 11) &&
			   parse_bool(v, &hwt_qemu_opts.fast_encode)) {
		} else if (klen == 3 && !strncmp(argv[i], "spe", 3)) {
			hwt_qemu_opts.spe_interval = strtol(v, &end, 0);
			if (*end || hwt_qemu_opts.spe_interval < 1 ||
			    hwt_qemu_opts.spe_interval > (1l << 24)) {
				dprintf(2, "hwt: spe wants an interval of 1..16777216 operations, "
					   "not '%s'\n", v);
				return -1;
			}
		} else if (klen == 3 && !strncmp(argv[i], "etm", 3) && parse_bool(v, &etm_on)) {
			hwt_qemu_opts.no_etm = !etm_on;
		} else if (klen == 13 && !strncmp(argv[i], "select_filter", 13) &&
			   parse_bool(v, &hwt_qemu_opts.select_filter)) {
		} else if (klen == 6 && !strncmp(argv[i], "filter", 6) && *v) {
			if (hwt_qemu_opts.nfilters == sizeof(hwt_qemu_opts.filters) /
							   sizeof(hwt_qemu_opts.filters[0])) {
				dprintf(2, "hwt: at most 16 filter= options\n");
				return -1;
			}
			/* QEMU frees its argument strings after the install. */
			if (!(hwt_qemu_opts.filters[hwt_qemu_opts.nfilters++] = strdup(v)))
				return -1;
		} else {
			dprintf(2, "hwt: unknown QEMU trace unit option '%s' (known: bundle=DIR, "
				   "psb_period=N, debug_blocks=on|off, fast_encode=on|off, filter=GLOB, "
				   "select_filter=on|off, spe=N, etm=on|off)\n", argv[i]);
			return -1;
		}
	}
	if (hwt_qemu_etm && hwt_qemu_opts.nfilters) {
		/* An ETM trace that stops where a branch leaves the filter needs a
		   decoder that knows the filter: not done yet. */
		dprintf(2, "hwt: filter= is not supported for aarch64 guests yet: every image "
			   "of this process is traced\n");
		hwt_qemu_opts.nfilters = 0;
	}
	/* The same for the default filter of hwt-cov and hwt-pgo, silently: every
	   image of an aarch64 guest is traced, as before. */
	if (hwt_qemu_etm || hwt_qemu_opts.nfilters)
		hwt_qemu_opts.select_filter = false;
	if (!hwt_qemu_opts.bundle[0]) {
		dprintf(2, "hwt: the QEMU trace unit needs bundle=DIR; use `hwt record --unit qemu`\n");
		return -1;
	}
	/* x86-64 guests have no SPE: the option is for the aarch64 programs of a run. */
	spe = hwt_qemu_etm && hwt_qemu_opts.spe_interval > 0;
	/* etm=off keeps the SPE records only: of aarch64 guests with spe=N. */
	if (!spe)
		hwt_qemu_opts.no_etm = false;
	owner_pid = getpid();
	hwt_qemu_process_start();
	if (spe)
		hwt_qemu_spe_start();
	register_dying();
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_translated);
	qemu_plugin_register_vcpu_syscall_cb(id, syscall_entry);
	qemu_plugin_register_vcpu_syscall_ret_cb(id, syscall_return);
	qemu_plugin_register_vcpu_exit_cb(id, vcpu_exit);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
