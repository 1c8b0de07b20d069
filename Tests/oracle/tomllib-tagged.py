#!/usr/bin/python3
"""The oracle for pushdiag's TOML parser: Python's tomllib (3.11+), an independent implementation.

Reads documents from the file named by argv[1] (each a 4-byte little-endian length and the
bytes) and prints one line per document: {"ok": <canonical JSON>} or {"error": "..."} or
{"bigint": true} (tomllib accepts integers beyond 64 bits; TOML 1.0 requires refusing them).
The canonical form must match TOMLOracleTests' exactly: sorted keys, ensure_ascii, compact
separators, floats as their IEEE bit pattern (NaN as "nan"), date-times in isoformat."""
import datetime, json, struct, sys, tomllib

class BigInt(Exception):
    pass

def tag(v):
    if isinstance(v, dict):
        return {k: tag(x) for k, x in v.items()}
    if isinstance(v, list):
        return [tag(x) for x in v]
    if isinstance(v, bool):
        return {"type": "bool", "value": "true" if v else "false"}
    if isinstance(v, int):
        if not -(2 ** 63) <= v < 2 ** 63:
            raise BigInt()
        return {"type": "integer", "value": str(v)}
    if isinstance(v, float):
        bits = "nan" if v != v else str(struct.unpack("<Q", struct.pack("<d", v))[0])
        return {"type": "float", "value": bits}
    if isinstance(v, str):
        return {"type": "string", "value": v}
    if isinstance(v, datetime.datetime):
        return {"type": "datetime" if v.tzinfo is not None else "datetime-local", "value": v.isoformat()}
    if isinstance(v, datetime.date):
        return {"type": "date-local", "value": v.isoformat()}
    if isinstance(v, datetime.time):
        return {"type": "time-local", "value": v.isoformat()}
    raise TypeError(type(v))

data = open(sys.argv[1], "rb").read()
o = 0
out = sys.stdout
while o < len(data):
    n = struct.unpack("<I", data[o:o + 4])[0]
    doc = data[o + 4:o + 4 + n]
    o += 4 + n
    try:
        text = doc.decode("utf-8")
        if text.startswith("\ufeff"):  # pushdiag skips a byte order mark, as toml++ did
            text = text[1:]
        result = {"ok": json.dumps(tag(tomllib.loads(text)), sort_keys=True, ensure_ascii=True, separators=(",", ":"))}
    except BigInt:
        result = {"bigint": True}
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ValueError, RecursionError) as e:
        result = {"error": str(e)}
    out.write(json.dumps(result) + "\n")
