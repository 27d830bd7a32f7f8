/* SPDX-License-Identifier: GPL-2.0 */
/* Backend registry, the side private to hwt.ko. */
#ifndef HWT_BACKEND_INT_H
#define HWT_BACKEND_INT_H

#include "hwt_ioctl.h"
#include "hwt_backend.h"

/* The backend named @name with its module pinned, or NULL. hwt_mtx held. */
struct hwt_backend *hwt_backend_lookup(const char *name);

#endif /* HWT_BACKEND_INT_H */
