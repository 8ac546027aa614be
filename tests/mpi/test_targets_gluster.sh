#!/bin/bash
# The GlusterFS target provider on a real 3-brick distribute volume
# (tests/lib/glusterfs.sh): 24 files written through a FUSE client are each
# attributed to the brick whose own directory holds their data, across at
# least two bricks; renamed files (which can leave an empty ---------T link
# file on the brick their new name hashes to) are attributed to the brick
# that keeps their data; an unprivileged user gets the same answers (the
# glusterfs.pathinfo attribute needs no root); and a file of the mount's
# root directory too. Exits 77 (skipped, said loudly) without root, FUSE or
# the gluster packages.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/glusterfs.sh"
: "${PFS_TARGETS_PROBE:?set PFS_TARGETS_PROBE to the targets_probe binary (ctest does)}"
PROBE=$PFS_TARGETS_PROBE

RC=0
gl_start 3 || RC=$?
[ "$RC" -eq 77 ] && exit 77
[ "$RC" -eq 0 ] || { echo "FAIL - glusterfs: the volume did not start (rc $RC)"; exit 1; }
# The unprivileged check needs a path it may walk: this test's own directory.
chmod 0755 "$T"
gl_mount "$T/m" || { echo "FAIL - glusterfs: the client did not mount"; exit 1; }
M=${GL_MOUNTS[0]}
mkdir "$M/d"
NFILES=24
for ((i = 0; i < NFILES; i++)); do
    dd if=/dev/zero of="$(printf '%s/d/f%02d' "$M" "$i")" bs=64k count=1 status=none
done

# data_brick NAME: HOST:BRICK of the brick holding d/NAME's data (a regular
# file that is not a DHT link file, mode ---------T); "none" or "several".
data_brick() {
    local b found=()
    for b in "${GL_BRICKS[@]}"; do
        [ -n "$(find "$b/d" -maxdepth 1 -name "$1" -type f ! -perm -1000 2>/dev/null)" ] && found+=("$GL_HOST:$b")
    done
    case ${#found[@]} in 0) echo none ;; 1) echo "${found[0]}" ;; *) echo several ;; esac
}
# attributed FILE...: the probe's line of every file names exactly the brick
# holding it, from provider glusterfs, known; prints the mismatches.
attributed() {
    local f name want line bad=0
    for f in "$@"; do
        name=${f##*/}
        want=$(data_brick "$name")
        line=$(awk -F'\t' -v f="$f" '$1 == f' "$T/out")
        if [ "$(cut -f2-4 <<<"$line")" != "glusterfs	1	$want" ]; then
            echo "  $name: probe said '$line', the bricks say $want"
            bad=1
        fi
    done
    return $bad
}

FILES=()
for ((i = 0; i < NFILES; i++)); do FILES+=("$(printf '%s/d/f%02d' "$M" "$i")"); done
RC=0
"$PROBE" "$M" "${FILES[@]}" >"$T/out" 2>"$T/err" || RC=$?
check "probe: exits 0 on $NFILES files" [ "$RC" -eq 0 ]
check "probe: says nothing is unknown" bash -c '! grep -q "^note:" "$1"' _ "$T/err"
check "every one of the $NFILES files is attributed to the brick that holds it" attributed "${FILES[@]}"
USED=$(cut -f4 "$T/out" | sort -u | wc -l)
echo "# files per brick: $(cut -f4 "$T/out" | sort | uniq -c | awk '{ printf "%s %s; ", $2, $1 }')"
check "the files spread over at least 2 of the 3 bricks ($USED)" [ "$USED" -ge 2 ]
check "the detail says distribute, 1 brick" bash -c 'cut -f5 "$1" | sort -u | grep -qx "distribute, 1 brick"' _ "$T/out"

# ---- renamed files: their data stays where it was -----------------------------
RENAMED=()
for ((i = 0; i < 8; i++)); do
    mv "$(printf '%s/d/f%02d' "$M" "$i")" "$(printf '%s/d/moved-%02d' "$M" "$i")"
    RENAMED+=("$(printf '%s/d/moved-%02d' "$M" "$i")")
done
LINKS=$(for b in "${GL_BRICKS[@]}"; do find "$b/d" -maxdepth 1 -name 'moved-*' -type f -perm -1000; done | wc -l)
echo "# renames that left a DHT link file on another brick: $LINKS of 8"
RC=0
"$PROBE" "$M" "${RENAMED[@]}" >"$T/out" 2>"$T/err" || RC=$?
check "renamed: probe exits 0" [ "$RC" -eq 0 ]
check "renamed: each is attributed to the brick keeping its data, not its link file" attributed "${RENAMED[@]}"

# ---- without root: glusterfs.pathinfo is readable by anyone -----------------
REST=("${FILES[@]:8}")
RC=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$PROBE" "$M" "${REST[@]}" >"$T/out" 2>"$T/err" || RC=$?
check "as nobody: probe exits 0" [ "$RC" -eq 0 ]
check "as nobody: every file attributed to its brick" attributed "${REST[@]}"

# ---- a file in the volume's root directory --------------------------------------
echo x >"$M/top"
RC=0
"$PROBE" "$M" "$M/top" >"$T/out" 2>"$T/err" || RC=$?
want=$(for b in "${GL_BRICKS[@]}"; do [ -n "$(find "$b" -maxdepth 1 -name top -type f ! -perm -1000)" ] && echo "$GL_HOST:$b"; done)
check "root directory file: attributed to its brick ($want)" \
    bash -c '[ "$(cut -f2-4 "$1")" = "glusterfs	1	$2" ]' _ "$T/out" "$want"
finish
