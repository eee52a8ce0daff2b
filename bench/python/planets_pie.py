"""Anchor for bench suite `exec`: the planets pie chart as a user would make it without textide.

    /usr/bin/python3 bench/python/planets_pie.py <planets.xlsx> <out.png>

Reads the first sheet with openpyxl, takes the five largest planets by diameter and saves a
matplotlib pie chart as PNG. Imports are part of what is timed: a fresh interpreter per chart
is what a script or a notebook-less agent pays.
"""

import sys
import warnings

import matplotlib

matplotlib.use("Agg")  # headless: no display in CI or containers

import matplotlib.pyplot as plt  # noqa: E402
import openpyxl  # noqa: E402


def main(xlsx: str, out: str) -> None:
    # The workbook has no default style; openpyxl warns about it on stderr and carries on.
    warnings.filterwarnings("ignore", category=UserWarning, module="openpyxl")
    sheet = openpyxl.load_workbook(xlsx, read_only=True, data_only=True).worksheets[0]
    rows = sheet.iter_rows(values_only=True)
    header = next(rows)
    name, diameter = header.index("Planet"), header.index("Diameter (km)")
    top = sorted((r for r in rows if r[name] is not None), key=lambda r: r[diameter], reverse=True)[:5]

    fig, ax = plt.subplots()
    ax.pie([r[diameter] for r in top], labels=[r[name] for r in top])
    ax.set_title("Largest planets by diameter")
    fig.savefig(out, format="png")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} <planets.xlsx> <out.png>")
    main(sys.argv[1], sys.argv[2])
