/*
 * Process images: the files sideband/<pid>.<gen>.sb and what they say, and
 * the processes that ran natively, one UNTRACED record each in
 * sideband/untraced.sb (docs/bundle.md).
 */
#include "bundle_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNTRACED_FILE "untraced.sb"

/*
 * The open keeps what it read of the sideband files of up to this size, up
 * to KEEP_TOTAL in all, for hwt_bundle_image_open: a decode reads every
 * image's records again, and a suite's hundreds of small files cost four
 * system calls each to read (docs/decode.md says how long).
 */
#define KEEP_FILE_MAX ((size_t)1 << 20)
#define KEEP_TOTAL ((size_t)64 << 20)

/* What the name of an image's file says: "<pid>.<gen>.sb", or untraced.sb. */
struct image_name {
	uint32_t pid, gen;
	int untraced;
	char *untraced_path;  /* sideband/untraced.sb, when there is one */
};

static int parse_name(const char *name, void *ctx)
{
	struct image_name *n = ctx;
	const char *p = name;

	n->untraced = strcmp(name, UNTRACED_FILE) == 0;
	if (n->untraced)
		return 0;
	if (hwt_parse_u32(&p, &n->pid) || *p++ != '.' || hwt_parse_u32(&p, &n->gen))
		return -1;
	return strcmp(p, ".sb") ? -1 : 0;
}

static int add_image(struct hwt_bundle *bundle, void *ctx, char *path, uint64_t size)
{
	struct image_name *n = ctx;
	struct hwt_bundle_image *image;
	int err;

	if (n->untraced) {
		/* Its records become images once the files are listed. */
		n->untraced_path = path;
		return 0;
	}

	err = hwt_grow((void **)&bundle->images, &bundle->cap_images, bundle->nimages + 1,
		       sizeof(*bundle->images));
	if (err) {
		free(path);
		return err;
	}
	image = &bundle->images[bundle->nimages++];
	memset(image, 0, sizeof(*image));
	image->pid = n->pid;
	image->generation = n->gen;
	image->path = path;
	image->size = size;
	image->name = hwt_strdup_printf("%" PRIu32 ".%" PRIu32, n->pid, n->gen);
	return image->name ? 0 : -hbe_nomem;
}

static int image_cmp(const void *a, const void *b)
{
	const struct hwt_bundle_image *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->generation != y->generation)
		return x->generation < y->generation ? -1 : 1;
	return 0;
}

/* An UNTRACED record of untraced.sb, in file order. */
struct native {
	uint32_t pid;
	size_t order;
	uint64_t offset, size;
};

