"""Rho's notebook runner for Python, its listing and inspection half: the session's variables
after a cell, and one value described as kind, class, size, facts and a page."""

import ast
import inspect as _inspect
import itertools
import math
import time
import reprlib
import types

_prev = {"vals": {}, "cut": False}
_repr = reprlib.Repr()
_repr.maxstring = 100
_repr.maxother = 100


class Missing(LookupError):
    """No such value or part."""


def _cut(s, n):
    return s if len(s) <= n else s[: n - 1] + "\u2026"


def _listed(v):
    if isinstance(v, types.ModuleType):
        return False
    if isinstance(v, (type, types.FunctionType, types.BuiltinFunctionType)):
        return getattr(v, "__module__", None) == "__main__"
    return True


def _shape(v):
    shape = getattr(v, "shape", None)
    if isinstance(shape, tuple):
        return " x ".join(str(d) for d in shape) if shape else "1"
    if isinstance(v, (str, bytes, list, tuple, dict, set, frozenset)):
        return str(len(v))
    return "1"


def _summary(v):
    mod = type(v).__module__
    if mod.startswith("pandas") and type(v).__name__ == "DataFrame":
        cols = ", ".join(str(c) for c in list(v.columns[:8]))
        return _cut("%d rows x %d columns: %s" % (v.shape[0], v.shape[1], cols), 100)
    if mod.startswith(("numpy", "pandas")) and hasattr(v, "shape"):
        return _cut("%s %s" % (getattr(v, "dtype", ""), _repr.repr(v[:6] if len(v.shape) == 1 else "")), 100)
    if isinstance(v, (types.FunctionType, type)):
        try:
            return _cut("%s%s" % (v.__name__, _inspect.signature(v)), 100)
        except (TypeError, ValueError):
            return v.__name__
    if mod == "builtins":
        return _cut(_repr.repr(v).replace("\n", " "), 100)
    # Another library's or the cell's own class: its repr may be slow or large; name it only.
    return _cut("%s.%s object" % (mod, type(v).__qualname__), 100)


# A changed-in-place value keeps its identity and often its shape: each listing also digests a
# bounded sample of a container's or frame's content (at most SAMPLE elements or rows: the first
# and last quarter and evenly spaced ones between), and all of a listing's digests together take
# at most DIGEST_BUDGET_S; past it, the remaining values compare by identity and shape only.
SAMPLE = 1024
DIGEST_BUDGET_S = 0.05
_SCALARS = (int, float, complex, bool, str, bytes, type(None))


