/*
 * Fixed-width types for code shared by hwt.ko, the Valgrind tool and user
 * space. No libc: the kernel gets them from <linux/types.h>, everyone else
 * from the compiler's freestanding headers.
 */
#ifndef HWT_TYPES_H
#define HWT_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#else
#include <stdint.h>
#include <stddef.h>
#endif

#endif /* HWT_TYPES_H */
