import { completable, type McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ToolContext } from "../tools/context.js";
import { checkedFilePath } from "./check-file.js";
import { completePaths, isTable, TABLE_EXTENSIONS } from "./complete-paths.js";

export const CHART_TABLE = "chart-table";

export function registerChartTable(server: McpServer, ctx: ToolContext): void {
  server.registerPrompt(
    CHART_TABLE,
    {
      title: "Chart a table",
      description: `Render a chart from a table (${TABLE_EXTENSIONS.join(" ")}) into generated_assets/.`,
      argsSchema: z.object({
        path: completable(z.string().min(1).describe("Workspace path of the table, e.g. data/planets.xlsx"), (typed) =>
          completePaths(ctx.policy, typed ?? "", isTable),
        ),
        what: z
          .string()
          .optional()
          .describe("What to show, e.g. 'diameter of the five largest planets as a bar chart'"),
      }),
    },
    async ({ path, what }) => {
      const shown = await checkedFilePath(ctx.policy, path);
      const goal = what?.trim() ? what.trim() : "the comparison that says the most about this data";
      const text = [
        `Make a chart of ${goal} from the table \`${shown}\`.`,
        `First look at its columns with exec_run_js (\`const rows = await readTable(${JSON.stringify(shown)}); return { columns: Object.keys(rows[0] ?? {}), rows: rows.length, sample: rows.slice(0, 3) };\`).`,
        'Then, in one more exec_run_js run, pick the columns, build a Vega-Lite spec with the data inline (data.values), and render it with chart(spec, name, { format: "png" }) into generated_assets/.',
        "Answer with the chart's path and two or three sentences on what it shows.",
      ].join("\n");
      return {
        description: `Chart ${goal} from ${shown}`,
        messages: [{ role: "user", content: { type: "text", text } }],
      };
    },
  );
}
