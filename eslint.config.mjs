import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import n from "eslint-plugin-n";
import tseslint from "typescript-eslint";
import globals from "globals";

const layering = (message, patterns) => ["error", { patterns: patterns.map((group) => ({ group, message })) }];

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "**/node_modules/**",
      "**/.next/**",
      "project_root/**",
      "generated_assets/**",
      "bench/.work/**",
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
    rules: {
      "no-console": ["error", { allow: ["error", "warn"] }],
      "no-restricted-imports": layering(
        "mcp-fs-server stands alone: it may import @textide/shared only (no agent, LangChain, Next or socket.io).",
        [["@textide/agent", "@langchain/*", "langchain", "next", "next/*", "socket.io", "@textide/web"]],
      ),
    },
  },
  {
    // The browser-safe layer: zod and types only.
    files: ["packages/shared/src/**"],
    ignores: ["packages/shared/src/node/**"],
    rules: {
      "no-restricted-imports": layering(
        "packages/shared's main entry is browser-safe: Node-only code goes in src/node/.",
        [["node:*", "fs", "path", "./node/*", "../node/*"]],
      ),
    },
  },
  {
    files: ["packages/*/src/**", "apps/*/src/**", "apps/*/server/**"],
    rules: {
      "no-restricted-imports": layering(
        "Nothing imports from apps/*: depend on packages/* or spawn the app's binary.",
        [["**/apps/*", "@textide/mcp-fs-server", "@textide/web"]],
      ),
    },
  },
  prettier,
);