def _positions(n):
    """At most SAMPLE positions of 0..n-1: head, tail and evenly spaced between."""
    if n <= SAMPLE:
        return range(n)
    q = SAMPLE // 4
    step = max(1, (n - 2 * q) // (SAMPLE - 2 * q))
    return sorted(set(range(q)) | set(range(n - q, n)) | set(range(q, n - q, step)))


def _part(e):
    """One element as the digest sees it: a scalar itself, else its type, identity and length."""
    if isinstance(e, _SCALARS):
        return e
    try:
        n = len(e)
    except Exception:  # noqa: BLE001
        n = None
    return (type(e).__name__, id(e), n)


def _content(v):
    """A hash of a bounded sample of `v`'s content, or None for values it does not read."""
    mod = type(v).__module__
    if mod.startswith("pandas") and type(v).__name__ in ("DataFrame", "Series"):
        import pandas as pd

        sample = v.iloc[list(_positions(len(v)))]
        cols = ()
        if type(v).__name__ == "DataFrame":
            if sample.shape[1] > SAMPLE:
                sample = sample.iloc[:, list(_positions(sample.shape[1]))]
            cols = tuple(str(c) for c in sample.columns)
        return hash((pd.util.hash_pandas_object(sample, index=True).values.tobytes(), cols))
    if mod == "numpy" and type(v).__name__ == "ndarray":
        if v.dtype.hasobject:
            return hash(tuple(_part(v.flat[i]) for i in _positions(v.size)))
        return hash((str(v.dtype), v.flat[list(_positions(v.size))].tobytes()))
    if isinstance(v, (list, tuple)):
        return hash(tuple(_part(v[i]) for i in _positions(len(v))))
    if isinstance(v, dict):
        q = SAMPLE // 2
        head = itertools.islice(v.items(), q)
        tail = itertools.islice(reversed(v.items()), q) if len(v) > q else ()
        return hash(tuple((_part(k), _part(e)) for k, e in itertools.chain(head, tail)))
    if isinstance(v, (set, frozenset)):
        return hash(frozenset(_part(e) for e in itertools.islice(v, SAMPLE)))
    if isinstance(v, bytearray):
        return hash(bytes(v[i] for i in _positions(len(v))))
    return None


def _fingerprint(v, deadline):
    """(shape, length, content digest or None): None past the listing's digest budget."""
    try:
        shape = getattr(v, "shape", None)
        shape = shape if isinstance(shape, tuple) else None
        n = len(v) if isinstance(v, (list, dict, set, bytearray)) else None
    except Exception:  # noqa: BLE001
        return (None, None, None)
    digest = None
    if time.perf_counter() < deadline:
        try:
            digest = _content(v)
        except Exception:  # noqa: BLE001
            digest = None
    return (shape, n, digest)


def _changed(before, after):
    """Shape or length differ, or both digests were taken and differ."""
    if before[:2] != after[:2]:
        return True
    return before[2] is not None and after[2] is not None and before[2] != after[2]


def variables(ns, max_vars):
    """Columnar listing plus defined/removed against the previous cell's values."""
    names = sorted(n for n, v in ns.items() if not n.startswith("_") and _listed(v))
    prev = _prev["vals"]
    deadline = time.perf_counter() + DIGEST_BUDGET_S
    vals = {n: (ns[n], _fingerprint(ns[n], deadline)) for n in names}
    defined = [n for n in names if n not in prev or prev[n][0] is not vals[n][0] or _changed(prev[n][1], vals[n][1])]
    shown = names[:max_vars]
    cut = len(names) > len(shown)
    removed = None if cut or _prev["cut"] else sorted(set(prev) - set(vals))
    _prev["vals"], _prev["cut"] = vals, cut
    types_, sizes, sums = [], [], []
    for n in shown:
        v = ns[n]
        types_.append(type(v).__name__)
        try:
            sizes.append(_shape(v))
            sums.append(_summary(v))
        except Exception:  # noqa: BLE001
            sizes.append("?")
            sums.append(type(v).__name__)
    return {
        "variables": {"names": shown, "types": types_, "sizes": sizes, "summaries": sums,
                      "omitted": len(names) - len(shown)},
        "defined": defined,
        "removed": removed,
    }


def resolve(ns, path):
    """Names, [constant] and .attr only: parsed, never evaluated."""
    try:
        node = ast.parse(path, mode="eval").body
    except SyntaxError as e:
        raise ValueError("not a value's path: %s" % e) from None

    def walk(n):
        if isinstance(n, ast.Name):
            if n.id not in ns:
                raise Missing("no value %s" % n.id)
            return ns[n.id]
        if isinstance(n, ast.Attribute):
            obj = walk(n.value)
            if not hasattr(obj, n.attr):
                raise Missing("no part %s" % n.attr)
            return getattr(obj, n.attr)
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant):
            obj, key = walk(n.value), n.slice.value
            try:
                if type(obj).__module__.startswith("pandas") and isinstance(key, int) and not isinstance(obj, dict):
                    return obj.iloc[key] if hasattr(obj, "iloc") else obj[key]
                return obj[key]
            except (KeyError, IndexError):
                raise Missing("no part %r" % (key,)) from None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            raise ValueError("not a value's path")
        raise ValueError("not a value's path: use names, [position], [\"key\"] and .attr")

    return walk(node)


def _text(s, lim):
    b = s.encode("utf-8")
    if len(b) <= lim["inspectTextBytes"]:
        return s, False
    return b[: lim["inspectTextBytes"]].decode("utf-8", "ignore"), True


def _cell(v, lim):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None, False
    try:
        import pandas as pd  # noqa: F401

        if pd.isna(v) is True:
            return None, False
    except Exception:  # noqa: BLE001
        pass
    s = str(v)
    n = lim["inspectCellChars"]
    return (_cut(s, n), len(s) > n)


def describe(ns, path, offset, rows, sort, lim):
    x = resolve(ns, path)
    r = page(x, path, offset, rows, sort, lim)
    r["code"] = path
    r["class"] = [type(x).__module__ + "." + type(x).__qualname__ if type(x).__module__ != "builtins" else type(x).__name__]
    return r


