/*
 * CoreSight trace formatter: see cs_formatter.h for the frame layout.
 */
#include "cs_formatter.h"

#define NO_ID 0xffu
#define NULL_ID 0x00u
#define FLAGS 15u   /* index of the flag byte */

void hwt_cs_formatter_init(struct hwt_cs_formatter *fmt, uint8_t *buf, size_t size)
{
	unsigned int i;

	fmt->buf = buf;
	fmt->size = size;
	fmt->pos = 0;
	for (i = 0; i < HWT_CS_FRAME_SIZE; i++)
		fmt->frame[i] = 0;
	fmt->fill = 0;
	fmt->id = NO_ID;
	fmt->done = 0;
}

/* Writes a completed frame out; 0 if there is no room. */
static int emit(struct hwt_cs_formatter *fmt)
{
	unsigned int i;

	if (fmt->size - fmt->pos < HWT_CS_FRAME_SIZE)
		return 0;
	for (i = 0; i < HWT_CS_FRAME_SIZE; i++) {
		fmt->buf[fmt->pos++] = fmt->frame[i];
		fmt->frame[i] = 0;
	}
	fmt->fill = 0;
	fmt->done = 0;
	return 1;
}

static void set_flag(struct hwt_cs_formatter *fmt, unsigned int pos, unsigned int bit)
{
	unsigned int mask = 1u << (pos / 2);

	fmt->frame[FLAGS] = (uint8_t)((fmt->frame[FLAGS] & ~mask) | (bit ? mask : 0));
}

static void advance(struct hwt_cs_formatter *fmt)
{
	if (++fmt->fill == FLAGS)
		fmt->done = 1;
}

/* Makes id the current ID; the frame has room (not done). */
static void change_id(struct hwt_cs_formatter *fmt, unsigned int id)
{
	unsigned int f = fmt->fill;

	if (f & 1u) {
		/*
		 * Byte f-1 holds the previous ID's last data byte and an ID
		 * cannot sit at odd f: the ID takes f-1 and that byte moves to
		 * f, flagged as still the previous ID's.
		 */
		uint8_t prev = (uint8_t)(fmt->frame[f - 1] | ((fmt->frame[FLAGS] >> ((f - 1) / 2)) & 1u));

		fmt->frame[f - 1] = (uint8_t)(id << 1 | 1u);
		set_flag(fmt, f - 1, 1);
		fmt->frame[f] = prev;
	} else {
		fmt->frame[f] = (uint8_t)(id << 1 | 1u);
		set_flag(fmt, f, 0);
	}
	fmt->id = (uint8_t)id;
	advance(fmt);
}

static void put_data(struct hwt_cs_formatter *fmt, uint8_t byte)
{
	unsigned int f = fmt->fill;

	if (f & 1u) {
		fmt->frame[f] = byte;
	} else {
		fmt->frame[f] = byte & 0xfeu;
		set_flag(fmt, f, byte & 1u);
	}
	advance(fmt);
}

long hwt_cs_formatter_write(struct hwt_cs_formatter *fmt, unsigned int id, const uint8_t *data,
			    size_t len)
{
	size_t used = 0;

	if (id < HWT_CS_ID_MIN || id > HWT_CS_ID_MAX)
		return HWT_CS_ERR_INVALID;
	while (used < len) {
		if (fmt->done && !emit(fmt))
			break;
		if (fmt->id != id) {
			change_id(fmt, id);
			if (fmt->done && !emit(fmt))
				break;
		}
		put_data(fmt, data[used++]);
	}
	if (fmt->done)
		emit(fmt);
	return (long)used;
}

int hwt_cs_formatter_flush(struct hwt_cs_formatter *fmt)
{
	if (!fmt->done && fmt->fill) {
		if (fmt->id != NULL_ID)
			change_id(fmt, NULL_ID);
		while (!fmt->done)
			put_data(fmt, 0);
	}
	if (fmt->done && !emit(fmt))
		return 1;
	return 0;
}
