#!/usr/bin/env python3
"""Reads hpnctl's exports with the consumers' own parsers and prints what it
found as JSON, for export_cli_test.cpp to compare with the blueprint.

  export_check.py csv FILE        Python's csv module: header and rows
  export_check.py batfish FILE    json.load: the edges as [host1, if1, host2, if2]
  export_check.py xlsx FILE       openpyxl: per sheet its rows, frozen pane,
                                  autofilter and column widths
  export_check.py xlsx-sizes FILE openpyxl, read-only, rows not read (a pod's
                                  52,080 take openpyxl a minute): per sheet its
                                  name and data rows, from its dimension
  export_check.py svg FILE...     xml.etree: the number of Graphviz nodes per file
  export_check.py zip FILE        zipfile: the members, each as its text (an
                                  XLSX's own XML, as Excel reads it)
"""
import csv
import json
import sys
import xml.etree.ElementTree as ET
import zipfile


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f, strict=True))
    return {"header": rows[0] if rows else [], "rows": rows[1:]}


def read_batfish(path):
    with open(path) as f:
        doc = json.load(f)
    edges = []
    for e in doc["edges"]:
        n1, n2 = e["node1"], e["node2"]
        edges.append([n1["hostname"], n1["interfaceName"], n2["hostname"], n2["interfaceName"]])
    return {"keys": sorted(doc.keys()), "edges": edges}


def read_xlsx(path):
    import openpyxl  # python3-openpyxl

    wb = openpyxl.load_workbook(path)
    sheets = []
    for ws in wb.worksheets:
        rows = [["" if v is None else v for v in row] for row in ws.iter_rows(values_only=True)]
        sheets.append({
            "name": ws.title,
            "header": rows[0] if rows else [],
            "rows": rows[1:],
            "freeze_panes": ws.freeze_panes,
            "auto_filter": ws.auto_filter.ref,
            "widths": {k: d.width for k, d in sorted(ws.column_dimensions.items())},
            "printer_wraps": bool(ws.max_row > 1 and ws.cell(row=2, column=ws.max_column).alignment.wrap_text),
        })
    return {"title": wb.properties.title, "sheets": sheets}


def read_xlsx_sizes(path):
    import openpyxl

    wb = openpyxl.load_workbook(path, read_only=True)
    sheets = [{"name": ws.title, "rows": ws.max_row - 1, "columns": ws.max_column} for ws in wb.worksheets]
    wb.close()
    return {"sheets": sheets}


def read_zip(path):
    with zipfile.ZipFile(path) as z:
        return {name: z.read(name).decode("utf-8") for name in z.namelist()}


def count_svg_nodes(paths):
    ns = "{http://www.w3.org/2000/svg}"
    counts = {}
    for path in paths:
        root = ET.parse(path).getroot()
        counts[path] = sum(1 for g in root.iter(ns + "g") if g.get("class") == "node")
    return counts


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == "csv":
        out = read_csv(args[0])
    elif mode == "batfish":
        out = read_batfish(args[0])
    elif mode == "xlsx":
        out = read_xlsx(args[0])
    elif mode == "xlsx-sizes":
        out = read_xlsx_sizes(args[0])
    elif mode == "zip":
        out = read_zip(args[0])
    elif mode == "svg":
        out = count_svg_nodes(args)
    else:
        sys.exit(f"unknown mode {mode}")
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
