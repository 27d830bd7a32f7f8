/*
 * The serialised form of a profile (docs/profile.md): text, one record a
 * line, images sorted by key and everything else sorted, so that equal
 * profiles give equal bytes whatever order they were built or merged in.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "profile_int.h"

static const struct {
	uint32_t flag;
	const char *name;
} image_flags[] = {
	{ HWT_PROFILE_IMAGE_TRACE_UNIT, "trace-unit" },
	{ HWT_PROFILE_IMAGE_VDSO, "vdso" },
	{ HWT_PROFILE_IMAGE_MISSING, "missing" },
	{ HWT_PROFILE_IMAGE_REPLACED, "replaced" },
};
#define NFLAGS (sizeof(image_flags) / sizeof(image_flags[0]))

/* Orders images by key: build-id ones first (by build-id), then by path. */
static int image_key_cmp(const struct hwt_profile_image *a, const struct hwt_profile_image *b)
{
	if (!a->build_id_size != !b->build_id_size)
		return a->build_id_size ? -1 : 1;
	if (a->build_id_size) {
		uint32_t n = a->build_id_size < b->build_id_size ? a->build_id_size : b->build_id_size;
		int c = memcmp(a->build_id, b->build_id, n);

		if (c)
			return c;
		return a->build_id_size < b->build_id_size ? -1 :
		       a->build_id_size > b->build_id_size ? 1 : 0;
	}
	return strcmp(a->path, b->path);
}

struct image_order {
	const struct hwt_profile_image *img;
	size_t index;
};

static int image_order_cmp(const void *pa, const void *pb)
{
	const struct image_order *a = pa, *b = pb;

	return image_key_cmp(a->img, b->img);
}

static void write_escaped(FILE *file, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			fputs("\\\\", file);
		else if (c == '\n')
			fputs("\\n", file);
		else if (c < 0x20 || c == 0x7f)
			fprintf(file, "\\x%02x", c);
		else
			fputc(c, file);
	}
}

/* Unsigned numbers as printf's %PRIu64 and %PRIx64 write them, at p; the
   end. A profile has a line per block and edge: printf took most of its
   writing time. */
static char *put_dec(char *p, uint64_t v)
{
	char digits[20];
	unsigned n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*p++ = digits[--n];
	return p;
}

static char *put_hex(char *p, uint64_t v)
{
	static const char hexdigits[] = "0123456789abcdef";
	char digits[16];
	unsigned n = 0;

	do
		digits[n++] = hexdigits[v & 15];
	while (v >>= 4);
	while (n)
		*p++ = digits[--n];
	return p;
}

static char *put_str(char *p, const char *s)
{
	size_t n = strlen(s);

	memcpy(p, s, n);
	return p + n;
}

int hwt_profile_write(const struct hwt_profile *profile, FILE *file)
{
	/* "edge", 5 numbers of at most 20 characters, a kind of at most 14, 6 separators */
	char line[160];
	struct image_order *order = NULL;
	size_t *local = NULL, nblocks = 0;
	struct hwt_profile_edge *edges = NULL;
	size_t nedges;
	int status = 0;

	if (!profile || !file)
		return -hpe_invalid;
	nedges = profile->edges.count;
	order = malloc((profile->image_count + 1) * sizeof(*order));
	local = malloc((profile->image_count + 1) * sizeof(*local));
	edges = malloc((nedges + 1) * sizeof(*edges));
	if (!order || !local || !edges) {
		status = -hpe_nomem;
		goto out;
	}
	for (size_t i = 0; i < profile->image_count; i++)
		order[i] = (struct image_order){ &profile->images[i]->pub, i };
	qsort(order, profile->image_count, sizeof(*order), image_order_cmp);
	for (size_t i = 0; i < profile->image_count; i++)
		local[order[i].index] = i;

	fprintf(file, "hwt-profile %d\n", HWT_PROFILE_VERSION);
	for (size_t i = 0; i < profile->image_count; i++) {
		const struct hwt_profile_image *img = &profile->images[order[i].index]->pub;
		int any = 0;

		fprintf(file, "image %zu ", i);
		for (size_t f = 0; f < NFLAGS; f++) {
			if (img->flags & image_flags[f].flag) {
				fprintf(file, "%s%s", any ? "," : "", image_flags[f].name);
				any = 1;
			}
		}
		if (!any)
			fputc('-', file);
		fputc(' ', file);
		for (uint32_t k = 0; k < img->build_id_size; k++)
			fprintf(file, "%02x", img->build_id[k]);
		if (!img->build_id_size)
			fputc('-', file);
		fprintf(file, " %" PRIu64 " ", img->undecoded);
		write_escaped(file, img->path);
		fputc('\n', file);
	}
	for (size_t i = 0; i < profile->image_count; i++) {
		struct hwt_block_set *set = &profile->images[order[i].index]->blocks;

		status = hwt_profile_sort_blocks(set);
		if (status < 0)
			goto out;
		for (size_t k = 0; k < set->count; k++) {
			const struct hwt_profile_block *b = &set->items[k];

			char *p = put_str(line, "block ");

			p = put_dec(p, i);
			*p++ = ' ';
			p = put_hex(p, b->begin);
			*p++ = ' ';
			p = put_hex(p, b->end);
			*p++ = ' ';
			p = put_dec(p, b->insns);
			*p++ = ' ';
			p = put_dec(p, b->count);
			*p++ = '\n';
			fwrite(line, 1, (size_t)(p - line), file);
		}
		nblocks += set->count;
	}
	for (size_t k = 0; k < nedges; k++) {
		edges[k] = profile->edges.items[k];
		edges[k].from_image = (uint32_t)local[edges[k].from_image];
		edges[k].to_image = (uint32_t)local[edges[k].to_image];
	}
	qsort(edges, nedges, sizeof(*edges), hwt_profile_edge_cmp);
	for (size_t k = 0; k < nedges; k++) {
		const struct hwt_profile_edge *e = &edges[k];

		char *p = put_str(line, "edge ");

		p = put_dec(p, e->from_image);
		*p++ = ' ';
		p = put_hex(p, e->from);
		*p++ = ' ';
		p = put_dec(p, e->to_image);
		*p++ = ' ';
		p = put_hex(p, e->to);
		*p++ = ' ';
		p = put_str(p, hwt_profile_edge_kind_name(e->kind));
		*p++ = ' ';
		p = put_dec(p, e->count);
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), file);
	}
	fprintf(file, "end %zu %zu %zu\n", profile->image_count, nblocks, nedges);
	if (ferror(file))
		status = -hpe_io;
