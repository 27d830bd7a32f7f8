/*
 * SPE records into profile counts: a one-instruction block per sampled PC,
 * an edge per branch record, each counted interval times (hwt_spe_profile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "a64_insn.h"
#include "spe_int.h"
#include "spe_packet.h"

/*
 * The interval the bundle was recorded with (its header's spe_interval),
 * else 1 when it has none (an older bundle: counts are then samples).
 */
static uint64_t hwt_spe_bundle_interval(const struct hwt_bundle *bundle)
{
	const char *v = bundle ? hwt_bundle_key(bundle, "spe_interval") : NULL;
	unsigned long long n;
	char *end;

	if (!v)
		return 1;
	errno = 0;
	n = strtoull(v, &end, 10);
	return errno || *end || !n || v[0] == '-' ? 1 : (uint64_t)n;
}

/* A file mapped read-only into *data (NULL when empty): 0, or -1 (errno says why). */
static int map_file(const char *path, const uint8_t **data, size_t *size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	*data = NULL;
	*size = 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return -1;
	}
	if (st.st_size > 0) {
		/* SPE files run to hundreds of MB: the page cache, not a copy. */
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (p == MAP_FAILED) {
			close(fd);
			return -1;
		}
		*data = p;
		*size = (size_t)st.st_size;
	}
	close(fd);
	return 0;
}

/*
 * The profile's kind of a taken branch that is not conditional: the
 * instruction's own (calls and returns are told apart only there), else
 * what the record's class says.
 */
static enum hwt_profile_edge_kind branch_kind(const struct spe_file *file, uint64_t offset,
					      const struct hwt_spe_record *r)
{
	struct hwt_a64_insn insn;

	if (file->readable && offset + 4 <= file->elf.size && file->elf.data) {
		switch (hwt_a64_insn_decode(hwt_a64_insn_word(file->elf.data + offset), &insn)) {
		case HWT_A64_JUMP: return hwt_edge_jump;
		case HWT_A64_CALL: return hwt_edge_call;
		case HWT_A64_JUMP_INDIRECT: return hwt_edge_indirect_jump;
		case HWT_A64_CALL_INDIRECT: return hwt_edge_indirect_call;
		case HWT_A64_RETURN: return hwt_edge_return;
		case HWT_A64_EXCEPTION_RETURN:
		case HWT_A64_EXCEPTION: return hwt_edge_far;
		default: break;
		}
	}
	return r->op & HWT_SPE_OP_BR_INDIRECT ? hwt_edge_indirect_jump : hwt_edge_jump;
}

struct convert {
	struct hwt_bundle *bundle;
	struct hwt_profile *profile;
	uint64_t interval;
	struct hwt_spe_profile_stats *stats;
};

static int add_record(struct convert *c, const struct spe_space *space,
		      const struct hwt_spe_record *r)
{
	uint64_t time = r->has & HWT_SPE_HAS_TIMESTAMP ? r->timestamp : UINT64_MAX;
	const struct spe_map_event *at, *to;
	struct hwt_profile_edge edge = { 0 };
	uint64_t pc, offset, target;
	int err;

	if (!(r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_PC)))
		return 0; /* no PC: nothing to count (said as unmapped) */
	pc = hwt_spe_addr(r->addr[HWT_SPE_ADDR_PC]);
	at = spe_space_find(space, pc, time);
	if (!at) {
		c->stats->unmapped++;
		return 0;
	}
	offset = pc - at->start + at->pgoff;
	err = hwt_profile_add_block(c->profile, (size_t)at->file->image, offset, offset, 1,
				    c->interval);
	if (err < 0)
		return err == -hpe_nomem ? -hspe_nomem : 0;
	if (r->op_class != HWT_SPE_OP_BRANCH || !(r->has & HWT_SPE_HAS_ADDR(HWT_SPE_ADDR_TARGET)))
		return 0;
	c->stats->branches++;
	edge.from_image = (uint32_t)at->file->image;
	edge.from = offset;
	edge.count = c->interval;
	if ((r->op & HWT_SPE_OP_COND) && (r->events & HWT_SPE_EV_NOT_TAKEN)) {
		/* Not taken: on to the next instruction, as the branch trace says it. */
		edge.kind = hwt_edge_cond_not_taken;
		edge.to_image = edge.from_image;
		edge.to = offset + 4;
	} else {
		target = hwt_spe_addr(r->addr[HWT_SPE_ADDR_TARGET]);
		to = spe_space_find(space, target, time);
		if (!to) {
			c->stats->unmapped++;
			return 0;
		}
		edge.kind = r->op & HWT_SPE_OP_COND ? hwt_edge_cond_taken
						    : branch_kind(at->file, offset, r);
		edge.to_image = (uint32_t)to->file->image;
		edge.to = target - to->start + to->pgoff;
	}
	err = hwt_profile_add_edge(c->profile, &edge);
	return err == -hpe_nomem ? -hspe_nomem : 0;
}

