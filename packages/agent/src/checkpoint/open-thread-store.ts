import path from "node:path";
import { PostgresThreadStore } from "./postgres-thread-store.js";
import { SqliteThreadStore } from "./sqlite-thread-store.js";
import type { ThreadStore } from "./thread-store.js";

export interface ThreadStoreOptions {
  /** `<dataDir>/threads.sqlite` holds the threads when there is no `databaseUrl`. */
  dataDir: string;
  /** `postgres://…`: the threads live in this database instead (a team deployment). */
  databaseUrl?: string | undefined;
  /** Postgres connections lost while idle (the server restarting, a network blip). */
  onPoolError?: (err: Error) => void;
}

/** Postgres when a database URL is given, else the SQLite file in the data directory. */
export function openThreadStore(options: ThreadStoreOptions): ThreadStore {
  if (options.databaseUrl) {
    return new PostgresThreadStore(options.databaseUrl, {
      ...(options.onPoolError ? { onPoolError: options.onPoolError } : {}),
    });
  }
  return SqliteThreadStore.open(path.join(options.dataDir, "threads.sqlite"));
}
