import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

// The repo's real eslint.config.mjs decides these results: each fixture is linted as if it lived in one
// layer (ESLint picks the rules by that path), so this fails if a layer's rule is missing, is replaced by a
// later block, or stops naming what the layer may import. `npm run lint` ignores these fixtures.
// An integration test: it runs ESLint with the TypeScript program and the import resolver (tens of seconds
// on a busy machine), which `npm run test:unit` must not wait for.
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURES = fileURLToPath(new URL("fixtures/layering/", import.meta.url));

const LAYERS = [
  { fixture: "shared-main", dir: "packages/shared/src", message: "packages/shared's main entry is browser-safe" },
  { fixture: "shared-node", dir: "packages/shared/src/node", message: "@textide/shared/node may import node:*" },
  { fixture: "mcp-fs-server", dir: "apps/mcp-fs-server/src", message: "mcp-fs-server stands alone" },
  { fixture: "agent", dir: "packages/agent/src/mcp", message: "packages/agent may import @textide/shared" },
  { fixture: "web-server", dir: "apps/web/server/http", message: "apps/web/server may import @textide/shared" },
  { fixture: "web-ui", dir: "apps/web/lib", message: "The web UI runs in the browser" },
];

const lintPath = (dir: string) => `${REPO}${dir}/layering-fixture.ts`;
const CYCLE = ["cycle-a.ts", "cycle-b.ts"].map((name) => `${FIXTURES}${name}`);

let eslint: ESLint;

beforeAll(() => {
  // The fixtures' lint paths exist on no disk and the fixtures belong to no tsconfig, so the type-aware
  // parser gets them through its default project; every rule and file glob is the real config's.
  const allowDefaultProject = LAYERS.map(({ dir }) => lintPath(dir).slice(REPO.length));
  eslint = new ESLint({
    cwd: REPO,
    ignore: false,
    overrideConfig: {
      files: allowDefaultProject,
      languageOptions: { parserOptions: { projectService: { allowDefaultProject, defaultProject: "tsconfig.json" } } },
    },
  });
});

async function lintFixture(
  fixture: string,
  filePath: string,
): Promise<{ text: string; messages: ESLint.LintResult["messages"] }> {
  const text = await readFile(`${FIXTURES}${fixture}.ts`, "utf8");
  const [result] = await eslint.lintText(text, { filePath });
  return { text, messages: result!.messages };
}

const importLines = (text: string): number[] =>
  text.split("\n").flatMap((line, i) => (line.startsWith("import ") ? [i + 1] : []));

// The first lint loads the config, the TypeScript program and the import resolver: tens of seconds on a
// busy machine.
describe("layering rules (eslint.config.mjs)", { timeout: 180_000 }, () => {
  it.each(LAYERS)("$dir refuses every forbidden import (fixture: $fixture)", async ({ fixture, dir, message }) => {
    const { text, messages } = await lintFixture(fixture, lintPath(dir));
    const layering = messages.filter((m) => m.ruleId === "no-restricted-imports");
    expect(layering.map((m) => m.line)).toEqual(importLines(text));
    for (const m of layering) expect(m.message).toContain(message);
  });

  it.each(LAYERS)("$dir accepts what the layer may import (fixture: $fixture, allowed)", async ({ fixture, dir }) => {
    const { messages } = await lintFixture(`${fixture}.allowed`, lintPath(dir));
    expect(messages.map((m) => `${m.line}: ${m.ruleId ?? ""} ${m.message}`)).toEqual([]);
  });

  it("reports an import cycle between two modules", async () => {
    const results = await eslint.lintFiles(CYCLE);
    for (const result of results) {
      expect(result.messages.map((m) => [m.ruleId, m.message])).toEqual([
        ["import-x/no-cycle", "Dependency cycle detected"],
      ]);
    }
  });
});
