#include <linux/module.h>
static int __init hwt_init(void) { pr_info("hwt: loaded\n"); return 0; }
static void __exit hwt_exit(void) { }
module_init(hwt_init);
module_exit(hwt_exit);
MODULE_LICENSE("GPL");
