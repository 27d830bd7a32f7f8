/* OpenCSD's C API, loaded when first used (hwt_opencsd.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* Built with AddressSanitizer (gcc says so one way, clang another). */
#if defined(__SANITIZE_ADDRESS__)
#define HWT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HWT_ASAN 1
#endif
#endif
#ifdef HWT_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#include "hwt_opencsd.h"

static struct hwt_opencsd api;
static const struct hwt_opencsd *loaded;
static char why[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "dlsym gives functions as void *");

/* The library's function name into the function pointer at fn; 0, or -1
   (why says it). */
static int find(void *library, const char *name, void *fn)
{
	void *symbol = dlsym(library, name);

	if (!symbol) {
		snprintf(why, sizeof(why), "%s has no %s", HWT_OPENCSD_LIBRARY, name);
		return -1;
	}
	memcpy(fn, &symbol, sizeof(symbol));
	return 0;
}

#ifdef HWT_ASAN
/*
 * LeakSanitizer checks at the very end of the process, after the static
 * destructors of a library loaded with dlopen. OpenCSD's C API then has
 * freed its map of trees first, and what only the map held (the callbacks
 * of the trees that live until the process ends: etm_stream.c) reads as
 * leaked. The check, whole, runs here instead: registered once OpenCSD is
 * loaded, so after everything of hwt's and before OpenCSD's destructors,
 * with OpenCSD's memory still reachable. (Matching those false leaks
 * against a suppression made the sanitizer read the debug information of
 * every library at every exit: 0.3 CPU-s and 40 MB a run.) It does
 * nothing when leaks are not checked (ASAN_OPTIONS=detect_leaks=0), and
 * the check at the end is then skipped: it ran.
 */
static void check_leaks(void)
{
	__lsan_do_leak_check();
}
#endif

static void load(void)
{
	/* Never closed: trees and callbacks live in it until the process ends. */
	void *library = dlopen(HWT_OPENCSD_LIBRARY, RTLD_NOW | RTLD_LOCAL);

	if (!library) {
		const char *error = dlerror();

		snprintf(why, sizeof(why), "%s", error ? error : HWT_OPENCSD_LIBRARY);
		return;
	}
	if (find(library, "ocsd_create_dcd_tree", &api.create_dcd_tree) ||
	    find(library, "ocsd_destroy_dcd_tree", &api.destroy_dcd_tree) ||
	    find(library, "ocsd_dt_process_data", &api.dt_process_data) ||
	    find(library, "ocsd_dt_create_decoder", &api.dt_create_decoder) ||
	    find(library, "ocsd_dt_attach_packet_callback", &api.dt_attach_packet_callback) ||
	    find(library, "ocsd_dt_set_gen_elem_outfn", &api.dt_set_gen_elem_outfn) ||
	    find(library, "ocsd_dt_add_callback_mem_acc", &api.dt_add_callback_mem_acc) ||
	    find(library, "ocsd_dt_remove_mem_acc", &api.dt_remove_mem_acc) ||
	    find(library, "ocsd_pkt_str", &api.pkt_str) ||
	    find(library, "ocsd_def_errlog_init", &api.def_errlog_init))
		return;
#ifdef HWT_ASAN
	(void)atexit(check_leaks);
#endif
	loaded = &api;
}

const struct hwt_opencsd *hwt_opencsd(void)
{
	pthread_once(&once, load);
	return loaded;
}

const char *hwt_opencsd_error(void)
{
	pthread_once(&once, load);
	return loaded ? "" : why;
}