/* One SPE file: every record it holds, damage said with where and how much. */
static int convert_stream(struct convert *c, const struct hwt_bundle_stream *s,
			  const struct spe_space *space)
{
	struct hwt_spe_decoder d;
	struct hwt_spe_record r;
	const uint8_t *data;
	size_t size;
	int rc = map_file(s->path, &data, &size);

	if (rc < 0) {
		(void)hwt_bundle_diag_add(c->bundle, hwt_diag_io, s->path, -1,
					  "%s: cannot read the SPE records: %s", s->path,
					  strerror(errno));
		return 0;
	}
	c->stats->streams++;
	c->stats->bytes += size;
	hwt_spe_decoder_init(&d, data, size);
	while ((rc = hwt_spe_decoder_next(&d, &r)) != 0) {
		if (rc < 0) {
			c->stats->errors++;
			c->stats->lost_bytes += d.pos - d.lost_from;
			(void)hwt_bundle_diag_add(c->bundle, hwt_diag_stream, s->path,
						  (int64_t)d.error_at,
						  "%s: SPE data damaged at byte %zu (%s): %zu bytes "
						  "dropped from byte %zu, the samples in them lost",
						  s->path, d.error_at, hwt_spe_errstr(rc),
						  d.pos - d.lost_from, d.lost_from);
			continue;
		}
		c->stats->samples++;
		rc = add_record(c, space, &r);
		if (rc < 0)
			break;
	}
	if (data)
		munmap((void *)data, size);
	return rc < 0 ? rc : 0;
}

int hwt_spe_profile(struct hwt_bundle *bundle, struct hwt_profile *profile, uint64_t interval,
		    struct hwt_spe_profile_stats *stats)
{
	struct hwt_spe_profile_stats own;
	struct spe_files files = { .bundle = bundle, .profile = profile };
	struct convert c = { .bundle = bundle, .profile = profile };
	size_t n = bundle ? hwt_bundle_spe_count(bundle) : 0, images;
	struct spe_space *spaces;
	unsigned char *loaded;
	int status = 0;

	if (!bundle || !profile)
		return -hspe_invalid;
	if (!n)
		return -hspe_no_spe;
	if (!stats)
		stats = &own;
	memset(stats, 0, sizeof(*stats));
	c.interval = stats->interval = interval ? interval : hwt_spe_bundle_interval(bundle);
	c.stats = stats;
	images = hwt_bundle_image_count(bundle);
	spaces = calloc(images + 1, sizeof(*spaces));
	loaded = calloc(images + 1, 1);
	if (!spaces || !loaded) {
		free(spaces);
		free(loaded);
		return -hspe_nomem;
	}
	for (size_t i = 0; i < n && status >= 0; i++) {
		const struct hwt_bundle_stream *s = hwt_bundle_spe_at(bundle, i);
		/* Without a sideband file the PCs map nowhere: images (empty). */
		size_t img = s->image >= 0 && (size_t)s->image < images ? (size_t)s->image : images;

		if (!loaded[img] && img < images) {
			status = spe_space_load(&files, hwt_bundle_image_at(bundle, img), &spaces[img]);
			if (status < 0)
				break;
		}
		loaded[img] = 1;
		status = convert_stream(&c, s, &spaces[img]);
	}
	if (status >= 0 && stats->unmapped)
		(void)hwt_bundle_diag_add(bundle, hwt_diag_stream, NULL, -1,
					  "%s: %llu SPE samples (or their branch targets) lie in no "
					  "mapped image: not counted", hwt_bundle_dir(bundle),
					  (unsigned long long)stats->unmapped);
	for (size_t i = 0; i <= images; i++)
		spe_space_fini(&spaces[i]);
	spe_files_fini(&files);
	free(spaces);
	free(loaded);
	return status;
}
