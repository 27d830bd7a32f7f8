/* A file's DWARF and its compilation units (hwt_dwarf.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "dwarf_int.h"
#include "hwt_dwarf.h"

struct hwt_dwarf {
	int fd;
	Dwarf_Debug dbg;
	Dwarf_Die cu;     /* the unit handed out last */
	int units;        /* units handed out */
	int done;         /* the walk of the units has ended */
};

int hwt_dwarf_open(const char *path, struct hwt_dwarf **dwarf)
{
	struct hwt_dwarf *dw;
	Dwarf_Error err = NULL;
	int res;

	if (!path || !dwarf)
		return -hde_invalid;
	*dwarf = NULL;
	dw = calloc(1, sizeof(*dw));
	if (!dw)
		return -hde_nomem;
	dw->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (dw->fd < 0) {
		free(dw);
		return -hde_io;
	}
	res = dwarf_init_b(dw->fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dw->dbg, &err);
	if (res != DW_DLV_OK) {
		/* An error made before there was a dbg is released without one. */
		if (err)
			dwarf_dealloc(NULL, err, DW_DLA_ERROR);
		close(dw->fd);
		free(dw);
		return res == DW_DLV_NO_ENTRY ? -hde_no_debug : -hde_dwarf;
	}
	*dwarf = dw;
	return 0;
}

void hwt_dwarf_close(struct hwt_dwarf *dw)
{
	Dwarf_Error err = NULL;

	if (!dw)
		return;
	if (dw->cu)
		dwarf_dealloc_die(dw->cu);
	dwarf_finish(dw->dbg, &err);
	close(dw->fd);
	free(dw);
}

Dwarf_Debug hwt_dwarf_debug(const struct hwt_dwarf *dw)
{
	return dw->dbg;
}

int hwt_dwarf_next_cu(struct hwt_dwarf *dw, struct hwt_dwarf_cu *cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned next = 0;

	if (dw->cu)
		dwarf_dealloc_die(dw->cu);
	dw->cu = NULL;
	while (!dw->done) {
		Dwarf_Half version = 0, type = 0;
		int res = dwarf_next_cu_header_d(dw->dbg, 1, NULL, &version, NULL, NULL, NULL, NULL,
						 NULL, NULL, &next, &type, &err);

		if (res == DW_DLV_ERROR) {
			hwt_dwarf_drop_error(dw->dbg, &err);
			dw->done = 1;
			return dw->units ? 0 : -hde_dwarf;
		}
		if (res != DW_DLV_OK)
			break;
		if (dwarf_siblingof_b(dw->dbg, NULL, 1, &dw->cu, &err) != DW_DLV_OK) {
			hwt_dwarf_drop_error(dw->dbg, &err);
			dw->cu = NULL;
			continue;
		}
		dw->units++;
		cu->die = dw->cu;
		if (dwarf_lowpc(dw->cu, &cu->base, &err) != DW_DLV_OK) {
			hwt_dwarf_drop_error(dw->dbg, &err);
			cu->base = 0;
		}
		return 1;
	}
	/* After its last unit libdwarf would begin again with the first. */
	dw->done = 1;
	return 0;
}
