"""ceph_ready.py NOSD < STATUS_JSON: is the test cluster ready for tests?

STATUS_JSON is `ceph status --format json`. Ready means: HEALTH_OK, an
active manager (the monitor says HEALTH_OK for a while before the first
manager is active, and then knows nothing of the placement groups), NOSD
OSDs up and in, a CephFS MDS up:active, and every placement group
active+clean. Exits 0 when ready; otherwise 1, and prints what is missing,
on one line, for the harness's failure message.
"""
import json
import sys
from typing import Any, Dict, List


def missing(st: Dict[str, Any], nosd: int) -> List[str]:
    why: List[str] = []
    health = st.get("health", {}).get("status", "?")
    if health != "HEALTH_OK":
        checks = sorted(st.get("health", {}).get("checks", {}))
        why.append("health %s (%s)" % (health, ", ".join(checks)))
    if not st.get("mgrmap", {}).get("available", False):
        why.append("no active manager")
    osd = st.get("osdmap", {})
    up, inn = int(osd.get("num_up_osds", 0)), int(osd.get("num_in_osds", 0))
    if up != nosd or inn != nosd:
        why.append("OSDs %d up, %d in (want %d)" % (up, inn, nosd))
    if int(st.get("fsmap", {}).get("up", 0)) < 1:
        why.append("no MDS up:active")
    pg = st.get("pgmap", {})
    total = int(pg.get("num_pgs", 0))
    clean = sum(int(s.get("count", 0)) for s in pg.get("pgs_by_state", [])
                if s.get("state_name") == "active+clean")
    if total == 0 or clean != total:
        why.append("%d of %d placement groups active+clean" % (clean, total))
    return why


def main() -> int:
    nosd = int(sys.argv[1])
    try:
        st = json.load(sys.stdin)
    except ValueError as e:
        print("no status: %s" % e)
        return 1
    why = missing(st, nosd)
    if why:
        print("; ".join(why))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
