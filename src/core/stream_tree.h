/* Private to the stream module: the names of a stream's --depth tree and
 * its directories held open (stream_tree.c), for the metadata phases
 * (stream_meta.c). */
#ifndef PFS_STREAM_TREE_H
#define PFS_STREAM_TREE_H

#include "pfs/stream.h"

#define MD_PATH_LEN (2 * PFS_PATH_MAX)

/* The directory tree node `node` is, as a descriptor: base itself for node
 * 0; a node held open in nc (opened beneath its parent on first use, never
 * through a link, its identity kept; nc NULL: none held); else opened
 * beneath base for this call (the caller closes it: *own). base < 0 (a
 * backend whose small files are not files) is passed on as it is. 0 or a
 * negative errno / PFS_ERR_OUTSIDE. */
int pfs_md_node_at(struct pfs_md_nodes *nc, int base, const struct pfs_config *cfg, int stream, uint64_t node,
                   int *fd, int *own);
/* Item k of a phase (a file, or with dirs a tree node): the descriptor of
 * its directory (pfs_md_node_at) and its own name there. */
int pfs_md_item_at(struct pfs_md_nodes *nc, int base, const struct pfs_config *cfg, int dirs, int stream, uint64_t k,
                   int *fd, int *own, char *leaf, size_t len);
/* The full name of item k under dir, for messages. */
void pfs_md_item_name(char *out, size_t len, const struct pfs_config *cfg, int dirs, const char *dir, int stream,
                      uint64_t k);
/* Node j is gone (rmdir): its descriptor goes too. */
void pfs_md_node_gone(struct pfs_md_nodes *nc, uint64_t j);
/* Every descriptor nc holds goes. */
void pfs_md_nodes_free(struct pfs_md_nodes *nc);

#endif
