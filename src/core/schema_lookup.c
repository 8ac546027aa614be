/* The results schema's lookups and names (pfs/schema.h); the tables are
 * schema.c's. */
#include "pfs/schema.h"

#include <string.h>

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const struct pfs_sch_table *pfs_schema_table(const char *name)
{
    for (size_t i = 0; i < pfs_schema_count; i++)
        if (!strcmp(pfs_schema[i].name, name))
            return &pfs_schema[i];
    return NULL;
}

const struct pfs_sch_field *pfs_schema_field(const struct pfs_sch_table *t, const char *name)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (!strcmp(t->field[i].name, name))
            return &t->field[i];
    return NULL;
}

const char *pfs_sch_type_name(enum pfs_sch_type t)
{
    static const char *const n[] = {"int32", "int64", "uint32", "uint64", "float64", "string", "compound"};
    return (unsigned)t < NELEM(n) ? n[t] : "?";
}

size_t pfs_sch_type_size(enum pfs_sch_type t)
{
    static const size_t n[] = {4, 8, 4, 8, 8, sizeof(const char *), 0};
    return (unsigned)t < NELEM(n) ? n[t] : 0;
}

const char *pfs_sch_from_name(enum pfs_sch_from f)
{
    static const char *const n[] = {"member", "rep", "rep_node", "rep_stream", "own"};
    return (unsigned)f < NELEM(n) ? n[f] : "?";
}

const char *pfs_sch_when_name(enum pfs_sch_when w)
{
    static const char *const n[] = {"always", "metadata", "find", "resident", "dirty", "latency", "ceilings", "rate", "train", "sweep", "target", "targets", "mix"};
    return (unsigned)w < NELEM(n) ? n[w] : "?";
}

const char *pfs_sch_kind_name(enum pfs_sch_kind k)
{
    static const char *const n[] = {"compound", "datasets", "attributes", "columns"};
    return (unsigned)k < NELEM(n) ? n[k] : "?";
}