def _is_frame(x):
    return type(x).__module__.startswith("pandas") and type(x).__name__ == "DataFrame"


def _table(df, code, offset, rows, sort, lim):
    n, nc = df.shape
    cols = list(range(min(nc, lim["inspectColumns"])))
    positions = list(range(min(offset, n), min(n, offset + rows)))
    r = {"kind": "table"}
    if sort:
        col = sort.get("column")
        names = [str(c) for c in df.columns]
        if col not in names:
            r["sortRefused"] = "no column %s" % col
        elif n > lim["inspectSortRows"]:
            r["sortRefused"] = "%d rows is over inspectSortRows %d" % (n, lim["inspectSortRows"])
        else:
            values = df.iloc[:, names.index(col)]
            order = values.sort_values(ascending=not sort.get("descending"), kind="stable", na_position="last")
            import numpy as np  # noqa: PLC0415 - pandas brings it

            pos = np.asarray(df.index.get_indexer(order.index[offset:offset + rows])) if df.index.is_unique else None
            if pos is None:
                pos = values.reset_index(drop=True).sort_values(
                    ascending=not sort.get("descending"), kind="stable").index[offset:offset + rows]
            positions = [int(p) for p in pos]
        r["sorted"] = {"column": col, "descending": bool(sort.get("descending")), "done": "sortRefused" not in r}
    page = df.iloc[positions, cols]
    out_rows = []
    columns = [page.iloc[:, j].tolist() for j in range(len(cols))]
    for i, p in enumerate(positions):
        vals, cut = [], []
        for j in range(len(cols)):
            v, c = _cell(columns[j][i], lim)
            vals.append(v)
            if c:
                cut.append(j + 1)
        row = {"index": p, "label": str(df.index[p]), "values": vals}
        if cut:
            row["cut"] = cut
        out_rows.append(row)
    r.update({
        "size": {"rows": n, "columns": nc}, "facts": {"rows": n, "columns": nc},
        "columns": [{"name": str(df.columns[j]), "type": str(df.dtypes.iloc[j]), "position": j + 1,
                     "code": "%s[%r]" % (code, df.columns[j]), "path": "%s.iloc[:, %d]" % (code, j)} for j in cols],
        "columnsTotal": nc, "total": n, "offset": offset, "page": {"rows": out_rows},
    })
    return r


def _is_model(x):
    """A fitted model (decision 0514): statsmodels results (params and model), an estimator in
    scikit-learn's shape (coef_ and get_params), or a numpy.polynomial series (coef, domain and
    window: what Polynomial.fit returns). numpy.polyfit's plain array is a vector."""
    if hasattr(x, "params") and hasattr(x, "model"):
        return True
    if hasattr(x, "coef_") and hasattr(x, "get_params"):
        return True
    return type(x).__module__.startswith("numpy.polynomial") and all(
        hasattr(x, a) for a in ("coef", "domain", "window", "convert"))


_FIT_NAMES = {"nobs": "nobs", "rsquared": "rSquared", "rsquared_adj": "adjRSquared", "aic": "aic", "bic": "bic"}


def _polynomial(x):
    kind = type(x).__name__
    # In the data's own units (Polynomial.fit works in a scaled window).
    coef = [float(c) for c in x.convert().coef]
    term = (lambda i: "x^%d" % i) if kind == "Polynomial" else (lambda i: "%s[%d]" % (kind, i))
    coefs = [{"term": term(i), "estimate": c} for i, c in enumerate(coef)]
    return {"kind": "model", "size": {"coefficients": len(coefs)},
            "facts": {"type": kind, "domain": [float(d) for d in x.domain]},
            "fit": {"degree": len(coef) - 1}, "coefficients": coefs, "total": len(coefs)}


