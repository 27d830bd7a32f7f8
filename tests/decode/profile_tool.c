/*
 * Test driver for the decoder and the profile library:
 *
 *   profile_tool report BUNDLE -o OUT [...]  as `hwt report profile`
 *   profile_tool merge -o OUT IN...          as `hwt merge`
 *   profile_tool insns PROFILE               per-instruction counts of every
 *       reported image: "image PATH" then
 *       "VADDR COUNT TAKEN NOT_TAKEN LENGTH BRANCH REP" lines (hex vaddr,
 *       BRANCH the classifier's name); an image whose file cannot be read gives
 *       "image-error PATH: why".
 *   profile_tool total PROFILE               total instructions executed
 *   profile_tool maps BUNDLE [PID]           every MMAP record of the bundle
 *       (of the images of PID, in generation order):
 *       "START END VADDR PATH" (hex; VADDR: the ELF virtual address at START)
 *   profile_tool live SRC DEST OUT [grow]    the decode while recording, on
 *       SRC copied into DEST piece by piece (live_replay.c)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "elf_file.h"
#include "hwt_decode.h"
#include "live_replay.h"
#include "x86_insn.h"

static int insns_main(const char *path)
{
	struct hwt_profile *p = hwt_profile_alloc();
	size_t line = 0;
	int status;

	if (!p)
		return 2;
	status = hwt_profile_load(p, path, &line);
	if (status < 0) {
		fprintf(stderr, "profile_tool: %s:%zu: %s\n", path, line, hwt_profile_errstr(status));
		hwt_profile_free(p);
		return 2;
	}
	for (size_t i = 0; i < hwt_profile_image_count(p); i++) {
		const struct hwt_profile_image *img = hwt_profile_image_at(p, i);
		struct hwt_profile_insn *insns;
		size_t n;

		if (img->flags & HWT_PROFILE_IMAGE_TRACE_UNIT)
			continue;
		status = hwt_profile_image_insns(p, i, NULL, &insns, &n);
		if (status < 0) {
			printf("image-error %s: %s\n", img->path, hwt_profile_errstr(status));
			continue;
		}
		printf("image %s\n", img->path);
		for (size_t k = 0; k < n; k++)
			printf("%" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %u %s %d\n",
			       insns[k].vaddr, insns[k].count, insns[k].taken, insns[k].not_taken,
			       insns[k].length, hwt_x86_branch_name(insns[k].branch),
			       !!(insns[k].x86_flags & HWT_X86_REP));
		free(insns);
	}
	hwt_profile_free(p);
	return 0;
}

static int total_main(const char *path)
{
	struct hwt_profile *p = hwt_profile_alloc();
	size_t line = 0;
	int status;

	if (!p)
		return 2;
	status = hwt_profile_load(p, path, &line);
	if (status < 0) {
		fprintf(stderr, "profile_tool: %s:%zu: %s\n", path, line, hwt_profile_errstr(status));
		hwt_profile_free(p);
		return 2;
	}
	printf("%" PRIu64 "\n", hwt_profile_total_insns(p));
	hwt_profile_free(p);
	return 0;
}

static int maps_main(const char *dir, const char *pid)
{
	struct hwt_bundle *b = hwt_bundle_alloc();
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;

	if (!b || !sb || hwt_bundle_open(b, dir) < 0) {
		fprintf(stderr, "profile_tool: cannot open %s\n", dir);
		return 2;
	}
	for (size_t i = 0; i < hwt_bundle_image_count(b); i++) {
		if (pid && hwt_bundle_image_at(b, i)->pid != strtoul(pid, NULL, 10))
			continue;
		if (hwt_sideband_open(sb, hwt_bundle_image_at(b, i)->path) < 0)
			continue;
		while (hwt_sideband_next(sb, &rec) == 0) {
			const struct hwt_record_mmap *r;
			struct hwt_elf_file f;
			uint64_t vaddr;

			if (!rec.known || rec.hdr->type != HWT_RECORD_MMAP || !rec.path || !rec.path[0])
				continue;
			r = rec.u.mmap;
			vaddr = r->pgoff;
			if (hwt_elf_file_open(&f, rec.path) == 0) {
				vaddr = hwt_elf_file_vaddr(&f, r->pgoff);
				hwt_elf_file_close(&f);
			}
			printf("%" PRIx64 " %" PRIx64 " %" PRIx64 " %s\n", r->addr, r->addr + r->len,
			       vaddr, rec.path);
		}
	}
	hwt_sideband_free(sb);
	hwt_bundle_free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return hwt_report_profile_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "merge"))
		return hwt_merge_main(argc - 1, argv + 1);
	if (argc == 3 && !strcmp(argv[1], "insns"))
		return insns_main(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "total"))
		return total_main(argv[2]);
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "maps"))
		return maps_main(argv[2], argc == 4 ? argv[3] : NULL);
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "grow"))) && !strcmp(argv[1], "live"))
		return hwt_live_replay_main(argv[2], argv[3], argv[4], argc == 6);
	fprintf(stderr, "usage: profile_tool report|merge|insns|total|maps|live ...\n");
	return 2;
}
