import { builtinModules } from "node:module";
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import importX from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import n from "eslint-plugin-n";
import tseslint from "typescript-eslint";
import globals from "globals";

// Layering (AGENTS.md's table). Flat config applies only the last matching block's options for a rule, so
// each layer gets exactly one `no-restricted-imports` block, with every pattern it needs, and the layers'
// globs never overlap: a shared catch-all block would silently replace the specific ones again.
const NODE_BUILTINS = builtinModules.filter((m) => !m.startsWith("_"));
const APPS = ["**/apps/*", "**/mcp-fs-server/**", "@textide/mcp-fs-server", "@textide/web", "@textide/web/*"];
const LANGCHAIN = ["langchain", "langchain/*", "@langchain/*"];
const NEXT_AND_REACT = ["next", "next/*", "react", "react/*", "react-dom", "react-dom/*"];
const WEB_SERVER_LIBS = ["socket.io", "chokidar"];

/** One rule per layer: exact module names as `paths`, globs as `patterns`, all with the layer's message. */
const layer = (files, message, { names = [], patterns = [] }, ignores = []) => ({
  files,
  ignores: ["**/*.test.ts", ...ignores],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        paths: names.map((name) => ({ name, message })),
        patterns: [{ group: [...patterns, ...APPS], message }],
      },
    ],
  },
});

const LAYERS = [
  layer(
    ["packages/shared/src/**"],
    "packages/shared's main entry is browser-safe (zod and its own modules only): Node-only code goes in src/node/ (@textide/shared/node). Nothing imports apps/*.",
    {
      names: [...NODE_BUILTINS, ...WEB_SERVER_LIBS],
      patterns: ["node:*", "@textide/*", "./node", "./node/*", "../node/*", ...LANGCHAIN, ...NEXT_AND_REACT],
    },
    ["packages/shared/src/node/**"],
  ),
  layer(
    ["packages/shared/src/node/**"],
    "@textide/shared/node may import node:* and the shared entry only (no agent, LangChain, Next or socket.io). Nothing imports apps/*.",
    { names: WEB_SERVER_LIBS, patterns: ["@textide/*", ...LANGCHAIN, ...NEXT_AND_REACT] },
  ),
  layer(
    ["apps/mcp-fs-server/src/**"],
    "mcp-fs-server stands alone: it may import @textide/shared, @textide/shared/node and the MCP SDK (no agent, LangChain, Next or socket.io). Nothing imports apps/*.",
    { names: WEB_SERVER_LIBS, patterns: ["@textide/agent", "@textide/agent/*", ...LANGCHAIN, ...NEXT_AND_REACT] },
  ),
  layer(
    ["packages/agent/src/**"],
    "packages/agent may import @textide/shared, LangChain/LangGraph and the MCP client SDK; it reaches files through MCP tools, not @textide/shared/node. Nothing imports apps/*.",
    {
      names: WEB_SERVER_LIBS,
      patterns: [
        "@textide/shared/node",
        "@modelcontextprotocol/server",
        "@modelcontextprotocol/node",
        ...NEXT_AND_REACT,
      ],
    },
  ),
  layer(
    ["apps/web/server/**"],
    "apps/web/server may import @textide/shared, @textide/shared/node and @textide/agent; it spawns mcp-fs-server's binary and never imports it or the UI (app/, components/, hooks/, lib/). Nothing imports apps/*.",
    {
      patterns: [
        "@/*",
        ...["app", "components", "hooks", "lib"].flatMap((d) => [`../${d}/*`, `../../${d}/*`]),
        ...LANGCHAIN,
        "react",
        "react/*",
        "react-dom",
        "react-dom/*",
      ],
    },
  ),
  layer(
    ["apps/web/app/**", "apps/web/components/**", "apps/web/hooks/**", "apps/web/lib/**"],
    "The web UI runs in the browser: among workspace packages it imports @textide/shared only (no node:*, @textide/shared/node, @textide/agent or apps/web/server). Nothing imports apps/*.",
    {
      names: [...NODE_BUILTINS, ...WEB_SERVER_LIBS],
      patterns: [
        "node:*",
        "@textide/shared/node",
        "@textide/agent",
        "@textide/agent/*",
        "@/server/*",
        "**/server/*",
        ...LANGCHAIN,
      ],
    },
  ),
];

/** Source files checked for import cycles; tests are left out (they may import freely, and each file checked costs). */
const CYCLE_CHECKED = [
  "packages/*/src/**/*.ts",
  "apps/mcp-fs-server/src/**/*.ts",
  "apps/web/server/**/*.ts",
  "apps/web/{app,components,hooks,lib}/**/*.{ts,tsx}",
  // Ignored by `npm run lint`; packages/shared/test/layering.int.test.ts lints them to prove the rule is live.
  "packages/shared/test/fixtures/layering/cycle-*.ts",
];

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "**/.next/**",
      "project_root/**",
      "generated_assets/**",
      "bench/.work/**",
      // Forbidden imports on purpose; packages/shared/test/layering.int.test.ts lints them explicitly.
      "packages/shared/test/fixtures/layering/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((c) => ({ ...c, files: ["**/*.ts", "**/*.tsx"] })),
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parserOptions: { projectService: true } },
    plugins: { n },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "n/prefer-node-protocol": "error",
    },
  },
  {
    files: ["**/*.mjs"],
    plugins: { n },
    languageOptions: { globals: globals.node },
    rules: {
      "n/prefer-node-protocol": "error",
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["**/*.test.ts", "**/test/**/*.ts"],
    rules: { "@typescript-eslint/no-non-null-assertion": "off", "@typescript-eslint/unbound-method": "off" },
  },
  {
    // stdout is the JSON-RPC channel under stdio: only stderr logging is allowed.
    files: ["apps/mcp-fs-server/src/**"],
    rules: { "no-console": ["error", { allow: ["error", "warn"] }] },
  },
  ...LAYERS,
  {
    files: CYCLE_CHECKED,
    ignores: ["**/*.test.ts"],
    plugins: { "import-x": importX },
    settings: {
      // Without these the plugin skips .ts dependencies and finds no cycle at all.
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [
        createTypeScriptImportResolver({
          project: ["packages/*/tsconfig.json", "apps/*/tsconfig.json", "apps/web/tsconfig.next.json"],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    // Type-only imports are erased and never form a cycle at run time (the rule skips them).
    rules: { "import-x/no-cycle": ["error", { ignoreExternal: true }] },
  },
  prettier,
);
