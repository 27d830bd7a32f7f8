/*
 * The flame graph: a self-contained interactive SVG of a stack tree, in
 * the spirit of flamegraph.pl's (this code is hwt's own): one box per
 * stack, as wide as its weight (the stack and everything above it), roots
 * at the bottom (at the top when inverted: an icicle).
 *
 * Each box is a <g class="f"> with its tooltip as <title>, and data-x,
 * data-v, data-d attributes: its start and width in counts, its depth. The
 * script at the end (no network, nothing external) reads them to zoom into
 * a box on click, to reset, and to search by regular expression, showing
 * the share of the total that matched. window.hwtFlame offers the same to
 * scripts (the tests drive it).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "stacks_int.h"

#define FRAME_HEIGHT 16
#define FONT_SIZE 12
#define FONT_WIDTH 0.59  /* of FONT_SIZE: an average glyph of Verdana */
#define PAD 10
#define TOP 60           /* title, buttons */
#define BOTTOM 34        /* details line */

struct box {
	uint32_t node;
	uint32_t depth;
	uint64_t x, v;       /* start and width in counts */
	double before;       /* diff: the first run's width of the same stack, -1: none */
};

struct layout {
	const struct hwt_stack_tree *tree;
	const struct hwt_flame_options *o;
	struct hwt_sorted_tree sorted;
	uint64_t *totals;    /* per node: inclusive */
	struct box *boxes;
	size_t count, capacity;
	uint32_t max_depth;
	double per_pixel;    /* counts per pixel */
	int nomem;
};

static const char *hwt_flame_colors_name(enum hwt_flame_colors colors)
{
	switch (colors) {
	case hwt_colors_hot: return "hot";
	case hwt_colors_mem: return "mem";
	case hwt_colors_io: return "io";
	case hwt_colors_kind: return "kind";
	case hwt_colors_diff: return "diff";
	case hwt_colors_count: break;
	}
	return NULL;
}

int hwt_flame_colors_parse(const char *name)
{
	for (int c = 0; c < hwt_colors_count; c++)
		if (!strcmp(name, hwt_flame_colors_name((enum hwt_flame_colors)c)))
			return c;
	return -1;
}

