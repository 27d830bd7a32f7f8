/*
 * Helpers of the ETMv4 encoder tests (etm4_test.h). The snapshot layout is
 * OpenCSD's: snapshot.ini lists the devices and names trace.ini, which
 * binds trace buffers to trace sources and sources to cores.
 */
#include "etm4_test.h"

#include <dirent.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

void bytes_add(struct bytes *b, const uint8_t *p, size_t n)
{
	if (!n)
		return;
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		CHECK(b->p, "out of memory");
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void sink_init(struct sink *s)
{
	memset(s, 0, sizeof(*s));
	hwt_etm4_encoder_init(&s->enc, s->small, sizeof(s->small));
}

void sink_drain(struct sink *s)
{
	bytes_add(&s->out, s->small, s->enc.pos);
	hwt_etm4_encoder_reset_buffer(&s->enc);
}

int lister_available(void)
{
	if (system("command -v trc_pkt_lister >/dev/null") != 0) {
		printf("SKIP: trc_pkt_lister not installed (scripts/setup.sh --tests installs libopencsd-bin)\n");
		return 0;
	}
	return 1;
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	CHECK(f, "cannot create %s", path);
	CHECK(fwrite(p, 1, n, f) == n && fclose(f) == 0, "cannot write %s", path);
}

static void write_text(const char *dir, const char *name, const char *text)
{
	write_file(dir, name, text, strlen(text));
}

static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
}

static void add_listed(struct listing *l, const struct listed *x)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4096;
		l->p = realloc(l->p, l->cap * sizeof(*l->p));
		CHECK(l->p, "out of memory");
	}
	l->p[l->n++] = *x;
}

static void parse(FILE *f, struct listing *out)
{
	char line[1024];

	while (fgets(line, sizeof(line), f)) {
		struct listed x;
		char *tab, *end;
		const char *done;

		if ((done = strstr(line, "processed ")) && strstr(line, " bytes"))
			out->processed = strtoul(done + strlen("processed "), NULL, 10);
		if (strncmp(line, "Idx:", 4))
			continue;
		x.idx = strtoul(line + 4, &end, 10);
		CHECK(!strncmp(end, "; ID:", 5), "unexpected lister line: %s", line);
		x.id = (unsigned int)strtoul(end + 5, &end, 16);
		tab = strchr(end, '\t');
		CHECK(tab, "unexpected lister line: %s", line);
		snprintf(x.text, sizeof(x.text), "%s", tab + 1);
		end = x.text + strlen(x.text);
		while (end > x.text && (end[-1] == '\n' || end[-1] == ' '))
			*--end = 0;
		add_listed(out, &x);
	}
}

void lister_run(const struct source *src, unsigned int nsrc, const struct bytes *frames,
		struct listing *out)
{
	char dir[] = "/tmp/hwt_etm4_snapshot_XXXXXX";
	char text[4096], name[64], cmd[600];
	size_t len;
	unsigned int i;
	FILE *p;

	CHECK(frames || nsrc == 1, "unformatted snapshots hold one source");
	CHECK(mkdtemp(dir), "mkdtemp");
	memset(out, 0, sizeof(*out));

	len = (size_t)snprintf(text, sizeof(text),
			       "[snapshot]\nversion=1.0\n\n[device_list]\n");
	for (i = 0; i < nsrc; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"device%u=cpu_%u.ini\ndevice%u=etm_%u.ini\n", 2 * i, i,
					2 * i + 1, i);
	snprintf(text + len, sizeof(text) - len, "\n[trace]\nmetadata=trace.ini\n");
	write_text(dir, "snapshot.ini", text);

	for (i = 0; i < nsrc; i++) {
		snprintf(text, sizeof(text),
			 "[device]\nname=cpu_%u\nclass=core\ntype=Cortex-A57\n\n[regs]\nPC(size:64)=0x0\n",
			 i);
		snprintf(name, sizeof(name), "cpu_%u.ini", i);
		write_text(dir, name, text);
		snprintf(text, sizeof(text),
			 "[device]\nname=ETM_%u\nclass=trace_source\ntype=ETM4\n\n[regs]\n"
			 "TRCCONFIGR=0x%x\nTRCTRACEIDR=0x%x\nTRCIDR0=0x%x\nTRCIDR1=0x%x\n"
			 "TRCIDR2=0x%x\nTRCIDR8=0x%x\nTRCAUTHSTATUS=0x%x\n",
			 i, HWT_ETM4_TRCCONFIGR, src[i].trace_id, HWT_ETM4_TRCIDR0, HWT_ETM4_TRCIDR1,
			 HWT_ETM4_TRCIDR2, HWT_ETM4_TRCIDR8, HWT_ETM4_TRCAUTHSTATUS);
		snprintf(name, sizeof(name), "etm_%u.ini", i);
		write_text(dir, name, text);
	}

	len = (size_t)snprintf(text, sizeof(text),
			       "[trace_buffers]\nbuffers=buffer0\n\n[buffer0]\nname=ETB_0\n"
			       "file=trace.bin\nformat=%s\n\n[source_buffers]\n",
			       frames ? "coresight" : "source_data");
	for (i = 0; i < nsrc; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "ETM_%u=ETB_0\n", i);
	len += (size_t)snprintf(text + len, sizeof(text) - len, "\n[core_trace_sources]\n");
	for (i = 0; i < nsrc; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "cpu_%u=ETM_%u\n", i, i);
	write_text(dir, "trace.ini", text);
	if (frames)
		write_file(dir, "trace.bin", frames->p, frames->len);
	else
		write_file(dir, "trace.bin", src[0].data->p, src[0].data->len);

