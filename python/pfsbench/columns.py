"""The columns a frame is gathered in (frames.py, load.py): blocks of rows
joined once, made a pandas DataFrame or left a dict of numpy arrays."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import numpy.typing as npt

Arr = npt.NDArray[Any]
Spec = List[Tuple[str, str]]
MISSING = object()


def _pandas(what: str) -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ImportError("pfsbench: %s() makes a pandas DataFrame, and pandas is not installed (Debian: apt install "
                          "python3-pandas); %s(as_frame=False) gives the same columns as a dict of numpy arrays"
                          % (what, what)) from e
    return pandas


class Columns:
    """Columns gathered in blocks of n rows, then joined once."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.parts: Dict[str, List[Arr]] = {name: [] for name, _ in spec}

    def add(self, n: int, **cols: Any) -> None:
        """One block of n rows: each column an array of n, a scalar for all
        n, or absent (MISSING / not given: NaN)."""
        if n <= 0:
            return
        for name, dt in self.spec:
            v = cols.get(name, MISSING)
            if v is MISSING or v is None:
                a = np.full(n, np.nan, dtype=object if dt in ("O", "T") else float)
            else:
                a = np.asarray(v)
                if a.ndim == 0:
                    a = np.full(n, a[()], dtype=a.dtype)
                a = a.ravel()
                if a.shape[0] != n:
                    raise ValueError("column %s: %d values for %d rows" % (name, a.shape[0], n))
            self.parts[name].append(a)

    def arrays(self) -> Dict[str, Arr]:
        out = {}
        for name, dt in self.spec:
            parts = self.parts[name]
            if dt in ("O", "T"):
                a = np.concatenate([p.astype(object) for p in parts]) if parts else np.empty(0, dtype=object)
            elif dt == "?":
                a = np.concatenate([p.astype(float) for p in parts]) if parts else np.empty(0, dtype=float)
            else:
                missing = any(p.dtype.kind == "f" and np.isnan(p).any() for p in parts)
                want = np.dtype("f8") if missing or dt == "f8" else np.dtype(dt)
                a = np.concatenate([p.astype(want) for p in parts]) if parts else np.empty(0, dtype=want)
            out[name] = a
        return out

    def result(self, what: str, as_frame: bool) -> Any:
        arrays = self.arrays()
        if not as_frame:
            return arrays
        pd = _pandas(what)
        cols = {}
        for name, dt in self.spec:
            a = arrays[name]
            if dt == "?":
                cols[name] = pd.array([None if np.isnan(x) else bool(x) for x in a], dtype="boolean")
            elif dt == "T":
                cols[name] = pd.to_datetime(pd.Series(a, dtype=object), utc=True, errors="coerce")
            else:
                cols[name] = a
        return pd.DataFrame(cols, columns=[name for name, _ in self.spec])
