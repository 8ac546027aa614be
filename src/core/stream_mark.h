/* Private to the stream module (stream.c, stream_meta.c). */
#ifndef PFS_STREAM_MARK_H
#define PFS_STREAM_MARK_H

#include "pfs/stream.h"

/* Names the call the stream enters, for the stall watchdog's thread. */
static inline void mark(struct pfs_stream *s, const char *op)
{
    __atomic_store_n(&s->op, op, __ATOMIC_RELAXED);
}

#endif