def _model(x, code):
    if type(x).__module__.startswith("numpy.polynomial"):
        return _polynomial(x)
    if hasattr(x, "params") and hasattr(x, "model"):
        params = x.params
        labels = getattr(params, "index", None)  # a pandas Series' labels; a list's .index is a method
        names = [str(k) for k in (labels if labels is not None and not callable(labels) else range(len(params)))]
        coefs = []
        for i, term in enumerate(names):
            row = {"term": term, "estimate": float(params.iloc[i] if hasattr(params, "iloc") else params[i])}
            for key, attr in (("stdError", "bse"), ("statistic", "tvalues"), ("pValue", "pvalues")):
                v = getattr(x, attr, None)
                if v is not None:
                    row[key] = float(v.iloc[i] if hasattr(v, "iloc") else v[i])
            coefs.append(row)
        fit = {name: float(getattr(x, k)) for k, name in _FIT_NAMES.items()
               if isinstance(getattr(x, k, None), (int, float))}
    else:
        coef = [float(c) for c in getattr(x.coef_, "ravel", lambda: x.coef_)()]
        names = [str(f) for f in getattr(x, "feature_names_in_", range(len(coef)))]
        coefs = [{"term": t, "estimate": c} for t, c in zip(names, coef)]
        icpt = getattr(x, "intercept_", None)
        if icpt is not None:
            coefs.insert(0, {"term": "intercept", "estimate": float(getattr(icpt, "ravel", lambda: [icpt])()[0])})
        fit = {}
    return {"kind": "model", "size": {"coefficients": len(coefs)}, "facts": {"type": type(x).__name__},
            "fit": fit, "coefficients": coefs, "total": len(coefs)}


def _vector(x, code, offset, rows, lim):
    n = len(x)
    vals = x.tolist() if hasattr(x, "tolist") else list(x)
    els = []
    for i in range(min(offset, n), min(n, offset + rows)):
        v, c = _cell(vals[i], lim)
        e = {"index": i, "value": v}
        if c:
            e["cut"] = True
        els.append(e)
    facts = {"type": str(getattr(x, "dtype", type(x).__name__)), "length": n}
    try:
        import pandas as pd  # noqa: PLC0415

        s = pd.Series(x) if not hasattr(x, "isna") else x
        facts["missing"] = int(s.isna().sum())
        if s.dtype.kind in "iuf" and n:
            facts.update({"min": float(s.min()), "max": float(s.max()), "mean": float(s.mean())})
    except Exception:  # noqa: BLE001
        pass
    return {"kind": "vector", "size": {"length": n}, "facts": facts, "total": n, "offset": offset,
            "page": {"elements": els}}


def _list(x, code, offset, lim):
    n = len(x)
    if isinstance(x, dict):
        items = list(x.items())
    else:
        items = list(enumerate(x))
    parts = []
    for pos in range(min(offset, n), min(n, offset + lim["inspectChildren"])):
        key, v = items[pos]
        keyed = isinstance(x, dict)
        p = {"position": pos + 1, "class": type(v).__name__, "size": _shape(v), "summary": _summary(v)}
        if keyed:
            p["name"] = str(key)
        if isinstance(x, (set, frozenset)):
            p["path"] = None
        elif keyed and isinstance(key, (str, int, float, bool)):
            p["path"] = p["code"] = "%s[%r]" % (code, key)
        elif not keyed:
            p["path"] = p["code"] = "%s[%d]" % (code, pos)
        parts.append(p)
    return {"kind": "list", "size": {"length": n}, "facts": {"length": n}, "total": n, "offset": offset,
            "page": {"parts": parts}}


def page(x, code, offset, rows, sort, lim):
    if _is_frame(x):
        return _table(x, code, offset, rows, sort, lim)
    if _is_model(x):
        return _model(x, code)
    if isinstance(x, (types.FunctionType, types.MethodType, types.LambdaType)):
        try:
            src = _inspect.getsource(x)
        except (OSError, TypeError):
            src = repr(x)
        t, cut = _text(src, lim)
        args = list(_inspect.signature(x).parameters)
        return {"kind": "function", "size": {"arguments": len(args)}, "facts": {"arguments": args},
                "text": t, "cut": cut}
    if isinstance(x, (int, float, complex, bool, str, bytes)) or x is None:
        t, cut = _text(x if isinstance(x, str) else repr(x), lim)
        return {"kind": "value", "size": {"length": 1}, "facts": {"type": type(x).__name__},
                "value": None if x is None else t, "cut": cut}
    mod = type(x).__module__
    if (mod.startswith("numpy") and getattr(x, "ndim", 0) == 1) or (mod.startswith("pandas") and type(x).__name__ == "Series"):
        return _vector(x, code, offset, rows, lim)
    if isinstance(x, (list, tuple, dict, set, frozenset)):
        return _list(x, code, offset, lim)
    t, cut = _text(repr(x), lim)
    return {"kind": "other", "size": {}, "facts": {"type": type(x).__name__}, "text": t, "cut": cut}