	snprintf(cmd, sizeof(cmd), "trc_pkt_lister -ss_dir %s -logstdout", dir);
	p = popen(cmd, "r");
	CHECK(p, "cannot run %s", cmd);
	parse(p, out);
	CHECK(pclose(p) == 0, "%s failed", cmd);
	remove_dir(dir);
	CHECK(out->n > 0, "trc_pkt_lister listed no packets");
}

void listing_free(struct listing *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
}

#define GROW(p, n, cap)                                                        \
	do {                                                                   \
		if ((n) == (cap)) {                                            \
			(cap) = (cap) ? 2 * (cap) : 4096;                      \
			(p) = realloc((p), (cap) * sizeof(*(p)));              \
			CHECK((p), "out of memory");                           \
		}                                                              \
	} while (0)

static void truth_atom(struct truth *w, int e)
{
	GROW(w->atoms, w->natoms, w->capatoms);
	w->atoms[w->natoms++] = e ? 'E' : 'N';
}

static void truth_addr(struct truth *w, uint64_t a)
{
	GROW(w->addrs, w->naddrs, w->capaddrs);
	w->addrs[w->naddrs++] = a;
}

/* An address near or far from recent ones, or one of them again. */
static uint64_t pick_addr(uint64_t *seed, const uint64_t recent[3])
{
	uint64_t r = rnd(seed);

	switch (r % 8) {
	case 0:
	case 1:
		return recent[(r >> 8) % 3];
	case 2:
	case 3:
		return (recent[0] ^ ((r >> 16) & 0x1fcu)) & ~3ull;
	case 4:
		return (recent[0] ^ ((r >> 16) & 0x1fffcu)) & ~3ull;
	case 5:
		return (recent[0] ^ ((r >> 16) & 0xfffffffcu)) & ~3ull;
	case 6:
		return 0x0000ffff00000000ull | ((r >> 20) & 0xfffffffcu);
	default:
		return (r >> 2) << 2;
	}
}

void random_stream(uint64_t seed, unsigned long events, struct bytes *out,
			  struct truth *w)
{
	struct hwt_etm4_context ctx = { 0, 1, 1, HWT_ETM4_CTX_CID, 4242, 0 };
	uint64_t recent[3] = { 0x0000aaaa00401000ull, 0x0000aaaa00401000ull, 0x0000aaaa00401000ull };
	uint64_t ts = 1000;
	struct sink s;
	unsigned long i;

	sink_init(&s);
	CHECK(hwt_etm4_sync(&s.enc) == 0, "sync");
	sink_drain(&s);
	CHECK(hwt_etm4_address_context(&s.enc, recent[0], &ctx) == 0, "address_context");
	truth_addr(w, recent[0]);
	sink_drain(&s);
	for (i = 0; i < events; i++) {
		uint64_t r = rnd(&seed), a;
		unsigned int what = (unsigned int)(r % 100);
		int rc = 0;

		if (what < 70) {
			/* Runs of atoms, mostly taken, as loops make them. */
			unsigned int n = 1 + (unsigned int)((r >> 8) % 40), k;
			uint64_t bits = rnd(&seed);
			int mostly = (r >> 20) & 1;

			for (k = 0; k < n && rc == 0; k++) {
				int e = mostly ? ((bits >> k) & 7) != 0 : (int)((bits >> k) & 1);

				rc = hwt_etm4_atom(&s.enc, e);
				truth_atom(w, e);
				sink_drain(&s);
			}
		} else if (what < 88) {
			a = pick_addr(&seed, recent);
			rc = hwt_etm4_address(&s.enc, a);
			truth_addr(w, a);
		} else if (what < 92) {
			a = pick_addr(&seed, recent);
			rc = hwt_etm4_exception(&s.enc, HWT_ETM4_EXC_CALL, a);
			truth_addr(w, a);
		} else if (what < 96) {
			ts += (r >> 8) % ((r & 0x100) ? 100 : 1000000000ull);
			rc = hwt_etm4_timestamp(&s.enc, ts);
			GROW(w->stamps, w->nstamps, w->capstamps);
			w->stamps[w->nstamps++] = ts;
		} else if (what < 98) {
			a = pick_addr(&seed, recent);
			ctx.cid = (uint32_t)(r >> 32);
			rc = hwt_etm4_address_context(&s.enc, a, &ctx);
			truth_addr(w, a);
		} else {
			rc = hwt_etm4_sync(&s.enc);
			if (rc == 0) {
				sink_drain(&s);
				a = pick_addr(&seed, recent);
				rc = hwt_etm4_address_context(&s.enc, a, &ctx);
				truth_addr(w, a);
			}
		}
		CHECK(rc == 0, "encoder call %lu returned %d", i, rc);
		sink_drain(&s);
		recent[0] = s.enc.addr[0];
		recent[1] = s.enc.addr[1];
		recent[2] = s.enc.addr[2];
	}
	CHECK(hwt_etm4_flush_atoms(&s.enc) == 0, "flush");
	sink_drain(&s);
	bytes_add(out, s.out.p, s.out.len);
	free(s.out.p);
}

