import { loadConfig } from "./config.js";
import { consoleLogger } from "./log.js";
import { startTextide } from "./start.js";

/** The entry point: settings from the environment, then the app; SIGINT/SIGTERM stop it. */
async function main(): Promise<void> {
  const textide = await startTextide(loadConfig(), consoleLogger, (text) => console.log(text));
  const shutdown = (): void => {
    void textide.close().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