static int native_cmp(const void *a, const void *b)
{
	const struct native *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The largest generation of pid among the images listed so far (sorted), or -1. */
static int64_t last_generation(const struct hwt_bundle *bundle, size_t nfile, uint32_t pid)
{
	size_t lo = 0, hi = nfile;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (bundle->images[mid].pid <= pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && bundle->images[lo - 1].pid == pid)
		return bundle->images[lo - 1].generation;
	return -1;
}

/*
 * untraced.sb: processes that ran natively, one UNTRACED record each,
 * appended by the preloaded library; a record with HWT_UNTRACED_CANCEL takes
 * back its pid's last one (that exec failed). Each record becomes an image
 * whose generation follows its pid's files (a native image has no streams
 * to match); damage ends the list, with a warning, as in any sideband file.
 */
static int add_natives(struct hwt_bundle *bundle, const char *path)
{
	struct hwt_sideband *sb = hwt_sideband_alloc();
	struct hwt_sideband_record rec;
	struct native *list = NULL;
	size_t n = 0, cap = 0, nfile = bundle->nimages, i, k;
	int status, err = 0;

	if (!sb)
		return -hbe_nomem;
	status = hwt_sideband_open(sb, path);
	while (status == 0 && (status = hwt_sideband_next(sb, &rec)) == 0) {
		if (rec.hdr->type != HWT_RECORD_UNTRACED) {
			err = hwt_bundle_diag_add(bundle, hwt_diag_mismatch, path, (int64_t)rec.offset,
						  "%s record in " UNTRACED_FILE ", ignored",
						  hwt_record_type_name(rec.hdr->type));
		} else if (rec.hdr->flags & HWT_UNTRACED_CANCEL) {
			for (k = n; k-- > 0;)
				if (list[k].pid == rec.hdr->pid) {
					memmove(&list[k], &list[k + 1], (n - k - 1) * sizeof(*list));
					n--;
					break;
				}
		} else if (!(err = hwt_grow((void **)&list, &cap, n + 1, sizeof(*list)))) {
			list[n].pid = rec.hdr->pid;
			list[n].order = n;
			list[n].offset = rec.offset;
			list[n].size = rec.hdr->size;
			n++;
		}
		if (err)
			break;
	}
	if (!err && status != -hbe_eos)
		err = hwt_bundle_diag_add(bundle,
					  status == -hbe_torn ? hwt_diag_torn
					  : status == -hbe_corrupt ? hwt_diag_corrupt : hwt_diag_io,
					  path, (int64_t)hwt_sideband_offset(sb),
					  "%s; kept the %zu native processes before it",
					  hwt_sideband_error(sb), n);
	hwt_sideband_free(sb);

	/* The file images are sorted: each pid's native images come after them. */
	qsort(list, n, sizeof(*list), native_cmp);
	for (i = 0; i < n && !err; i++) {
		struct hwt_bundle_image *image;
		int64_t last = i > 0 && list[i - 1].pid == list[i].pid
				       ? (int64_t)bundle->images[bundle->nimages - 1].generation
				       : last_generation(bundle, nfile, list[i].pid);

		err = hwt_grow((void **)&bundle->images, &bundle->cap_images, bundle->nimages + 1,
			       sizeof(*bundle->images));
		if (err)
			break;
		image = &bundle->images[bundle->nimages];
		memset(image, 0, sizeof(*image));
		image->pid = list[i].pid;
		image->generation = (uint32_t)(last + 1);
		image->shared = 1;
		image->offset = list[i].offset;
		image->size = list[i].size;
		image->path = strdup(path);
		image->name = hwt_strdup_printf("%" PRIu32 ".%" PRIu32, image->pid,
						image->generation);
		if (!image->path || !image->name) {
			free((char *)image->path);
			free((char *)image->name);
			err = -hbe_nomem;
			break;
		}
		bundle->nimages++;
	}
	free(list);
	return err;
}

int hwt_bundle_images_list(struct hwt_bundle *bundle)
{
	struct image_name name = { 0 };
	int err = hwt_bundle_list_folder(bundle, "sideband", "process images", "<pid>.<gen>.sb",
					 parse_name, add_image, &name);

	if (bundle->nimages > 1)
		qsort(bundle->images, bundle->nimages, sizeof(*bundle->images), image_cmp);
	if (!err && name.untraced_path) {
		err = add_natives(bundle, name.untraced_path);
		if (bundle->nimages > 1)
			qsort(bundle->images, bundle->nimages, sizeof(*bundle->images), image_cmp);
	}
	free(name.untraced_path);
	return err;
}

int hwt_bundle_image_open(struct hwt_sideband *sb, const struct hwt_bundle_image *image)
{
	/* The records before end_offset checked (0 while the open checks them) */
	if (image->bytes)
		return hwt_sideband_open_bytes(sb, image->path, image->bytes, image->bytes_size,
					       (size_t)image->end_offset);
	return image->shared ? hwt_sideband_open_range(sb, image->path, image->offset, image->size)
			     : hwt_sideband_open(sb, image->path);
}

/* The image's file read into memory, when it is small and *kept (bytes
   kept so far) allows: kept by the image, whose records are read from it.
   dir_fd: the sideband folder (its files are opened by name). */
static void image_keep(struct hwt_bundle_image *image, int dir_fd, size_t *kept)
{
	const char *name = strrchr(image->path, '/');
	void *bytes;

	if (image->shared || image->size > KEEP_FILE_MAX || *kept + image->size > KEEP_TOTAL ||
	    hwt_file_read_listed(dir_fd, dir_fd >= 0 && name ? name + 1 : image->path,
				 (size_t)image->size, &bytes) < 0)
		return; /* read from the file, which says what is wrong */
	image->bytes = bytes;
	image->bytes_size = (size_t)image->size;
	*kept += image->bytes_size;
}

const struct hwt_bundle_image *hwt_bundle_image_find(const struct hwt_bundle *bundle,
						     uint32_t pid, uint32_t generation)
{
	struct hwt_bundle_image key;

	if (!bundle || !bundle->nimages)
		return NULL;
	key.pid = pid;
	key.generation = generation;
	return bsearch(&key, bundle->images, bundle->nimages, sizeof(*bundle->images),
		       image_cmp);
}

size_t hwt_bundle_image_count(const struct hwt_bundle *bundle)
{
	return bundle ? bundle->nimages : 0;
}

const struct hwt_bundle_image *hwt_bundle_image_at(const struct hwt_bundle *bundle, size_t i)
{
	if (!bundle || i >= bundle->nimages)
		return NULL;
	return &bundle->images[i];
}

/* Reads one image's sideband through: fills the image, adds diagnostics. */
static int image_check(struct hwt_bundle *bundle, struct hwt_sideband *sb,
		       struct hwt_bundle_image *image, int dir_fd, size_t *kept)
{
	struct hwt_sideband_record rec;
	uint64_t first_type = 0;
	int status, err;

	image_keep(image, dir_fd, kept);
	status = hwt_bundle_image_open(sb, image);
	if (status < 0) {
		image->end = status;
		return hwt_bundle_diag_add(bundle, hwt_diag_io, image->path, -1,
					   "cannot read: %s", hwt_sideband_error(sb));
	}
	while ((status = hwt_sideband_next(sb, &rec)) == 0) {
		const struct hwt_record_header *hdr = rec.hdr;

		if (image->records++ == 0) {
			first_type = hdr->type;
			image->native = hdr->type == HWT_RECORD_UNTRACED;
			if (hdr->type == HWT_RECORD_PROCESS_START) {
				image->has_start = 1;
				if (hdr->pid != image->pid ||
				    rec.u.process->generation != image->generation) {
					err = hwt_bundle_diag_add(
						bundle, hwt_diag_mismatch, image->path, 0,
						"process-start says pid %" PRIu32
						" generation %" PRIu32
						" but the file is named for %s",
						hdr->pid, rec.u.process->generation, image->name);
					if (err)
						return err;
				}
			}
		}
		switch (hdr->type) {
		case HWT_RECORD_PROCESS_EXIT:
			image->has_exit = 1;
			image->exit_status = rec.u.exit->status;
			break;
		case HWT_RECORD_EXEC:
			/* A failed execve leaves the image going on. */
			if (!(hdr->flags & HWT_EXEC_FAILED))
				image->has_exec = 1;
			break;
		case HWT_RECORD_LOST:
			image->lost++;
			image->lost_records += rec.u.lost->records;
			image->lost_bytes += rec.u.lost->bytes;
			break;
		case HWT_RECORD_UNTRACED:
			image->untraced++;
			break;
		default:
			break;
		}
	}
	image->end = status == -hbe_eos ? 0 : status;
	image->end_offset = hwt_sideband_offset(sb);

	if (image->end) {
		enum hwt_diag_kind kind = status == -hbe_torn ? hwt_diag_torn
					  : status == -hbe_corrupt ? hwt_diag_corrupt
					  : hwt_diag_io;

		err = hwt_bundle_diag_add(bundle, kind, image->path, (int64_t)image->end_offset,
					  "%s; kept the %" PRIu64 " records before it"
					  "%s",
					  hwt_sideband_error(sb), image->records,
					  status == -hbe_corrupt ? ", ignored the rest" : "");
		if (err)
			return err;
	}
	if (image->records == 0 && !image->end)
		err = hwt_bundle_diag_add(bundle, hwt_diag_no_start, image->path, -1,
					  "no records: the image has no process-start record");
	else if (image->records == 0 || image->native)
		err = 0;
	else if (!image->has_start)
		err = hwt_bundle_diag_add(bundle, hwt_diag_no_start, image->path, 0,
					  "first record is %s, not process-start",
					  hwt_record_type_name((uint32_t)first_type));
	else
		err = 0;
	if (err)
		return err;
	if (!image->has_exit && !image->has_exec && !image->native) {
		err = hwt_bundle_diag_add(bundle, hwt_diag_no_exit, image->path, -1,
					  "no exit record: killed?");
		if (err)
			return err;
	}
	if (image->lost) {
		err = hwt_bundle_diag_add(bundle, hwt_diag_lost, image->path, -1,
					  "data was lost: %" PRIu64 " sideband records and %"
					  PRIu64 " trace bytes were dropped (%" PRIu64
					  " lost record%s)", image->lost_records, image->lost_bytes,
					  image->lost, image->lost == 1 ? "" : "s");
		if (err)
			return err;
	}
	return 0;
}

int hwt_bundle_images_check(struct hwt_bundle *bundle)
{
	struct hwt_sideband *sb;
	uint64_t lost = 0, lost_images = 0, records = 0, bytes = 0;
	size_t i, kept = 0;
	int err = 0, dir_fd = -1;
	char *dir;

	sb = hwt_sideband_alloc();
	dir = hwt_path_join(bundle->dir, "sideband");
	if (!sb || !dir) {
		hwt_sideband_free(sb);
		free(dir);
		return -hbe_nomem;
	}
	/* Its files opened by name, not their whole paths walked again
	   (AT_FDCWD when it cannot be opened: each file then says why). */
	dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	for (i = 0; i < bundle->nimages && !err; i++) {
		struct hwt_bundle_image *image = &bundle->images[i];

		err = image_check(bundle, sb, image, dir_fd >= 0 ? dir_fd : AT_FDCWD, &kept);
		if (image->lost) {
			lost += image->lost;
			lost_images++;
			records += image->lost_records;
			bytes += image->lost_bytes;
		}
	}
	if (dir_fd >= 0)
		close(dir_fd);
	hwt_sideband_free(sb);
	if (!err && lost_images > 1)
		err = hwt_bundle_diag_add(bundle, hwt_diag_lost, NULL, -1,
					  "in all, data was lost in %" PRIu64 " images: %" PRIu64
					  " sideband records and %" PRIu64 " trace bytes were "
					  "dropped (%" PRIu64 " lost records)",
					  lost_images, records, bytes, lost);
	return err;
}
