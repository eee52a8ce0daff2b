import { ROOT } from "@textide/shared";
import { PathPolicy, resolveRoots } from "@textide/shared/node";
import { createWebServer } from "./app.js";
import { loadConfig } from "./config.js";
import { consoleLogger } from "./log.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const roots = await resolveRoots([
    { name: ROOT.project, path: config.projectRoot, writable: true },
    { name: ROOT.assets, path: config.generatedAssets, writable: true },
  ]);
  const app = createWebServer({ config, policy: new PathPolicy(roots), log: consoleLogger });
  await new Promise<void>((resolve, reject) => {
    app.server.once("error", reject);
    app.server.listen(config.port, config.host, () => resolve());
  });
  const address = app.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  console.log(`textide web server listening on http://${host}:${port}`);

  const shutdown = (): void => {
    void app.close().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
