import { defineConfig } from "vitest/config";

// Test files live beside the code (src/) or in each workspace's test/; the suffix says the kind.
const WHERE = ["packages/*/src", "packages/*/test", "apps/*/src", "apps/*/test"];
const files = (suffix: string) => WHERE.map((dir) => `${dir}/**/*${suffix}`);
const EXCLUDE = ["**/node_modules/**", "**/dist/**"];

// `vitest run` runs every project; `--project unit` (npm run test:unit) only the fast ones.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // expect.poll waits for a state the code reaches on its own time; 1 s (vitest's default) is short on a
    // busy machine, and a state that never comes still fails.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    projects: [
      {
        extends: true,
        // Pure code, real temp files: no child processes, servers or browsers.
        test: {
          name: "unit",
          include: files(".test.ts"),
          exclude: [...EXCLUDE, "**/*.int.test.ts", "**/*.e2e.test.ts"],
        },
      },
      // Real processes and servers (the MCP server's binary, the web server, the exec runner), and the
      // lint toolchain over the repo (packages/shared/test/layering.int.test.ts).
      { extends: true, test: { name: "integration", include: files(".int.test.ts"), exclude: EXCLUDE } },
      // The IDE in chromium through playwright-core.
      { extends: true, test: { name: "browser", include: files(".e2e.test.ts"), exclude: EXCLUDE } },
    ],
  },
});