out:
	free(order);
	free(local);
	free(edges);
	return status;
}

int hwt_profile_save(const struct hwt_profile *profile, const char *path)
{
	FILE *file;
	int status;

	if (!profile || !path)
		return -hpe_invalid;
	file = fopen(path, "w");
	if (!file)
		return -hpe_io;
	status = hwt_profile_write(profile, file);
	if (fclose(file) != 0 && status == 0)
		status = -hpe_io;
	return status;
}

/* ----- Reading ---------------------------------------------------------- */

/* Next space-separated field of *s (NUL-terminated in place), or NULL. */
static char *field(char **s)
{
	char *start = *s, *end;

	if (!start || !*start)
		return NULL;
	end = strchr(start, ' ');
	if (end) {
		*end = '\0';
		*s = end + 1;
	} else {
		*s = start + strlen(start);
	}
	return start;
}

static int parse_u64(const char *s, int base, uint64_t *value)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -1;
	errno = 0;
	*value = strtoull(s, &end, base);
	return errno || *end ? -1 : 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* Undoes write_escaped in place. */
static int unescape(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*out++ = *s;
			continue;
		}
		s++;
		if (*s == '\\') {
			*out++ = '\\';
		} else if (*s == 'n') {
			*out++ = '\n';
		} else if (*s == 'x' && hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
			int c = hexval(s[1]) * 16 + hexval(s[2]);

			if (!c)
				return -1;
			*out++ = (char)c;
			s += 2;
		} else {
			return -1;
		}
	}
	*out = '\0';
	return 0;
}

static int parse_flags(char *s, uint32_t *flags)
{
	char *save = NULL, *tok;

	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t f;

		for (f = 0; f < NFLAGS; f++)
			if (!strcmp(tok, image_flags[f].name))
				break;
		if (f == NFLAGS)
			return -1;
		*flags |= image_flags[f].flag;
	}
	return 0;
}

static int parse_build_id(const char *s, uint8_t *id, uint32_t *size)
{
	size_t n = strlen(s);

	*size = 0;
	if (!strcmp(s, "-"))
		return 0;
	if (!n || n % 2 || n / 2 > HWT_PROFILE_BUILD_ID_MAX)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		id[i] = (uint8_t)(hi * 16 + lo);
	}
	*size = (uint32_t)(n / 2);
	return 0;
}

static int parse_edge_kind(const char *s, uint32_t *kind)
{
	for (uint32_t k = 0; k < hwt_edge_kind_count; k++) {
		if (!strcmp(s, hwt_profile_edge_kind_name(k))) {
			*kind = k;
			return 0;
		}
	}
	return -1;
}