/* Inclusive weights of every node: children have higher indexes than parents. */
static uint64_t *inclusive(const struct hwt_stack_tree *t, enum hwt_stacks_weight w)
{
	size_t n = hwt_stack_tree_count(t);
	uint64_t *v = malloc((n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++)
		v[i] = hwt_stack_tree_node(t, (uint32_t)i)->self[w];
	for (size_t i = n; i-- > 1;)
		v[hwt_stack_tree_node(t, (uint32_t)i)->parent] += v[i];
	return v;
}

/* The node of before with the same path of names as node of tree, or NONE. */
static uint32_t same_stack(const struct hwt_stack_tree *before, const struct hwt_stack_tree *tree,
			   uint32_t node, const uint32_t *matched)
{
	const struct hwt_stack_node *n = hwt_stack_tree_node(tree, node);
	uint32_t parent = matched[n->parent];

	if (parent == HWT_STACK_NONE)
		return HWT_STACK_NONE;
	/* By name among the children (interning would add the name to before). */
	for (uint32_t c = hwt_stack_tree_node(before, parent)->first_child; c != HWT_STACK_NONE;
	     c = hwt_stack_tree_node(before, c)->next_sibling)
		if (!strcmp(hwt_stack_tree_name(before, hwt_stack_tree_node(before, c)->name),
			    hwt_stack_tree_name(tree, n->name)))
			return c;
	return HWT_STACK_NONE;
}

/* A marker of lost trace ([overflow], [decode error]): never left out. */
static int is_gap(const struct hwt_stack_tree *t, uint32_t node)
{
	const char *name = hwt_stack_tree_name(t, hwt_stack_tree_node(t, node)->name);

	return hwt_stack_tree_name_kind(t, hwt_stack_tree_node(t, node)->name) == hwt_frame_marker &&
	       (!strcmp(name, "[overflow]") || !strcmp(name, "[decode error]"));
}

static int add_box(struct layout *l, uint32_t node, uint32_t depth, uint64_t x, uint64_t v,
		   double before)
{
	void *p = hwt_grow_array(l->boxes, &l->capacity, l->count + 1, sizeof(*l->boxes));

	if (!p)
		return -1;
	l->boxes = p;
	l->boxes[l->count++] = (struct box){ node, depth, x, v, before };
	if (depth > l->max_depth)
		l->max_depth = depth;
	return 0;
}

/*
 * Lays out the boxes: depth first, children in name order, each child
 * starting where its elder sibling ended (self counts come last, so the
 * top of a box shows where its own instructions are). Boxes narrower than
 * min_width pixels are left out with everything above them.
 */
static int lay_out(struct layout *l, const uint64_t *before_totals, const uint32_t *before_match)
{
	struct frame_pos {
		uint32_t node, depth, next;
		uint64_t x;
	} *stack;
	size_t depth = 0, capacity = 0;
	double min_width = l->o->min_width < 0 ? 0.1 : l->o->min_width;

	stack = hwt_grow_array(NULL, &capacity, 64, sizeof(*stack));
	if (!stack)
		return -1;
	stack[depth++] = (struct frame_pos){ HWT_STACK_ROOT, 0, 0, 0 };
	while (depth) {
		struct frame_pos *f = &stack[depth - 1];
		uint32_t child, child_depth;
		uint64_t x;
		void *p;

		if (f->next >= l->sorted.count[f->node] ||
		    (l->o->max_depth && f->depth >= l->o->max_depth)) {
			depth--;
			continue;
		}
		child = l->sorted.order[l->sorted.first[f->node] + f->next++];
		x = f->x;
		child_depth = f->depth + 1;
		/* Elder siblings' widths. */
		f->x += l->totals[child];
		/* Gaps are drawn however narrow: a partial graph must show where. */
		if (!l->totals[child] ||
		    ((double)l->totals[child] / l->per_pixel < min_width && !is_gap(l->tree, child)))
			continue;
		if (add_box(l, child, f->depth, x, l->totals[child],
			    before_match && before_match[child] != HWT_STACK_NONE
				    ? (double)before_totals[before_match[child]]
				    : -1.0) < 0) {
			free(stack);
			return -1;
		}
		p = hwt_grow_array(stack, &capacity, depth + 1, sizeof(*stack));
		if (!p) {
			free(stack);
			return -1;
		}
		stack = p;
		stack[depth++] = (struct frame_pos){ child, child_depth, 0, x };
	}
	free(stack);
	return 0;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (uint8_t)*s;
	return h;
}

/* A colour for a box, as "rgb(r,g,b)" into out. */
static void colour(const struct layout *l, const struct box *b, char out[32])
{
	const char *name = hwt_stack_tree_name(l->tree, hwt_stack_tree_node(l->tree, b->node)->name);
	enum hwt_frame_kind kind =
		hwt_stack_tree_name_kind(l->tree, hwt_stack_tree_node(l->tree, b->node)->name);
	uint64_t h = name_hash(name);
	double v1 = (double)(h % 1000) / 1000.0, v2 = (double)((h / 1000) % 1000) / 1000.0;
	int r, g, bl;

	if (kind == hwt_frame_marker && l->o->colors != hwt_colors_diff) {
		snprintf(out, 32, "rgb(%d,%d,%d)", 160, 160, 160);
		return;
	}
	switch (l->o->colors) {
	case hwt_colors_mem:
		r = 0; g = 190 + (int)(50 * v2); bl = (int)(190 * v1);
		break;
	case hwt_colors_io:
		r = 80 + (int)(60 * v1); g = r; bl = 190 + (int)(55 * v2);
		break;
	case hwt_colors_kind:
		if (kind == hwt_frame_root) {
			r = 180; g = 140; bl = 230;
		} else if (kind == hwt_frame_inlined) {
			r = 120 + (int)(40 * v1); g = 200 + (int)(40 * v2); bl = 200;
		} else {
			r = 205 + (int)(50 * v2); g = (int)(230 * v1); bl = (int)(55 * v2);
		}
		break;
	case hwt_colors_diff: {
		double before = b->before < 0 ? 0 : b->before;
		double grew = (double)b->v - before;
		double scale = b->v > before ? (double)b->v : before;
		int shade = scale > 0 ? (int)(200.0 * fabs(grew) / scale) : 0;

		if (grew > 0) {
			r = 255; g = 255 - shade; bl = 255 - shade;
		} else if (grew < 0) {
			r = 255 - shade; g = 255 - shade; bl = 255;
		} else {
			r = g = bl = 250;
		}
		break;
	}
	default:
		r = 205 + (int)(50 * v2); g = (int)(230 * v1); bl = (int)(55 * v2);
		break;
	}
	snprintf(out, 32, "rgb(%d,%d,%d)", r, g, bl);
}

static void put_num(FILE *out, double v)
{
	char b[32];

	snprintf(b, sizeof(b), "%.2f", v);
	fputs(b, out);
}

static void put_u(FILE *out, uint64_t v)
{
	char b[24];

	fputs(hwt_stacks_u64(b, v), out);
}

/* The text of a box cut to fit width pixels, into out; "" when nothing fits. */
static void fit(const char *name, double width, char *out, size_t size)
{
	double per = FONT_SIZE * FONT_WIDTH;
	size_t chars = width > 3 * per ? (size_t)((width - 3) / per) : 0;
	size_t len = strlen(name);

	out[0] = '\0';
	if (chars < 3)
		return;
	if (len <= chars) {
		snprintf(out, size, "%s", name);
		return;
	}
	snprintf(out, size, "%.*s..", (int)(chars - 2 < size - 3 ? chars - 2 : size - 3), name);
}

static const char script[] =
	"<script type=\"text/ecmascript\"><![CDATA[\n"
	"'use strict';\n"
	"(function () {\n"
	"const svg = document.documentElement;\n"
	"const total = +svg.dataset.total, width = +svg.dataset.width, pad = +svg.dataset.pad;\n"
	"const fh = +svg.dataset.fh, top = +svg.dataset.top, inverted = svg.dataset.inverted === '1';\n"
	"const height = +svg.dataset.height, unit = svg.dataset.unit;\n"
	"const boxes = Array.from(document.querySelectorAll('g.f'));\n"
	"const details = document.getElementById('details');\n"
	"const matchedText = document.getElementById('matched');\n"
	"const reset = document.getElementById('reset');\n"
	"const fw = " "7.08" ";\n"
	"let zoomed = null, searched = null;\n"
	"function info(g) { return { x: +g.dataset.x, v: +g.dataset.v, d: +g.dataset.d,\n"
	"  name: g.dataset.n }; }\n"
	"function pct(v) { return (100 * v / total).toFixed(2) + '%'; }\n"
	"function fitText(t, name, w) {\n"
	"  const n = Math.floor((w - 3) / fw);\n"
	"  t.textContent = n < 3 ? '' : name.length <= n ? name : name.slice(0, n - 2) + '..';\n"
	"}\n"
	"function place(g, x0, scale) {\n"
	"  const b = info(g), r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  const x = pad + (b.x - x0) * scale, w = b.v * scale;\n"
	"  r.setAttribute('x', x.toFixed(2)); r.setAttribute('width', w.toFixed(2));\n"
	"  t.setAttribute('x', (x + 3).toFixed(2)); fitText(t, b.name, w);\n"
	"}\n"
	"function zoom(g) {\n"
	"  const z = info(g), scale = (width - 2 * pad) / z.v;\n"
	"  zoomed = g; reset.style.display = 'inline';\n"
	"  for (const o of boxes) {\n"
	"    const b = info(o);\n"
	"    const inside = b.x >= z.x && b.x + b.v <= z.x + z.v;\n"
	"    if (b.d >= z.d && inside) { o.style.display = ''; o.classList.remove('parent');\n"
	"      place(o, z.x, scale); }\n"
	"    else if (b.d < z.d && b.x <= z.x && b.x + b.v >= z.x + z.v) {\n"
	"      o.style.display = ''; o.classList.add('parent');\n"
	"      const r = o.querySelector('rect'), t = o.querySelector('text');\n"
	"      r.setAttribute('x', pad); r.setAttribute('width', width - 2 * pad);\n"
	"      t.setAttribute('x', pad + 3); fitText(t, b.name, width - 2 * pad); }\n"
	"    else o.style.display = 'none';\n"
	"  }\n"
	"  if (searched) search(searched);\n"
	"}\n"
	"function unzoom() {\n"
	"  zoomed = null; reset.style.display = 'none';\n"
	"  const scale = (width - 2 * pad) / total;\n"
	"  for (const o of boxes) { o.style.display = ''; o.classList.remove('parent');\n"
	"    place(o, 0, scale); }\n"
	"  if (searched) search(searched);\n"
	"}\n"
	"function search(pattern) {\n"
	"  let re;\n"
	"  try { re = new RegExp(pattern); } catch (e) { matchedText.textContent = 'bad pattern'; return null; }\n"
	"  searched = pattern;\n"
	"  const hits = [];\n"
	"  for (const o of boxes) {\n"
	"    const r = o.querySelector('rect');\n"
	"    if (re.test(o.dataset.n)) { r.setAttribute('fill', 'rgb(230,0,230)'); o.classList.add('hit');\n"
	"      hits.push(info(o)); }\n"
	"    else { r.setAttribute('fill', r.dataset.fill); o.classList.remove('hit'); }\n"
	"  }\n"
	"  /* The share: matched boxes, without those inside another match. */\n"
	"  hits.sort((a, b) => a.x - b.x || b.v - a.v);\n"
	"  let sum = 0, end = -1;\n"
	"  for (const h of hits) { if (h.x >= end) { sum += h.v; end = h.x + h.v; }\n"
	"    else if (h.x + h.v > end) { sum += h.x + h.v - end; end = h.x + h.v; } }\n"
	"  document.getElementById('search').textContent = 'Reset Search';\n"
	"  matchedText.textContent = 'Matched: ' + pct(sum);\n"
	"  svg.dataset.matched = String(sum);\n"
	"  return { count: hits.length, value: sum, share: sum / total };\n"
	"}\n"
	"function clearSearch() {\n"
	"  searched = null; matchedText.textContent = ''; delete svg.dataset.matched;\n"
	"  document.getElementById('search').textContent = 'Search';\n"
	"  for (const o of boxes) { const r = o.querySelector('rect'); r.setAttribute('fill', r.dataset.fill);\n"
	"    o.classList.remove('hit'); }\n"
	"}\n"
	"for (const g of boxes) {\n"
	"  g.addEventListener('click', () => zoom(g));\n"
	"  g.addEventListener('mouseover', () => { details.textContent = g.querySelector('title').textContent; });\n"
	"  g.addEventListener('mouseout', () => { details.textContent = ' '; });\n"
	"}\n"
	"reset.addEventListener('click', unzoom);\n"
	"document.getElementById('search').addEventListener('click', () => {\n"
	"  if (searched) { clearSearch(); return; }\n"
	"  const p = window.prompt('Search by regular expression', '');\n"
	"  if (p) search(p);\n"
	"});\n"
	"window.addEventListener('keydown', e => {\n"
	"  if (e.key === 'Escape') unzoom();\n"
	"  if ((e.ctrlKey && e.key === 'f') || e.key === 'F3') { e.preventDefault();\n"
	"    document.getElementById('search').dispatchEvent(new Event('click')); }\n"
	"});\n"
	"window.hwtFlame = { zoom: g => zoom(typeof g === 'number' ? boxes[g] : g), unzoom, search,\n"
	"  clearSearch, boxes: () => boxes.map(info), total };\n"
	"})();\n"
	"]]></script>\n";

int hwt_flame_write_svg(const struct hwt_stack_tree *tree, const struct hwt_flame_options *o,
			FILE *out)
{
	struct hwt_flame_options defaults = { 0 };
	struct layout l = { 0 };
	uint64_t *before_totals = NULL;
	uint32_t *before_match = NULL;
	unsigned width;
	double height;
	uint64_t total;
	const char *unit;
	int status = 0;

	if (!o) {
		defaults.min_width = -1;
		o = &defaults;
	}
	width = o->width ? o->width : 1200;
	unit = o->unit ? o->unit
		       : o->weight == hwt_weight_calls ? "calls"
		       : o->weight == hwt_weight_time  ? "ticks"
						       : "instructions";
	l.tree = tree;
	l.o = o;
	l.totals = inclusive(tree, o->weight);
	if (!l.totals || hwt_sorted_tree_init(tree, &l.sorted) < 0) {
		free(l.totals);
		return -hse_nomem;
	}
	total = l.totals[HWT_STACK_ROOT];
	l.per_pixel = total ? (double)total / (width - 2 * PAD) : 1;
	if (o->before) {
		size_t n = hwt_stack_tree_count(tree);

		before_totals = inclusive(o->before, o->weight);
		before_match = malloc((n + 1) * sizeof(*before_match));
		if (!before_totals || !before_match) {
			status = -hse_nomem;
			goto out;
		}
		before_match[0] = HWT_STACK_ROOT;
		for (size_t i = 1; i < n; i++)
			before_match[i] = same_stack(o->before, tree, (uint32_t)i, before_match);
	}
	if (lay_out(&l, before_totals, before_match) < 0) {
		status = -hse_nomem;
		goto out;
	}
	height = (double)(l.max_depth + 1) * FRAME_HEIGHT + TOP + BOTTOM;

	fputs("<?xml version=\"1.0\" standalone=\"no\"?>\n"
	      "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"", out);
	put_u(out, width);
	fputs("\" height=\"", out);
	put_num(out, height);
	fputs("\" viewBox=\"0 0 ", out);
	put_u(out, width);
	fputc(' ', out);
	put_num(out, height);
	fputs("\" data-total=\"", out);
	put_u(out, total);
	fputs("\" data-width=\"", out);
	put_u(out, width);
	fputs("\" data-pad=\"" "10" "\" data-fh=\"" "16" "\" data-top=\"" "60" "\" data-height=\"", out);
	put_num(out, height);
	fputs(o->inverted ? "\" data-inverted=\"1" : "\" data-inverted=\"0", out);
	fputs("\" data-unit=\"", out);
	hwt_stacks_put_escaped(out, unit, 0);
	fputs("\">\n<style type=\"text/css\">\n"
	      "text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	      "#title { text-anchor: middle; font-size: 17px; }\n"
	      "#subtitle { text-anchor: middle; fill: rgb(100,100,100); }\n"
	      "#search, #reset { cursor: pointer; }\n"
	      "#matched { text-anchor: end; }\n"
	      "g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
	      "g.f text { pointer-events: none; }\n"
	      "g.parent rect { opacity: 0.5; }\n"
	      "</style>\n"
	      "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"rgb(248,248,248)\"/>\n"
	      "<text id=\"title\" x=\"50%\" y=\"24\">", out);
	hwt_stacks_put_escaped(out, o->title ? o->title : "Flame Graph", 0);
	fputs("</text>\n", out);
	if (o->subtitle) {
		fputs("<text id=\"subtitle\" x=\"50%\" y=\"42\">", out);
		hwt_stacks_put_escaped(out, o->subtitle, 0);
		fputs("</text>\n", out);
	}
	fputs("<text id=\"reset\" x=\"10\" y=\"24\" style=\"display:none\">Reset Zoom</text>\n"
	      "<text id=\"search\" x=\"", out);
	put_u(out, width - 110);
	fputs("\" y=\"24\">Search</text>\n<text id=\"matched\" x=\"", out);
	put_u(out, width - PAD);
	fputs("\" y=\"", out);
	put_num(out, height - 12);
	fputs("\"></text>\n<text id=\"details\" x=\"10\" y=\"", out);
	put_num(out, height - 12);
	fputs("\"> </text>\n<g id=\"frames\">\n", out);
	for (size_t i = 0; i < l.count; i++) {
		const struct box *b = &l.boxes[i];
		const char *name = hwt_stack_tree_name(tree, hwt_stack_tree_node(tree, b->node)->name);
		double x = PAD + (double)b->x / l.per_pixel, w = (double)b->v / l.per_pixel;
		double y = o->inverted ? TOP + (double)b->depth * FRAME_HEIGHT
				       : height - BOTTOM - (double)(b->depth + 1) * FRAME_HEIGHT;
		char fill[32], text[256], pcts[32];

		colour(&l, b, fill);
		fit(name, w, text, sizeof(text));
		snprintf(pcts, sizeof(pcts), "%.2f%%", total ? 100.0 * (double)b->v / (double)total : 0);
		fputs("<g class=\"f\" data-n=\"", out);
		hwt_stacks_put_escaped(out, name, 0);
		fputs("\" data-x=\"", out);
		put_u(out, b->x);
		fputs("\" data-v=\"", out);
		put_u(out, b->v);
		fputs("\" data-d=\"", out);
		put_u(out, b->depth);
		fputs("\"><title>", out);
		hwt_stacks_put_escaped(out, name, 0);
		fputs(" (", out);
		put_u(out, b->v);
		fputc(' ', out);
		hwt_stacks_put_escaped(out, unit, 0);
		fputs(", ", out);
		fputs(pcts, out);
		if (o->before) {
			char d[64];

			snprintf(d, sizeof(d), "; before %.0f, %+.0f", b->before < 0 ? 0 : b->before,
				 (double)b->v - (b->before < 0 ? 0 : b->before));
			fputs(d, out);
		}
		fputs(")</title><rect x=\"", out);
		put_num(out, x);
		fputs("\" y=\"", out);
		put_num(out, y);
		fputs("\" width=\"", out);
		put_num(out, w);
		fputs("\" height=\"15\" fill=\"", out);
		fputs(fill, out);
		if (is_gap(tree, b->node))
			fputs("\" stroke=\"rgb(0,0,0)\" stroke-width=\"1", out);
		fputs("\" data-fill=\"", out);
		fputs(fill, out);
		fputs("\" rx=\"2\"/><text x=\"", out);
		put_num(out, x + 3);
		fputs("\" y=\"", out);
		put_num(out, y + 11.5);
		fputs("\">", out);
		hwt_stacks_put_escaped(out, text, 0);
		fputs("</text></g>\n", out);
	}
	fputs("</g>\n", out);
	fputs(script, out);
	fputs("</svg>\n", out);
	status = ferror(out) ? -hse_io : 0;
out:
	free(before_totals);
	free(before_match);
	free(l.totals);
	free(l.boxes);
	hwt_sorted_tree_fini(&l.sorted);
	return status;
}
