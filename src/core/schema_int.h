/* Private to the schema's files (schema.c, schema_diag.c): the macros
 * their tables are written in, and the diagnosis tables schema_diag.c
 * holds (the exemplars, the storage targets). */
#ifndef PFS_SCHEMA_INT_H
#define PFS_SCHEMA_INT_H

#include <stddef.h>

#include "pfs/figures.h"
#include "pfs/schema.h"

/* A compound's field: member m of struct S. */
#define MEMBER(S, m, nm, ty, un, mean)                                                                            \
    {.name = nm, .type = ty, .unit = un, .meaning = mean, .from = PFS_SCH_MEMBER, .offset = offsetof(S, m), .shape = ""}
/* A [R] dataset of figure m (struct pfs_rep_figs). */
#define REP(m, nm, ty, un, attr, w, mean)                                                                         \
    {.name = nm, .type = ty, .unit = un, .meaning = mean, .from = PFS_SCH_REP,                                     \
     .offset = offsetof(struct pfs_rep_figs, m), .shape = "[R]", .when = w, .units = attr}
/* A [R][K] dataset: member sub of struct E, of the K elements at figure m. */
#define NODE(m, E, sub_, nm, ty, un, attr, w, mean)                                                              \
    {.name = nm, .type = ty, .unit = un, .meaning = mean, .from = PFS_SCH_REP_NODE,                                \
     .offset = offsetof(struct pfs_rep_figs, m), .sub = sub_, .stride = sizeof(E), .shape = "[R][K]", .when = w,   \
     .units = attr}
/* A dataset or attribute its own code writes. */
#define OWN(nm, shp, ty, un, attr, w, mean)                                                                       \
    {.name = nm, .type = ty, .unit = un, .meaning = mean, .from = PFS_SCH_OWN, .shape = shp, .when = w, .units = attr}
/* A compound dataset its own code writes, its fields in table tb. */
#define RECORD(nm, shp, tb, attr, w, mean)                                                                        \
    {.name = nm, .type = PFS_SCH_RECORD, .unit = "", .meaning = mean, .from = PFS_SCH_OWN, .shape = shp, .when = w, \
     .units = attr, .compound = tb}
/* A figure of the reports: member m of struct pfs_rep_figs. */
#define COLUMN(m, nm, ty, un, js, cs, rep, fmt, mean)                                                             \
    {.name = nm, .type = ty, .unit = un, .meaning = mean, .from = PFS_SCH_MEMBER,                                  \
     .offset = offsetof(struct pfs_rep_figs, m), .shape = "", .json = js, .csv = cs, .report = rep, .csv_fmt = fmt}

#define U64 PFS_SCH_UINT64
#define F64 PFS_SCH_FLOAT64
#define I32 PFS_SCH_INT32
#define I64 PFS_SCH_INT64
#define U32 PFS_SCH_UINT32
#define STR PFS_SCH_STRING
#define ALWAYS PFS_SCH_ALWAYS

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

#define PFS_SCH_EXEMPLAR_NFIELDS 12
#define PFS_SCH_TARGET_NFIELDS 12
extern const struct pfs_sch_field pfs_sch_exemplar_fields[PFS_SCH_EXEMPLAR_NFIELDS];
extern const struct pfs_sch_field pfs_sch_target_fields[PFS_SCH_TARGET_NFIELDS];
extern const char PFS_SCH_EXEMPLAR_UNITS[], PFS_SCH_TARGET_UNITS[];

#endif