/* Parses one line into tmp. Returns 0, 1 for the end line, or a negative error. */
static int read_line(struct hwt_profile *tmp, char *line, uint64_t *blocks, uint64_t *edges)
{
	char *rest = line, *kw = field(&rest);
	uint64_t a, b, c, d, e;

	if (!kw)
		return -hpe_format;
	if (!strcmp(kw, "image")) {
		uint8_t id[HWT_PROFILE_BUILD_ID_MAX];
		uint32_t flags, id_size;
		char *f_index = field(&rest), *f_flags = field(&rest), *f_id = field(&rest);
		char *f_undecoded = field(&rest);
		int index;

		if (!f_undecoded || parse_u64(f_index, 10, &a) < 0 || a != tmp->image_count ||
		    parse_flags(f_flags, &flags) < 0 || parse_build_id(f_id, id, &id_size) < 0 ||
		    parse_u64(f_undecoded, 10, &b) < 0 || unescape(rest) < 0 || !*rest)
			return -hpe_format;
		index = hwt_profile_image_add(tmp, rest, id, id_size, flags);
		if (index < 0)
			return index;
		if ((size_t)index != a)
			return -hpe_format; /* the same image twice */
		tmp->images[index]->pub.undecoded = b;
		return 0;
	}
	if (!strcmp(kw, "block")) {
		int status;

		if (parse_u64(field(&rest), 10, &a) < 0 || parse_u64(field(&rest), 16, &b) < 0 ||
		    parse_u64(field(&rest), 16, &c) < 0 || parse_u64(field(&rest), 10, &d) < 0 ||
		    parse_u64(field(&rest), 10, &e) < 0 || *rest || a >= tmp->image_count ||
		    c < b || !d || d > UINT32_MAX)
			return -hpe_format;
		status = hwt_profile_add_block(tmp, (size_t)a, b, c, (uint32_t)d, e);
		if (status == -hpe_invalid)
			return -hpe_format;
		(*blocks)++;
		return status;
	}
	if (!strcmp(kw, "edge")) {
		struct hwt_profile_edge edge;
		int status;

		if (parse_u64(field(&rest), 10, &a) < 0 || parse_u64(field(&rest), 16, &b) < 0 ||
		    parse_u64(field(&rest), 10, &c) < 0 || parse_u64(field(&rest), 16, &d) < 0)
			return -hpe_format;
		kw = field(&rest);
		if (!kw || parse_edge_kind(kw, &edge.kind) < 0 ||
		    parse_u64(field(&rest), 10, &e) < 0 || *rest || a >= tmp->image_count ||
		    c >= tmp->image_count)
			return -hpe_format;
		edge.from_image = (uint32_t)a;
		edge.from = b;
		edge.to_image = (uint32_t)c;
		edge.to = d;
		edge.count = e;
		status = hwt_profile_add_edge(tmp, &edge);
		(*edges)++;
		return status == -hpe_invalid ? -hpe_format : status;
	}
	if (!strcmp(kw, "end")) {
		if (parse_u64(field(&rest), 10, &a) < 0 || parse_u64(field(&rest), 10, &b) < 0 ||
		    parse_u64(field(&rest), 10, &c) < 0 || *rest || a != tmp->image_count ||
		    b != *blocks || c != *edges)
			return -hpe_format;
		return 1;
	}
	return -hpe_format;
}

int hwt_profile_read(struct hwt_profile *profile, FILE *file, size_t *line_number)
{
	struct hwt_profile *tmp;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	uint64_t blocks = 0, edges = 0;
	ssize_t len;
	int status = -hpe_format, ended = 0;

	if (!profile || !file)
		return -hpe_invalid;
	tmp = hwt_profile_alloc();
	if (!tmp)
		return -hpe_nomem;
	while ((len = getline(&line, &cap, file)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			status = -hpe_format; /* a NUL byte */
			goto out;
		}
		if (lineno == 1) {
			int version;
			char extra;

			if (sscanf(line, "hwt-profile %d%c", &version, &extra) != 1) {
				status = -hpe_format;
				goto out;
			}
			if (version != HWT_PROFILE_VERSION) {
				status = -hpe_version;
				goto out;
			}
			continue;
		}
		if (ended) {
			status = -hpe_format; /* text after the end line */
			goto out;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		status = read_line(tmp, line, &blocks, &edges);
		if (status < 0)
			goto out;
		if (status == 1)
			ended = 1;
	}
	if (ferror(file)) {
		status = -hpe_io;
		goto out;
	}
	if (!ended) {
		status = -hpe_format; /* empty or truncated */
		lineno++;
		goto out;
	}
	status = hwt_profile_merge(profile, tmp);
out:
	if (status < 0 && line_number)
		*line_number = lineno;
	free(line);
	hwt_profile_free(tmp);
	return status;
}

int hwt_profile_load(struct hwt_profile *profile, const char *path, size_t *line)
{
	FILE *file;
	int status;

	if (!profile || !path)
		return -hpe_invalid;
	file = fopen(path, "r");
	if (!file)
		return -hpe_io;
	status = hwt_profile_read(profile, file, line);
	fclose(file);
	return status;
}
