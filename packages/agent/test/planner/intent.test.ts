import { describe, expect, it } from "vitest";
import { parseIntent } from "../../src/planner/intent/parse.js";
import { INTENT_RULES } from "../../src/planner/intent/rules.js";
import type { ColumnProfile, IntentKind } from "../../src/planner/types.js";
import { headerTokens, pickSheet, resolvePhrase } from "../../src/planner/match.js";
import { stem } from "../../src/planner/text.js";

/* Request parsing and loose name matching, without any workspace. */

/** Phrases without the weak vocabulary words ("~bar", "~chart"). */
const strong = (phrases: string[][]) =>
  phrases.map((p) => p.filter((w) => !w.startsWith("~"))).filter((p) => p.length > 0);

const KINDS: [string, IntentKind][] = [
  ["pie chart of the largest planets from planets.xlsx", "chart"],
  ["average salary by department", "chart"],
  ["how many employees work remotely per department", "chart"],
  ["Orbital launch attempts vs. successes", "chart"],
  ["how did successes change over the years?", "chart"],
  ["compare Madrid and Cairo temperatures", "chart"],
  ["which planet has the most moons?", "rank"],
  ["what is the average salary?", "transform"],
  ["how many missions went to Mars?", "transform"],
  ["cars from Japan with mpg over 30", "transform"],
  ["join missions.json with planets.xlsx on planet", "transform"],
  ["convert observatories.csv to json", "transform"],
  ["planets with the most moons", "rank"],
  ["describe employees.json", "describe"],
  ["what columns does the sales file have", "describe"],
  ["preview daily temps", "preview"],
  ["open notes/ideas.md", "preview"],
  ["planets.xlsx", "preview"],
  ["list the files in data", "list"],
  ["what's in the data folder?", "list"],
  ["show me the project structure", "list"],
  ["find files about moons", "find"],
  ["which files mention Jupiter?", "find"],
  ["list all csv files", "find"],
  ["hello", "help"],
  ["what can you do?", "help"],
  ["make me a sandwich", "unknown"],
  ["Write a haiku about autumn leaves", "unknown"],
];

describe("parseIntent", () => {
  for (const [text, kind] of KINDS) {
    it(`${JSON.stringify(text)} → ${kind}`, () => expect(parseIntent(text).kind).toBe(kind));
  }

  it("reads chart type, ranking and count", () => {
    const i = parseIntent("top 3 smallest planets by diameter as a bar chart");
    expect(i).toMatchObject({ chartType: "bar", rank: { order: "asc", word: "smallest", n: 3 } });
    expect(strong(i.segments.by)).toEqual([["diameter"]]);
    expect(parseIntent("five largest moons").rank).toMatchObject({ order: "desc", n: 5 });
  });

  it("separates file and sheet references from column words", () => {
    const i = parseIntent("bar chart of diameters from the Dwarf planets sheet");
    expect(i.sheet).toBe("Dwarf planets");
    expect(strong(i.segments.head)).toEqual([["diameters"]]);
    const j = parseIntent("histogram of unit prices from the q1 orders file");
    expect(j.fileWords).toEqual(["q1", "orders"]);
    expect(strong(j.segments.head)).toEqual([["unit", "prices"]]);
    expect(parseIntent('open "Budget FY2025.xlsx"').explicitFile).toBe("Budget FY2025.xlsx");
    expect(parseIntent("open secret-plans.docx").explicitFile).toBe("secret-plans.docx");
  });

  it("keeps vocabulary words as weak column words ('by make' may name a Make column)", () => {
    expect(parseIntent("average horsepower by make").segments.by).toEqual([["~make"]]);
    // …but not the leading imperative.
    expect(parseIntent("make me a bar chart of price by origin").segments.head).toEqual([
      ["~bar", "~chart"],
      ["price"],
    ]);
  });

  it("reads aggregations and time words", () => {
    expect(parseIntent("total units by region").agg).toBe("sum");
    expect(parseIntent("count of missions per agency").agg).toBe("count");
    expect(parseIntent("number of moons per planet").agg).toBe("count");
    expect(parseIntent("line chart of units sold per month")).toMatchObject({ overTime: true, timeUnit: "month" });
    expect(parseIntent("scatter of mass vs diameter on a log scale")).toMatchObject({
      chartType: "scatter",
      logScale: true,
    });
  });

  it("reads find targets", () => {
    expect(parseIntent("files containing 'Jupiter'").find).toEqual({ content: "Jupiter" });
    expect(parseIntent("find all csv files").find).toEqual({ glob: "*.csv" });
    expect(parseIntent("find the planets spreadsheet").find).toMatchObject({ name: "planets" });
  });
});

const col = (name: string, type: ColumnProfile["type"] = "number"): ColumnProfile => ({
  name,
  type,
  count: 10,
  distinct: 10,
  examples: [],
});

describe("loose matching", () => {
  it("stems plurals and suffixes", () => {
    expect(["planets", "categories", "remotely", "successes", "temps"].map(stem)).toEqual([
      "planet",
      "category",
      "remote",
      "success",
      "temp",
    ]);
  });

  it("splits headers into words and units", () => {
    expect(headerTokens("Diameter (km)")).toEqual({ main: ["diameter"], units: ["km"] });
    expect(headerTokens("unit_price_usd").main).toEqual(["unit", "price", "usd"]);
    expect(headerTokens("productName").main).toEqual(["product", "name"]);
  });

  it("prefers the header that explains more of the phrase", () => {
    const cols = [col("units"), col("unit_price_usd"), col("region", "text")];
    expect(resolvePhrase(["unit", "prices"], cols)[0]!.column.name).toBe("unit_price_usd");
    expect(resolvePhrase(["units", "sold"], cols)[0]!.column.name).toBe("units");
    expect(resolvePhrase(["temperatures"], [col("Mean temperature (C)"), col("Moons")])[0]!.column.name).toBe(
      "Mean temperature (C)",
    );
    expect(resolvePhrase(["diamter"], [col("Diameter (km)")])[0]!.column.name).toBe("Diameter (km)");
    expect(resolvePhrase(["expenses"], [col("Amount (EUR)"), col("Category", "text")])[0]!.column.name).toBe(
      "Amount (EUR)",
    );
    expect(resolvePhrase(["sandwich"], cols)).toEqual([]);
  });

  it("finds a sheet by a loose name", () => {
    expect(pickSheet("dwarf planets", ["Planets", "Dwarf planets"])).toBe("Dwarf planets");
    expect(pickSheet("2", ["A", "B"])).toBe("B");
    expect(pickSheet("moons", ["Planets", "Dwarf planets"])).toBeUndefined();
  });
});

describe("INTENT_RULES", () => {
  it("each rule's example is classified by that rule's kind (the table's order holds)", () => {
    for (const rule of INTENT_RULES) expect(parseIntent(rule.example).kind, rule.example).toBe(rule.kind);
  });
});
