/* OpenCSD's C API, loaded when first used (hwt_opencsd.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

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

#if defined(__SANITIZE_ADDRESS__)
/*
 * LeakSanitizer runs after the exit handlers, and a library loaded with
 * dlopen registers its static destructors after it: OpenCSD's C API then
 * frees its map of trees first, and the records of the trees that live
 * until the process ends (etm_stream.c) read as leaked. Linked, it was not
 * so. Leaks of what OpenCSD allocates are OpenCSD's (1.3.3 has one known
 * leak of its own: etm_stream.c).
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:" HWT_OPENCSD_LIBRARY "\n";
}

/* ... without a table of the suppressions used on stderr at every exit,
   which commands' messages are compared with in tests. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
#endif
