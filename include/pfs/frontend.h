/* Their command lines, unchanged: `pfsbench ior ARGS`, `pfsbench mdtest ARGS`
 * and `pfsbench iozone ARGS` (or a link named pfsbench-ior, pfsbench-mdtest,
 * pfsbench-iozone) read the common subset of that tool's options, with its
 * meanings and defaults, and become a native pfsbench command line, which
 * then runs as any other. Options outside the subset are refused, each with
 * its reason, all at once. Pure: no MPI, no HDF5, no file system access
 * (the native checks look at -d: every rank translates alike). The tables
 * of what maps to what are docs/usage.md's "IOR, mdtest and IOzone command
 * lines". */
#ifndef PFS_FRONTEND_H
#define PFS_FRONTEND_H

#include <stddef.h>
#include <stdio.h>

/* Room for every refusal or note of one command line. */
#define PFS_FRONTEND_ERRLEN 8192
#define PFS_FRONTEND_PATHLEN 4096

/* What a translation asks of the run beside its native words. */
struct pfs_frontend_extra {
    /* IOR's -O summaryFile=F: rank 0's report (--format's) goes to the new
     * file F instead of stdout; "" : stdout. pfs_main creates it
     * (O_EXCL|O_NOFOLLOW: an existing file is refused). */
    char report[PFS_FRONTEND_PATHLEN];
};

/* Local. The tool a command line speaks for: "ior", "mdtest" or "iozone"
 * when argv0's last component is pfsbench-TOOL, or when argv1 is TOOL;
 * else NULL. argv1 may be NULL. */
const char *pfs_frontend_tool(const char *argv0, const char *argv1);

/* Local. The index in argv of the tool's first argument (1 when argv[0]
 * names the tool, 2 when argv[1] does), *tool set; 0 when this is a native
 * command line. */
int pfs_frontend_detect(int argc, char **argv, const char **tool);

/* Local. Translate TOOL's arguments (argv: the words after the tool word)
 * for a run of nranks ranks (IOzone's -t N is N streams in all: -T N/nranks;
 * nranks < 1 counts as 1). On success returns 0 with *out_argv a new
 * NULL-terminated native argv ("pfsbench", options...; free it with
 * pfs_frontend_free) and err holding the notes, one per line (what is
 * accepted but means something a little different; may be empty). On a
 * refusal returns -1, *out_argv NULL, and err holds every refusal, one per
 * line ("ior -Y: ..."). Words after a bare `--` are native pfsbench options,
 * passed through at the end. */
int pfs_frontend_translate_for(const char *tool, int nranks, int argc, char **argv, int *out_argc,
                               char ***out_argv, char *err, size_t len);

/* The same, with what the line asks beside the native words in *x (a line
 * that asks for something is refused when x is NULL). */
int pfs_frontend_translate_ex(const char *tool, int nranks, int argc, char **argv, int *out_argc, char ***out_argv,
                              struct pfs_frontend_extra *x, char *err, size_t len);

/* The same for one rank. */
int pfs_frontend_translate(const char *tool, int argc, char **argv, int *out_argc, char ***out_argv,
                           char *err, size_t len);

/* Local. Frees an argv made by the translation (strings and array). */
void pfs_frontend_free(int argc, char **argv);

/* Local. The whole front end, for pfs_main: when *argv is a front-end
 * command line, translate it (what it asks beside the native words in *x,
 * cleared first); `speak` (rank 0) prints the refusals as
 * "pfsbench: error: ..." lines to stderr, or the notes ("pfsbench: note:")
 * to stderr and "pfsbench: equivalent: pfsbench ..." (quoted so it can be
 * pasted) to stdout (to stderr when the line asks for --format json or csv).
 * Returns 0 (native: *argc, *argv unchanged), 1 (translated: *argc, *argv
 * replaced, free them with pfs_frontend_free), 2 (the line asked for the
 * tool's help, -h or --help: `speak` printed pfs_frontend_usage; exit 0,
 * nothing made) or -1 (refused: exit 2, nothing made). */
int pfs_frontend_main(int speak, int nranks, int *argc, char ***argv, struct pfs_frontend_extra *x);

/* Local. What `pfsbench TOOL --help` prints: the usage, the tool's options
 * pfsbench translates and those it refuses, each with its reason. -1 for
 * a tool it does not speak for. */
int pfs_frontend_usage(const char *tool, FILE *out);

#endif
