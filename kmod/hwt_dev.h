/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/hwt and context file descriptors. */
#ifndef HWT_DEV_H
#define HWT_DEV_H

#include <linux/fs.h>

/* ioctl of /dev/hwt: HWT_IOC_ALLOC, HWT_IOC_STATS. */
long hwt_ioctl_dev(struct file *file, unsigned int cmd, unsigned long arg);

/* Re-creates /dev/hwt when the access parameters change its mode (loaded: 0; not yet: 0). */
int hwt_dev_update(void);

#endif /* HWT_DEV_H */
