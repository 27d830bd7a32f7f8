/*
 * Tool registration: options, and the Valgrind events that become sideband
 * records or change a thread's tracing state.
 */
#include "tool.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

struct hwt_vg_options hwt_vg_opts = {
	.bundle = NULL,
	.debug_blocks = False,
	.psb_period = 4096,
	.buffer_size = 64 * 1024,
};

static Bool process_option(const HChar *arg)
{
	const HChar *filter;

	if VG_STR_CLO(arg, "--hwt-bundle", hwt_vg_opts.bundle) {}
	else if VG_BOOL_CLO(arg, "--hwt-debug-blocks", hwt_vg_opts.debug_blocks) {}
	else if VG_BINT_CLO(arg, "--hwt-psb-period", hwt_vg_opts.psb_period, 256, 1 << 20) {}
	else if VG_BINT_CLO(arg, "--hwt-buffer-size", hwt_vg_opts.buffer_size, 4096, 1 << 26) {}
	else if VG_BOOL_CLO(arg, "--hwt-unfollowed", hwt_vg_opts.unfollowed) {}
	else if VG_BOOL_CLO(arg, "--hwt-debuginfo", hwt_vg_opts.debuginfo) {}
	else if VG_BOOL_CLO(arg, "--hwt-select-filter", hwt_vg_opts.select_filter) {}
	else if VG_STR_CLO(arg, "--hwt-filter", filter) {
		if (hwt_vg_opts.nfilters == sizeof(hwt_vg_opts.filters) / sizeof(hwt_vg_opts.filters[0]))
			VG_(fmsg_bad_option)(arg, "at most 16 filters\n");
		hwt_vg_opts.filters[hwt_vg_opts.nfilters++] = filter;
	}
	else
		return False;
	return True;
}

static void print_usage(void)
{
	VG_(printf)(
		"    --hwt-bundle=DIR          trace bundle to write into (made by `hwt record`)\n"
		"    --hwt-debug-blocks=no|yes write the executed-block log for tests [no]\n"
		"    --hwt-psb-period=BYTES    packet bytes between two PSB+ [4096]\n"
		"    --hwt-buffer-size=BYTES   per-thread packet buffer [65536]\n"
		"    --hwt-filter=IMAGE[:FUNCTION]  only trace that image or function (repeatable)\n"
		"    --hwt-select-filter=no|yes  only trace the images the selection selects\n"
		"                              (HWT_SELECT_* from `hwt record`) [no]\n"
		"    --hwt-unfollowed=no|yes   the program's execs are not followed: record them\n"
		"                              as untraced (set for static programs) [no]\n"
		"    --hwt-debuginfo=no|yes    let Valgrind read debug info, for its own\n"
		"                              diagnostics (slows start-up) [no]\n");
}

static void print_debug_usage(void)
{
	VG_(printf)("    (none)\n");
}

static void post_clo_init(void)
{
	if (!hwt_vg_opts.bundle)
		VG_(fmsg_bad_option)("--hwt-bundle", "hwt needs a bundle directory; use `hwt record`\n");
	hwt_vg_filter_init();
	hwt_vg_thread_init();
	hwt_vg_process_start();
}

static void start_client_code(ThreadId tid, ULong blocks)
{
	(void)blocks;
	hwt_vg_thread_set_current(tid);
}

static void stop_client_code(ThreadId tid, ULong blocks)
{
	(void)tid;
	(void)blocks;
	hwt_vg_thread_flush_log();
}

static void new_mem_startup(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	(void)di;
	hwt_vg_image_mapped(a, len, rr, ww, xx);
}

static void new_mem_mmap(Addr a, SizeT len, Bool rr, Bool ww, Bool xx, ULong di)
{
	(void)di;
	hwt_vg_image_mapped(a, len, rr, ww, xx);
}

static void pre_deliver_signal(ThreadId tid, Int signo, Bool alt_stack)
{
	struct hwt_record_signal rec;
	Addr ip = VG_(get_IP)(tid);

	(void)alt_stack;
	hwt_vg_thread_interrupt(tid, ip);
	VG_(memset)(&rec, 0, sizeof(rec));
	rec.signo = signo;
	rec.ip = ip;
	hwt_vg_process_record(&rec.hdr, HWT_RECORD_SIGNAL, sizeof(rec));
}

static void thread_exit(ThreadId tid)
{
	struct hwt_record_thread rec;

	hwt_vg_thread_finish(tid);
	VG_(memset)(&rec, 0, sizeof(rec));
	hwt_vg_process_record(&rec.hdr, HWT_RECORD_THREAD_EXIT, sizeof(rec));
}

/*
 * EXEC, written by the image that calls execve. The new image says what it
 * runs in its own PROCESS_START; here path and arguments stay empty, as the
 * guest's pointers are not checked yet when the tool sees the call.
 */
