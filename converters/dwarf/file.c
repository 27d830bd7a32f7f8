/* A file's DWARF and its compilation units (hwt_dwarf.h). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gelf.h>
#include <libelf.h>

#include "dwarf_int.h"
#include "hwt_dwarf.h"

struct hwt_dwarf {
	int fd;
	Dwarf_Debug dbg;
	Dwarf_Die cu;     /* the unit handed out last */
	int units;        /* units handed out */
	int done;         /* the walk of the units has ended */
	Elf *elf;         /* libelf's view, for the raw .debug_line */
	int line_read;    /* line_data was looked for */
	const uint8_t *line_data;
	size_t line_size;
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
	if (dw->elf)
		elf_end(dw->elf);
	dwarf_finish(dw->dbg, &err);
	close(dw->fd);
	free(dw);
}

Dwarf_Debug hwt_dwarf_debug(const struct hwt_dwarf *dw)
{
	return dw->dbg;
}

const uint8_t *hwt_dwarf_line_section(struct hwt_dwarf *dw, size_t *size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!dw->line_read) {
		dw->line_read = 1;
		elf_version(EV_CURRENT);
		dw->elf = elf_begin(dw->fd, ELF_C_READ_MMAP, NULL);
		if (dw->elf && elf_getshdrstrndx(dw->elf, &shstrndx) == 0) {
			while ((scn = elf_nextscn(dw->elf, scn)) != NULL) {
				GElf_Shdr sh;
				const char *name;
				Elf_Data *data;

				if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
				    (sh.sh_flags & SHF_COMPRESSED))
					continue;
				name = elf_strptr(dw->elf, shstrndx, sh.sh_name);
				if (!name || strcmp(name, ".debug_line"))
					continue;
				data = elf_getdata(scn, NULL);
				if (data && data->d_buf) {
					dw->line_data = data->d_buf;
					dw->line_size = data->d_size;
				}
				break;
			}
		}
	}
	*size = dw->line_size;
	return dw->line_data;
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
