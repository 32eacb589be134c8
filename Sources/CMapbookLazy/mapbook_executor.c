#include "mapbook_executor.h"

extern void *swift_task_enqueueGlobal_hook;

void **mapbook_global_executor_hook(void) { return &swift_task_enqueueGlobal_hook; }
