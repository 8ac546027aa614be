/* IOR scripts: `pfsbench ior [IOR's options] -f SCRIPT [-- pfsbench's
 * options]`, the whole script one pfsbench job, each test IOR would run a
 * run of it (a section named run1, run2 ... and labelled so), in order, in
 * one results file. The grammar is IOR's (ReadConfigScript):
 *
 *   IOR START                    everything before it is skipped
 *       api=POSIX                KEY=VALUE, IOR's long names, any case;
 *       blockSize=1m, fsync=1    several on a line after commas;
 *   # a comment                  '#' to the end of a line
 *   RUN                          a test of the options so far
 *       transferSize=1m          options stay set for the next test
 *   RUN
 *   IOR STOP                     the end (or the end of the file)
 *
 * As in IOR, options after the last RUN make one more test, two RUNs in a
 * row repeat the test, and a script without RUN is one test. Each key is
 * the IOR option the front end translates (blockSize is -b, filePerProc=1
 * is -F, a flag at 0 is left out), so each test is one front-end
 * translation of the command line's words before -f and the script's
 * options (frontend_ior.c); a key for an option the front end refuses
 * is refused with the same reason, unless its value is IOR's default
 * (multiFile=0). Pure and local: no MPI, no file system access (the
 * caller reads the script), alike on every rank. */
#ifndef PFS_IORSCRIPT_H
#define PFS_IORSCRIPT_H

#include <stddef.h>
#include <stdio.h>

#include "pfs/frontend.h"
#include "pfs/jobfile.h"

#define PFS_IORSCRIPT_MAX_BYTES (1 << 20) /* a larger script is refused */

/* Local. The SCRIPT of `pfsbench ior ... -f SCRIPT ...` (argv: the whole
 * command line, as pfs_main has it), or NULL: another tool's line, a
 * native one, an IOR line without -f, or one asking for help. */
const char *pfs_iorscript_path(int argc, char **argv);

/* Local. The tests of the script text (path names it in messages) for
 * nranks ranks, with the command line argv (as for pfs_iorscript_path):
 * jf holds one section per test, its native argv (free with
 * pfs_jobfile_free), its line the RUN's; *x what the tests ask beside
 * their words (summaryFile). Returns 0 with err holding the notes, one per
 * line, each once; or -1 (nothing allocated) with every refusal, one per
 * line, each once, naming the script's line where an option of it is at
 * fault ("ior PATH:LINE: multiFile (-m): ..."). */
int pfs_iorscript_translate(const char *path, const char *text, int nranks, int argc, char **argv,
                            struct pfs_jobfile *jf, struct pfs_frontend_extra *x, char *err, size_t len);

/* Local. What rank 0 says of a translated script: the notes in err as
 * "pfsbench: note: " lines on stderr, then each test's native line,
 * "pfsbench: equivalent [runK] (PATH:LINE): pfsbench ...", on stdout (on
 * stderr when the tests print JSON or CSV there). */
void pfs_iorscript_speak(const char *path, const struct pfs_jobfile *jf, const char *notes, FILE *out, FILE *err);

#endif
