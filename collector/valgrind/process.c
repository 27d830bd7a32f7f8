/*
 * The process image being traced: its sideband file, its generation in the
 * bundle and its sideband clock (docs/bundle.md, "Clock").
 */
#include "tool.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"
#include "pub_tool_xarray.h"

ULong hwt_vg_process_clock;

static Bool sideband_open;
static HChar sideband_name[48];
static UInt generation;
static HChar image_name[32];
static Bool lost_write; /* a sideband write failed: said once */

const HChar *hwt_vg_process_name(void)
{
	return image_name;
}

void hwt_vg_process_record(struct hwt_record_header *hdr, UInt type, UInt size)
{
	/* Blocks that ran before this record must be in the streams before its time. */
	hwt_vg_thread_flush_log();
	hwt_record_finish(hdr, (UShort)type, size, ++hwt_vg_process_clock, (UInt)VG_(getpid)(),
			  (UInt)VG_(gettid)());
	if (!sideband_open || !hwt_vg_file_append("sideband", sideband_name, hdr, hdr->size)) {
		if (!lost_write)
			VG_(umsg)("hwt: cannot write the sideband of %s: records lost\n", image_name);
		lost_write = True;
	}
}

/* Creates sideband/<pid>.<gen>.sb with the smallest free generation. */
static void open_sideband(void)
{
	Int pid = VG_(getpid)();

	sideband_open = False;
	for (generation = 0; generation < 100000; generation++) {
		HChar path[VKI_PATH_MAX];
		struct vg_stat st;

		VG_(sprintf)(image_name, "%d.%u", pid, generation);
		VG_(sprintf)(sideband_name, "%s.sb", image_name);
		if (hwt_vg_file_create("sideband", sideband_name, True)) {
			sideband_open = True;
			return;
		}
		/* Only an existing file is worth another try; other errors were reported. */
		VG_(sprintf)(path, "%s/sideband/%s", hwt_vg_opts.bundle, sideband_name);
		if (sr_isError(VG_(stat)(path, &st)))
			break;
	}
	VG_(umsg)("hwt: cannot create a sideband file in %s/sideband: nothing will be recorded\n",
		  hwt_vg_opts.bundle);
}

/*
 * PROCESS_START. Valgrind keeps the executable's path, not the original
 * argv[0], so the path stands for argv[0] too.
 */
static void write_process_start(void)
{
	static ULong words[HWT_RECORD_MAX_SIZE / 8];
	struct hwt_record_process *rec = (struct hwt_record_process *)words;
	Word i, n = VG_(sizeXA)(VG_(args_for_client));
	const HChar **argv = VG_(malloc)("hwt.process.argv", (n + 1) * sizeof(*argv));

	argv[0] = VG_(args_the_exename);
	for (i = 0; i < n; i++)
		argv[i + 1] = *(HChar **)VG_(indexXA)(VG_(args_for_client), i);
	hwt_vg_process_record(&rec->hdr, HWT_RECORD_PROCESS_START,
			      hwt_record_process_build(words, sizeof(words), (UInt)VG_(getppid)(),
						       generation, VG_(args_the_exename), argv,
						       (UInt)n + 1));
	VG_(free)(argv);
}

struct hwt_trace_budget *hwt_vg_budget;

/* In the core, not in pub_tool_*.h: a shared mapping that aspacemgr knows of. */
extern SysRes VG_(am_shared_mmap_file_float_valgrind)(SizeT length, UInt prot, Int fd,
						       Off64T offset);

/* Maps the run's select/trace-budget when `hwt record` made one (--max-trace-size). */
static void map_budget(void)
{
	HChar path[VKI_PATH_MAX];
	SysRes res;
	Int fd;

	if (VG_(strlen)(hwt_vg_opts.bundle) + sizeof("/" HWT_TRACE_BUDGET_FILE) > sizeof(path))
		return;
	VG_(sprintf)(path, "%s/" HWT_TRACE_BUDGET_FILE, hwt_vg_opts.bundle);
	res = VG_(open)(path, VKI_O_RDWR, 0);
	if (sr_isError(res))
		return; /* no cap */
	fd = (Int)sr_Res(res);
	res = VG_(am_shared_mmap_file_float_valgrind)(HWT_TRACE_BUDGET_SIZE,
						      VKI_PROT_READ | VKI_PROT_WRITE, fd, 0);
	VG_(close)(fd);
	if (!sr_isError(res))
		hwt_vg_budget = (struct hwt_trace_budget *)sr_Res(res);
}

void hwt_vg_process_start(void)
{
	map_budget();
	open_sideband();
	write_process_start();
	hwt_vg_image_trace_unit();
}

void hwt_vg_process_start_forked(void)
{
	hwt_vg_process_clock = 0;
	open_sideband();
	write_process_start();
	/* The child has its parent's mappings: its own file must say so. */
	hwt_vg_image_replay();
}

void hwt_vg_process_lost(UInt reason, UInt records, ULong bytes)
{
	hwt_record_write_lost(hwt_vg_process_record, reason, records, bytes);
}

void hwt_vg_process_exit(Int status)
{
	hwt_record_write_exit(hwt_vg_process_record, status);
	sideband_open = False;
}
