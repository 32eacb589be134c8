#ifndef MAPBOOK_EXECUTOR_H
#define MAPBOOK_EXECUTOR_H

/// Where the Swift runtime keeps its hook for jobs sent to the global executor. The runtime
/// library exports it when linked dynamically, but a --static-swift-stdlib build makes it
/// local, so NIO's dlsym lookup cannot find it; a reference at link time can.
void **mapbook_global_executor_hook(void);

#endif
