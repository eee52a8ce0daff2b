import { capabilities } from "../answers.js";
import { lit } from "../code/helpers.js";
import { execOutcome, failureText, searchMatches } from "../results.js";
import { isTablePath } from "../table.js";
import { slug, stem } from "../text.js";
import { transformDone, unmappedAnswer } from "../transform/answer.js";
import {
  compile,
  compileJoin,
  entityWords,
  valuePhrases,
  type Compiled,
  type TableSchema,
} from "../transform/compile.js";
import { parseTransform } from "../transform/request.js";
import { resultRows, schemaColumns, schemaSql, valueHits, valuesSql, type ValueHit } from "../transform/sql.js";
import type { ChartType, Decision, Step } from "../types.js";
import { WIRE } from "../types.js";
import { answer, call, EXEC_TIMEOUT_MS, ok, stepsOf, type Ctx, type Flow } from "./context.js";
import { dedupe, notFoundStep, rankCandidates, sameFile, TABLE_GLOB } from "./steps.js";

/*
 * Transforms through sql_query: find the file(s), read their columns (DESCRIBE), look up the
 * request's leftover words among the text values, compile one SQL statement, run it, optionally
 * chart its result with exec_run_js, and answer with the computed numbers and the SQL. A word
 * that names nothing stops the flow with an answer that says so (compile.ts).
 */

