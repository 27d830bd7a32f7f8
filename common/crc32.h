/* CRC-32 (IEEE 802.3, reflected, as zlib computes it). Libc-free. */
#ifndef HWT_CRC32_H
#define HWT_CRC32_H

#include "hwt_types.h"

/* Continues crc over len bytes; start with crc = 0. */
uint32_t hwt_crc32(uint32_t crc, const void *data, size_t len);

/* [k][n]: the CRC register after byte n and k zero bytes (for the tests). */
extern const uint32_t hwt_crc32_table[8][256];

#endif /* HWT_CRC32_H */