static void write_exec(UInt flags)
{
	struct {
		struct hwt_record_process rec;
		HChar empty_path[8];
	} exec;

	VG_(memset)(&exec, 0, sizeof(exec));
	exec.rec.hdr.flags = (UShort)flags;
	hwt_vg_process_record(&exec.rec.hdr, HWT_RECORD_EXEC, sizeof(exec));
}

/* System calls after which the process may be gone or replaced: save everything first. */
static Bool ends_image(UInt sysno)
{
	return sysno == __NR_execve || sysno == __NR_execveat || sysno == __NR_exit_group ||
	       sysno == __NR_exit || sysno == __NR_kill || sysno == __NR_tgkill ||
	       sysno == __NR_tkill;
}

/*
 * A static program's exec is not seen by the preloaded library (it does not
 * load it): the new image runs natively and unrecorded, so say so here.
 */
static void write_unfollowed(Addr path)
{
	static const HChar reason[] = "started by a statically linked program: not followed";
	ULong words[(sizeof(struct hwt_record_untraced) + 256 + sizeof(reason) + 7) / 8];
	HChar name[256];
	SizeT n = 0;
	UInt size;

	while (n < sizeof(name) - 1 && VG_(am_is_valid_for_client)(path + n, 1, VKI_PROT_READ) &&
	       *(const HChar *)(path + n)) {
		name[n] = *(const HChar *)(path + n);
		n++;
	}
	name[n] = '\0';
	size = hwt_record_untraced_build(words, sizeof(words), (UInt)VG_(getppid)(), 0, name,
					 sizeof(name), reason, sizeof(reason));
	hwt_vg_process_record((struct hwt_record_header *)words, HWT_RECORD_UNTRACED, size);
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs)
{
	(void)tid;
	(void)nargs;
	if (ends_image(sysno)) {
		if (sysno == __NR_execve || sysno == __NR_execveat) {
			if (hwt_vg_opts.unfollowed)
				write_unfollowed(sysno == __NR_execve ? args[0] : args[1]);
			write_exec(0);
		}
		hwt_vg_thread_drain_all();
	}
}

static void post_syscall(ThreadId tid, UInt sysno, UWord *args, UInt nargs, SysRes res)
{
	(void)tid;
	(void)nargs;
	if (sysno == __NR_execve || sysno == __NR_execveat) {
		write_exec(HWT_EXEC_FAILED); /* only a failed exec returns */
		return;
	}
	if ((sysno == __NR_clone || sysno == __NR_fork || sysno == __NR_vfork ||
	     sysno == __NR_clone3) && !sr_isError(res) && sr_Res(res) > 0) {
		/* clone3 passes flags in a struct; Valgrind 3.19 does not support it anyway. */
		Bool thread = sysno == __NR_clone && (args[0] & VKI_CLONE_THREAD);

		if (thread) {
			struct hwt_record_thread rec;

			VG_(memset)(&rec, 0, sizeof(rec));
			rec.child_tid = (UInt)sr_Res(res);
			hwt_vg_process_record(&rec.hdr, HWT_RECORD_THREAD_CREATE, sizeof(rec));
		} else {
			struct hwt_record_fork rec;

			VG_(memset)(&rec, 0, sizeof(rec));
			rec.child_pid = (UInt)sr_Res(res);
			hwt_vg_process_record(&rec.hdr, HWT_RECORD_FORK, sizeof(rec));
		}
	}
}

static void pre_fork(ThreadId tid)
{
	(void)tid;
	/* The child must not write the parent's buffered packets a second time. */
	hwt_vg_thread_drain_all();
}

static void child_after_fork(ThreadId tid)
{
	hwt_vg_thread_forget_all();
	/* The child's own image first: tracing resumes in the stream that the
	   thread opens when it is made current (thread.c). */
	hwt_vg_process_start_forked();
	hwt_vg_thread_set_current(tid);
}

static void fini(Int exitcode)
{
	/* A thread still in user mode dies with the process (a fatal signal). */
	hwt_vg_thread_interrupt_all();
	hwt_vg_thread_finish_all();
	hwt_vg_process_exit(exitcode);
}

static void pre_clo_init(void)
{
	VG_(details_name)("hwt");
	VG_(details_version)("0.1");
	VG_(details_description)("software Intel PT trace unit");
	VG_(details_copyright_author)("hwt developers");
	VG_(details_bug_reports_to)("the hwt issue tracker");

	VG_(basic_tool_funcs)(post_clo_init, hwt_vg_instrument, fini);
	VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
	VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);

	VG_(track_start_client_code)(start_client_code);
	VG_(track_stop_client_code)(stop_client_code);
	VG_(track_new_mem_startup)(new_mem_startup);
	VG_(track_new_mem_mmap)(new_mem_mmap);
	VG_(track_die_mem_munmap)(hwt_vg_image_unmapped);
	VG_(track_change_mem_mprotect)(hwt_vg_image_protected);
	VG_(track_pre_deliver_signal)(pre_deliver_signal);
	VG_(track_pre_thread_ll_exit)(thread_exit);
	VG_(atfork)(pre_fork, NULL, child_after_fork);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