/** Every table file written in the request, in order ("join missions.json with planets.xlsx"). */
function namedTables(text: string, explicit: string | undefined): string[] {
  const re =
    /(?:^|[\s"'`(])((?:[\w@.~-]+\/)*[\w@~-][\w@.~-]*?\.(?:csv|tsv|tab|xlsx|json|jsonl|ndjson|parquet))(?=$|[\s"'`),;:!?]|\.(?:\s|$))/gi;
  const found = [...text.matchAll(re)].map((m) => m[1]!.replace(/^\.\//, ""));
  // A quoted name may hold spaces ("Cars Dataset.csv"): the intent parser found it.
  return explicit && !found.some((f) => explicit.endsWith(f)) ? [explicit, ...found] : found;
}

const last = (steps: Step[]) => steps[steps.length - 1];

/** The files the request is about: the named ones, or the table whose name fits best. */
function files(ctx: Ctx, named: string[], words: string[]): Decision | string[] {
  const searches = stepsOf(ctx, "search");
  if (searches.length === 0) return call(WIRE.search, { query: TABLE_GLOB, limit: 1000 });
  const matches = dedupe(searches.flatMap(searchMatches)).filter((m) => m.type !== "directory");
  if (named.length > 0) {
    const paths: string[] = [];
    for (const wanted of named) {
      const hits = matches.filter((m) => sameFile(m.path, wanted));
      if (hits.length === 0) return notFoundStep(ctx, wanted, matches);
      paths.push(rankCandidates(ctx, hits)[0]!.path);
    }
    return paths;
  }
  const ranked = rankCandidates(
    ctx,
    matches.filter((m) => isTablePath(m.path)),
  );
  if (ranked.length === 0)
    return answer(capabilities("No .csv, .tsv, .xlsx or .json tables were found in the workspace."));
  // No file is named by a word of the request: look for its longest word inside the tables
  // (headers and values), so "students with a score below 50" finds the grades.
  if (ranked[0]!.score < 1 && searches.length === 1 && words.length > 0) {
    const word = [...words].sort((a, b) => b.length - a.length)[0]!;
    return call(WIRE.search, { query: TABLE_GLOB, content: stem(word), limit: 200 });
  }
  return [ranked[0]!.path];
}

/** Code that charts a query's result rows (inline), for "bar chart of … with more than …". */
function resultChartCode(
  c: Compiled,
  structured: Record<string, unknown> | undefined,
  type: ChartType,
): string | undefined {
  const r = resultRows(structured);
  const numeric = r.columns.filter((x) => /INT|DOUBLE|FLOAT|DECIMAL|REAL|NUMERIC/i.test(x.type));
  const x = c.shape === "grouped" ? c.group : (c.label ?? r.columns.find((col) => !numeric.includes(col))?.name);
  const y = c.shape === "grouped" ? r.columns[1]?.name : numeric.find((col) => col.name !== x)?.name;
  if (!x || !y || r.rows.length === 0) return undefined;
  const data = r.rows.map((row) => ({ x: row[x], value: row[y] }));
  const kind = type === "pie" || type === "line" ? type : "bar";
  const title = `${y} by ${x}`;
  const encoding =
    kind === "pie"
      ? { theta: { field: "value", type: "quantitative", title: y }, color: { field: "x", type: "nominal", title: x } }
      : {
          x: { field: "x", type: kind === "line" ? "ordinal" : "nominal", title: x, sort: null },
          y: { field: "value", type: "quantitative", title: y },
        };
  const spec = {
    title,
    width: 480,
    height: 320,
    mark: { type: kind === "pie" ? "arc" : kind, tooltip: true },
    encoding,
  };
  return `// Chart of the sql_query result (${r.rows.length} rows): ${title}
const data = ${JSON.stringify(data)};
const spec = ${JSON.stringify(spec, null, 2)};
spec.data = { values: data };
const out = await chart(spec, ${lit(`${slug(title)}-${kind}`)}, { format: "png" });
return { chart: out.png, points: data.length };`;
}

export const transformFlow: Flow = (ctx) => {
  const { intent } = ctx;
  if (!ctx.has(WIRE.sql)) {
    return answer(
      capabilities(
        "Filtering, aggregating, joining and converting tables needs the sql_query tool, which this session does not have.",
      ),
    );
  }
  const named = namedTables(intent.text, intent.explicitFile);
  const req = parseTransform(
    intent,
    named.filter((f) => f !== intent.explicitFile),
  );
  const paths = files(ctx, named, [
    ...req.words,
    ...req.measure,
    ...req.comparisons.flatMap((c) => [...c.after, ...c.before]),
  ]);
  if (!Array.isArray(paths)) return paths;

  const schemas: TableSchema[] = [];
  for (const path of paths.slice(0, 2)) {
    const step = last(stepsOf(ctx, "schema").filter((s) => s.marker?.file === path));
    if (!step) return call(WIRE.sql, { sql: schemaSql(path) }, { step: "schema", file: path });
    if (!ok(step)) return answer(`Could not read ${path} as a table: ${failureText(step)}`);
    schemas.push({ path, columns: schemaColumns(step.result?.structured) });
  }
  const main = schemas[0]!;

  let result;
  if (req.join || schemas.length > 1) {
    if (schemas.length < 2) return answer(`A join needs two files; name both (e.g. "join a.csv with b.xlsx on id").`);
    result = compileJoin(
      { ...req, join: req.join ?? { files: [main.path, schemas[1]!.path], on: [] } },
      main,
      schemas[1]!,
    );
  } else {
    const entity = entityWords(req.words, main.path);
    const leftover = req.words.filter((w) => !entity.includes(w));
    let hits: ValueHit[] = [];
    if (leftover.length > 0 && main.columns.some((c) => c.type === "text")) {
      const step = last(stepsOf(ctx, "values"));
      if (!step) {
        return call(
          WIRE.sql,
          { sql: valuesSql(main.path, main.columns, valuePhrases(leftover)), maxRows: 2000 },
          { step: "values", file: main.path },
        );
      }
      hits = ok(step) ? valueHits(step.result?.structured) : [];
    }
    result = compile(req, main, hits);
  }
  if (!result.ok) return answer(unmappedAnswer(main.path, result.unmapped, main.columns, result.reason));
  const compiled = result.compiled;

  const query = last(stepsOf(ctx, "query"));
  if (!query) return call(WIRE.sql, { sql: compiled.sql }, { step: "query", file: main.path });
  if (!ok(query)) return answer(`The query failed: ${failureText(query)}\n\n\`\`\`sql\n${compiled.sql}\n\`\`\``);

  let chartPath: string | undefined;
  if (req.chart && ctx.has(WIRE.exec)) {
    const drawn = last(stepsOf(ctx, "chart"));
    if (!drawn) {
      const code = resultChartCode(compiled, query.result?.structured, req.chart);
      if (code) return call(WIRE.exec, { code, timeoutMs: EXEC_TIMEOUT_MS }, { step: "chart", file: main.path });
    } else {
      const outcome = execOutcome(drawn);
      if (!outcome?.ok) return answer(`The query ran, but the chart failed: ${failureText(drawn)}`);
      chartPath = outcome.outputs.find((o) => o.path.endsWith(".png"))?.path;
    }
  }
  return answer(transformDone(compiled, query.result?.structured, chartPath));
};
