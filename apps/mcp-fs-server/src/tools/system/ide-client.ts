import { FsError } from "@textide/shared/node";

/** Talks to the running textide web server's open-file API. */
export interface IdeClient {
  /** Asks every connected browser to open `path`; resolves with how many were reached. */
  openFile(path: string, line?: number): Promise<number>;
}

const TIMEOUT_MS = 3000;

export function createIdeClient(baseUrl: string | undefined, token: string | undefined): IdeClient {
  return {
    async openFile(path, line) {
      if (!baseUrl) {
        throw new FsError(
          "unavailable",
          "No textide IDE is connected to this server (no IDE URL configured). The file exists; tell the user its path instead.",
        );
      }
      const url = new URL("/api/open-file", baseUrl);
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
          body: JSON.stringify({ path, ...(line ? { line } : {}) }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
        });
      } catch (err) {
        throw new FsError(
          "unavailable",
          `The textide IDE is not running at ${url.origin} (${(err as Error).name === "TimeoutError" ? "no answer" : "connection refused"}). The file exists; tell the user its path instead.`,
          { cause: err },
        );
      }
      if (!res.ok) {
        const detail = (await res.text().catch(() => "")).slice(0, 200);
        throw new FsError(
          "unavailable",
          `The IDE refused to open the file (HTTP ${res.status}${detail ? `: ${detail}` : ""}).`,
        );
      }
      const body = (await res.json().catch(() => ({}))) as { clients?: unknown };
      return typeof body.clients === "number" ? body.clients : 0;
    },
  };
}
