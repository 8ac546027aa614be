/* Bytes from outside the program (argv, paths, labels, host names) made
 * into text that can be stored, printed and re-run. Pure: no MPI, no HDF5. */
#ifndef PFS_CMDLINE_H
#define PFS_CMDLINE_H

#include <stddef.h>

/* Local. The length (1..4) of the well-formed UTF-8 sequence at s, of which
 * at most n bytes may be read, or 0 when the bytes there are not one:
 * a stray continuation byte, an overlong form, a surrogate (U+D800..DFFF),
 * a code point above U+10FFFF, or a sequence cut short (by n or by a NUL).
 * *cp receives the code point when cp is not NULL and the length is not 0. */
size_t pfs_utf8_seq(const char *s, size_t n, unsigned *cp);

/* Local. Where pfs_utf8_seq says 0: the length (1..3) of the bytes at s that
 * a decoder replaces by one U+FFFD (Unicode's "maximal subpart": a lead
 * byte and the continuation bytes that still fit it, or one stray byte),
 * as Python, browsers and iconv do. 0 only when n is 0. */
size_t pfs_utf8_bad(const char *s, size_t n);

/* Local. Whether code point cp may reach a terminal as it is: 0 for the C0
 * and C1 controls and DEL (a terminal acts on them: ESC starts a colour or
 * cursor sequence, U+009B is CSI), the line and paragraph separators and the
 * bidirectional overrides and isolates (they reorder what is shown). */
int pfs_utf8_printable(unsigned cp);

/* Local. argv[0..argc-1] as one line a POSIX shell splits back into the same
 * words: a word of safe characters only (letters, digits, %+,-./:=@_) is
 * written bare; any other is single-quoted, a ' inside it as '\'', an empty
 * word as ''. Bytes that are not printable (C0 and C1 controls, DEL, bytes
 * that are not well-formed UTF-8) are written as $'\xNN', so the line stays
 * printable, valid UTF-8 and exact; a line holding one needs a shell that
 * knows $'' (bash, ksh, zsh, POSIX.1-2024 sh; not dash). Words are separated
 * by one space. Like snprintf, returns the length the whole line needs
 * (without the NUL) and writes at most len bytes, NUL included; a line that
 * does not fit is cut after its last whole word, never inside one, so a
 * return >= len says it was cut. */
size_t pfs_cmdline_join(int argc, char **argv, char *out, size_t len);

#endif
