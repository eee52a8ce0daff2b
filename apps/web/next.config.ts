import path from "node:path";
import type { NextConfig } from "next";

const repoRoot = path.resolve(import.meta.dirname, "../..");

const nextConfig: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // tsconfig.json is the server's (NodeNext); the UI has its own bundler-style config.
  typescript: { tsconfigPath: "tsconfig.next.json" },
  // The UI is served by the custom server in server/index.ts; the monorepo root holds the lockfile.
  turbopack: { root: repoRoot },
  outputFileTracingRoot: repoRoot,
};

export default nextConfig;
