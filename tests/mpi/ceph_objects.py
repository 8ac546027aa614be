"""ceph_objects.py POOL INODE...: the bytes CephFS keeps in RADOS for files.

CephFS stores a file of inode number I as objects named "<I in hex>.<index
as 8 hex digits>" in its data pool. For the given inode numbers (decimal,
as stat %i prints them) this prints "FILES OBJECTS BYTES": how many of the
inodes have at least one object, how many objects they have, and the sum
of those objects' sizes (the file bytes on the OSDs, once the client has
flushed them). Uses librados through python3-rados, with the cluster that
CEPH_CONF names.
"""
import os
import sys
from typing import Dict

import rados


def main() -> int:
    pool = sys.argv[1]
    want: Dict[str, int] = {"%x" % int(i): 0 for i in sys.argv[2:]}
    nobj = 0
    nbytes = 0
    with rados.Rados(conffile=os.environ["CEPH_CONF"]) as cluster:
        with cluster.open_ioctx(pool) as io:
            for obj in io.list_objects():
                ino = obj.key.split(".", 1)[0]
                if ino in want:
                    size, _ = io.stat(obj.key)
                    want[ino] += 1
                    nobj += 1
                    nbytes += size
    print("%d %d %d" % (sum(1 for n in want.values() if n > 0), nobj, nbytes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
