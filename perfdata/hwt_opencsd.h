/*
 * OpenCSD's C API (libopencsd_c_api), loaded the first time it is used.
 *
 * Linked, OpenCSD and the C++ runtime it brings were loaded and relocated
 * at the start of every hwt command, CoreSight trace or not: 1.2 of the
 * 2.6 ms that `hwt --version` took. Loaded here, only commands that read
 * ETMv4 or ETE trace pay for it, and Intel PT is decoded where OpenCSD is
 * not installed. The functions are those of <opencsd/c_api/opencsd_c_api.h>,
 * named without their ocsd_ prefix.
 */
#ifndef HWT_OPENCSD_H
#define HWT_OPENCSD_H

#include <opencsd/c_api/opencsd_c_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library loaded, by its soname (Debian's libopencsd1). */
#define HWT_OPENCSD_LIBRARY "libopencsd_c_api.so.1"

struct hwt_opencsd {
	__typeof__(ocsd_create_dcd_tree) *create_dcd_tree;
	__typeof__(ocsd_destroy_dcd_tree) *destroy_dcd_tree;
	__typeof__(ocsd_dt_process_data) *dt_process_data;
	__typeof__(ocsd_dt_create_decoder) *dt_create_decoder;
	__typeof__(ocsd_dt_attach_packet_callback) *dt_attach_packet_callback;
	__typeof__(ocsd_dt_set_gen_elem_outfn) *dt_set_gen_elem_outfn;
	__typeof__(ocsd_dt_add_callback_mem_acc) *dt_add_callback_mem_acc;
	__typeof__(ocsd_dt_remove_mem_acc) *dt_remove_mem_acc;
	__typeof__(ocsd_pkt_str) *pkt_str;
	__typeof__(ocsd_def_errlog_init) *def_errlog_init;
};

/*
 * The API, loaded on the first call (from any thread; it stays loaded), or
 * NULL when the library or one of its functions cannot be found:
 * hwt_opencsd_error then says why.
 */
const struct hwt_opencsd *hwt_opencsd(void);
const char *hwt_opencsd_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HWT_OPENCSD_H */
